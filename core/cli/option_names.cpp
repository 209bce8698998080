#include "parity/cli/option_names.hpp"

#include <algorithm>
#include <cstring>

namespace parity::cli {
namespace {

std::string dashed(std::string const& field) {
  std::string option = "--" + field;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

}  // namespace

OptionNames::OptionNames(std::initializer_list<Entry> entries) {
  for (auto const& e : entries) options_.emplace_back(e.field, e.option.empty() ? dashed(e.field) : e.option);
  // Longest first, so "x_lo,x_hi" is replaced whole before a shorter field could match inside it.
  std::stable_sort(options_.begin(), options_.end(),
                   [](auto const& a, auto const& b) { return a.first.size() > b.first.size(); });
}

std::string OptionNames::operator()(std::string const& field) const {
  for (auto const& [name, option] : options_)
    if (name == field) return option;
  return dashed(field);
}

std::string OptionNames::in_option_words(std::string const& message) const {
  auto starts_word = [&](std::size_t at) { return at == 0 || message[at - 1] == ' '; };
  auto ends_word = [&](std::size_t end) {
    return end == message.size() || std::strchr(" ,:;.)", message[end]) != nullptr;
  };
  std::string out;
  std::size_t at = 0;
  while (at < message.size()) {
    bool replaced = false;
    if (starts_word(at)) {
      for (auto const& [name, option] : options_) {
        if (message.compare(at, name.size(), name) == 0 && ends_word(at + name.size())) {
          out += option;
          at += name.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += message[at++];
  }
  return out;
}

}  // namespace parity::cli
