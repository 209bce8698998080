// The writer of every result file: a symbolic link stays a link and the file it points to is
// written; a named pipe, a descriptor and /dev/null are written straight through, never replaced;
// a regular file is replaced atomically; missing folders are created. The checks made before any
// work refuse sockets, empty names and outputs that land on one another.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "files.hpp"
#include "parity/report/output_files.hpp"
#include "parity/run/errors.hpp"

namespace parity_test_output_files {

namespace fs = std::filesystem;
using parity::InvalidInput;
using parity::report::check_distinct_outputs;
using parity::report::check_output_file;
using parity::report::check_output_folder;
using parity::report::PlannedOutput;
using parity::report::write_file;
using parity::test::bytes_of;
using parity::test::expect_error;
using parity::test::TempDir;
using parity::test::write_bytes;

// More than a pipe holds (64 KiB), so a pipe's reader must drain it while it is written.
std::string large_payload() {
  std::string s;
  for (int i = 0; s.size() < (1u << 20); ++i) s += std::to_string(i) + "\n";
  return s;
}

TEST(OutputFiles, RegularFileIsReplacedAtomicallyKeepingItsPermissions) {
  TempDir dir;
  auto const path = dir.file("r.json");
  write_bytes(path, "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  write_bytes(dir.file("r.json.tmp"), "the user's");
  write_file(path, "new");
  EXPECT_EQ(bytes_of(path), "new");
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(bytes_of(dir.file("r.json.tmp")), "the user's");
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"r.json", "r.json.tmp"}));
}

TEST(OutputFiles, SymbolicLinkStaysALinkAndItsTargetIsWritten) {
  TempDir dir;
  fs::create_directory(dir.file("store"));
  write_bytes(dir.file("store/target.json"), "old");
  fs::create_symlink("store/target.json", dir.file("link.json"));
  // A chain of links, the last one relative to its own folder.
  fs::create_symlink(dir.file("link.json"), dir.file("store/chain.json"));
  write_file(dir.file("link.json"), "first");
  EXPECT_TRUE(fs::is_symlink(dir.file("link.json")));
  EXPECT_EQ(bytes_of(dir.file("store/target.json")), "first");
  write_file(dir.file("store/chain.json"), "second");
  EXPECT_TRUE(fs::is_symlink(dir.file("store/chain.json")));
  EXPECT_TRUE(fs::is_symlink(dir.file("link.json")));
  EXPECT_EQ(bytes_of(dir.file("store/target.json")), "second");
  // The temporary goes beside the target, in the target's folder, and is gone afterwards.
  EXPECT_EQ(dir.names(), (std::vector<std::string>{"link.json", "store"}));
  EXPECT_EQ(dir.names("store"), (std::vector<std::string>{"chain.json", "target.json"}));
  // A link to a file not yet there creates that file.
  fs::create_symlink("store/new.json", dir.file("dangling.json"));
  write_file(dir.file("dangling.json"), "made");
  EXPECT_TRUE(fs::is_symlink(dir.file("dangling.json")));
  EXPECT_EQ(bytes_of(dir.file("store/new.json")), "made");
}

TEST(OutputFiles, NamedPipeIsWrittenThroughWhileItIsRead) {
  TempDir dir;
  auto const fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  // Held open for writing too, so the reader's open does not wait and its read ends (once this is
  // closed) even if the writer never opened the pipe.
  int const keep = ::open(fifo.c_str(), O_RDWR);
  ASSERT_GE(keep, 0);
  int const in = ::open(fifo.c_str(), O_RDONLY);
  ASSERT_GE(in, 0);
  std::string received;
  std::thread reader([&] {
    char buf[4096];
    for (ssize_t n; (n = ::read(in, buf, sizeof buf)) > 0;) received.append(buf, std::size_t(n));
  });
  std::string const payload = large_payload();
  EXPECT_NO_THROW(write_file(fifo, payload));
  ::close(keep);
  reader.join();
  ::close(in);
  EXPECT_EQ(received.size(), payload.size());
  EXPECT_TRUE(received == payload);
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(dir.names(), std::vector<std::string>{"pipe"});
  EXPECT_NO_THROW(check_output_file(fifo, "--json"));
}

TEST(OutputFiles, DevNullIsWrittenThroughAndStaysADevice) {
  struct stat before {};
  ASSERT_EQ(::stat("/dev/null", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  EXPECT_NO_THROW(check_output_file("/dev/null", "--json"));
  EXPECT_NO_THROW(write_file("/dev/null", large_payload()));
  struct stat after {};
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(after.st_rdev, before.st_rdev);
  EXPECT_EQ(after.st_ino, before.st_ino);
}

TEST(OutputFiles, DescriptorNamesAreWrittenAtTheirPosition) {
  // As `--json /dev/stdout >> log`: the descriptor's file is appended to, not replaced or rewound.
  TempDir dir;
  auto const log = dir.file("log");
  write_bytes(log, "summary line\n");
  int const fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  for (std::string const name : {"/dev/fd/", "/proc/self/fd/"}) {
    auto const path = name + std::to_string(fd);
    EXPECT_NO_THROW(check_output_file(path, "--json"));
    EXPECT_NO_THROW(write_file(path, "{}\n"));
  }
  ::close(fd);
  EXPECT_EQ(bytes_of(log), "summary line\n{}\n{}\n");
  EXPECT_EQ(dir.names(), std::vector<std::string>{"log"});
  int const unused = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(unused, 0);
  expect_error<InvalidInput>([&] { check_output_file("/dev/fd/" + std::to_string(unused), "--json"); },
                             {"--json", "open only for reading"});
  ::close(unused);
  expect_error<InvalidInput>([&] { check_output_file("/dev/fd/" + std::to_string(unused), "--json"); },
                             {"--json", "not open"});
}

TEST(OutputFiles, SocketsAreRefused) {
  TempDir dir;
  auto const path = dir.file("sock");
  int const s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof addr.sun_path);
  std::strcpy(addr.sun_path, path.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<sockaddr const*>(&addr), sizeof addr), 0) << std::strerror(errno);
  expect_error<InvalidInput>([&] { check_output_file(path, "--json"); }, {"--json", "socket"});
  fs::create_symlink("sock", dir.file("link"));
  expect_error<InvalidInput>([&] { check_output_file(dir.file("link"), "--checkpoint"); }, {"--checkpoint", "socket"});
  expect_error<std::runtime_error>([&] { write_file(dir.file("link"), "x"); }, {"socket"});
  EXPECT_TRUE(fs::is_socket(path));
  ::close(s);
}

TEST(OutputFiles, MissingFoldersAreCheckedThenCreatedWhenWritten) {
  TempDir dir;
  EXPECT_NO_THROW(check_output_file(dir.file("a/b/r.json"), "--json"));
  EXPECT_NO_THROW(check_output_folder(dir.file("c/d"), "--output"));
  EXPECT_EQ(dir.names(), std::vector<std::string>{});  // checks create nothing
  write_file(dir.file("a/b/r.json"), "{}");
  EXPECT_EQ(bytes_of(dir.file("a/b/r.json")), "{}");
  write_bytes(dir.file("file"), "");
  expect_error<InvalidInput>([&] { check_output_file(dir.file("file/x/r.json"), "--json"); },
                             {"--json", "is a file, not a folder"});
  expect_error<InvalidInput>([&] { check_output_folder(dir.file("file/x"), "--output"); },
                             {"--output", "is a file, not a folder"});
}

TEST(OutputFiles, EmptyNamesAndStandardOutputWhereItCannotGo) {
  expect_error<InvalidInput>([] { check_output_file("", "--json"); }, {"--json: the file name is empty"});
  expect_error<InvalidInput>([] { check_output_folder("", "--output"); }, {"--output: the folder name is empty"});
  EXPECT_NO_THROW(check_output_file("-", "--json", true));
  expect_error<InvalidInput>([] { check_output_file("-", "--checkpoint"); }, {"--checkpoint", "standard output"});
  expect_error<InvalidInput>([] { check_output_folder("-", "--output"); }, {"--output", "standard output"});
}

TEST(OutputFiles, OutputsThatLandOnOneAnotherAreRefused) {
  TempDir dir;
  fs::create_directory(dir.file("out"));
  fs::create_symlink("out", dir.file("alias"));
  auto const out = dir.file("out");
  PlannedOutput const arrays{"--output", out, true, true, {"coeffs.txt"}};
  auto refused = [](std::vector<PlannedOutput> const& outputs, std::vector<std::string> const& parts) {
    expect_error<InvalidInput>([&] { check_distinct_outputs(outputs); }, parts);
  };
  refused({{"--json", out}, arrays}, {"--json", "--output"});
  refused({{"--json", dir.file("alias/manifest.json")}, arrays}, {"--json", "--output", "manifest.json"});
  refused({{"--json", dir.file("out/phase1_error.npy")}, arrays}, {"--json", "--output", ".npy"});
  refused({arrays, {"--checkpoint", dir.file("out/coeffs.txt")}}, {"--checkpoint", "--output", "coeffs.txt"});
  refused({{"--json", dir.file("out")}, {"--output", dir.file("out/sub"), true, true, {}}},
          {"--json", "--output", "as a file and as a folder"});
  // Two spellings of one file: through a link to its folder, and through `..`.
  refused({{"--checkpoint", dir.file("out/r")}, {"--json", dir.file("alias/../out/./r")}}, {"--checkpoint", "--json"});
  refused({{"--checkpoint", dir.file("x/../r")}, {"--json", dir.file("r")}}, {"--checkpoint", "--json"});
  // A link to the other file.
  fs::create_symlink("out/r", dir.file("r-link"));
  refused({{"--checkpoint", dir.file("out/r")}, {"--json", dir.file("r-link")}}, {"--checkpoint", "--json"});
  // A link to a folder the run has yet to create.
  fs::create_symlink("later", dir.file("later-alias"));
  refused({{"--json", dir.file("later-alias/manifest.json")}, {"--output", dir.file("later"), true, true, {}}},
          {"--json", "--output", "manifest.json"});
  // Other names in the folder, other folders, and /dev/null twice are fine.
  EXPECT_NO_THROW(check_distinct_outputs(
      {{"--json", dir.file("out/report.json")}, arrays, {"--checkpoint", dir.file("out/sub/run.ckpt")}}));
  EXPECT_NO_THROW(check_distinct_outputs({{"--json", "/dev/null"}, {"--checkpoint", "/dev/null"}}));
  // A folder that only holds the models' folders (run --output) takes any name.
  EXPECT_NO_THROW(check_distinct_outputs({{"--json", dir.file("out/x.npy")}, {"--output", out, true, false, {}}}));
  EXPECT_EQ(dir.names("out"), std::vector<std::string>{});
}

}  // namespace parity_test_output_files
