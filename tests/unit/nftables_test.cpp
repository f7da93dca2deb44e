// Reading nft's JSON listing (libnftables-json(5)) without a kernel: the tables a ruleset
// made, and the packets of every counter in them (a rule's anonymous one, a named counter
// object), none of another table's (a product's own rules are not the variant's).
#include <gtest/gtest.h>

#include "lab/base/nft_text.h"
#include "lab/kernel/nftables.h"

namespace vpnlab {
namespace {

const char* kListing = R"({"nftables": [
  {"metainfo": {"version": "1.0.6", "release_name": "Lester Gooch #5", "json_schema_version": 1}},
  {"table": {"family": "inet", "name": "vpnlab_fw", "handle": 1}},
  {"chain": {"family": "inet", "table": "vpnlab_fw", "name": "input", "handle": 1, "type": "filter", "hook": "input", "prio": 0, "policy": "accept"}},
  {"rule": {"family": "inet", "table": "vpnlab_fw", "chain": "input", "handle": 2, "expr": [
    {"match": {"op": "in", "left": {"ct": {"key": "state"}}, "right": ["established", "related"]}},
    {"counter": {"packets": 1200, "bytes": 90000}}, {"accept": null}]}},
  {"counter": {"family": "inet", "name": "seen", "table": "vpnlab_fw", "handle": 3, "packets": 34, "bytes": 2000}},
  {"table": {"family": "ip", "name": "ts-filter", "handle": 2}},
  {"rule": {"family": "ip", "table": "ts-filter", "chain": "ts-input", "handle": 4, "expr": [{"counter": {"packets": 999, "bytes": 1}}]}}
]})";

TEST(Nftables, CountsThePacketsOfTheVariantsTablesOnly) {
  auto tables = nft_tables_of(kListing);
  ASSERT_TRUE(tables.ok()) << tables.error().format();
  EXPECT_EQ(*tables, (std::vector<NftTable>{{"inet", "vpnlab_fw"}, {"ip", "ts-filter"}}));
  auto counted = nft_counted_of(kListing, {{"inet", "vpnlab_fw"}});
  ASSERT_TRUE(counted.ok()) << counted.error().format();
  EXPECT_EQ(counted->packets, 1234u) << "the rule's 1200 and the named counter's 34, not the other table's 999";
  EXPECT_EQ(counted->counters, 2);
  EXPECT_EQ(nft_counted_of(kListing, {})->counters, 0);
  EXPECT_EQ(nft_counted_of("{\"nftables\": 3}", {}).error().message,
            "nft's ruleset listing is not the JSON it documents");
}

TEST(Nftables, TheRulesTextIsReadForWordsNotParts) {
  EXPECT_TRUE(nft_has_word("ct state established counter accept", "counter"));
  EXPECT_FALSE(nft_has_word("counters_x accept", "counter"));
  EXPECT_EQ(nft_ruleset_refusal("include \"/etc/passwd\""),
            "the rules 'include' a file: nft would read it from this host");
  EXPECT_EQ(nft_ruleset_refusal("table inet t {\n\tinclude \"x\"\n}"),
            "the rules 'include' a file: nft would read it from this host");
  EXPECT_EQ(nft_ruleset_refusal("table inet includes_x { }"), "");
}

}  // namespace
}  // namespace vpnlab
