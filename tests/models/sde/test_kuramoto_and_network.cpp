// The Kuramoto and network Kuramoto tests in one translation unit (the build with Kokkos Kernels
// compiles this file in place of the two): both instantiate kuramoto.hpp's device-lambda kernels,
// which must be instantiated in one CUDA unit (see backends/models/sde.cpp), or running one set
// alone can reach the other unit's unset lambda deleters.
#include "test_kuramoto.cpp"
#include "test_network_kuramoto.cpp"
