#pragma once
// Checkpoints of long iterative solves: a small container of named arrays (double or int64) and
// a fingerprint of the parameters that produced them. Written through report::write_file: a regular
// file atomically (a unique temporary beside the file a symbolic link points to, synced, then a
// rename), so an interrupted write leaves the previous checkpoint intact; read back with errors that name the file and
// the problem (missing, truncated, corrupt, another run's parameters). Host code, no Kokkos; compiled into
// parity::report.
//
// File layout (little-endian): "PARITYCK", u32 version, u32 entry count, u64 fingerprint length
// and bytes; per entry u8 kind (0 double, 1 int64), u64 name length, name, u64 value count,
// values; then a u64 FNV-1a checksum of every byte before it.
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace parity::run {

// A checkpoint that cannot be used: missing, unreadable, truncated, corrupt or lacking an entry.
struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A readable checkpoint written for other parameters than the ones given.
struct CheckpointMismatch : CheckpointError {
  using CheckpointError::CheckpointError;
};

class Checkpoint {
 public:
  // What the arrays belong to. A fingerprint of "key=value" lines lets a mismatch name the first
  // line that differs; any text works.
  std::string fingerprint;

  void set(std::string const& name, std::vector<double> values);
  void set(std::string const& name, std::vector<std::int64_t> values);
  void set_scalar(std::string const& name, double value) { set(name, std::vector<double>{value}); }
  void set_scalar(std::string const& name, std::int64_t value) { set(name, std::vector<std::int64_t>{value}); }

  bool has(std::string const& name) const { return doubles_.count(name) + integers_.count(name) > 0; }
  // The named array; throws CheckpointError naming the entry (and the file it came from) when it
  // is absent, of the other kind, or (with expected_size >= 0) of another length.
  std::vector<double> const& doubles(std::string const& name, long expected_size = -1) const;
  std::vector<std::int64_t> const& integers(std::string const& name, long expected_size = -1) const;
  double scalar(std::string const& name) const { return doubles(name, 1)[0]; }
  std::int64_t integer(std::string const& name) const { return integers(name, 1)[0]; }

  std::map<std::string, std::vector<double>> const& all_doubles() const { return doubles_; }
  std::map<std::string, std::vector<std::int64_t>> const& all_integers() const { return integers_; }

  std::string source;  // the file it was read from (for messages); empty when built in memory

 private:
  std::map<std::string, std::vector<double>> doubles_;
  std::map<std::string, std::vector<std::int64_t>> integers_;
};

// Writes atomically: the file at `path` is either the previous one or the complete new one.
// Never touches any other file (the temporary name is unique, made by mkstemp); a symbolic link
// stays a link, a device or named pipe is written straight through, missing folders are created.
// Throws CheckpointError when the file cannot be written.
void write_checkpoint(std::string const& path, Checkpoint const& checkpoint);

// Reads a checkpoint; throws CheckpointError for a missing, truncated or corrupt file.
Checkpoint read_checkpoint(std::string const& path);
// Reads it and checks that it was written for `fingerprint`; throws CheckpointMismatch naming
// the first differing line otherwise.
Checkpoint read_checkpoint(std::string const& path, std::string const& fingerprint);

// Checks that a checkpoint can be written at `path` (report::check_output_file: its folder takes a
// new file or can be created); throws CheckpointError saying why not. For option validation before
// any work.
void check_checkpoint_path(std::string const& path);

}  // namespace parity::run
