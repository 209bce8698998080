// run::Checkpoint files: what is written is read back bit for bit; writes are atomic and touch no
// other file; a missing, truncated, corrupt or foreign checkpoint is refused with a message that
// names the file and the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "files.hpp"
#include "parity/run/checkpoint.hpp"

namespace parity_test_checkpoint {

namespace fs = std::filesystem;
using parity::run::Checkpoint;
using parity::run::CheckpointError;
using parity::run::CheckpointMismatch;
using parity::run::read_checkpoint;
using parity::run::write_checkpoint;
using parity::test::bytes_of;
using parity::test::expect_error;
using parity::test::TempDir;
using parity::test::write_bytes;

Checkpoint sample() {
  Checkpoint c;
  c.fingerprint = "model=test\nn=3\ntol=1e-06\n";
  c.set("policy",
        std::vector<double>{0.1, -0.0, std::numeric_limits<double>::denorm_min(), 1e300, std::nextafter(1.0, 2.0)});
  c.set("empty", std::vector<double>{});
  c.set("state", std::vector<std::int64_t>{0, -1, std::numeric_limits<std::int64_t>::max()});
  c.set_scalar("iteration", std::int64_t(7));
  c.set_scalar("residual", 3.5e-7);
  return c;
}

TEST(Checkpoint, RoundTripIsBitForBit) {
  TempDir dir;
  auto const path = dir.file("run.ckpt");
  Checkpoint const c = sample();
  write_checkpoint(path, c);
  Checkpoint const r = read_checkpoint(path, c.fingerprint);
  EXPECT_EQ(r.fingerprint, c.fingerprint);
  EXPECT_EQ(r.source, path);
  ASSERT_EQ(r.all_doubles().size(), c.all_doubles().size());
  for (auto const& [name, v] : c.all_doubles()) {
    auto const& w = r.doubles(name, long(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i) {
      EXPECT_EQ(w[i], v[i]) << name << "[" << i << "]";
      EXPECT_EQ(std::signbit(w[i]), std::signbit(v[i])) << name << "[" << i << "]";
    }
  }
  EXPECT_EQ(r.integers("state"), c.integers("state"));
  EXPECT_EQ(r.integer("iteration"), 7);
  EXPECT_EQ(r.scalar("residual"), 3.5e-7);
  EXPECT_TRUE(r.has("empty"));
  EXPECT_FALSE(r.has("absent"));
  // Written again from what was read: the same bytes.
  write_checkpoint(dir.file("again.ckpt"), r);
  EXPECT_EQ(bytes_of(dir.file("again.ckpt")), bytes_of(path));
}

TEST(Checkpoint, WriteReplacesAtomicallyAndTouchesNothingElse) {
  TempDir dir;
  auto const path = dir.file("run.ckpt");
  // Files a careless writer might use as its temporary: they must survive untouched.
  write_bytes(path + ".tmp", "keep me");
  write_bytes(dir.file("other"), "and me");
  Checkpoint c = sample();
  write_checkpoint(path, c);
  c.set_scalar("iteration", std::int64_t(8));
  write_checkpoint(path, c);
  EXPECT_EQ(read_checkpoint(path).integer("iteration"), 8);
  EXPECT_EQ(bytes_of(path + ".tmp"), "keep me");
  EXPECT_EQ(bytes_of(dir.file("other")), "and me");
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"other", "run.ckpt", "run.ckpt.tmp"}));
}

TEST(Checkpoint, FailedWriteKeepsThePreviousFile) {
  TempDir dir;
  auto const path = dir.file("run.ckpt");
  write_checkpoint(path, sample());
  auto const before = bytes_of(path);
  fs::create_directory(dir.file("adir"));
  expect_error<CheckpointError>([&] { write_checkpoint(dir.file("adir"), sample()); }, {"adir", "is a folder"});
  write_bytes(dir.file("afile"), "the user's");
  expect_error<CheckpointError>([&] { write_checkpoint(dir.file("afile/run.ckpt"), sample()); }, {"afile"});
  expect_error<CheckpointError>([&] { parity::run::check_checkpoint_path(dir.file("afile/x.ckpt")); },
                                {"afile", "is a file"});
  EXPECT_NO_THROW(parity::run::check_checkpoint_path(path));
  EXPECT_EQ(bytes_of(path), before);
  EXPECT_EQ(bytes_of(dir.file("afile")), "the user's");
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"adir", "afile", "run.ckpt"}));
}

TEST(Checkpoint, MissingFoldersAreCreatedWhenWritten) {
  TempDir dir;
  auto const path = dir.file("new/deeper/run.ckpt");
  EXPECT_NO_THROW(parity::run::check_checkpoint_path(path));
  EXPECT_EQ(dir.names(), std::vector<std::string>{});  // the check creates nothing
  write_checkpoint(path, sample());
  EXPECT_EQ(read_checkpoint(path).integer("iteration"), 7);
}

TEST(Checkpoint, SymbolicLinkStaysALinkAndItsTargetIsWritten) {
  TempDir dir;
  fs::create_directory(dir.file("store"));
  auto const target = dir.file("store/run.ckpt");
  fs::create_symlink("store/run.ckpt", dir.file("run.ckpt"));
  write_checkpoint(dir.file("run.ckpt"), sample());
  Checkpoint c = sample();
  c.set_scalar("iteration", std::int64_t(8));
  write_checkpoint(dir.file("run.ckpt"), c);
  EXPECT_TRUE(fs::is_symlink(dir.file("run.ckpt")));
  EXPECT_EQ(read_checkpoint(target).integer("iteration"), 8);
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"run.ckpt", "store"}));
}

TEST(Checkpoint, MissingFileIsNamed) {
  TempDir dir;
  expect_error<CheckpointError>([&] { read_checkpoint(dir.file("none.ckpt")); }, {"none.ckpt", "does not exist"});
  expect_error<CheckpointError>([&] { read_checkpoint(dir.path.string()); }, {"is a directory"});
}

TEST(Checkpoint, OtherParametersAreRefusedNamingTheLine) {
  TempDir dir;
  auto const path = dir.file("run.ckpt");
  write_checkpoint(path, sample());
  expect_error<CheckpointMismatch>([&] { read_checkpoint(path, "model=test\nn=4\ntol=1e-06\n"); },
                                   {"run.ckpt", "other parameters", "'n=3'", "'n=4'"});
  expect_error<CheckpointMismatch>([&] { read_checkpoint(path, "model=test\nn=3\n"); }, {"tol=1e-06"});
  // A mismatch is also a CheckpointError, so callers may catch either.
  EXPECT_THROW(read_checkpoint(path, "x"), CheckpointError);
}

TEST(Checkpoint, TruncatedOrCorruptFilesAreRefused) {
  TempDir dir;
  auto const path = dir.file("run.ckpt");
  write_checkpoint(path, sample());
  auto const good = bytes_of(path);
  auto const broken = dir.file("broken.ckpt");
  // Every proper prefix is refused (never a crash, never a partial checkpoint).
  for (std::size_t n = 0; n < good.size(); ++n) {
    write_bytes(broken, good.substr(0, n));
    EXPECT_THROW(read_checkpoint(broken), CheckpointError) << n << " bytes";
  }
  write_bytes(broken, good.substr(0, good.size() / 2));
  expect_error<CheckpointError>([&] { read_checkpoint(broken); }, {"broken.ckpt", "truncated"});
  // One flipped bit anywhere is refused.
  for (std::size_t at : {std::size_t(12), good.size() / 2, good.size() - 9, good.size() - 1}) {
    std::string bad = good;
    bad[at] = char(bad[at] ^ 0x10);
    write_bytes(broken, bad);
    EXPECT_THROW(read_checkpoint(broken), CheckpointError) << "bit flipped at byte " << at;
  }
  write_bytes(broken, good + "x");
  EXPECT_THROW(read_checkpoint(broken), CheckpointError);
  write_bytes(broken, "not a checkpoint at all");
  expect_error<CheckpointError>([&] { read_checkpoint(broken); }, {"not a Parity checkpoint"});
}

TEST(Checkpoint, MissingOrMisshapenEntriesAreNamed) {
  TempDir dir;
  auto const path = dir.file("run.ckpt");
  write_checkpoint(path, sample());
  auto const c = read_checkpoint(path);
  expect_error<CheckpointError>([&] { c.doubles("coeffs"); }, {"run.ckpt", "no entry 'coeffs'"});
  expect_error<CheckpointError>([&] { c.doubles("state"); }, {"'state'", "does not hold double"});
  expect_error<CheckpointError>([&] { c.integers("policy"); }, {"'policy'", "does not hold integer"});
  expect_error<CheckpointError>([&] { c.doubles("policy", 4); }, {"'policy'", "holds 5 values, expected 4"});
}

}  // namespace parity_test_checkpoint
