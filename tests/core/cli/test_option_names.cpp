// Library parameter names in a command's words (core/cli/option_names.hpp). Host code only
// (parity-cli-tests).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "parity/cli/option_names.hpp"
#include "parity/run/errors.hpp"

namespace {

namespace cli = parity::cli;

cli::OptionNames const names = {
    {"beta"}, {"asset_max"},      {"borrowing_limit"}, {"rate_tol", "--tol"}, {"x_lo,x_hi", "--x-range"},
    {"x_lo"}, {"nk", "--grid NK"}};

TEST(OptionNames, NamesTheOptionOfAField) {
  EXPECT_EQ(names("beta"), "--beta");
  EXPECT_EQ(names("asset_max"), "--asset-max");
  EXPECT_EQ(names("rate_tol"), "--tol");
  EXPECT_EQ(names("x_lo,x_hi"), "--x-range");
  EXPECT_EQ(names("nk"), "--grid NK");
  // A field without an entry gets the rule: "--" and the field with dashes.
  EXPECT_EQ(names("sigma_eps"), "--sigma-eps");
  EXPECT_EQ(names("tol"), "--tol");
}

TEST(OptionNames, RewritesFieldsThatStandAsWords) {
  EXPECT_EQ(names.in_option_words("beta must lie in (0, 1)"), "--beta must lie in (0, 1)");
  EXPECT_EQ(names.in_option_words("asset_max must exceed borrowing_limit"),
            "--asset-max must exceed --borrowing-limit");
  EXPECT_EQ(names.in_option_words("raise asset_max (now 100)"), "raise --asset-max (now 100)");
  EXPECT_EQ(names.in_option_words("rate_tol must lie in (0, 0.01)"), "--tol must lie in (0, 0.01)");
  EXPECT_EQ(names.in_option_words("(rate_tol) and beta."), "(rate_tol) and --beta.");
  EXPECT_EQ(names.in_option_words("beta, asset_max: too small; beta"), "--beta, --asset-max: too small; --beta");
  // The longest listed name wins: the pair, not its first field.
  EXPECT_EQ(names.in_option_words("x_lo,x_hi needs lower < upper"), "--x-range needs lower < upper");
  EXPECT_EQ(names.in_option_words("x_lo 3 is above 2"), "--x-lo 3 is above 2");
}

TEST(OptionNames, LeavesOtherWordsAlone) {
  // Inside a formula, inside a longer word, or not listed: as written.
  EXPECT_EQ(names.in_option_words("no rate below 1/beta - 1"), "no rate below 1/beta - 1");
  EXPECT_EQ(names.in_option_words("beta^2 < 1"), "beta^2 < 1");
  EXPECT_EQ(names.in_option_words("betas and alpha_beta"), "betas and alpha_beta");
  EXPECT_EQ(names.in_option_words("sigma_eps must be > 0"), "sigma_eps must be > 0");
  EXPECT_EQ(names.in_option_words(""), "");
  EXPECT_EQ(names.in_option_words("beta"), "--beta");
}

TEST(OptionNames, ThrowsALibraryMessageAgainInOptionWords) {
  EXPECT_EQ(names.with_option_words([] { return 7; }), 7);
  try {
    names.with_option_words([] { throw parity::InvalidInput("asset_max must exceed borrowing_limit"); });
    FAIL() << "no exception";
  } catch (parity::InvalidInput const& e) {
    EXPECT_STREQ(e.what(), "--asset-max must exceed --borrowing-limit");
  }
  // Other exceptions pass as they are.
  EXPECT_THROW(names.with_option_words([] { throw std::runtime_error("beta"); }), std::runtime_error);
}

}  // namespace
