// Product versions as an x axis: "1.10.0" comes after "1.9.3", as a reader expects and a
// string comparison does not. A version is taken from what the product printed ("Version:
// 1.6.1", "wireguard-go v0.0.20220316", "tinc version 1.0.36"): its first word with a digit.
#pragma once
#include <string>

namespace vpnlab {

// "Version: 1.6.1" -> "1.6.1"; "wireguard-go v0.0.20220316" -> "0.0.20220316"; no digit: the text.
std::string version_token(const std::string& printed);

// <0, 0, >0 as a is before, the same as, or after b: digit runs compare as numbers, other
// characters as text, and a release comes after its pre-releases ("1.2.0-rc1" < "1.2.0").
int compare_versions(const std::string& a, const std::string& b);

}  // namespace vpnlab
