#include "parity/cli/application.hpp"

#include <cstdio>
#include <exception>
#include <map>
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "parity/report/console.hpp"
#include "parity/report/run_report.hpp"
#include "parity/run/backend_info.hpp"
#include "parity/run/errors.hpp"
#include "parity/run/ranks.hpp"

namespace parity::cli {
namespace {

constexpr int exit_ok = 0, exit_error = 1, exit_bad_input = 2, exit_not_converged = 3;

struct CommonOptions {
  std::string precision = "double";
  std::string json_path;
  std::string output_dir;
  bool quiet = false;
};

void add_common_options(CLI::App& sub, CommonOptions& common, bool with_output = true) {
  sub.add_option("--precision", common.precision, "Floating-point precision: float or double")
      ->check(CLI::IsMember({"float", "double"}))
      ->capture_default_str();
  sub.add_option("--json", common.json_path, "Write the machine-readable report (JSON) to this file");
  if (with_output) sub.add_option("--output", common.output_dir, "Write result arrays (.npy) into this folder");
  sub.add_flag("--quiet,-q", common.quiet, "No progress lines");
}

std::string joined_command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

bool converged(report::RunReport const& r) { return r.status != "not_converged"; }

// On several ranks, only rank 0 prints and writes files; a command that does not split its work
// across ranks is refused (it would repeat the same work on each).
void require_distributed(Command const& command) {
  int const n = run::ranks::size();
  require(n == 1 || command.distributed(),
          command.name() + " runs on one rank only, but was started on " + std::to_string(n) +
              " ranks (mpirun -np " + std::to_string(n) + "); start it without mpirun or with -np 1");
}

// Fails before any work is done if a result file could not be written afterwards.
void require_writable(std::string const& path) {
  if (path.empty()) return;
  std::string const probe = path + ".tmp";
  std::FILE* f = std::fopen(probe.c_str(), "w");
  require(f != nullptr, "cannot write '" + path + "' (does its folder exist?)");
  std::fclose(f);
  std::remove(probe.c_str());
}

}  // namespace

int run_application(int argc, char** argv, std::vector<std::unique_ptr<Command>> commands, Runtime const& runtime) {
  CLI::App app{"Parity: scientific solvers written once in Kokkos, built for Serial, OpenMP and CUDA.\n"
               "Each command accepts --help.",
               "parity"};
  app.require_subcommand(1);
  int threads = -1, device_id = -1;
  app.add_option("--threads", threads, "Host threads (OpenMP backend); default: Kokkos' choice")->check(CLI::PositiveNumber);
  app.add_option("--device-id", device_id, "GPU to use (CUDA backend)")->check(CLI::NonNegativeNumber);

  CommonOptions info_options;
  auto* info = app.add_subcommand("info", "Print backend, Kokkos version, device and build facts");
  info->add_option("--json", info_options.json_path, "Also write them as JSON to this file");
  info->fallthrough();

  CommonOptions run_options;
  std::string size_text = "small";
  bool run_all = false;
  std::vector<std::string> run_models;
  auto* run_cmd = app.add_subcommand("run", "Run each model's embedded default case and print a summary");
  run_cmd->add_flag("--all", run_all, "Run every model");
  run_cmd->add_option("--model", run_models, "Run only these models (repeatable)");
  run_cmd->add_option("--size", size_text, "Problem size: small, medium or large")
      ->check(CLI::IsMember({"small", "medium", "large"}))
      ->capture_default_str();
  add_common_options(*run_cmd, run_options);
  run_cmd->fallthrough();

  std::map<std::string, CommonOptions> model_options;
  std::vector<std::pair<CLI::App*, Command*>> model_subcommands;
  for (auto& command : commands) {
    auto* sub = app.add_subcommand(command->name(), command->description());
    add_common_options(*sub, model_options[command->name()]);
    command->add_options(*sub);
    sub->fallthrough();
    model_subcommands.emplace_back(sub, command.get());
  }

  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    int const code = app.exit(e);
    return code == 0 ? exit_ok : exit_bad_input;
  }

  std::string const command_line = joined_command_line(argc, argv);
  try {
    require_writable(info_options.json_path);
    require_writable(run_options.json_path);
    for (auto const& [name, common] : model_options) require_writable(common.json_path);
    if (!run::ranks::root()) {
      for (auto* common : {&info_options, &run_options}) common->json_path.clear(), common->output_dir.clear(), common->quiet = true;
      for (auto& [name, common] : model_options) common.json_path.clear(), common.output_dir.clear(), common.quiet = true;
      std::fflush(stdout);
      if (std::freopen("/dev/null", "w", stdout) == nullptr) return exit_error;
    }

    if (*info) {
      auto const session = runtime.start(threads, device_id);
      auto const b = runtime.describe();
      std::fputs(report::describe(b).c_str(), stdout);
      if (!info_options.json_path.empty()) {
        report::RunReport r;
        r.command = command_line;
        r.model = "info";
        r.backend = b;
        r.timing_note = "nothing timed";
        report::write_json(info_options.json_path, report::to_json(r));
      }
      return exit_ok;
    }

    auto make_progress = [](bool quiet) -> std::unique_ptr<run::Progress> {
      if (quiet) return std::make_unique<run::SilentProgress>();
      return std::make_unique<report::ConsoleProgress>();
    };

    if (*run_cmd) {
      require(run_all || !run_models.empty(), "run: say --all or name models with --model");
      for (auto const& m : run_models) {
        bool known = false;
        for (auto& [sub, command] : model_subcommands) known = known || command->name() == m;
        require(known, "run: unknown model '" + m + "'");
      }
      for (auto& [sub, command] : model_subcommands)
        if (run_all || std::find(run_models.begin(), run_models.end(), command->name()) != run_models.end())
          require_distributed(*command);
      Size const size = size_text == "large" ? Size::large : (size_text == "medium" ? Size::medium : Size::small);
      auto progress = make_progress(run_options.quiet);
      Context context{*parse_precision(run_options.precision), run_options.output_dir, *progress};
      auto const session = runtime.start(threads, device_id);
      auto const b = runtime.describe();
      std::fprintf(stdout, "parity-%s on %s, %s precision, size %s\n", b.backend.c_str(), b.device_name.c_str(),
                   run_options.precision.c_str(), size_text.c_str());
      nlohmann::json all = nlohmann::json::array();
      bool all_converged = true;
      int ran = 0;
      for (auto& [sub, command] : model_subcommands) {
        if (!run_all && std::find(run_models.begin(), run_models.end(), command->name()) == run_models.end()) continue;
        auto r = command->run_default(context, size);
        report::gather_rank_times(r);
        r.command = command_line;
        r.backend = b;
        r.precision = context.precision;
        std::fprintf(stdout, "  %-14s %8.3f s  %s\n", command->name().c_str(), r.phases.total(),
                     command->summarize(r).c_str());
        std::fflush(stdout);
        all_converged = all_converged && converged(r);
        all.push_back(report::to_json(r));
        ++ran;
      }
      if (ran == 0) std::fprintf(stdout, "  (no models in this build)\n");
      if (!run_options.json_path.empty()) report::write_json(run_options.json_path, {{"runs", all}});
      return all_converged ? exit_ok : exit_not_converged;
    }

    for (auto& [sub, command] : model_subcommands) {
      if (!*sub) continue;
      auto const& common = model_options[command->name()];
      auto progress = make_progress(common.quiet);
      Context context{*parse_precision(common.precision), common.output_dir, *progress};
      require_distributed(*command);
      auto const session = runtime.start(threads, device_id);
      auto r = command->execute(context);
      report::gather_rank_times(r);
      r.command = command_line;
      r.backend = runtime.describe();
      r.precision = context.precision;
      std::fprintf(stdout, "%s: %s  (%.3f s, %ld iterations, status %s)\n", command->name().c_str(),
                   command->summarize(r).c_str(), r.phases.total(), r.iterations, r.status.c_str());
      if (!common.json_path.empty()) report::write_json(common.json_path, report::to_json(r));
      if (!converged(r)) {
        std::fprintf(stderr, "%s: did not converge (status %s)\n", command->name().c_str(), r.status.c_str());
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
