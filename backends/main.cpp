// parity-<backend>: the command-line entry point. The backend is fixed at build time.
#include "backends/application.hpp"

int main(int argc, char** argv) { return parity::backend::run_application(argc, argv); }
