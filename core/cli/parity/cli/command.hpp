#pragma once
// A model's command-line command. The application owns the common options (--precision, --json,
// --output, --quiet) and the Kokkos session; a command adds its own options, validates them and
// runs its solver through the backend (models/<m>/run.hpp, instantiated in backends/).
#include <CLI/CLI.hpp>
#include <string>

#include "parity/precision.hpp"
#include "parity/report/run_report.hpp"
#include "parity/run/progress.hpp"

namespace parity::cli {

// Problem sizes of the embedded default cases (`run --all --size ...`).
enum class Size { small, medium, large };

struct Context {
  Precision precision = Precision::f64;
  std::string output_dir;  // where arrays go; empty: do not write arrays
  run::Progress& progress;
};

class Command {
 public:
  virtual ~Command() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Adds the command's own options to its subcommand.
  virtual void add_options(CLI::App& sub) = 0;
  // Runs with the parsed options. Throws InvalidInput for bad parameters.
  virtual report::RunReport execute(Context& context) = 0;
  // Runs the embedded default case of the given size.
  virtual report::RunReport run_default(Context& context, Size size) = 0;
  // One line for a human: the main results of a report.
  virtual std::string summarize(report::RunReport const& report) const = 0;
  // Whether the command splits its work across MPI ranks (parity/run/ranks.hpp). One that does not
  // is refused when started on several ranks, rather than repeating the same work on each.
  virtual bool distributed() const { return false; }
};

}  // namespace parity::cli
