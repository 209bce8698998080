#pragma once
// A model's command-line command. The application owns the common options (--precision, --json,
// --output, --quiet, --threads, --device-id) and the Kokkos session; a command adds its own
// options, validates them, checks that the run fits (require_memory) and runs its solver through
// the backend (models/parity/<m>/entry.hpp, instantiated in backends/).
#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <vector>

#include "parity/precision.hpp"
#include "parity/report/output_files.hpp"
#include "parity/report/run_report.hpp"
#include "parity/run/progress.hpp"

namespace parity::cli {

// Problem sizes of the embedded default cases (`run --all --size ...`).
enum class Size { small, medium, large };

// The statuses a run report may carry, the same for every command.
namespace status {
inline constexpr char const* ok = "ok";  // finished; nothing iterates to a tolerance
inline constexpr char const* converged = "converged";  // met its tolerance
inline constexpr char const* not_converged = "not_converged";  // stopped at an iteration cap
inline constexpr char const* budget_exhausted = "budget_exhausted";  // stopped by an evaluation or memory budget
inline constexpr char const* non_finite = "non_finite";  // a result is NaN or infinite
// Stopped by its wall-clock limit (--time-limit) between two steps; a checkpoint, where one was
// asked for, continues it with --resume.
inline constexpr char const* time_limit = "time_limit";
}  // namespace status

// Whether a status is a success (exit 0); every other status exits with 3.
inline bool succeeded(std::string const& s) { return s == status::ok || s == status::converged; }

// What the machine offers the run, known once the Kokkos session has started.
struct Resources {
  std::size_t device_memory_bytes = 0;  // 0: the kernels run on the host, in host memory
  std::size_t host_memory_bytes = 0;  // the host's physical memory (0: unknown)
  int concurrency = 0;
};

struct Context {
  Precision precision = Precision::f64;
  report::OutputFolder* output = nullptr;  // where arrays go; nullptr: do not write arrays
  run::Progress& progress;
  Resources resources{};
};

// Throws InvalidInput (exit 2, before any allocation) when a run that needs about `device_bytes`
// in its execution space's memory and `host_bytes` in host memory cannot fit; `what` says what
// the memory holds, e.g. "--grid 1000,1000,1000: V, u on 1e9 points". On host backends both
// count against the host's physical memory.
void require_memory(Context const& context, double device_bytes, double host_bytes, std::string const& what);

// A warning on stderr, printed even with --quiet (e.g. a run that will take very long).
void warn(std::string const& text);

// "1.5 GiB", "37.3 GiB", "8.0 TiB".
std::string format_bytes(double bytes);

// "0.012 s", "45 s", "12 min", "3.1 h", "2.5 days".
std::string format_duration(double seconds);

class Command {
 public:
  virtual ~Command() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Adds the command's own options to its subcommand.
  virtual void add_options(CLI::App& sub) = 0;
  // Whether the command writes arrays (--output) and honours --precision.
  virtual bool writes_arrays() const { return true; }
  virtual bool has_precision() const { return true; }
  // The command's own options that name a file it writes (e.g. --checkpoint). The application
  // checks each one given before any work as it checks --json: not empty, writable, landing on no
  // file or folder of another output option.
  virtual std::vector<std::string> file_options() const { return {}; }
  // Files the command writes into its --output folder besides manifest.json and the arrays
  // (<name>.npy), e.g. coeffs.txt: no --json or file option may land on them.
  virtual std::vector<std::string> output_files() const { return {}; }
  // Runs with the parsed options. Throws InvalidInput for bad parameters.
  virtual report::RunReport execute(Context& context) = 0;
  // Runs the embedded default case of the given size.
  virtual report::RunReport run_default(Context& context, Size size) = 0;
  // One line for a human: the main results of a report.
  virtual std::string summarize(report::RunReport const& report) const = 0;
  // Whether the command splits its work across MPI ranks (parity/run/ranks.hpp). One that does not
  // is refused when started on several ranks, rather than repeating the same work on each.
  virtual bool distributed() const { return false; }
  // Why this build cannot run the command (it was built without an optional dependency), or empty
  // when it can. A build limitation, not bad input: the command and `run --model` exit 1 with this
  // message; `run --all` names the command as skipped and goes on.
  virtual std::string unavailable() const { return {}; }
};

}  // namespace parity::cli
