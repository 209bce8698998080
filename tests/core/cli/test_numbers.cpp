// The command line's number syntax (core/cli/numbers.hpp): whole numbers and comma-separated lists,
// with messages that name the option as typed. Host code only (parity-cli-tests).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "parity/cli/numbers.hpp"
#include "parity/run/errors.hpp"

namespace {

using parity::InvalidInput;
namespace cli = parity::cli;

// The message of the InvalidInput that f throws ("" if it throws none).
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (InvalidInput const& e) {
    return e.what();
  }
  return "";
}

TEST(NumberList, ParsesFiniteNumbers) {
  EXPECT_EQ(cli::parse_numbers("-10,10", "--x-range", 2, "LO,HI"), (std::vector<double>{-10, 10}));
  EXPECT_EQ(cli::parse_numbers(" 1.5, 2e-3 ,0x10", "--x", 3, ""), (std::vector<double>{1.5, 2e-3, 16}));
  EXPECT_EQ(cli::parse_numbers("1,2,3,4,5", "--x", 0, ""), (std::vector<double>{1, 2, 3, 4, 5}));
  EXPECT_EQ(cli::parse_numbers("7", "--x", 0, ""), (std::vector<double>{7}));
}

TEST(NumberList, RefusesEmptyItemsAndTrailingCommas) {
  auto const trailing = refusal([] { cli::parse_numbers("1,2,", "--x-range", 2, "LO,HI"); });
  EXPECT_EQ(trailing, "--x-range expects 2 comma-separated numbers LO,HI, got '1,2,' (nothing after the last comma)");
  EXPECT_NE(refusal([] { cli::parse_numbers(",1,2", "--x", 2, ""); }).find("nothing before the first comma"),
            std::string::npos);
  EXPECT_NE(refusal([] { cli::parse_numbers("1,,2", "--x", 0, ""); }).find("item 2 is empty"), std::string::npos);
  EXPECT_NE(refusal([] { cli::parse_numbers("1, ,2", "--x", 0, ""); }).find("item 2 is empty"), std::string::npos);
  EXPECT_EQ(refusal([] { cli::parse_numbers("", "--x-range", 2, "LO,HI"); }),
            "--x-range expects 2 comma-separated numbers LO,HI, got nothing");
  EXPECT_NE(refusal([] { cli::parse_numbers(",", "--x", 0, ""); }), "");
}

TEST(NumberList, RefusesNonNumbersAndNonFiniteValues) {
  for (char const* text : {"1,nan", "1,inf", "1,-inf", "1,1e999"})
    EXPECT_NE(
        refusal([&] { cli::parse_numbers(text, "--mu-range", 2, "LO,HI"); }).find("item 2 is not a finite number"),
        std::string::npos)
        << text;
  for (char const* text : {"1,a", "1,2x", "1,2 3", "1;2"})
    EXPECT_NE(refusal([&] { cli::parse_numbers(text, "--mu-range", 0, ""); }).find("is not a number"),
              std::string::npos)
        << text;
}

TEST(NumberList, RefusesAnotherCount) {
  EXPECT_EQ(refusal([] { cli::parse_numbers("1,2,3", "--x-range", 2, "LO,HI"); }),
            "--x-range expects 2 comma-separated numbers LO,HI, got '1,2,3' (3 numbers)");
  EXPECT_NE(refusal([] { cli::parse_numbers("1", "--x-range", 2, ""); }).find("(1 number)"), std::string::npos);
}

TEST(NumberList, ErrorQuotesNothingOfTheText) {
  // A file's first line may be anything (binary data): the reason names the item, never its bytes.
  std::vector<double> values;
  std::string const binary = "\x93NUMPY\x01\x00{'descr'";
  EXPECT_EQ(cli::number_list_error(binary, 4, values), "item 1 is not a number");
  EXPECT_EQ(cli::number_list_error("0.1,nan,0.1,0.9", 4, values), "item 2 is not a finite number");
  EXPECT_EQ(cli::number_list_error("1,2,3", 4, values), "3 numbers");
  EXPECT_EQ(cli::number_list_error("1,2,3,4", 4, values), "");
  EXPECT_EQ(values, (std::vector<double>{1, 2, 3, 4}));
}

std::vector<cli::CountItem> const grid = {{"NX", 2, 1000}, {"NMU", 2, 1000}, {"NSIGMA", 2, 1000}};

TEST(CountList, ParsesWholeNumbersInTheCountSyntax) {
  EXPECT_EQ(cli::parse_counts("16,1e2, 3", "--grid", grid), (std::vector<std::int64_t>{16, 100, 3}));
}

TEST(CountList, RefusesEmptyItemsFractionsAndValuesOutOfTheirRange) {
  EXPECT_EQ(refusal([] { cli::parse_counts("16,16,16,", "--grid", grid); }),
            "--grid expects 3 comma-separated whole numbers NX,NMU,NSIGMA, got '16,16,16,' (nothing after the last "
            "comma)");
  EXPECT_NE(refusal([] { cli::parse_counts("8.5,8,8", "--grid", grid); }).find("(NX: '8.5' is not a whole number)"),
            std::string::npos);
  EXPECT_NE(refusal([] {
              cli::parse_counts("8,1,8", "--grid", grid);
            }).find("(NMU: 1 is out of range: must be in [2, 1000])"),
            std::string::npos);
  EXPECT_NE(refusal([] { cli::parse_counts("8,8", "--grid", grid); }).find("(2 numbers)"), std::string::npos);
  EXPECT_NE(refusal([] { cli::parse_counts("8,8,8,8", "--grid", grid); }).find("(4 numbers)"), std::string::npos);
  EXPECT_NE(refusal([] { cli::parse_counts("a,b,c", "--grid", grid); }).find("--grid expects 3"), std::string::npos);
  // Each item its own range: the message states the rule of the item that breaks it.
  std::vector<cli::CountItem> const ks = {{"NK", 20, 100000}, {"NKbar", 2, 10000}};
  EXPECT_NE(refusal([&] { cli::parse_counts("10,4", "--grid", ks); })
                .find("(NK: 10 is out of range: must be in [20, "
                      "100000])"),
            std::string::npos);
  EXPECT_NE(refusal([&] { cli::parse_counts("40,20000", "--grid", ks); }).find("(NKbar: 20000 is out of range"),
            std::string::npos);
}

TEST(Count, ParsesTheCountSyntax) {
  EXPECT_EQ(cli::parse_count("1e6", "--n", 0, std::numeric_limits<std::int64_t>::max()), 1000000);
  EXPECT_EQ(cli::parse_count("1E+3", "--n", 0, 1000), 1000);
  EXPECT_NE(refusal([] { cli::parse_count("1.5", "--n", 0, 10); }).find("--n: '1.5' is not a whole number"),
            std::string::npos);
  EXPECT_NE(refusal([] { cli::parse_count("-1", "--n", 0, 10); }).find("--n: -1 is out of range"), std::string::npos);
}

}  // namespace
