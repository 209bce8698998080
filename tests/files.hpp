#pragma once
// Shared by the tests that write and read files: a fresh folder for each test, a file's bytes read
// or written whole (to build broken variants of a good file), and the check of a refusal's message.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

namespace parity::test {

// A fresh folder under the system temp folder, removed at the end of the test. Its name holds the
// test's suite and name and the run's random seed, so no two tests share one.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    auto const& gtest = *::testing::UnitTest::GetInstance();
    auto const& test = *gtest.current_test_info();
    path = std::filesystem::temp_directory_path() / ("parity-" + std::string(test.test_suite_name()) + "-" +
                                                     std::to_string(gtest.random_seed()) + "-" + test.name());
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  TempDir(TempDir const&) = delete;
  TempDir& operator=(TempDir const&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(std::string const& name) const { return (path / name).string(); }
  // The names in the folder (or in its subfolder `sub`), sorted.
  std::vector<std::string> names(std::string const& sub = "") const {
    std::vector<std::string> out;
    for (auto const& e : std::filesystem::directory_iterator(path / sub)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

inline std::string bytes_of(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(std::string const& path, std::string const& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

// Expects `f` to throw E whose message contains every one of `parts`.
template <class E, class F>
void expect_error(F&& f, std::vector<std::string> const& parts) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (E const& e) {
    std::string const what = e.what();
    for (auto const& p : parts) EXPECT_NE(what.find(p), std::string::npos) << "'" << what << "' lacks '" << p << "'";
  }
}

}  // namespace parity::test
