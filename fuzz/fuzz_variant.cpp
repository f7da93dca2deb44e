// A [[variant]]'s facets as a topology carries them: the first byte picks the facet (a sysctl
// key and value, nftables rules, a qdisc, offloads), the rest is its text, written into a
// two-node topology by toml++ so that TOML's own quoting is not what is tested. What the
// checks take, the node may apply: a sysctl key is a /proc/sys path below net/ in normal form
// ("net/./x" and "net//x" open what "net/x" opens) and not a machine-wide switch; rules hold a
// counter and no include; a qdisc is one the table lists. A plain key the other way round
// (lowercase words joined by '/', a one-line printable value) is taken, so the check cannot
// pass by refusing everything.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>

#include <toml++/toml.h>

#include "fuzz/fuzz_check.h"
#include "lab/base/nft_text.h"
#include "lab/model/topology.h"
#include "lab/model/variant_facets.h"

namespace {

constexpr const char* kSkeleton = R"([lab]
name = "fz"
backend = "netns"

[overlay]
subnet = "10.79.0.0/24"

[[node]]
name = "a"

[[node]]
name = "b"

[[link]]
name = "lan"
nodes = ["a", "b"]
subnet = "192.168.79.0/24"

[bench]
products = ["baseline"]
sweep = { variant = ["none", "v"] }

[[bench.test]]
name = "bulk"
client = "a"
server = "b"

)";

bool normal_net_key(const std::string& key) {
  if (key.rfind("net/", 0) != 0 || key.back() == '/') return false;
  const std::string full = "/proc/sys/" + key;
  return std::filesystem::path(full).lexically_normal().string() == full && key.find("//") == std::string::npos;
}

// Lowercase words of [a-z0-9_] joined by single '/', starting "net/": what every shipped
// topology writes.
bool plain_net_key(const std::string& key) {
  if (key.rfind("net/", 0) != 0 || key.size() == 4 || key.back() == '/' || key.find("//") != std::string::npos)
    return false;
  return key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_/") == std::string::npos;
}

bool printable_line(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const int facet = data[0] % 4;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string key = text, value = "1";
  if (auto nl = text.find('\n'); nl != std::string::npos) key = text.substr(0, nl), value = text.substr(nl + 1);

  toml::table variant{{"name", "v"}};
  switch (facet) {
    case 0:
      variant.insert("sysctl", toml::table{{key, value}});
      break;
    case 1:
      variant.insert("nft", text);
      break;
    case 2:
      variant.insert("qdisc", text);
      break;
    default:
      variant.insert("offloads", text == "on");
      break;
  }
  std::ostringstream out;
  out << kSkeleton << toml::table{{"variant", toml::array{std::move(variant)}}} << "\n";

  auto t = vpnlab::parse_topology_text(out.str(), "fuzz.toml");
  if (!t) {
    vpnlab::fuzz_check(t.error().file == "fuzz.toml" && t.error().line > 0,
                       "a refusal names the file and line: " + t.error().where_and_what());
    if (facet == 0 && plain_net_key(key) && key != "net/netfilter/nf_hooks_lwtunnel" && printable_line(value))
      vpnlab::fuzz_check(false, "a plain net/ key with a one-line value is taken: " + t.error().message);
    return 0;
  }
  vpnlab::fuzz_check(t->variants.size() == 1, "the one variant is read");
  const vpnlab::VariantSpec& v = t->variants[0];
  for (const auto& [k, val] : v.sysctls) {
    vpnlab::fuzz_check(normal_net_key(k), "a sysctl key taken is a normal path below net/: " + k);
    vpnlab::fuzz_check(
        std::filesystem::path("/proc/sys/" + k).lexically_normal() != "/proc/sys/net/netfilter/nf_hooks_lwtunnel",
        "the machine-wide switch is never taken, however it is written");
    vpnlab::fuzz_check(val.find_first_of("\r\n") == std::string::npos, "a sysctl value taken is one line");
  }
  if (!v.nft.empty()) {
    vpnlab::fuzz_check(vpnlab::nft_ruleset_refusal(v.nft).empty(), "rules taken include no file and hold no NUL");
    vpnlab::fuzz_check(vpnlab::nft_has_word(v.nft, "counter"), "rules taken hold a counter");
    vpnlab::fuzz_check(v.nft.size() <= vpnlab::kMaxVariantRules, "rules taken are within the bound");
  }
  if (!v.qdisc.empty()) {
    const auto& kinds = vpnlab::variant_qdisc_kinds();
    vpnlab::fuzz_check(std::find(kinds.begin(), kinds.end(), v.qdisc) != kinds.end(),
                       "a qdisc taken is one the table lists");
  }
  for (const auto& f : vpnlab::variant_facets()) (void)f.describe(v);
  return 0;
}
