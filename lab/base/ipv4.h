// IPv4 addresses and prefixes as plain values (no syscalls), for the pure plan.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace vpnlab {

struct Ipv4Addr {
  uint32_t value = 0;  // host byte order
  std::string str() const;
  bool operator==(const Ipv4Addr&) const = default;
};

struct Ipv4Prefix {
  Ipv4Addr network;
  int length = 0;

  // Number of usable host addresses (excludes network and broadcast for /0../30).
  uint64_t host_count() const;
  // Host address number n (1-based): 10.77.0.0/24 host 1 = 10.77.0.1. nullopt if out of range.
  std::optional<Ipv4Addr> host(uint64_t n) const;
  bool overlaps(const Ipv4Prefix& other) const;
  std::string str() const;
  bool operator==(const Ipv4Prefix&) const = default;
};

// An address on an interface: 10.77.0.1/24.
struct HostAddr {
  Ipv4Addr addr;
  int prefix_len = 0;
  std::string str() const { return addr.str() + "/" + std::to_string(prefix_len); }
  // The prefix the address is on: 192.168.1.7/24 -> 192.168.1.0/24.
  Ipv4Prefix network() const {
    const uint32_t mask = prefix_len == 0 ? 0u : ~uint32_t{0} << (32 - prefix_len);
    return Ipv4Prefix{Ipv4Addr{addr.value & mask}, prefix_len};
  }
};

std::optional<Ipv4Addr> parse_ipv4(const std::string& text);
// "a.b.c.d/len" as an interface address (host bits allowed); nullopt if malformed.
std::optional<HostAddr> parse_host_addr(const std::string& text);
// Strict: "a.b.c.d/len" with no host bits set; the reason on failure goes to *why.
std::optional<Ipv4Prefix> parse_ipv4_prefix(const std::string& text, std::string* why);

}  // namespace vpnlab
