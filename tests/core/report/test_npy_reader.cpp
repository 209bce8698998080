// The .npy reader reads back what the writer writes (dtype, shape, every value bit for bit) and
// refuses, with a message naming the file and the problem, what it does not accept.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "files.hpp"
#include "parity/report/npy.hpp"

namespace parity_test_npy_reader {

namespace fs = std::filesystem;
using parity::report::NpyReadError;
using parity::report::read_npy;
using parity::report::write_npy;
using parity::test::bytes_of;
using parity::test::TempDir;
using parity::test::write_bytes;

// Expects read_npy to throw NpyReadError whose message holds `what` and the file's path.
void expect_refused(std::string const& path, std::string const& what) {
  try {
    read_npy(path);
    ADD_FAILURE() << "read_npy accepted " << path << " (expected: " << what << ")";
  } catch (NpyReadError const& e) {
    std::string const msg = e.what();
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
  }
}

TEST(NpyReader, RoundTripsEveryDtypeAndShapeTheWriterWrites) {
  TempDir dir;
  // Values that need every bit: thirds, a denormal, signed zero, extremes.
  std::vector<double> d(2 * 3 * 4 * 2);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = (double(i) - 20.0) / 3.0;
  d[1] = std::numeric_limits<double>::denorm_min();
  d[2] = -0.0;
  d[3] = std::numeric_limits<double>::max();
  write_npy(dir.file("d.npy"), d, {2, 3, 4, 2});
  auto const a = read_npy(dir.file("d.npy"));
  EXPECT_EQ(a.dtype, "<f8");
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3, 4, 2}));
  ASSERT_EQ(a.values.size(), d.size());
  for (std::size_t i = 0; i < d.size(); ++i) {
    EXPECT_EQ(a.values[i], d[i]) << i;
    EXPECT_EQ(std::signbit(a.values[i]), std::signbit(d[i])) << i;
  }

  std::vector<float> f(7);
  for (std::size_t i = 0; i < f.size(); ++i) f[i] = 1.0f / float(i + 1);
  write_npy(dir.file("f.npy"), f, {7});
  auto const b = read_npy(dir.file("f.npy"));
  EXPECT_EQ(b.dtype, "<f4");
  EXPECT_EQ(b.shape, (std::vector<std::size_t>{7}));
  ASSERT_EQ(b.values.size(), f.size());
  for (std::size_t i = 0; i < f.size(); ++i) EXPECT_EQ(b.values[i], double(f[i])) << i;

  std::vector<std::int32_t> n(10);
  for (std::size_t i = 0; i < n.size(); ++i) n[i] = std::int32_t(i * i) - 5;
  n[9] = std::numeric_limits<std::int32_t>::min();
  write_npy(dir.file("i.npy"), n, {5, 2});
  auto const c = read_npy(dir.file("i.npy"));
  EXPECT_EQ(c.dtype, "<i4");
  EXPECT_EQ(c.shape, (std::vector<std::size_t>{5, 2}));
  ASSERT_EQ(c.values.size(), n.size());
  for (std::size_t i = 0; i < n.size(); ++i) EXPECT_EQ(c.values[i], double(n[i])) << i;

  // Empty arrays and every header padding length (the header grows with the shape's digits).
  write_npy(dir.file("empty.npy"), std::vector<double>{}, {0});
  auto const e = read_npy(dir.file("empty.npy"));
  EXPECT_EQ(e.shape, (std::vector<std::size_t>{0}));
  EXPECT_TRUE(e.values.empty());
  for (std::size_t rank = 1; rank <= 12; ++rank) {
    std::vector<std::size_t> shape(rank, 1);
    shape[0] = 3;
    std::vector<double> v = {1.5, -2.5, 4.0};
    write_npy(dir.file("r.npy"), v, shape);
    auto const r = read_npy(dir.file("r.npy"));
    EXPECT_EQ(r.shape, shape) << rank;
    EXPECT_EQ(r.values, v) << rank;
  }
}

TEST(NpyReader, RefusesWhatItCannotReadWithAClearMessage) {
  TempDir dir;
  expect_refused(dir.file("missing.npy"), "does not exist");
  write_bytes(dir.file("text.npy"), "just some text, not an array\n");
  expect_refused(dir.file("text.npy"), "magic");

  std::vector<double> d = {1, 2, 3, 4, 5, 6};
  write_npy(dir.file("good.npy"), d, {2, 3});
  std::string const good = bytes_of(dir.file("good.npy"));

  write_bytes(dir.file("truncated.npy"), good.substr(0, good.size() - 3));
  expect_refused(dir.file("truncated.npy"), "needs 48 data bytes, the file holds 45");
  write_bytes(dir.file("trailing.npy"), good + "xx");
  expect_refused(dir.file("trailing.npy"), "the file holds 50");
  write_bytes(dir.file("header_cut.npy"), good.substr(0, 40));
  expect_refused(dir.file("header_cut.npy"), "header is longer than the file");

  auto replaced = [&](std::string const& from, std::string const& to) {
    std::string b = good;
    auto const at = b.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    b.replace(at, from.size(), to);  // same length: the header stays aligned
    return b;
  };
  write_bytes(dir.file("big_endian.npy"), replaced("'<f8'", "'>f8'"));
  expect_refused(dir.file("big_endian.npy"), "dtype '>f8'");
  write_bytes(dir.file("int64.npy"), replaced("'<f8'", "'<i8'"));
  expect_refused(dir.file("int64.npy"), "dtype '<i8'");
  write_bytes(dir.file("fortran.npy"), replaced("False", "True "));
  expect_refused(dir.file("fortran.npy"), "Fortran order");
  std::string v3 = good;
  v3[6] = 3;
  write_bytes(dir.file("v3.npy"), v3);
  expect_refused(dir.file("v3.npy"), "version 3.0");
}

}  // namespace parity_test_npy_reader
