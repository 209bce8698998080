#pragma once
// Result files on the host: checks made before any work (so a bad --json, --output or --checkpoint
// fails in a second, not after the solve), the writer every result file goes through, and the
// folder of arrays a run writes with its manifest.
//
// Where a result lands: "-" is standard output; /dev/stdout, /dev/stderr, /dev/fd/N and
// /proc/self/fd/N are the process's open descriptors, written at their current position; a
// symbolic link is followed (it stays a link; the file it points to is written); a character
// device or a named pipe (FIFO) is written straight through; a regular file is replaced
// atomically (a unique temporary beside it, renamed over it: a reader never sees half a file and
// no other file is touched); missing parent folders are created. Sockets, block devices and
// folders are refused.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace parity::report {

// The name that means standard output (`--json -`).
inline constexpr char const* standard_output_name = "-";

// Throws InvalidInput naming `option` unless a result file can be written at `path`: the name is
// not empty, it is not a folder, a socket or another special file, and the folder it lands in
// takes a new file or can be created (probed with a uniquely named temporary that is removed
// again; nothing else is created or removed). "-" is accepted only with `standard_output_allowed`.
void check_output_file(std::string const& path, std::string const& option, bool standard_output_allowed = false);

// Throws InvalidInput naming `option` unless `dir` is a folder that takes new files, or does not
// exist yet and could be created (its nearest existing parent is a folder that takes new files).
// Creates nothing.
void check_output_folder(std::string const& dir, std::string const& option);

// A path the run will write, as the user named it, for check_distinct_outputs.
struct PlannedOutput {
  std::string option;  // as typed, e.g. "--json"
  std::string path;
  bool folder = false;  // a folder the run writes into (e.g. --output)
  bool arrays = false;  // with folder: it receives manifest.json, <name>.npy and `files`
  std::vector<std::string> files;  // other names the run writes into the folder (e.g. coeffs.txt)
};

// Throws InvalidInput naming both options when two of `outputs` collide: two files land in one
// (after following symbolic links and `..`; character devices such as /dev/null excepted), a
// file lands on a folder or on the way to one, or a file lands on a name the run writes into an
// arrays folder (manifest.json, any *.npy, its `files`).
void check_distinct_outputs(std::vector<PlannedOutput> const& outputs);

// From now on standard output (descriptor 1, so also stdout, progress lines and anything else
// printed there) goes to standard error, and a result file named "-" to the original standard
// output, which then holds that file alone. Throws std::runtime_error if the descriptors cannot be
// duplicated.
void reserve_standard_output();

// Writes `bytes` where `path` lands (see the top of this header). With `sync`, a regular file's
// data reaches the disk before it replaces the previous one. On failure the temporary is removed
// and std::runtime_error names `path`.
void write_file(std::string const& path, std::string_view bytes, bool sync = false);

// Whether the result file `path` names is a regular file (one a later run can open again), as
// opposed to standard output, a descriptor, a device or a pipe. A missing file counts as regular.
bool lands_in_regular_file(std::string const& path);

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
  // The command declares its name (cli::Command::output_files) so that no other option lands on it.
  void text(std::string const& file, std::string const& content);
  std::map<std::string, std::string> const& arrays() const { return arrays_; }
  // Writes manifest.json: {"schema", "command", "model", "arrays": {name: file}, "report"}; `report`
  // is the JSON report's path relative to the folder (e.g. "report.json" or "../runs.json"), or
  // null when there is none or it is not a regular file (standard output, a pipe, /dev/null).
  void write_manifest(std::optional<std::string> const& report);

 private:
  void ensure();
  std::string dir_, command_, model_;
  std::map<std::string, std::string> arrays_;
  bool created_ = false;
};

}  // namespace parity::report
