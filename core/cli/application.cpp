#include "parity/cli/application.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "parity/cli/numbers.hpp"
#include "parity/report/build_info.hpp"
#include "parity/report/console.hpp"
#include "parity/report/output_files.hpp"
#include "parity/report/run_report.hpp"
#include "parity/run/backend_info.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/ranks.hpp"

namespace parity::cli {
namespace {

constexpr int exit_ok = 0, exit_error = 1, exit_bad_input = 2, exit_not_converged = 3;

constexpr char const* exit_codes_help =
    "Exit status: 0 success; 2 bad input (nothing was run); 3 the run ended with status not_converged, "
    "budget_exhausted, time_limit or non_finite (the report is still written); 1 any other failure, "
    "including a command this build lacks.\n"
    "Statuses (JSON \"status\"): converged (met its tolerance), ok (finished; nothing iterates to a tolerance), "
    "not_converged (stopped at an iteration cap), budget_exhausted (stopped by an evaluation or memory budget), "
    "time_limit (stopped by --time-limit; --checkpoint FILE lets --resume FILE continue it), "
    "non_finite (a result is NaN or infinite).";

// Whether the user gave an option (an empty value counts: it is refused, not ignored).
bool given(CLI::Option const* option) { return option != nullptr && option->count() > 0; }
bool given(std::vector<CLI::Option*> const& options) {
  return std::any_of(options.begin(), options.end(), [](CLI::Option const* o) { return given(o); });
}

struct CommonOptions {
  std::string precision = "double";
  std::string json_path;
  std::string output_dir;
  bool quiet = false;
  CLI::Option* json_option = nullptr;
  CLI::Option* output_option = nullptr;
};

struct HostOptions {
  std::string threads, device_id;  // as typed
  std::vector<CLI::Option*> threads_options, device_options;  // on the application and each command
};

constexpr char const* json_help =
    "Write the machine-readable report (JSON) to this file, creating missing folders; - : standard output, which "
    "then holds only the report (the summary and progress lines go to standard error)";

void add_host_options(CLI::App& app, HostOptions& host) {
  host.threads_options.push_back(
      app.add_option("--threads", host.threads,
                     "Host threads of the OpenMP backend (default: OMP_NUM_THREADS or all cores); ignored by Serial"));
  host.device_options.push_back(
      app.add_option("--device-id", host.device_id, "GPU to use on the CUDA backend (default: 0)"));
}

void add_common_options(CLI::App& sub, CommonOptions& common, HostOptions& host, bool with_output = true,
                        bool with_precision = true) {
  if (with_precision)
    sub.add_option("--precision", common.precision, "Floating-point precision: float or double")
        ->check(CLI::IsMember({"float", "double"}))
        ->capture_default_str();
  common.json_option = sub.add_option("--json", common.json_path, json_help);
  if (with_output)
    common.output_option =
        sub.add_option("--output", common.output_dir,
                       "Write result arrays (.npy) and manifest.json, which lists them, into this folder (created "
                       "with any missing parent folders)");
  sub.add_flag("--quiet,-q", common.quiet, "No progress lines");
  add_host_options(sub, host);
}

std::string joined_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

std::size_t edit_distance(std::string const& a, std::string const& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t const up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string nearest(std::string const& word, std::vector<std::string> const& names) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (auto const& n : names) {
    std::size_t const d = edit_distance(word, n);
    if (d < best_d) best_d = d, best = n;
  }
  return best_d <= std::max<std::size_t>(2, word.size() / 3) ? best : std::string();
}

// The first word that is not an option (or an option's value) must name a command: say which word
// is unknown and the nearest command, instead of CLI11's "A subcommand is required".
std::optional<std::string> unknown_command(int argc, char** argv, std::vector<std::string> const& names) {
  for (int i = 1; i < argc; ++i) {
    std::string const a = argv[i];
    if (a == "--") return std::nullopt;
    if (!a.empty() && a[0] == '-') {
      if ((a == "--threads" || a == "--device-id") && i + 1 < argc) ++i;  // takes a value
      continue;
    }
    if (std::find(names.begin(), names.end(), a) != names.end()) return std::nullopt;
    std::string known;
    for (auto const& n : names) known += (known.empty() ? "" : ", ") + n;
    std::string const near = nearest(a, names);
    return fmt::format("unknown command '{}'{} (commands: {})", a,
                       near.empty() ? "" : fmt::format("; did you mean '{}'?", near), known);
  }
  return std::nullopt;
}

// The first number of an OMP_NUM_THREADS-style variable ("8" or "8,4"), if set.
std::optional<std::string> thread_variable(char const* name) {
  char const* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  std::string s = v;
  return s.substr(0, s.find(','));
}

// Threads the Kokkos session is asked for (-1: Kokkos' choice), checked against the backend's
// limit before Kokkos starts: past it the OpenMP backend hangs or crashes.
int checked_threads(HostOptions const& host, int max_threads) {
  std::int64_t const hi = max_threads > 0 ? max_threads : std::numeric_limits<int>::max();
  if (given(host.threads_options)) {
    require(!host.threads.empty(), "--threads: the value is empty (give a number of threads)");
    auto const n = parse_count(host.threads, "--threads", 1, std::numeric_limits<int>::max());
    require(n <= hi, fmt::format("--threads {}: this backend runs at most {} threads", n, hi));
    return int(n);
  }
  for (char const* name : {"KOKKOS_NUM_THREADS", "OMP_NUM_THREADS"}) {
    auto const v = thread_variable(name);
    if (!v) continue;
    std::int64_t n = 0;
    try {
      n = parse_count(*v, name, 1, std::numeric_limits<int>::max());
    } catch (InvalidInput const&) {
      throw InvalidInput(
          fmt::format("{}={} is not a positive whole number (unset it or pass --threads N)", name, std::getenv(name)));
    }
    require(n <= hi, fmt::format("{}={}: this backend runs at most {} threads (set it lower or pass --threads N)", name,
                                 std::getenv(name), hi));
  }
  return -1;
}

int checked_device(HostOptions const& host) {
  if (!given(host.device_options)) return -1;
  require(!host.device_id.empty(), "--device-id: the value is empty (give a GPU number)");
  return int(parse_count(host.device_id, "--device-id", 0, 1023));
}

// Physical memory of the host: MemTotal of /proc/meminfo, else sysconf.
std::size_t host_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  std::size_t kib = 0;
  std::string unit;
  while (in >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024;
  long const pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : 0;
}

Resources resources_of(run::BackendInfo const& b) {
  Resources r;
  r.device_memory_bytes = b.device_memory_bytes;
  r.host_memory_bytes = host_memory_bytes();
  r.concurrency = b.concurrency;
  return r;
}

// Every floating-point option takes only finite numbers and every integer option the count syntax
// (1e6), so each message names the option as typed.
void apply_number_syntax(CLI::App& sub) {
  for (CLI::Option* o : sub.get_options()) {
    try {
      o->get_validator("count");
      continue;  // the command gave it its own range
    } catch (CLI::OptionNotFound const&) {
    }
    std::string const type = o->get_type_name();
    if (type == "FLOAT") o->check(finite_number());
    if (type == "INT")
      o->transform(count_syntax(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()));
    if (type == "UINT") o->transform(count_syntax(0, std::numeric_limits<std::int64_t>::max()));
  }
}

// CLI11 names an option by its long name ("--oscillators: ..."); when the user typed a short alias
// instead (-N), the message names that spelling first: "-N (--oscillators): ...". Empty when
// nothing is to be rewritten.
std::optional<std::string> message_as_typed(CLI::ParseError const& e, CLI::App& app, int argc, char** argv) {
  std::string const text = e.what();
  auto const colon = text.find(':');
  if (e.get_exit_code() == 0 || text.rfind("--", 0) != 0 || colon == std::string::npos) return std::nullopt;
  std::string const name = text.substr(0, colon);
  std::vector<std::string> args(argv + 1, argv + argc);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (std::find(args.begin(), args.end(), sub->get_name()) == args.end()) continue;
    CLI::Option const* option = sub->get_option_no_throw(name);
    if (option == nullptr) continue;
    bool long_typed = false;
    std::string short_typed;
    for (auto const& a : args) {
      long_typed = long_typed || a == name || a.rfind(name + "=", 0) == 0;
      for (auto const& s : option->get_snames())
        if (a.size() >= 2 && a[0] == '-' && a[1] != '-' && a.compare(1, s.size(), s) == 0) short_typed = "-" + s;
    }
    if (long_typed || short_typed.empty()) return std::nullopt;
    return short_typed + " (" + name + ")" + text.substr(colon);
  }
  return std::nullopt;
}

std::string manifest_model(std::string const& command) {
  std::string m = command;
  std::replace(m.begin(), m.end(), '-', '_');
  return m;
}

// Checks the --json file and --output folder a command was given (before any work) and returns
// them, for check_distinct_outputs; `files`: what the command writes into --output besides
// manifest.json and the arrays.
std::vector<report::PlannedOutput> checked_outputs(CommonOptions const& common,
                                                   std::vector<std::string> const& files = {}) {
  std::vector<report::PlannedOutput> planned;
  if (given(common.json_option)) {
    report::check_output_file(common.json_path, "--json", true);
    planned.push_back({"--json", common.json_path});
  }
  if (given(common.output_option)) {
    report::check_output_folder(common.output_dir, "--output");
    planned.push_back({"--output", common.output_dir, true, true, files});
  }
  return planned;
}

// On several ranks, only rank 0 prints and writes files; a command that does not split its work
// across ranks is refused (it would repeat the same work on each).
void require_distributed(Command const& command) {
  int const n = run::ranks::size();
  require(n == 1 || command.distributed(), command.name() + " runs on one rank only, but was started on " +
                                               std::to_string(n) + " ranks (mpirun -np " + std::to_string(n) +
                                               "); start it without mpirun or with -np 1");
}

// Before a non-zero exit status on several ranks: mpirun ends every rank once one exits non-zero,
// so no rank leaves before rank 0 has flushed its output and written its files.
void leave_together() {
  std::fflush(nullptr);
  run::ranks::max(0.0);
}

}  // namespace

std::string format_bytes(double bytes) {
  char const* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
  return fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string format_duration(double seconds) {
  if (!(seconds < 1e300)) return "an unknown time";
  if (seconds < 1) return fmt::format("{:.2g} s", seconds);
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  if (seconds < 2 * 86400) return fmt::format("{:.1f} h", seconds / 3600);
  return fmt::format("{:.3g} days", seconds / 86400);
}

void require_memory(Context const& context, double device_bytes, double host_bytes, std::string const& what) {
  auto const& r = context.resources;
  if (r.device_memory_bytes > 0) {
    require(device_bytes <= 0.9 * double(r.device_memory_bytes),
            fmt::format("{} needs about {} of device memory; the device has {}", what, format_bytes(device_bytes),
                        format_bytes(double(r.device_memory_bytes))));
    if (r.host_memory_bytes > 0)
      require(host_bytes <= 0.9 * double(r.host_memory_bytes),
              fmt::format("{} needs about {} of host memory; the host has {}", what, format_bytes(host_bytes),
                          format_bytes(double(r.host_memory_bytes))));
    return;
  }
  if (r.host_memory_bytes > 0)
    require(device_bytes + host_bytes <= 0.9 * double(r.host_memory_bytes),
            fmt::format("{} needs about {} of memory; the host has {}", what, format_bytes(device_bytes + host_bytes),
                        format_bytes(double(r.host_memory_bytes))));
}

void warn(std::string const& text) {
  if (!run::ranks::root()) return;  // every rank has the same: rank 0 says it once
  std::fprintf(stderr, "warning: %s\n", text.c_str());
  std::fflush(stderr);
}

int run_application(int argc, char** argv, std::vector<std::unique_ptr<Command>> commands, Runtime const& runtime) {
  auto const build = report::build_info();
  CLI::App app{
      "Parity: scientific solvers written once in Kokkos, built for Serial, OpenMP and CUDA.\n"
      "Each command accepts --help.",
      "parity"};
  app.require_subcommand(1);
  app.footer(exit_codes_help);
  app.set_version_flag("--version", fmt::format("parity {} (commit {}), {} backend", build.parity_version,
                                                build.git_commit, runtime.backend));
  HostOptions host;
  add_host_options(app, host);

  std::vector<std::string> command_names = {"info", "run"};
  for (auto const& c : commands) command_names.push_back(c->name());
  std::string model_names;
  for (auto const& c : commands) model_names += (model_names.empty() ? "" : ", ") + c->name();

  CommonOptions info_options;
  auto* info = app.add_subcommand("info", "Print backend, Kokkos version, device and build facts");
  info_options.json_option =
      info->add_option("--json", info_options.json_path,
                       "Also write them as JSON to this file (- : standard output, which then holds only the JSON)");
  add_host_options(*info, host);
  info->footer(exit_codes_help);

  CommonOptions run_options;
  std::string size_text = "small";
  bool run_all = false;
  std::vector<std::string> run_models;
  auto* run_cmd = app.add_subcommand("run", "Run each model's embedded default case and print a summary");
  run_cmd->add_flag("--all", run_all, "Run every model: " + model_names);
  run_cmd->add_option("--model", run_models, "Run only this model (repeatable): " + model_names);
  run_cmd->add_option("--size", size_text, "Problem size: small, medium or large")
      ->check(CLI::IsMember({"small", "medium", "large"}))
      ->capture_default_str();
  add_common_options(*run_cmd, run_options, host);
  run_cmd->footer(std::string("With --output DIR each model writes into DIR/<model>/ (arrays and manifest.json). "
                              "In float precision the built-in cubature cases ask for a relative tolerance of "
                              "1e-3 (1e-6 or 1e-5 in double): float's rounding of the sums stops tighter ones.\n") +
                  exit_codes_help);

  std::map<std::string, CommonOptions> model_options;
  std::vector<std::pair<CLI::App*, Command*>> model_subcommands;
  for (auto& command : commands) {
    auto* sub = app.add_subcommand(command->name(), command->description());
    add_common_options(*sub, model_options[command->name()], host, command->writes_arrays(), command->has_precision());
    command->add_options(*sub);
    apply_number_syntax(*sub);
    sub->footer(exit_codes_help);
    model_subcommands.emplace_back(sub, command.get());
  }

  if (auto const unknown = unknown_command(argc, argv, command_names)) {
    std::fprintf(stderr, "error: %s\n", unknown->c_str());
    return exit_bad_input;
  }
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    if (auto const typed = message_as_typed(e, app, argc, argv)) {
      std::fprintf(stderr, "%s\nRun with --help for more information.\n", typed->c_str());
      return exit_bad_input;
    }
    int const code = app.exit(e);
    return code == 0 ? exit_ok : exit_bad_input;
  }

  std::string const command_line = joined_command_line(argc, argv);
  try {
    // Everything a user can get wrong about the machine and the files is checked before Kokkos starts.
    int const threads = checked_threads(host, runtime.max_threads);
    int const device_id = checked_device(host);
    if (*info) checked_outputs(info_options);
    auto const run_outputs = *run_cmd ? checked_outputs(run_options) : std::vector<report::PlannedOutput>{};
    for (auto& [sub, command] : model_subcommands) {
      if (!*sub) continue;
      auto planned = checked_outputs(model_options[command->name()], command->output_files());
      for (auto const& name : command->file_options()) {
        CLI::Option const* option = sub->get_option_no_throw(name);
        if (!given(option)) continue;
        auto const path = option->as<std::string>();
        report::check_output_file(path, name);
        planned.push_back({name, path});
      }
      report::check_distinct_outputs(planned);
    }
    if (!run::ranks::root()) {
      for (auto* common : {&info_options, &run_options})
        common->json_path.clear(), common->output_dir.clear(), common->quiet = true;
      for (auto& [name, common] : model_options)
        common.json_path.clear(), common.output_dir.clear(), common.quiet = true;
      std::fflush(stdout);
      if (std::freopen("/dev/null", "w", stdout) == nullptr) return exit_error;
    }
    // Standard output that takes the report takes nothing else.
    for (auto const* common : {&info_options, &run_options})
      if (common->json_path == report::standard_output_name) report::reserve_standard_output();
    for (auto const& [name, common] : model_options)
      if (common.json_path == report::standard_output_name) report::reserve_standard_output();

    if (*info) {
      auto const session = runtime.start(threads, device_id);
      auto const b = runtime.describe();
      std::fputs(report::describe(b).c_str(), stdout);
      if (!info_options.json_path.empty()) {
        report::RunReport r;
        r.command = command_line;
        r.model = "info";
        r.backend = b;
        r.status = status::ok;
        r.timing_note = "nothing timed";
        report::write_json(info_options.json_path, report::to_json(r));
      }
      return exit_ok;
    }

    auto make_progress = [](bool quiet) -> std::unique_ptr<run::Progress> {
      if (quiet) return std::make_unique<run::SilentProgress>();
      return std::make_unique<report::ConsoleProgress>();
    };
    auto json_name = [](CommonOptions const& c) -> std::optional<std::string> {
      if (c.json_path.empty()) return std::nullopt;
      return c.json_path;
    };

    if (*run_cmd) {
      require(run_all || !run_models.empty(), "run: say --all or name models with --model (" + model_names + ")");
      require(!(run_all && !run_models.empty()), "run: --all runs every model; leave out --model, or --all");
      for (auto const& m : run_models) {
        bool known = false;
        for (auto& [sub, command] : model_subcommands) known = known || command->name() == m;
        if (!known) {
          std::vector<std::string> names;
          for (auto& [sub, command] : model_subcommands) names.push_back(command->name());
          std::string const near = nearest(m, names);
          throw InvalidInput(fmt::format("run: unknown model '{}'{} (models: {})", m,
                                         near.empty() ? "" : fmt::format("; did you mean '{}'?", near), model_names));
        }
      }
      // Each model writes its arrays into its own folder of --output: no other output may land there.
      if (!run_options.output_dir.empty()) {
        auto planned = run_outputs;
        for (auto& output : planned) output.arrays = !output.folder;  // the folder holds the models' folders
        for (auto& [sub, command] : model_subcommands)
          if (command->writes_arrays() &&
              (run_all || std::find(run_models.begin(), run_models.end(), command->name()) != run_models.end()))
            planned.push_back(
                {"--output", run_options.output_dir + "/" + command->name(), true, true, command->output_files()});
        report::check_distinct_outputs(planned);
      }
      // A model named with --model must be built and split its work across the ranks; --all runs
      // the models that are and do, and names the others as skipped.
      for (auto& [sub, command] : model_subcommands)
        if (std::find(run_models.begin(), run_models.end(), command->name()) != run_models.end()) {
          if (auto const why = command->unavailable(); !why.empty())
            throw std::runtime_error(fmt::format("run --model {}: {}", command->name(), why));
          require_distributed(*command);
        }
      bool const several_ranks = run::ranks::size() > 1;
      Size const size = size_text == "large" ? Size::large : (size_text == "medium" ? Size::medium : Size::small);
      auto progress = make_progress(run_options.quiet);
      auto const session = runtime.start(threads, device_id);
      auto const b = runtime.describe();
      std::fprintf(stdout, "parity-%s on %s, %s precision, size %s\n", b.backend.c_str(), b.device_name.c_str(),
                   run_options.precision.c_str(), size_text.c_str());
      nlohmann::json all = nlohmann::json::array(), skipped = nlohmann::json::array();
      bool all_succeeded = true;
      int ran = 0;
      auto skip = [&](Command const& command, std::string const& why) {
        std::fprintf(stdout, "  %-14s skipped: %s\n", command.name().c_str(), why.c_str());
        skipped.push_back({{"model", command.name()}, {"reason", why}});
      };
      for (auto& [sub, command] : model_subcommands) {
        if (!run_all && std::find(run_models.begin(), run_models.end(), command->name()) == run_models.end()) continue;
        if (auto const why = command->unavailable(); !why.empty()) {  // no folder, no manifest, no report
          skip(*command, why);
          continue;
        }
        if (several_ranks && !command->distributed()) {
          skip(*command, fmt::format("runs on one rank only (started on {} ranks)", run::ranks::size()));
          continue;
        }
        std::optional<report::OutputFolder> folder;
        if (!run_options.output_dir.empty() && command->writes_arrays())
          folder.emplace(run_options.output_dir + "/" + command->name(), "run", manifest_model(command->name()));
        Context context{*parse_precision(run_options.precision), folder ? &*folder : nullptr, *progress,
                        resources_of(b)};
        if (runtime.reset_memory) runtime.reset_memory();
        auto r = command->run_default(context, size);
        if (runtime.memory) r.memory = runtime.memory();
        report::gather_rank_times(r);
        r.command = command_line;
        r.backend = b;
        r.precision = context.precision;
        std::fprintf(stdout, "  %-14s %8.3f s  %s  [%s]\n", command->name().c_str(), r.phases.total(),
                     command->summarize(r).c_str(), r.status.c_str());
        std::fflush(stdout);
        // The status is the same on every rank: rank 0 says it once.
        if (!succeeded(r.status) && run::ranks::root())
          std::fprintf(stderr, "%s: status %s\n", command->name().c_str(), r.status.c_str());
        all_succeeded = all_succeeded && succeeded(r.status);
        all.push_back(report::to_json(r));
        if (folder) folder->write_manifest(json_name(run_options));
        ++ran;
      }
      if (ran == 0) std::fprintf(stdout, "  (no models in this build)\n");
      if (!run_options.json_path.empty())
        report::write_json(run_options.json_path, {{"runs", all}, {"skipped", skipped}});
      if (!all_succeeded) leave_together();
      return all_succeeded ? exit_ok : exit_not_converged;
    }

    for (auto& [sub, command] : model_subcommands) {
      if (!*sub) continue;
      auto const& common = model_options[command->name()];
      auto progress = make_progress(common.quiet);
      std::optional<report::OutputFolder> folder;
      if (!common.output_dir.empty())
        folder.emplace(common.output_dir, command->name(), manifest_model(command->name()));
      require_distributed(*command);
      auto const session = runtime.start(threads, device_id);
      auto const b = runtime.describe();
      Context context{*parse_precision(common.precision), folder ? &*folder : nullptr, *progress, resources_of(b)};
      if (runtime.reset_memory) runtime.reset_memory();
      auto r = command->execute(context);
      if (runtime.memory) r.memory = runtime.memory();
      report::gather_rank_times(r);
      r.command = command_line;
      r.backend = b;
      r.precision = context.precision;
      std::fprintf(stdout, "%s: %s  (%.3f s, %ld iterations, status %s)\n", command->name().c_str(),
                   command->summarize(r).c_str(), r.phases.total(), r.iterations, r.status.c_str());
      if (!common.json_path.empty()) report::write_json(common.json_path, report::to_json(r));
      if (folder) folder->write_manifest(json_name(common));
      if (!succeeded(r.status)) {
        std::string const why = r.status == status::non_finite ? "a result is not finite (NaN or infinite)"
                                : r.status == status::budget_exhausted
                                    ? "the budget ran out before the tolerance was met"
                                : r.status == status::time_limit ? "stopped by --time-limit before it finished"
                                                                 : "did not converge";
        if (run::ranks::root())  // the status is the same on every rank: said once
          std::fprintf(stderr, "%s: %s (status %s)\n", command->name().c_str(), why.c_str(), r.status.c_str());
        leave_together();
        return exit_not_converged;
      }
      return exit_ok;
    }
  } catch (InvalidInput const& e) {
    if (run::ranks::root()) std::fprintf(stderr, "error: %s\n", e.what());  // every rank has the same
    return exit_bad_input;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return exit_error;
  }
  return exit_error;  // unreachable: require_subcommand(1)
}

}  // namespace parity::cli
