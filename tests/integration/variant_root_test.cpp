// A variant on real namespaces: its nftables rules go into every VPN node's namespace
// (through libnftables, never this host's), their counters are read around each sample
// into rule_packets, a rule that matched nothing makes its rows invalid with the reason,
// and the points without the variant carry no count. This host's own ruleset is read
// before and after, only read: it must be what it was.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "lab/base/unique_fd.h"
#include "lab/kernel/capabilities.h"
#include "lab/kernel/namespace.h"
#include "lab/kernel/netlink.h"
#include "lab/kernel/nftables.h"
#include "lab/kernel/shaping.h"
#include "lab/record/results_csv.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

std::vector<NftTable> host_tables() {
  UniqueFd own(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  auto tables = nft_tables(own.get());
  EXPECT_TRUE(tables.ok()) << tables.error().format();
  return tables.ok() ? *tables : std::vector<NftTable>{};
}

TEST(Variant, ItsRulesCountTheSamplesPacketsInTheNodesOnly) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  const std::vector<NftTable> host_before = host_tables();
  std::string topology = make_temp_dir("variant-topo") + "/variant.toml";
  std::ofstream(topology) << two_pinned_nodes("vrt") << R"([[variant]]
name = "conntrack"
nft = """
table inet vpnlab_fw {
  chain input {
    type filter hook input priority 0; policy accept;
    ct state established,related counter accept
  }
}
"""
[[variant]]
name = "deaf"
nft = """
table inet vpnlab_fw {
  chain input {
    type filter hook input priority 0;
    ip saddr 203.0.113.77 counter drop
  }
}
"""
[bench]
products = ["baseline"]
sweep = { variant = ["none", "conntrack", "deaf"] }
[[bench.test]]
name = "bulk"
client = "a"
server = "b"
)";
  ShortRun run = short_run({"baseline", "wireguard-go"}, VPNLAB_PRODUCTS_DIR, 1, topology);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 6u) << "2 products x 3 variants";
  for (const auto& r : run.report->rows) {
    ASSERT_EQ(r.status, "ok") << r.product << " " << r.test << ": " << r.reason;
    EXPECT_EQ(r.point, "variant=" + r.test.substr(r.test.find('-') + 1));
    if (r.test == "bulk-none") {
      EXPECT_EQ(r.rule_packets, -1) << r.product << ": no rules, no count";
      continue;
    }
    if (r.test == "bulk-conntrack") {
      // A 1 s TCP transfer: tens of thousands of packets (or, merged by GRO, thousands).
      EXPECT_GT(r.rule_packets, 1000) << r.product;
      EXPECT_EQ(r.reason.find("matched no packet"), std::string::npos) << r.product << ": " << r.reason;
      if (r.product == "wireguard-go") {
        EXPECT_TRUE(r.valid) << r.reason;
      }
    } else {
      EXPECT_EQ(r.rule_packets, 0) << r.product;
      EXPECT_FALSE(r.valid) << r.product;
      EXPECT_EQ(r.reason,
                "variant 'deaf': its nftables rules matched no packet during the sample (a rule that never fired "
                "measured nothing)");
    }
  }
  // Read back from the file too: the column survives the CSV.
  auto rows = read_results_csv(run.run_dir + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  for (const auto& r : *rows) {
    if (r.test == "bulk-conntrack") {
      EXPECT_GT(r.rule_packets, 1000);
    }
  }
  EXPECT_EQ(host_tables(), host_before) << "the host's ruleset is not the lab's";
}

// The qdisc facet's node operation on a real link, in a namespace of its own: the root
// qdisc becomes the kind asked for (read back from the kernel), and a kind the kernel
// lacks is an error naming its module.
TEST(Variant, AQdiscIsTheLinksRootQdiscOrAnErrorNamingTheModule) {
  VPNLAB_REQUIRE_ROOT();
  NetnsRequest scratch{"vpnlab-qdisc-test", {}};
  scratch.anonymous = true;
  auto made = create_namespaces({scratch});
  ASSERT_TRUE(made.ok()) << made.error().format();
  nl_sock* sock = made->front().sock.get();
  ASSERT_TRUE(create_veth(sock, "vq0", 0, made->front().fd.get(), "vq1", 1500).ok());
  ASSERT_TRUE(set_link(sock, "vq0", 1500, true).ok());
  ASSERT_TRUE(set_root_qdisc(sock, "vq0", "pfifo").ok());
  auto kind = root_qdisc_kind(sock, "vq0");
  ASSERT_TRUE(kind.ok()) << kind.error().format();
  EXPECT_EQ(*kind, "pfifo");
  for (const char* wanted : {"fq_codel", "cake"}) {
    Status s = set_root_qdisc(sock, "vq0", wanted);
    if (s.ok()) {
      EXPECT_EQ(root_qdisc_kind(sock, "vq0").value(), wanted);
      continue;
    }
    EXPECT_EQ(s.error().message.rfind(std::string("link 'vq0': cannot attach a ") + wanted + " qdisc: ", 0), 0u)
        << s.error().message;
    EXPECT_NE(s.error().hint.find(std::string("this kernel lacks sch_") + wanted), std::string::npos)
        << s.error().format();
  }
}

// A qdisc variant in a run: its point's rows are measured over the qdisc (environment.json
// records it); a kind this kernel lacks fails that point's bring-up with the module named.
TEST(Variant, AQdiscVariantRunsOrSaysWhichModuleIsMissing) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string topology = make_temp_dir("variant-topo") + "/qdisc.toml";
  std::ofstream(topology) << two_pinned_nodes("vrq") << R"([[variant]]
name = "pfifo"
qdisc = "pfifo"
[[variant]]
name = "cake"
qdisc = "cake"
[bench]
products = ["baseline"]
sweep = { variant = ["none", "pfifo", "cake"] }
[[bench.test]]
name = "bulk"
client = "a"
server = "b"
)";
  const bool has_cake = probe_qdiscs({"cake"}).front().second.ok();
  ShortRun run = short_run({"baseline"}, VPNLAB_PRODUCTS_DIR, 1, topology);
  if (!has_cake) {
    // The cake point cannot be built: the run stops there, naming the module; the points
    // before it are in results.csv.
    ASSERT_FALSE(run.report.ok());
    EXPECT_NE(run.report.error().format().find("cannot attach a cake qdisc"), std::string::npos)
        << run.report.error().format();
    EXPECT_NE(run.report.error().format().find("this kernel lacks sch_cake"), std::string::npos)
        << run.report.error().format();
  } else {
    ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  }
  auto rows = read_results_csv(run.run_dir + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  bool pfifo_measured = false;
  for (const auto& r : *rows) pfifo_measured = pfifo_measured || (r.test == "bulk-pfifo" && r.status == "ok");
  EXPECT_TRUE(pfifo_measured) << "the pfifo point has a finished sample";
  const std::string env = read_file(run.run_dir + "/environment.json");
  EXPECT_NE(env.find("\"qdisc\": \"pfifo\""), std::string::npos) << env;
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
}

// Rules nft refuses are refused before any lab exists: `validate` (as root) and `run` try
// them in a namespace of their own and give nft's message at the file's nft key; the run
// creates nothing.
TEST(Variant, RulesNftRefusesAreALocatedErrorBeforeAnyLab) {
  VPNLAB_REQUIRE_ROOT();
  std::string topology = make_temp_dir("variant-topo") + "/bad.toml";
  std::ofstream(topology) << two_pinned_nodes("vrb") << R"([[variant]]
name = "typo"
nft = """
table inet vpnlab_fw {
  chain input {
    type filter hook input priority 0;
    ct state established counter acept
  }
}
"""
[bench]
products = ["baseline"]
sweep = { variant = ["none", "typo"] }
[[bench.test]]
name = "bulk"
client = "a"
server = "b"
)";
  const int line = 20;  // the nft key's line in the text above (two_pinned_nodes is 17 lines)
  const std::string out = make_temp_dir("variant-out");
  for (const std::string verb : {"validate", "run"}) {
    std::vector<std::string> args = {verb, topology};
    if (verb == "run") args.insert(args.end(), {"--out", out, "--no-history"});
    CliOutcome o = vpnlab_cli(args);
    EXPECT_EQ(o.status, 1) << verb << ": " << o.err;
    EXPECT_EQ(o.err.rfind("vpnlab: error: " + topology + ":" + std::to_string(line) +
                              ":7: variant 'typo': nft: Error: syntax error",
                          0),
              0u)
        << verb << ": " << o.err;
    EXPECT_NE(o.err.find("hint: nft -f syntax; the rules are tried in a namespace of their own before the run"),
              std::string::npos)
        << o.err;
  }
  EXPECT_TRUE(std::filesystem::is_empty(out)) << "the run made nothing";
}

}  // namespace
