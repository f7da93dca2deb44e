// Pieces of the runner that need no root: iperf3 JSON, CSV rows, templates, keys,
// product specs, counter parsing, the tunnel check and the summary table.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>

#include "../temp_paths.h"
#include "lab/base/cpu_stat.h"
#include "lab/base/fs_util.h"
#include "lab/base/stats.h"
#include "lab/model/finalize.h"
#include "lab/model/product_spec.h"
#include "lab/model/template.h"
#include "lab/record/results_csv.h"
#include "lab/results/summary.h"
#include "lab/run/iperf.h"
#include "lab/run/keys.h"
#include "lab/run/product_session.h"
#include "lab/run/run_timing.h"
#include "lab/run/runner.h"

using namespace vpnlab;

namespace {
std::string read(const std::string& path) { return read_file_text(path); }
std::string temp_dir() { return make_temp_dir("test"); }
}  // namespace

TEST(Iperf, ParsesRecordedClientJson) {
  auto s = parse_iperf_json(read(VPNLAB_TEST_DATA "/iperf3-forward.json"));
  ASSERT_TRUE(s.ok()) << s.error().format();
  EXPECT_EQ(s->bytes_received, 89896772u);
  EXPECT_EQ(s->bytes_sent, 91488256u);
  EXPECT_EQ(s->retransmits, 3706);
  EXPECT_NEAR(s->gbps, 0.358585, 1e-6);
  EXPECT_EQ(s->streams, 1);
}

TEST(Iperf, ReportsIperfErrorsAndGarbage) {
  auto e = parse_iperf_json(read(VPNLAB_TEST_DATA "/iperf3-error.json"));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "iperf3: unable to connect to server: Connection refused");
  EXPECT_FALSE(parse_iperf_json("not json").ok());
  EXPECT_FALSE(parse_iperf_json("{\"end\":{}}").ok());
}

TEST(Iperf, Argv) {
  IperfClientOptions o;
  o.server_address = "10.77.0.2";
  o.duration_s = 2;
  o.streams = 4;
  o.reverse = true;
  o.mss = 1200;
  EXPECT_EQ(iperf_client_argv(o), (std::vector<std::string>{"iperf3", "-4", "-c", "10.77.0.2", "-p", "5201", "-J", "-t",
                                                            "2", "-P", "4", "-R", "-M", "1200"}));
  o.repeating_payload = true;
  EXPECT_EQ(iperf_client_argv(o).back(), "--repeating-payload");
  EXPECT_EQ(iperf_server_argv(5201), (std::vector<std::string>{"iperf3", "-4", "-s", "-1", "-p", "5201"}));
}

// Issue 49.8: a figure the row did not measure is empty in results.csv and null in
// --rows-jsonl, never 0 (a dashboard averaging the column would average in the zeros); a
// measured 0 stays 0; both read back as the row held them.
TEST(ResultsCsv, UnmeasuredFiguresAreEmptyNotZero) {
  SampleRow baseline;
  baseline.run_id = "r1";
  baseline.product = "baseline";
  baseline.test = "a-to-b";
  baseline.protocol = "tcp";
  baseline.sample = 1;
  baseline.status = "ok";
  baseline.valid = true;
  baseline.gbps = 9.5;
  baseline.retransmits = 0;  // measured: none
  baseline.cpu_s = 1.2;
  nlohmann::json j = row_json(baseline);
  for (const char* unmeasured :
       {"daemon_rss_kb", "daemon_threads", "latency_p50_ms", "latency_p99_ms", "bringup_s", "cpu_s_per_gbit", "tps",
        "tx_p99_ms", "loss_pct", "offered_bps", "idle_p50_ms", "added_p99_ms"})
    EXPECT_TRUE(j[unmeasured].is_null()) << unmeasured << " = " << j[unmeasured];
  EXPECT_EQ(j["retransmits"], 0);
  EXPECT_EQ(j["cpu_s"], 1.2);
  SampleRow tunnel = baseline;
  tunnel.product = "wireguard-go";
  tunnel.daemon_rss_kb = 12000;
  tunnel.daemon_threads = 9;
  tunnel.latency_probes = 50;
  tunnel.latency_p99_ms = 0;  // answered probes faster than the clock's step: a measured 0
  tunnel.cpu_s_per_gbit = 2.5;
  j = row_json(tunnel);
  EXPECT_EQ(j["daemon_rss_kb"], 12000);
  EXPECT_EQ(j["latency_p99_ms"], 0.0);
  EXPECT_EQ(j["cpu_s_per_gbit"], 2.5);
  const std::string dir = make_temp_dir("unmeasured");
  {
    auto csv = ResultsCsv::create(dir + "/results.csv");
    ASSERT_TRUE(csv.ok()) << csv.error().message;
    ASSERT_TRUE(csv->append(baseline).ok());
  }
  auto back = read_results_csv(dir + "/results.csv");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->front().daemon_rss_kb, 0);
  EXPECT_EQ(back->front().latency_p99_ms, 0);
  EXPECT_EQ(back->front().retransmits, 0);
  EXPECT_EQ(format_row(back->front()), format_row(baseline));
}

TEST(ResultsCsv, WritesHeaderAndRowsAndReadsThemBack) {
  std::string dir = temp_dir();
  std::string path = dir + "/results.csv";
  {
    auto csv = ResultsCsv::create(path);
    ASSERT_TRUE(csv.ok());
    SampleRow r;
    r.run_id = "r1";
    r.product = "wireguard-go";
    r.test = "a-to-b";
    r.sample = 2;
    r.gbps = 0.35;
    r.valid = true;
    r.status = "ok";
    r.reason = "has, a \"comma\"";
    ASSERT_TRUE(csv->append(r).ok());
  }
  // Re-opening appends without a second header.
  ASSERT_TRUE(ResultsCsv::create(path).ok());
  std::string text = read(path);
  EXPECT_EQ(
      text.substr(0, text.find('\n')),
      "run_id,timestamp,product,test,pattern,direction,protocol,sample,client,server,streams,reverse,mss,duration_s,"
      "gbps,"
      "retransmits,valid,status,reason,cipher,bringup_s,cpu_s,cpu_user_s,cpu_sys_s,cpu_softirq_s,steal_s,cpu_s_per_"
      "gbit,"
      "processes,pps,loss_pct,generator_cpu_pct,daemon_rss_kb,daemon_threads,latency_p50_ms,latency_p99_ms,latency_"
      "probes,outside_load,softirq_by_cpu,wire_pps,cpu_by_host,"
      "kind,tps,tx_p50_ms,tx_p90_ms,tx_p99_ms,tx_p999_ms,payload_bytes,offered_bps,zero_loss_bps,hops,sweep_of,point,"
      "rule_packets,"
      "idle_p50_ms,idle_probes,added_p50_ms,added_p99_ms,relay_cpu_s,relay_rss_kb,peer_gbps,peer_retransmits,fairness");
  EXPECT_NE(text.find(",\"has, a \"\"comma\"\"\",,,0.000,"), std::string::npos)
      << text << "(bring-up not measured: empty)";
  // A file of the first version (27 columns) still reads, the new columns at defaults.
  std::string old_path = path + ".v1";
  {
    std::ofstream old(old_path);
    old << "run_id,timestamp,product,test,pattern,direction,protocol,sample,client,server,streams,reverse,mss,duration_"
           "s,gbps,"
           "retransmits,valid,status,reason,cipher,bringup_s,cpu_s,cpu_user_s,cpu_sys_s,cpu_softirq_s,steal_s,cpu_s_"
           "per_gbit\n"
        << "r1,t,baseline,a-to-b,one-to-one,forward,tcp,1,a,b,1,false,,5.0,8.5,3,true,ok,,none,0.000,1.0,0.1,0.8,0.1,0."
           "0,0.02\n";
  }
  auto old_rows = read_results_csv(old_path);
  ASSERT_TRUE(old_rows.ok());
  ASSERT_EQ(old_rows->size(), 1u);
  EXPECT_DOUBLE_EQ((*old_rows)[0].gbps, 8.5);
  EXPECT_EQ((*old_rows)[0].processes, 1);
  EXPECT_DOUBLE_EQ((*old_rows)[0].latency_p99_ms, 0);
  auto rows = read_results_csv(path);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].reason, "has, a \"comma\"");
  EXPECT_EQ((*rows)[0].sample, 2);
  EXPECT_DOUBLE_EQ((*rows)[0].gbps, 0.35);
}

TEST(Template, RendersValuesAndPeerBlocks) {
  TemplateContext c;
  c.vars = {{"port", "51820"}, {"node", "a"}};
  c.lists["peers"] = {{{"peer_name", "b"}}, {{"peer_name", "c"}, {"port", "1"}}};
  auto r = render_template("n={{node}}\n{{#peers}}p={{peer_name}}:{{port}}\n{{/peers}}end", c, "t.tmpl");
  ASSERT_TRUE(r.ok()) << r.error().format();
  EXPECT_EQ(r.value(), "n=a\np=b:51820\np=c:1\nend");
}

TEST(Template, RefusesUnknownNamesAndHostileValues) {
  TemplateContext c;
  c.vars = {{"node", "a\nPostUp = rm -rf /"}, {"q", "x\"y"}, {"ok", "fine"}};
  auto r = render_template("line\nName = {{node}}", c, "products/x/t.tmpl");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where_and_what(),
            "products/x/t.tmpl:2: value of 'node' cannot be written safely into a config file");
  EXPECT_FALSE(render_template("{{q}}", c, "t").ok());
  auto u = render_template("{{ok}} {{nope}}", c, "t");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.error().message, "unknown value '{{nope}}'");
  EXPECT_FALSE(render_template("{{#peers}}x", c, "t").ok());
  EXPECT_FALSE(render_template("{{ok", c, "t").ok());
}

// {{^list}}: a block for when a list is empty (Tailscale's DERP map: the relay's addresses
// on a relay chain's hop, else the service's own).
TEST(Template, AnInvertedBlockRendersOnlyForAnEmptyList) {
  TemplateContext c;
  c.vars = {{"own", "172.31.77.1"}};
  c.lists["relays"] = {};
  const std::string text = "{{#relays}}at {{relay}}\n{{/relays}}{{^relays}}at {{own}}\n{{/relays}}";
  auto none = render_template(text, c, "t");
  ASSERT_TRUE(none.ok()) << none.error().format();
  EXPECT_EQ(*none, "at 172.31.77.1\n");
  c.lists["relays"] = {{{"relay", "192.168.22.2"}}, {{"relay", "192.168.23.1"}}};
  EXPECT_EQ(render_template(text, c, "t").value(), "at 192.168.22.2\nat 192.168.23.1\n");
  EXPECT_FALSE(render_template("{{^nope}}x{{/nope}}", c, "t").ok());
  EXPECT_FALSE(render_template("{{^relays}}x", c, "t").ok());
}

// {{mtu+20}}: a product that sets its interface below its own MTU setting (EasyTier).
TEST(Template, AddsToAWholeNumberAndRefusesAnythingElse) {
  TemplateContext c;
  c.vars = {{"mtu", "1400"}, {"node", "a"}};
  auto r = render_template("mtu = {{mtu+20}}, {{mtu-28}}", c, "t");
  ASSERT_TRUE(r.ok()) << r.error().format();
  EXPECT_EQ(*r, "mtu = 1420, 1372");
  auto text = render_template("{{node+1}}", c, "t");
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message, "'{{node+1}}': 'node' is not a whole number ('a')");
  auto junk = render_template("{{mtu+x}}", c, "t");
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().message, "'{{mtu+x}}': after '+' must come a whole number");
  EXPECT_FALSE(render_template("{{mtu+999999}}", c, "t").ok());
  EXPECT_FALSE(render_template("{{nope+1}}", c, "t").ok());
}

TEST(Keys, MatchesRfc7748Vector) {
  // RFC 7748, section 6.1 (Alice): the public key derived from the private key.
  const unsigned char secret[32] = {0x77, 0x07, 0x6d, 0x0a, 0x73, 0x18, 0xa5, 0x7d, 0x3c, 0x16, 0xc1,
                                    0x72, 0x51, 0xb2, 0x66, 0x45, 0xdf, 0x4c, 0x2f, 0x87, 0xeb, 0xc0,
                                    0x99, 0x2a, 0xb1, 0x77, 0xfb, 0xa5, 0x1d, 0xb9, 0x2c, 0x2a};
  const unsigned char pub[32] = {0x85, 0x20, 0xf0, 0x09, 0x89, 0x30, 0xa7, 0x54, 0x74, 0x8b, 0x7d,
                                 0xdc, 0xb4, 0x3e, 0xf7, 0x5a, 0x0d, 0xbf, 0x3a, 0x0d, 0x26, 0x38,
                                 0x1a, 0xf4, 0xeb, 0xa4, 0xa9, 0x8e, 0xaa, 0x9b, 0x4e, 0x6a};
  auto kp = x25519_from_secret_base64(to_base64(secret, 32));
  ASSERT_TRUE(kp.ok());
  EXPECT_EQ(kp->public_base64(), to_base64(pub, 32));
}

TEST(Keys, GeneratedOnceThenReusedWithPrivateModes) {
  std::string dir = temp_dir() + "/keys";
  auto first = prepare_node_keys(dir, {"a", "b"});
  ASSERT_TRUE(first.ok());
  EXPECT_NE(first->at("a").public_base64(), first->at("b").public_base64());
  struct stat st {};
  ASSERT_EQ(stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((dir + "/a.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto again = prepare_node_keys(dir, {"a", "b"});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->at("a").public_base64(), first->at("a").public_base64());
  // A generated secret is clamped as `wg genkey` does.
  EXPECT_EQ(first->at("a").secret[0] & 7, 0);
  EXPECT_EQ(first->at("a").secret[31] & 0xc0, 0x40);
}

TEST(ProductSpec, ShippedSpecsLoad) {
  for (const char* name : {"baseline", "wireguard-go"}) {
    auto spec = load_product(VPNLAB_PRODUCTS_DIR, name);
    ASSERT_TRUE(spec.ok()) << spec.error().format();
  }
  auto wg = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  EXPECT_EQ(wg->interface, "wg0");
  EXPECT_EQ(wg->steps.size(), 4u);
  EXPECT_EQ(wg->steps[0].kind, ProductStep::Kind::Daemon);
  EXPECT_EQ(wg->steps[0].env.at("WG_PROCESS_FOREGROUND"), "1");
  ASSERT_TRUE(wg->counters);
  ASSERT_EQ(wg->prepare.size(), 1u);
  EXPECT_TRUE(wg->prepare[0].secret);
  EXPECT_EQ(wg->prepare[0].file, "wg.conf");
}

// A sysctl step writes /proc/sys from inside the node's namespace: only net/ keys are the
// namespace's own (kernel/, vm/ would be the host's), and no path may climb out.
TEST(ProductSpec, ASysctlStepTakesOnlyTheNodesOwnNetworkSettings) {
  std::string dir = temp_dir();
  mkdir((dir + "/s").c_str(), 0755);
  auto with_step = [&](const std::string& step) {
    std::ofstream(dir + "/s/product.toml") << "name = \"s\"\ncipher = \"x\"\ninterface = \"s0\"\n[[step]]\n"
                                           << step << "\n";
    return load_product(dir, "s");
  };
  auto host = with_step("sysctl = { \"kernel/core_pattern\" = \"|/tmp/x\" }");
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.error().where_and_what(),
            dir + "/s/product.toml:5:36: step: sysctl 'kernel/core_pattern' is not a network namespace setting");
  auto climb = with_step("sysctl = { \"net/../kernel/core_pattern\" = \"x\" }");
  ASSERT_FALSE(climb.ok());
  EXPECT_NE(climb.error().message.find("is not a network namespace setting"), std::string::npos)
      << climb.error().message;
  auto two_lines = with_step("sysctl = { \"net/ipv4/ip_forward\" = \"1\\n0\" }");
  ASSERT_FALSE(two_lines.ok());
  EXPECT_NE(two_lines.error().message.find("must be a one-line string"), std::string::npos)
      << two_lines.error().message;
  auto good = with_step("sysctl = { \"net/ipv6/conf/default/disable_ipv6\" = \"0\" }");
  ASSERT_TRUE(good.ok()) << good.error().format();
  EXPECT_EQ(good->steps.at(0).kind, ProductStep::Kind::Sysctl);
  EXPECT_EQ(good->steps.at(0).sysctls,
            (std::vector<std::pair<std::string, std::string>>{{"net/ipv6/conf/default/disable_ipv6", "0"}}));
}

TEST(ProductSpec, TailscaleNamesItsControlServiceAndItsPathCheck) {
  auto t = load_product(VPNLAB_PRODUCTS_DIR, "tailscale");
  ASSERT_TRUE(t.ok()) << t.error().format();
  ASSERT_EQ(t->services.size(), 1u);
  EXPECT_EQ(t->services[0].name, "headscale");
  EXPECT_EQ(t->services[0].prepare.size(), 2u);
  EXPECT_EQ(t->services[0].steps.back().capture, (std::vector<std::pair<std::string, std::string>>{{"authkey", ""}}));
  EXPECT_TRUE(t->start_in_file_order);
  ASSERT_TRUE(t->path);
  EXPECT_EQ(t->path->expect, "via {{peer_underlay_address}}:{{port}}");
  // A service's name becomes a namespace's and template values' part: nothing else.
  std::string dir = temp_dir();
  mkdir((dir + "/s").c_str(), 0755);
  std::ofstream(dir + "/s/product.toml") << "name = \"s\"\ncipher = \"x\"\ninterface = \"s0\"\n[[service]]\nname = "
                                            "\"../x\"\n[[service.step]]\ndaemon = [\"x\"]\n";
  auto bad = load_product(dir, "s");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where_and_what(), dir + "/s/product.toml:5:8: service: name '../x' is not 1 to 11 of [a-z0-9]");
  std::ofstream(dir + "/s/product.toml")
      << "name = \"s\"\ncipher = \"x\"\ninterface = \"s0\"\n[[step]]\ndaemon = [\"x\"]\ncapture = { k = \"\" }\n";
  bad = load_product(dir, "s");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where_and_what(), dir + "/s/product.toml:6:11: step: 'capture' must be a table on a run step");
}

// A tunnel with its encryption off is said so twice: encrypted = false, and a cipher that
// starts with "none" (what keeps its rows out of the tunnels' conclusion).
TEST(ProductSpec, AnUnencryptedTunnelMustSayNoneAsItsCipher) {
  auto plain = load_product(VPNLAB_PRODUCTS_DIR, "easytier-plain");
  ASSERT_TRUE(plain.ok()) << plain.error().format();
  EXPECT_FALSE(plain->encrypted);
  EXPECT_EQ(plain->sources.at(0).owner("easytier-plain"), "easytier") << "one build, made under easytier's name";
  std::string dir = temp_dir();
  mkdir((dir + "/u").c_str(), 0755);
  std::ofstream(dir + "/u/product.toml") << "name = \"u\"\ncipher = \"AES\"\nencrypted = false\ninterface = \"u0\"\n";
  auto bad = load_product(dir, "u");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where_and_what(),
            dir + "/u/product.toml:3:13: product: encrypted = false but its cipher is 'AES'");
}

// bringup_s is the plan's figure for a product's lab: every shipped product states one
// (measured, bench/plan_bench.sh), and an absurd one is refused where it stands.
TEST(ProductSpec, BringupSecondsAreTheSpecsAndBounded) {
  auto tailscale = load_product(VPNLAB_PRODUCTS_DIR, "tailscale");
  ASSERT_TRUE(tailscale.ok()) << tailscale.error().format();
  EXPECT_DOUBLE_EQ(tailscale->bringup_s, 6);
  std::string dir = temp_dir();
  mkdir((dir + "/u").c_str(), 0755);
  std::ofstream(dir + "/u/product.toml") << "name = \"u\"\ncipher = \"x\"\ninterface = \"u0\"\nbringup_s = 1e9\n";
  auto bad = load_product(dir, "u");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where_and_what(),
            dir + "/u/product.toml:4:13: product: bringup_s must be a number of seconds from 0 to 600");
}

TEST(ProductSpec, YggdrasilCarriesIpv4InAVxlanToItsPeersAddress) {
  auto y = load_product(VPNLAB_PRODUCTS_DIR, "yggdrasil");
  ASSERT_TRUE(y.ok()) << y.error().format();
  const ProductStep* vxlan = nullptr;
  for (const auto& s : y->steps)
    if (s.kind == ProductStep::Kind::CreateLink) vxlan = &s;
  ASSERT_NE(vxlan, nullptr);
  EXPECT_EQ(vxlan->link_kind, "vxlan");
  EXPECT_EQ(vxlan->link.vni, 42u);
  EXPECT_EQ(vxlan->link.remote, "{{peer_ygg_address}}");
  EXPECT_EQ(vxlan->link.dstport, 4789);
  EXPECT_EQ(y->interface_kind, "vxlan");
}

TEST(ProductSpec, ErrorsNameTheSpecFile) {
  std::string dir = temp_dir();
  mkdir((dir + "/bad").c_str(), 0755);
  std::ofstream(dir + "/bad/product.toml")
      << "name = \"bad\"\ncipher = \"x\"\ninterface = \"wg0\"\n[[step]]\nrun = []\n";
  auto spec = load_product(dir, "bad");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().where_and_what(), dir + "/bad/product.toml:5:7: step: empty argv");
  auto unknown = load_product(VPNLAB_PRODUCTS_DIR, "wireguard");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().hint,
            "did you mean 'wireguard-go'?; products are looked up in the shipped folder, each directory of "
            "$VPNLAB_PRODUCTS, then ~/.config/vpnlab/products ('vpnlab product new' makes one there)");
}

TEST(Counters, ParsesWgTransferOutput) {
  uint64_t rx = 0, tx = 0;
  EXPECT_TRUE(ProductSession::parse_counter_output("keyA=\t100\t2000\nkeyB=\t1\t2\n", 2, 3, &rx, &tx));
  EXPECT_EQ(rx, 101u);
  EXPECT_EQ(tx, 2002u);
  EXPECT_FALSE(ProductSession::parse_counter_output("", 2, 3, &rx, &tx));
  EXPECT_FALSE(ProductSession::parse_counter_output("keyA= x y\n", 2, 3, &rx, &tx));
}

TEST(TunnelCheck, RequiresTheTunnelToCarryIperfBytes) {
  auto counters = [](uint64_t overlay, uint64_t underlay, bool has_product, uint64_t product) {
    TunnelCounters d;
    d.if_rx = d.if_tx = overlay;
    d.underlay_rx = d.underlay_tx = underlay;
    d.has_product = has_product;
    d.product_rx = d.product_tx = product;
    return d;
  };
  EXPECT_EQ(tunnel_check(false, 100, 0, counters(0, 0, false, 0)), "");
  EXPECT_EQ(tunnel_check(true, 1000, 0, counters(1100, 1200, true, 1200)), "");
  EXPECT_EQ(tunnel_check(true, 0, 1000, counters(1100, 1200, false, 0)), "");
  // Traffic that went around the tunnel (underlay) leaves the overlay counters flat.
  EXPECT_NE(tunnel_check(true, 1000, 0, counters(10, 1200, true, 1200)).find("did not cross the tunnel"),
            std::string::npos);
  EXPECT_NE(
      tunnel_check(true, 1000, 0, counters(1100, 10, true, 1200)).find("the underlay toward the peers sent 10 bytes"),
      std::string::npos);
  EXPECT_NE(tunnel_check(true, 1000, 0, counters(1100, 1200, true, 5)).find("peer counters"), std::string::npos);
  EXPECT_NE(tunnel_check(true, 0, 0, counters(0, 0, false, 0)), "");
  // Direction: what a node received is read on its receive side.
  TunnelCounters one_way = counters(0, 0, false, 0);
  one_way.if_tx = one_way.underlay_tx = 2000;
  EXPECT_EQ(tunnel_check(true, 1000, 0, one_way), "");
  EXPECT_NE(tunnel_check(true, 0, 1000, one_way), "");
  // Bidirectional: both sides must hold.
  EXPECT_NE(tunnel_check(true, 1000, 1000, one_way), "");
  EXPECT_EQ(tunnel_check(true, 1000, 1000, counters(1100, 1200, false, 0)), "");
}

TEST(Summary, MedianIntervalCvAndRatio) {
  std::vector<SampleRow> rows;
  std::map<std::string, int> next_sample;
  auto add = [&](const std::string& product, double gbps, bool valid) {
    SampleRow r;
    r.sample = ++next_sample[product];
    r.product = product;
    r.test = "t";
    r.gbps = gbps;
    r.valid = valid;
    r.status = "ok";
    r.cpu_s_per_gbit = 1 / gbps;
    rows.push_back(r);
  };
  for (double g : {10.0, 12.0, 11.0}) add("baseline", g, true);
  for (double g : {0.3, 0.5, 0.4, 0.45}) add("wireguard-go", g, true);
  add("wireguard-go", 9.0, false);  // invalid rows are not results
  std::string table = summary_table(rows);
  EXPECT_NE(table.find("baseline             t                11.000      10.000-12.000*    9.1%                     1 "
                       "   0.09±10%*        -           -            -            -            -       -    -    3/3"),
            std::string::npos)
      << table;
  // Paired by round: 0.3/10, 0.5/12, 0.4/11 (sample 4 has no baseline partner): geometric
  // mean 0.036, its 95 % t interval with two degrees of freedom ±51 %.
  EXPECT_NE(table.find("wireguard-go         t                 0.425        0.300-0.500*  20.7%!          0.036 ±51 %  "
                       "  2.36±41%*    +2.27"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("! wireguard-go / t: CV 20.7% is high"), std::string::npos) << table;
  EXPECT_NE(table.find("! wireguard-go / t: 1 of 5 sample(s) not valid"), std::string::npos) << table;
  EXPECT_NE(table.find("covers the median with only 75.0 % (3 samples)"), std::string::npos) << table;

  nlohmann::json j = summary_json(rows);
  EXPECT_EQ(j["schema"], kSummarySchema);
  ASSERT_EQ(j["results"].size(), 2u);
  const auto& wg = j["results"][1];
  EXPECT_EQ(wg["product"], "wireguard-go");
  EXPECT_EQ(wg["rows"], 5);
  EXPECT_EQ(wg["valid_rows"], 4);
  EXPECT_DOUBLE_EQ(wg["gbps"]["median"].get<double>(), 0.425);
  EXPECT_DOUBLE_EQ(wg["gbps"]["ci95_low"].get<double>(), 0.3);
  EXPECT_NEAR(wg["ratio_to_baseline"].get<double>(), 0.425 / 11, 1e-12);
  EXPECT_DOUBLE_EQ(j["results"][0]["ratio_to_baseline"].get<double>(), 1.0);
}

TEST(Stats, MedianIntervalByOrderStatistics) {
  auto s = describe({5, 1, 4, 2, 3, 9, 7, 8, 6, 10});
  EXPECT_EQ(s.n, 10u);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  // n = 10: [x(2), x(9)] covers the median with 1 - 2 * 11/1024 = 97.85 %.
  EXPECT_DOUBLE_EQ(s.ci_low, 2);
  EXPECT_DOUBLE_EQ(s.ci_high, 9);
  EXPECT_NEAR(s.coverage, 1 - 22.0 / 1024, 1e-12);
  EXPECT_NEAR(s.stdev, 3.0276503540974917, 1e-12);
  // n = 5: only [min, max], 93.75 %.
  auto five = describe({3, 1, 2, 5, 4});
  EXPECT_DOUBLE_EQ(five.ci_low, 1);
  EXPECT_DOUBLE_EQ(five.ci_high, 5);
  EXPECT_DOUBLE_EQ(five.coverage, 0.9375);
  // n = 6: [min, max] reaches 96.9 %.
  EXPECT_NEAR(describe({1, 2, 3, 4, 5, 6}).coverage, 1 - 2.0 / 64, 1e-12);
  // n = 20: [x(6), x(15)] (95.86 %), the widest k that still reaches 95 %.
  std::vector<double> twenty;
  for (int i = 1; i <= 20; ++i) twenty.push_back(i);
  auto t = describe(twenty);
  EXPECT_DOUBLE_EQ(t.ci_low, 6);
  EXPECT_DOUBLE_EQ(t.ci_high, 15);
  EXPECT_GE(t.coverage, 0.95);
  EXPECT_EQ(describe({}).n, 0u);
}

TEST(CpuStat, ParsesProcStatAndSubtracts) {
  const char* before = "cpu  100 5 50 1000 10 1 20 4 0 0\ncpu0 50 2 25 500 5 1 10 2 0 0\n";
  const char* after = "cpu  300 5 150 1100 10 1 70 6 0 0\ncpu0 150 2 75 550 5 1 35 3 0 0\n";
  CpuTimes d = parse_proc_stat(after, 100) - parse_proc_stat(before, 100);
  EXPECT_DOUBLE_EQ(d.user, 2.0);
  EXPECT_DOUBLE_EQ(d.system, 1.0);
  EXPECT_DOUBLE_EQ(d.softirq, 0.5);
  EXPECT_DOUBLE_EQ(d.steal, 0.02);
  EXPECT_DOUBLE_EQ(d.idle, 1.0);
  EXPECT_DOUBLE_EQ(d.busy(), 3.5);  // user + nice + system + irq + softirq; steal and idle excluded
}

TEST(Mtu, AutoPicksTheLargestEveryProductCarries) {
  Plan plan;
  plan.overlay_mtu = 0;
  plan.veths.push_back(PlanVeth{"lan", "a", "lan", {}, "b", "lan", {}, "", 1500});
  auto wg = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  auto swan = load_product(VPNLAB_PRODUCTS_DIR, "strongswan-libipsec");
  auto base = load_product(VPNLAB_PRODUCTS_DIR, "baseline");
  ASSERT_TRUE(wg.ok() && swan.ok() && base.ok());
  std::string by;
  resolve_overlay_mtu(&plan, {base.value(), wg.value()}, &by);
  EXPECT_EQ(plan.overlay_mtu, 1440);  // 1500 - WireGuard's 60 over IPv4
  EXPECT_EQ(by, "wireguard-go");
  plan.overlay_mtu = 0;
  resolve_overlay_mtu(&plan, {base.value(), wg.value(), swan.value()}, &by);
  EXPECT_EQ(plan.overlay_mtu, 1400);  // libipsec's fixed limit
  EXPECT_EQ(by, "strongswan-libipsec");
  resolve_overlay_mtu(&plan, {wg.value()}, &by);
  EXPECT_EQ(plan.overlay_mtu, 1400) << "a set MTU stays";
}

TEST(RunTiming, TheLineNamesWhatMattersAndTheHarnessCostPerSample) {
  PhaseClock c;
  c.add(kPhaseMeasuring, 24.0);
  c.add(kPhaseBringUp, 4.0);
  c.add(kPhaseBuild, 2.0);
  c.add(kPhaseRecording, 0.1);  // under 1 %: left off the line, kept in the JSON
  RunTiming t = finish_timing(c, 32.0, 8);
  EXPECT_NEAR(t.phases.seconds(kPhaseOther), 1.9, 1e-9);
  EXPECT_EQ(timing_line(t),
            "wall time 32.0 s: measuring 75 %, bring-up 12 %, topology build 6 %, other 6 %; harness 1.00 s per sample "
            "beyond warm-up and measuring (8 samples)");
  auto j = timing_json(t);
  EXPECT_EQ(j["overhead_per_sample_s"], 1.0);
  EXPECT_EQ(j["phases"]["recording"], 0.1);
  // A span that ends after the wall clock was read never makes "other" negative.
  EXPECT_EQ(finish_timing(c, 30.0, 8).phases.seconds(kPhaseOther), 0.0);
}

namespace vpnlab {
namespace {

// A backend overrides only what it has: the essentials are pure, everything else answers
// "not on this backend" (or no measurement), naming the backend.
class EssentialsOnly : public NodeRuntime {
 public:
  std::string backend() const override { return "bare"; }
  Result<std::unique_ptr<NodeProcess>> spawn(const std::string&, SpawnSpec, bool) override { return make_error("no"); }
  Status wait_for_link(const std::string&, const std::string&, double, int) override { return ok_status(); }
  Status configure_link(const std::string&, const std::string&, const HostAddr&, int) override { return ok_status(); }
  Result<LinkInfo> get_link(const std::string&, const std::string&) override { return LinkInfo{}; }
  Status ping(const std::string&, Ipv4Addr, double, int, int, bool) override { return ok_status(); }
  Status wait_tcp_listening(const std::string&, int, double, int) override { return ok_status(); }
  Status add_routes(const Plan&, PlanRoute::When) override { return ok_status(); }
  Audit audit() override { return {}; }
  Status teardown(double) override { return ok_status(); }
};

TEST(NodeRuntimeDefaults, WhatABackendDoesNotOverrideSaysSoByName) {
  EssentialsOnly bare;
  EXPECT_EQ(bare.set_sysctls("a", {}).error().message, "the bare backend does not set sysctls");
  EXPECT_EQ(bare.set_offloads("a", "eth0", false).error().message, "the bare backend does not set offloads (eth0)");
  EXPECT_EQ(bare.set_root_qdisc("a", "eth0", "fq").error().message, "the bare backend does not replace qdiscs");
  EXPECT_EQ(bare.create_link_of_kind("a", "wg0", "wireguard", {}).error().message,
            "the bare backend does not create links of a kind ('wireguard' for wg0)");
  EXPECT_EQ(bare.apply_nftables("a", "table inet t {}").error().message,
            "the bare backend does not apply nftables rules");
  auto probe = bare.latency_probe("a", Ipv4Addr{}, 10, 0);
  ASSERT_TRUE(probe.ok());
  EXPECT_EQ(*probe, nullptr) << "no probe: the row says latency is missing";
  EXPECT_FALSE(bare.can_watch_payload());
  EXPECT_EQ(bare.limits(), "");
}

}  // namespace
}  // namespace vpnlab
