// The name rules of a lab, in one place: what a topology file may call a node, a link, a
// test or a lab, and what a product may be called (NAME, or NAME@TAG for a version of it).
// Run files read back are held to the same rules, since their names become file names.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>

namespace vpnlab {

inline constexpr size_t kMaxTestName = 32;
// A test of a sweep is named after its test and point ("udp-1400"): room for the suffix.
inline constexpr size_t kMaxGeneratedTestName = 64;
inline constexpr size_t kMaxProductLabel = 64;

// 1 to max_len characters from [a-z0-9-], not starting with '-'.
inline bool is_lab_name(const std::string& name, size_t max_len) {
  return !name.empty() && name.size() <= max_len && name.front() != '-' &&
         std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

// A version tag: [a-z0-9.-], not "." or "..", not starting with '.' or '-'.
inline bool is_product_tag(const std::string& tag) {
  return !tag.empty() && tag.front() != '.' && tag.front() != '-' && std::all_of(tag.begin(), tag.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

// "wireguard-go" or "nebula@1.9.5": a product folder's name, with an optional tag.
inline bool is_product_label(const std::string& label) {
  if (label.size() > kMaxProductLabel) return false;
  const size_t at = label.find('@');
  if (at == std::string::npos) return is_lab_name(label, kMaxProductLabel);
  return is_lab_name(label.substr(0, at), kMaxProductLabel) && is_product_tag(label.substr(at + 1));
}

// "nebula@1.9.5" -> "nebula": the product folder a label names.
inline std::string product_base_name(const std::string& label) { return label.substr(0, label.find('@')); }

// Two versions of one product compared as one row: "nebula@old -> @new" ("nebula -> @dev",
// "nebula@v1 -> nebula" when a side is untagged).
inline std::string version_pair_label(const std::string& from, const std::string& to) {
  const size_t at = to.find('@');
  return from + " -> " + (at == std::string::npos ? to : to.substr(at));
}

}  // namespace vpnlab
