#include <gtest/gtest.h>

#include "lab/model/impairment_profiles.h"
#include "lab/model/plan.h"
#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"
#include "lab/results/provenance.h"
#include "lab/run/environment.h"

using namespace vpnlab;

namespace {

const char* kGood = R"([lab]
name = "p2p"

[overlay]
subnet = "10.77.0.0/24"
mtu = 1400
port = 51820

[[node]]
name = "a"
cpus = [0]
load_cpus = [1]

[[node]]
name = "b"

[[link]]
name = "lan"
nodes = ["a", "b"]
subnet = "192.168.77.0/24"
mtu = 1500

[bench]
products = ["baseline", "wireguard-go"]
samples = 10
duration = "10s"
warmup = "2s"

[[bench.test]]
name = "a-to-b"
client = "a"
server = "b"
streams = 1
reverse = false
mss = 1200
)";

// Replaces the first occurrence of `from` in the good file.
std::string with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  auto r = parse_topology_text(text, "topologies/x.toml");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().where_and_what();
}

}  // namespace

TEST(Topology, ParsesTheContractKeys) {
  auto r = parse_topology_text(kGood, "t.toml");
  ASSERT_TRUE(r.ok()) << r.error().format();
  const Topology& t = r.value();
  EXPECT_EQ(t.lab_name, "p2p");
  EXPECT_EQ(t.backend, "netns");
  EXPECT_EQ(t.overlay_subnet.str(), "10.77.0.0/24");
  EXPECT_EQ(t.overlay_mtu, 1400);
  EXPECT_EQ(t.overlay_port, 51820);
  ASSERT_EQ(t.nodes.size(), 2u);
  EXPECT_EQ(t.nodes[0].cpus, std::vector<int>{0});
  EXPECT_EQ(t.nodes[0].load_cpus, std::vector<int>{1});
  ASSERT_EQ(t.links.size(), 1u);
  EXPECT_EQ(t.links[0].mtu, 1500);
  EXPECT_EQ(t.bench.products, (std::vector<std::string>{"baseline", "wireguard-go"}));
  EXPECT_EQ(t.bench.samples, 10);
  EXPECT_DOUBLE_EQ(t.bench.duration_s, 10);
  EXPECT_DOUBLE_EQ(t.bench.warmup_s, 2);
  ASSERT_EQ(t.bench.tests.size(), 1u);
  EXPECT_EQ(t.bench.tests[0].servers, std::vector<std::string>{"b"});
  EXPECT_EQ(t.bench.tests[0].mss, 1200);
}

TEST(Topology, UndefinedNodeOnLinkNamesFileLineColumn) {
  EXPECT_EQ(error_of(with(R"(nodes = ["a", "b"])", R"(nodes = ["a", "c"])")),
            "topologies/x.toml:19:15: link 'lan': node 'c' is not defined");
}

TEST(Topology, ErrorFormatHasHintLine) {
  auto r = parse_topology_text(with(R"(nodes = ["a", "b"])", R"(nodes = ["a", "bb"])"), "topologies/x.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().format(),
            "vpnlab: error: topologies/x.toml:19:15: link 'lan': node 'bb' is not defined\nhint: did you mean 'b'?");
}

TEST(Topology, ValidationErrors) {
  struct Case {
    std::string from, to, expected;
  };
  std::vector<Case> cases = {
      {R"(name = "p2p")", R"(name = "P2P")", "topologies/x.toml:2:8: lab name 'P2P' is invalid"},
      {R"(name = "p2p")", R"(name = "much-too-long-name")",
       "topologies/x.toml:2:8: lab name 'much-too-long-name' is invalid"},
      {R"(subnet = "10.77.0.0/24")", R"(subnet = "10.77.0.1/24")",
       "topologies/x.toml:5:10: overlay: subnet '10.77.0.1/24' has host bits set (did you mean 10.77.0.0/24?)"},
      {"mtu = 1400", "mtu = 100", "topologies/x.toml:6:7: overlay: 'mtu' = 100 is out of range"},
      {"mtu = 1400", "mtu = \"big\"", "topologies/x.toml:6:7: overlay: mtu = \"big\" is not understood"},
      {"mtu = 1400", "mtu = \"auto\"", ""},
      {"port = 51820", "prot = 51820", "topologies/x.toml:7:8: overlay: unknown key 'prot'"},
      {"name = \"b\"", "name = \"a\"", "topologies/x.toml:15:8: node 'a' is defined twice"},
      {"cpus = [0]", "cpus = [\"x\"]", "topologies/x.toml:11:9: node 'a': 'cpus' must contain CPU numbers (0..4095)"},
      {R"(nodes = ["a", "b"])", R"(nodes = ["a"])", "topologies/x.toml:19:9: link 'lan' needs at least two nodes"},
      {R"(subnet = "192.168.77.0/24")", R"(subnet = "10.77.0.0/16")",
       "topologies/x.toml:20:10: link 'lan': subnet 10.77.0.0/16 overlaps the overlay subnet 10.77.0.0/24"},
      {R"(subnet = "192.168.77.0/24")", R"(subnet = "192.168.77.0/31")", ""},  // /31 holds exactly 2 hosts: valid
      {R"(subnet = "192.168.77.0/24")", R"(subnet = "192.168.77.0/32")",
       "topologies/x.toml:20:10: link 'lan': subnet 192.168.77.0/32 has room for 1 hosts, not 2"},
      {"samples = 10", "samples = 0", "topologies/x.toml:25:11: bench: 'samples' = 0 is out of range"},
      {R"(duration = "10s")", R"(duration = "10 parsecs")",
       "topologies/x.toml:26:12: bench: 'duration' is not a duration"},
      {"samples = 10", "samples = 10\nprecision = \"5 %\"",
       "topologies/x.toml:26:13: bench: 'precision' is not a precision"},
      {"samples = 10", "samples = 10\nprecision = \"60%\"",
       "topologies/x.toml:26:13: bench: 'precision' is out of range"},
      {"samples = 10", "samples = 10\nmax_time = \"5m\"",
       "topologies/x.toml:26:12: bench: 'max_time' belongs to adaptive sampling"},
      {"samples = 10", "samples = 10\nprecision = \"5%\"\nmax_time = \"2d\"",
       "topologies/x.toml:27:12: bench: 'max_time' is not a duration from 1s to 168h"},
      {"samples = 10", "samples = 10\nprecision = 0.05\nmax_time = \"2h\"", ""},
      {R"(server = "b")", R"(server = "a")", "topologies/x.toml:32:10: test 'a-to-b': 'a' is both client and server"},
      {R"(client = "a")", R"(client = "z")", "topologies/x.toml:31:10: test 'a-to-b': node 'z' is not defined"},
      {"mss = 1200", "mss = 1380", "topologies/x.toml:35:7: test 'a-to-b': mss 1380 does not fit the overlay MTU 1400"},
      {"reverse = false", "reverse = \"no\"",
       "topologies/x.toml:34:11: test 'a-to-b': 'reverse' must be true or false, not a string"},
      {"streams = 1", "stream = 1", "topologies/x.toml:33:10: test: unknown key 'stream'"},
  };
  for (const auto& c : cases) {
    auto r = parse_topology_text(with(c.from, c.to), "topologies/x.toml");
    if (c.expected.empty()) {
      EXPECT_TRUE(r.ok()) << c.to << ": " << (r.ok() ? "" : r.error().format());
      continue;
    }
    ASSERT_FALSE(r.ok()) << c.to;
    EXPECT_EQ(r.error().where_and_what(), c.expected) << c.to;
    EXPECT_FALSE(r.error().hint.empty()) << c.to;
  }
}

TEST(Topology, UnknownKeySuggestsTheClosest) {
  auto r = parse_topology_text(with("streams = 1", "stream = 1"), "x.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().hint, "did you mean 'streams'?");
}

TEST(Topology, MalformedEmptyAndBinaryFiles) {
  EXPECT_EQ(error_of(""), "topologies/x.toml:1:1: the file is empty");
  EXPECT_EQ(error_of(std::string("\x7f"
                                 "ELF\0\0",
                                 6)),
            "topologies/x.toml:1:1: the file is binary, not TOML");
  std::string broken = error_of("[lab\nname = 1\n");
  EXPECT_EQ(broken.rfind("topologies/x.toml:1:", 0), 0u) << broken;
  EXPECT_NE(broken.find("not valid TOML"), std::string::npos) << broken;
}

TEST(Topology, LinkShapingIsParsed) {
  auto r = parse_topology_text(std::string(kGood) +
                                   "\n[[link]]\nname = \"wan\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.9.0/24\"\n"
                                   "rate = \"1gbit\"\ndelay = \"5ms\"\njitter = \"1ms\"\nloss = \"0.5%\"\n",
                               "x.toml");
  ASSERT_TRUE(r.ok()) << r.error().format();
  const LinkSpec& wan = r->links.back();
  EXPECT_DOUBLE_EQ(wan.rate_bps, 1e9);
  EXPECT_DOUBLE_EQ(wan.delay_ms, 5);
  EXPECT_DOUBLE_EQ(wan.jitter_ms, 1);
  EXPECT_DOUBLE_EQ(wan.loss_pct, 0.5);
  EXPECT_EQ(wan.shaping_pos.line, 41);
  EXPECT_EQ(
      error_of(std::string(kGood) +
               "\n[[link]]\nname = \"wan\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.9.0/24\"\nrate = \"10mbps\"\n"),
      "topologies/x.toml:41:8: link 'wan': 'rate' is not a rate of at least 8kbit");
  EXPECT_EQ(
      error_of(std::string(kGood) +
               "\n[[link]]\nname = \"wan\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.9.0/24\"\njitter = \"1ms\"\n"),
      "topologies/x.toml:41:10: link 'wan': 'jitter' without 'delay'");
}

// Issue 50.3: impairment profiles are data; a link names one instead of writing delay,
// jitter and loss, and keeps jittered packets in order unless it asks for reordering.
TEST(Topology, AnImpairmentProfileGivesItsDelayJitterAndLoss) {
  const std::string link =
      std::string(kGood) + "\n[[link]]\nname = \"wan\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.9.0/24\"\n";
  auto r = parse_topology_text(link + "profile = \"mobile\"\n", "x.toml");
  ASSERT_TRUE(r.ok()) << r.error().format();
  const LinkSpec& wan = r->links.back();
  EXPECT_EQ(wan.profile, "mobile");
  EXPECT_DOUBLE_EQ(wan.delay_ms, 25);
  EXPECT_DOUBLE_EQ(wan.jitter_ms, 10);
  EXPECT_DOUBLE_EQ(wan.loss_pct, 0.5);
  EXPECT_FALSE(wan.reorder);
  EXPECT_EQ(wan.shaping_pos.line, 41) << "a kernel without netem is refused at the profile";
  auto plan = make_plan(*r, PlanOptions{"r", "t"});
  ASSERT_TRUE(plan.ok()) << plan.error().format();
  const std::string text = describe_plan(*plan);
  EXPECT_NE(text.find(", profile mobile: delay 25 ms +- 10 ms (in order), loss 0.5 % each way"), std::string::npos)
      << text;
  auto reordered = parse_topology_text(link + "profile = \"wan-20ms\"\nreorder = true\n", "x.toml");
  ASSERT_TRUE(reordered.ok()) << reordered.error().format();
  EXPECT_TRUE(reordered->links.back().reorder);
  EXPECT_EQ(
      error_of(link + "profile = \"5g\"\n"),
      "topologies/x.toml:41:11: link 'wan': profile is not one of wan-20ms, wan-80ms, lossy-1pct, mobile, satellite");
  EXPECT_EQ(error_of(link + "profile = \"mobile\"\ndelay = \"5ms\"\n"),
            "topologies/x.toml:42:9: link 'wan': 'delay' beside profile");
  EXPECT_EQ(error_of(link + "profile = \"lossy-1pct\"\nreorder = true\n"),
            "topologies/x.toml:42:11: link 'wan': 'reorder' without jitter");
  for (const auto& p : impairment_profiles()) {
    EXPECT_GE(p.delay_ms, 0) << p.name;
    EXPECT_LE(p.jitter_ms, p.delay_ms) << p.name << ": jitter beyond the delay would ask netem for negative delays";
    EXPECT_TRUE(parse_topology_text(link + "profile = \"" + p.name + "\"\n", "x.toml").ok()) << p.name;
  }
}

// What an impaired link was asked for is recorded (environment.json's impaired_links), so a
// diff of two runs says when their paths differ and the report states it as asked, not measured.
TEST(Topology, AnImpairedLinkIsRecordedAndADiffSaysWhenItDiffers) {
  const std::string link =
      std::string(kGood) + "\n[[link]]\nname = \"wan\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.9.0/24\"\n";
  auto env_of = [&](const std::string& keys) {
    auto topo = parse_topology_text(link + keys, "x.toml");
    EXPECT_TRUE(topo.ok()) << topo.error().format();
    return describe_environment(make_plan(*topo, PlanOptions{"r", "t"}).value(), {}, {});
  };
  const nlohmann::json mobile = env_of("profile = \"mobile\"\n");
  ASSERT_TRUE(mobile.contains("impaired_links")) << mobile.dump(2);
  ASSERT_EQ(mobile["impaired_links"].size(), 1u);
  const auto& l = mobile["impaired_links"][0];
  EXPECT_EQ(l["link"], "wan");
  EXPECT_EQ(l["profile"], "mobile");
  EXPECT_EQ(l["delay_ms"], 25.0);
  EXPECT_EQ(l["jitter_ms"], 10.0);
  EXPECT_EQ(l["loss_pct"], 0.5);
  EXPECT_EQ(l["reorder"], false);
  EXPECT_FALSE(env_of("").contains("impaired_links")) << "no netem, no record";
  const auto diff = provenance_text(provenance_differences(mobile, env_of("profile = \"wan-20ms\"\n")));
  EXPECT_NE(diff.find("impaired links (delay, jitter, loss)"), std::string::npos) << diff;
}

TEST(Rate, Parses) {
  EXPECT_DOUBLE_EQ(*parse_rate("500M"), 500e6);
  EXPECT_DOUBLE_EQ(*parse_rate("1gbit"), 1e9);
  EXPECT_DOUBLE_EQ(*parse_rate("64k"), 64e3);
  EXPECT_DOUBLE_EQ(*parse_rate("1000000"), 1e6);
  EXPECT_DOUBLE_EQ(*parse_rate("2.5Gbit"), 2.5e9);
  EXPECT_FALSE(parse_rate("10mbps"));  // tc: megabytes, refused rather than misread
  EXPECT_FALSE(parse_rate("fast"));
  EXPECT_FALSE(parse_rate("0"));
  EXPECT_FALSE(parse_rate("5x"));
}

TEST(Duration, Parses) {
  EXPECT_DOUBLE_EQ(*parse_duration("10s"), 10);
  EXPECT_DOUBLE_EQ(*parse_duration("500ms"), 0.5);
  EXPECT_DOUBLE_EQ(*parse_duration("2m"), 120);
  EXPECT_DOUBLE_EQ(*parse_duration("1.5s"), 1.5);
  EXPECT_FALSE(parse_duration("10"));
  EXPECT_FALSE(parse_duration("s"));
  EXPECT_FALSE(parse_duration("10h"));
  EXPECT_FALSE(parse_duration("1.2.3s"));
}

TEST(ClosestMatch, FindsSmallEdits) {
  EXPECT_EQ(closest_match("wireguard", {"wireguard-go", "nebula"}), "wireguard-go");
  EXPECT_EQ(closest_match("xyz", {"wireguard-go", "nebula"}), "");
}
