#pragma once
// One schema for every command's machine-readable result ("parity.run/1"):
// {schema, parity: {version, commit, build_type}, command, model, backend: {...}, precision,
//  parameters: {...}, timing: {what, phases: {name: {seconds, calls}}, total_seconds},
//  ranks: {count, phase_seconds: {name: [per rank]}, communication_seconds: [per rank]},
//  memory: {host_peak_resident_bytes, device_peak_bytes, kokkos_peak_bytes: {space: bytes}},
//  iterations, status, results: {...}}
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "parity/precision.hpp"
#include "parity/run/backend_info.hpp"
#include "parity/run/memory_use.hpp"
#include "parity/run/phase_times.hpp"

namespace parity::report {

inline constexpr char const* run_report_schema = "parity.run/1";

struct RunReport {
  std::string command;  // the command line as typed
  std::string model;
  run::BackendInfo backend;
  Precision precision = Precision::f64;
  nlohmann::json parameters = nlohmann::json::object();
  run::PhaseTimes phases;
  std::string timing_note = "each phase: wall time between two fences of the execution space";
  run::MemoryUse memory;  // peaks of this run (all zero: not tracked)
  long iterations = 0;
  std::string status = "ok";  // ok | converged | not_converged | budget_exhausted | ...
  nlohmann::json results = nlohmann::json::object();
  // Per-rank timing (gather_rank_times); empty: this process's phases as the only rank.
  std::vector<std::vector<double>> rank_phase_seconds;  // [phase][rank], phases in phases' order
  std::vector<double> rank_communication_seconds;  // [rank]
};

// Collects every rank's phase times and communication time into report.rank_*, and the largest
// memory peaks into report.memory: a collective
// (parity/run/ranks.hpp), so every rank calls it, with the same phases in the same order.
void gather_rank_times(RunReport& report);

nlohmann::json to_json(run::BackendInfo const& info);
nlohmann::json to_json(run::MemoryUse const& memory);
nlohmann::json to_json(RunReport const& report);

// Writes JSON to path through write_file (output_files.hpp: a regular file atomically, "-" to
// standard output, links followed). Throws on I/O failure.
void write_json(std::string const& path, nlohmann::json const& doc);

}  // namespace parity::report
