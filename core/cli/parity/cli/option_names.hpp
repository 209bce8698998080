#pragma once
// The options that set a library's parameters, so a command shows a library message in the words
// its user typed. A library names the fields of its parameter struct (`delta must lie in (0, 1)`);
// the command turns each name into its option (`--delta must lie in (0, 1)`), either by passing
// the names to the library's check or by rewriting the message it threw.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "parity/run/errors.hpp"

namespace parity::cli {

class OptionNames {
 public:
  // One parameter: its field and the option that sets it ("": "--" and the field with dashes,
  // sigma_eps: --sigma-eps). Fields set together by one option are named together ("x_lo,x_hi":
  // --x-range); an option may carry the item it sets ("nk": "--grid NK").
  struct Entry {
    std::string field;
    std::string option = {};
  };
  OptionNames(std::initializer_list<Entry> entries);

  // The option that sets `field`: its entry's, or "--" and the field with dashes for any other.
  std::string operator()(std::string const& field) const;

  // `message` with each listed field that stands as a word of its own replaced by its option:
  // "asset_max must exceed borrowing_limit" -> "--asset-max must exceed --borrowing-limit". A word
  // of its own starts the message or follows a space, and ends it or precedes a space, ',', ':',
  // ';', '.' or ')'; a name inside a formula ("1/beta - 1", "gamma^2") stays as it is.
  std::string in_option_words(std::string const& message) const;

  // Calls f (a library's check or solver) and returns what it returns; an InvalidInput it throws
  // is thrown again with its message in option words.
  template <class F>
  decltype(auto) with_option_words(F&& f) const {
    try {
      return std::forward<F>(f)();
    } catch (InvalidInput const& e) {
      throw InvalidInput(in_option_words(e.what()));
    }
  }

 private:
  std::vector<std::pair<std::string, std::string>> options_;  // field, option; longest field first
};

}  // namespace parity::cli
