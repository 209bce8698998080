#pragma once
// Result files on the host: checks made before any work (so a bad --json or --output fails in a
// second, not after the solve), atomic writes (a unique temporary in the target folder, renamed
// into place: a reader never sees half a file and no other file is touched), and the folder of
// arrays a run writes with its manifest.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace parity::report {

// Throws InvalidInput naming `option` unless `path` can be written as a file: not a folder, not
// a device or other special file, and its folder exists and takes a new file (probed with a
// uniquely named temporary that is removed again; nothing else is created or removed).
void check_output_file(std::string const& path, std::string const& option);

// Throws InvalidInput naming `option` unless `dir` is a folder that takes new files, or does not
// exist yet and could be created (its nearest existing parent is a folder that takes new files).
// Creates nothing.
void check_output_folder(std::string const& dir, std::string const& option);

// Writes `bytes` to `path` atomically: a unique temporary in the same folder, then a rename over
// `path`. On failure the temporary is removed and std::runtime_error names `path`.
void write_file_atomic(std::string const& path, std::string_view bytes);

// The schema of the manifest an output folder holds.
inline constexpr char const* output_manifest_schema = "parity.output/1";

// The arrays one run writes into its --output folder. Each write is atomic; manifest.json, written
// last, lists exactly the arrays of this run, so files of earlier runs left in a reused folder
// (never deleted here: they may be the user's) are not mistaken for this run's.
class OutputFolder {
 public:
  // `model` as the manifest spells it (dual_control, krusell_smith, josephson, kuramoto, cubature).
  OutputFolder(std::string dir, std::string command, std::string model);
  std::string const& dir() const { return dir_; }
  std::string path(std::string const& file) const { return dir_ + "/" + file; }
  // Writes <name>.npy and records it under `name`.
  void npy(std::string const& name, std::span<const double> data, std::vector<std::size_t> const& shape);
  void npy(std::string const& name, std::span<const float> data, std::vector<std::size_t> const& shape);
  void npy(std::string const& name, std::span<const std::int32_t> data, std::vector<std::size_t> const& shape);
  // Writes another file of the run (e.g. coeffs.txt), atomically; not an array, so not listed.
  void text(std::string const& file, std::string const& content);
  std::map<std::string, std::string> const& arrays() const { return arrays_; }
  // Writes manifest.json: {"schema", "command", "model", "arrays": {name: file}, "report"}; `report`
  // is the JSON report's path relative to the folder (e.g. "report.json" or "../runs.json"), or null.
  void write_manifest(std::optional<std::string> const& report);

 private:
  void ensure();
  std::string dir_, command_, model_;
  std::map<std::string, std::string> arrays_;
  bool created_ = false;
};

}  // namespace parity::report
