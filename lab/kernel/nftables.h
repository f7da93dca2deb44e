// nftables in a node's network namespace, through libnftables: a variant's rules applied
// (lab/run/variant.h) and their counters read back, so that a rule that matched nothing
// is seen (it measured nothing). Everything runs on a thread that entered the namespace
// first: the library's netlink socket is opened there, never in the host's namespace.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

struct NftTable {
  std::string family, name;  // "inet", "vpnlab_variant"
  bool operator==(const NftTable&) const = default;
};

// Applies `ruleset` (nft's own syntax, as `nft -f` reads it) in the namespace; returns the
// tables its namespace has afterwards. nft's own message on failure; a ruleset that
// nft_ruleset_refusal (lab/base/nft_text.h) refuses is not given to nft at all.
Result<std::vector<NftTable>> nft_apply(int netns_fd, const std::string& ruleset);

// The tables the namespace has now (read only).
Result<std::vector<NftTable>> nft_tables(int netns_fd);

// Packets counted by every `counter` (anonymous in a rule, or a named counter object) of
// `tables` in the namespace.
struct NftCounted {
  uint64_t packets = 0;
  int counters = 0;  // how many counters were read: 0 means the rules count nothing
};
Result<NftCounted> nft_counted(int netns_fd, const std::vector<NftTable>& tables);

// Applies `ruleset` in a namespace of its own that lives only as long as the check (a
// thread's unshare): nft's whole verdict on the rules, syntax and kernel, before any lab
// exists; how many counters they made. Needs root (CAP_SYS_ADMIN).
Result<NftCounted> nft_check(const std::string& ruleset);

// The same on the JSON of `nft -j list ruleset` (unit-tested without a kernel).
Result<std::vector<NftTable>> nft_tables_of(const std::string& json);
Result<NftCounted> nft_counted_of(const std::string& json, const std::vector<NftTable>& tables);

}  // namespace vpnlab
