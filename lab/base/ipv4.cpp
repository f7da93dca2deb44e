#include "lab/base/ipv4.h"

#include <charconv>

namespace vpnlab {

namespace {
uint32_t mask_of(int length) { return length == 0 ? 0 : ~uint32_t{0} << (32 - length); }
}  // namespace

std::string Ipv4Addr::str() const {
  return std::to_string(value >> 24) + "." + std::to_string((value >> 16) & 255) + "." +
         std::to_string((value >> 8) & 255) + "." + std::to_string(value & 255);
}

uint64_t Ipv4Prefix::host_count() const {
  if (length >= 31) return length == 31 ? 2 : 1;
  return (uint64_t{1} << (32 - length)) - 2;
}

std::optional<Ipv4Addr> Ipv4Prefix::host(uint64_t n) const {
  if (n < 1 || n > host_count()) return std::nullopt;
  uint64_t offset = length >= 31 ? n - 1 : n;
  return Ipv4Addr{network.value + static_cast<uint32_t>(offset)};
}

bool Ipv4Prefix::overlaps(const Ipv4Prefix& other) const {
  int shorter = length < other.length ? length : other.length;
  uint32_t m = mask_of(shorter);
  return (network.value & m) == (other.network.value & m);
}

std::string Ipv4Prefix::str() const { return network.str() + "/" + std::to_string(length); }

std::optional<Ipv4Addr> parse_ipv4(const std::string& text) {
  uint32_t value = 0;
  const char* p = text.data();
  const char* end = p + text.size();
  for (int octet = 0; octet < 4; ++octet) {
    if (octet > 0) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
    unsigned part = 0;
    auto [next, ec] = std::from_chars(p, end, part);
    if (ec != std::errc{} || next == p || next - p > 3 || part > 255) return std::nullopt;
    value = (value << 8) | part;
    p = next;
  }
  if (p != end) return std::nullopt;
  return Ipv4Addr{value};
}

std::optional<HostAddr> parse_host_addr(const std::string& text) {
  auto slash = text.find('/');
  if (slash == std::string::npos || slash + 1 >= text.size() || text.size() - slash > 3) return std::nullopt;
  auto addr = parse_ipv4(text.substr(0, slash));
  if (!addr) return std::nullopt;
  int len = 0;
  for (size_t i = slash + 1; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    len = len * 10 + (text[i] - '0');
  }
  if (len > 32) return std::nullopt;
  return HostAddr{*addr, len};
}

std::optional<Ipv4Prefix> parse_ipv4_prefix(const std::string& text, std::string* why) {
  auto slash = text.find('/');
  if (slash == std::string::npos) {
    if (why) *why = "'" + text + "' has no prefix length (write it as a.b.c.d/len)";
    return std::nullopt;
  }
  auto addr = parse_ipv4(text.substr(0, slash));
  if (!addr) {
    if (why) *why = "'" + text + "' is not an IPv4 address";
    return std::nullopt;
  }
  int length = -1;
  std::string len_text = text.substr(slash + 1);
  auto [next, ec] = std::from_chars(len_text.data(), len_text.data() + len_text.size(), length);
  if (ec != std::errc{} || next != len_text.data() + len_text.size() || length < 0 || length > 32) {
    if (why) *why = "'" + text + "' has an invalid prefix length (0..32)";
    return std::nullopt;
  }
  if ((addr->value & ~mask_of(length)) != 0) {
    Ipv4Prefix fixed{Ipv4Addr{addr->value & mask_of(length)}, length};
    if (why) *why = "'" + text + "' has host bits set (did you mean " + fixed.str() + "?)";
    return std::nullopt;
  }
  return Ipv4Prefix{*addr, length};
}

}  // namespace vpnlab
