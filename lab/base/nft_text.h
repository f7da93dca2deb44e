// What can be told of an nftables ruleset from its text alone, before nft reads it: the
// topology's check (lab/model/variant_section.cpp) and the kernel's last one before the
// rules are applied (lab/kernel/nftables.cpp) use the same words.
#pragma once
#include <cctype>
#include <string>

namespace vpnlab {

// True when `word` stands in `text` as a word of its own ("counter", not "counters").
inline bool nft_has_word(const std::string& text, const std::string& word) {
  auto part_of_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    if ((at == 0 || !part_of_word(text[at - 1])) && (end >= text.size() || !part_of_word(text[end]))) return true;
  }
  return false;
}

// Why a ruleset may not be given to nft, or "": an `include` would read a file of this
// host (a topology is input, not a way to reach the host's files).
inline std::string nft_ruleset_refusal(const std::string& ruleset) {
  if (ruleset.find('\0') != std::string::npos) return "the rules contain a NUL byte";
  if (nft_has_word(ruleset, "include")) return "the rules 'include' a file: nft would read it from this host";
  return "";
}

}  // namespace vpnlab
