// rr, crr and latency tests: the topology's refusals, the generators' argv and output,
// vpnlab-crr on loopback (no root: a socket pair of this process), and the table.
#include <gtest/gtest.h>

#include <unistd.h>

#include <thread>

#include "../topology_text.h"
#include "lab/generators/crr.h"
#include "lab/model/plan.h"
#include "lab/model/topology.h"
#include "lab/results/summary.h"
#include "lab/results/transactions_table.h"
#include "lab/run/transactions.h"

using namespace vpnlab;

namespace {

std::string transactions_topology(const std::string& body) { return topology_with_test(body); }

std::string error_of(const std::string& body) {
  auto r = parse_topology_text(transactions_topology(body), "x.toml");
  return r.ok() ? std::string() : r.error().where_and_what();
}

SampleRow tx_row(const std::string& product, int sample, double tps, const std::string& kind = "rr") {
  SampleRow r;
  r.run_id = "r";
  r.product = product;
  r.test = "t";
  r.kind = kind;
  r.sample = sample;
  r.status = "ok";
  r.valid = true;
  r.duration_s = 5;
  r.cpu_s = 5;
  r.tps = tps;
  r.tx_p50_ms = 0.5, r.tx_p90_ms = 0.6, r.tx_p99_ms = 0.9, r.tx_p999_ms = 1.5;
  return r;
}

}  // namespace

TEST(Transactions, KindsAndTheirRefusals) {
  EXPECT_EQ(error_of("server = \"b\"\nkind = \"rr\"\nsize = 100\n"), "");
  EXPECT_EQ(error_of("server = \"b\"\nkind = \"crr\"\n"), "");
  EXPECT_EQ(error_of("server = \"b\"\nkind = \"latency\"\n"), "");
  EXPECT_EQ(error_of("server = \"b\"\nkind = \"ping\"\n"), "x.toml:22:8: test 't': unknown kind 'ping'");
  EXPECT_EQ(error_of("server = \"b\"\nkind = \"rr\"\nstreams = 2\n"),
            "x.toml:23:11: test 't': 'streams' is an iperf3 setting and this test is kind = \"rr\"");
  EXPECT_EQ(error_of("server = \"b\"\nkind = \"crr\"\nudp = true\n"),
            "x.toml:23:7: test 't': 'udp' is an iperf3 setting and this test is kind = \"crr\"");
  EXPECT_EQ(error_of("server = \"b\"\nkind = \"rr\"\nsize = 1\n"), "x.toml:23:8: test 't': 'size' = 1 is out of range");
  EXPECT_EQ(error_of("server = [\"b\", \"c\"]\nkind = \"rr\"\n"), "x.toml:21:10: test 't': an rr test has one server");
  EXPECT_EQ(error_of("server = \"b\"\nsize = 100\n"),
            "x.toml:22:8: test 't': 'size' is the request/response size of an rr or crr test");
  EXPECT_EQ(error_of("server = \"b\"\nkind = \"latency\"\nsize = 100\n"),
            "x.toml:23:8: test 't': a latency test sends ping's 56-byte echoes");
}

TEST(Transactions, PlanSaysWhatRuns) {
  auto topo = parse_topology_text(transactions_topology("server = \"b\"\nkind = \"crr\"\nsize = 32\n"), "x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  auto plan = make_plan(*topo, PlanOptions{"r", "t"});
  ASSERT_TRUE(plan.ok()) << plan.error().format();
  std::string text = describe_plan(*plan);
  EXPECT_NE(text.find("t: crr, a -> b, TCP, 32-byte request and response on a new connection each"), std::string::npos)
      << text;
  EXPECT_NE(text.find("vpnlab-crr a"), std::string::npos) << text;
}

TEST(Transactions, RrAndCrrShareOneGeneratorInTwoModes) {
  EXPECT_EQ(crr_client_argv("vpnlab-crr", "10.0.0.2", 5301, 14, 5, true),
            (std::vector<std::string>{"vpnlab-crr", "rr-client", "10.0.0.2", "5301", "14", "5.000"}));
  EXPECT_EQ(crr_server_argv("vpnlab-crr", 5301, 14, true),
            (std::vector<std::string>{"vpnlab-crr", "rr-server", "5301", "14"}));
  EXPECT_EQ(crr_client_argv("vpnlab-crr", "10.0.0.2", 5301, 14, 5),
            (std::vector<std::string>{"vpnlab-crr", "client", "10.0.0.2", "5301", "14", "5.000"}));
  // rr's line counts transactions on its one connection.
  auto s = parse_crr(
      R"({"connections":1,"transactions":30000,"errors":0,"seconds":2.0,"p50_ms":0.05,"p90_ms":0.06,"p99_ms":0.1,"p999_ms":0.3})");
  ASSERT_TRUE(s.ok()) << s.error().format();
  EXPECT_DOUBLE_EQ(s->per_second(), 15000);
}

TEST(Transactions, CrrJsonAndItsErrors) {
  auto s = parse_crr(
      R"({"connections":1200,"errors":0,"seconds":2.0,"p50_ms":0.5,"p90_ms":0.7,"p99_ms":1.1,"p999_ms":2.5})");
  ASSERT_TRUE(s.ok()) << s.error().format();
  EXPECT_DOUBLE_EQ(s->per_second(), 600);
  EXPECT_DOUBLE_EQ(s->p99_ms, 1.1);
  auto e = parse_crr(R"({"connections":5,"errors":2,"seconds":2.0,"first_error":"connect: Connection refused"})");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().message, "vpnlab-crr: 2 transaction(s) failed, the first: connect: Connection refused");
  EXPECT_FALSE(parse_crr("usage: vpnlab-crr ...").ok());
  EXPECT_FALSE(parse_crr(R"({"connections":0,"errors":0,"seconds":2.0})").ok());
}

// A generator's server (crr_serve or rr_serve) on 127.0.0.1:port in a thread that serves
// until the test binary exits; true once it listens.
bool serving_on_loopback(Status (*serve)(int, int, int), int port, int size) {
  int ready[2];
  if (pipe(ready) != 0) return false;
  std::thread([=] { (void)serve(port, size, ready[1]); }).detach();
  char c;
  const bool listening = read(ready[0], &c, 1) == 1;
  if (listening) close(ready[1]);  // the server wrote its one byte: it never writes again
  close(ready[0]);
  return listening;
}

// The real generator on loopback: transactions happen, each is timed, and a refused
// connect is an error, not a rate.
TEST(Transactions, CrrRunsAgainstItsServerOnLoopback) {
  const int port = 20000 + getpid() % 20000;
  ASSERT_TRUE(serving_on_loopback(crr_serve, port, 20));
  CrrResult r = crr_run("127.0.0.1", port, 20, 0.3);
  EXPECT_EQ(r.errors, 0u) << r.first_error;
  EXPECT_GT(r.connections, 50u);
  EXPECT_EQ(r.ms.count(), r.connections);
  auto parsed = parse_crr(crr_json(r));
  ASSERT_TRUE(parsed.ok()) << parsed.error().format();
  EXPECT_GT(parsed->p50_ms, 0);
  EXPECT_LE(parsed->p50_ms, parsed->p99_ms);

  CrrResult refused = crr_run("127.0.0.1", port + 1, 20, 0.3);
  EXPECT_EQ(refused.connections, 0u);
  EXPECT_NE(refused.first_error.find("Connection refused"), std::string::npos) << refused.first_error;
}

// rr on loopback: one connection carries every transaction, back to back; the client's
// close ends the server's connection (it serves the next one), and a refused connect is an
// error, not a rate.
TEST(Transactions, RrRunsOverOneConnectionOnLoopback) {
  const int port = 20000 + (getpid() + 7) % 20000;
  ASSERT_TRUE(serving_on_loopback(rr_serve, port, 14));
  for (int run = 0; run < 2; ++run) {  // a second client after the first closed
    CrrResult r = rr_run("127.0.0.1", port, 14, 0.2);
    EXPECT_EQ(r.errors, 0u) << r.first_error;
    EXPECT_EQ(r.connections, 1u);
    EXPECT_GT(r.transactions, 100u);
    EXPECT_EQ(r.ms.count(), r.transactions);
    auto parsed = parse_crr(crr_json(r));
    ASSERT_TRUE(parsed.ok()) << parsed.error().format();
    EXPECT_DOUBLE_EQ(parsed->transactions, static_cast<double>(r.transactions));
    EXPECT_GT(parsed->p50_ms, 0);
    EXPECT_LE(parsed->p50_ms, parsed->p99_ms);
  }
  CrrResult refused = rr_run("127.0.0.1", port + 1, 14, 0.2);
  EXPECT_EQ(refused.transactions, 0u);
  EXPECT_NE(refused.first_error.find("connect: Connection refused"), std::string::npos) << refused.first_error;
}

TEST(Transactions, TableHasRatesPercentilesAndTheBaselineRatio) {
  std::vector<SampleRow> rows = {tx_row("baseline", 1, 1000), tx_row("wg", 1, 100), tx_row("baseline", 2, 1000),
                                 tx_row("wg", 2, 200)};
  rows.push_back(tx_row("wg", 3, 0));
  rows.back().status = "failed", rows.back().valid = false;
  auto s = summarize_transactions(rows);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[1].product, "wg");
  EXPECT_EQ(s[1].rows, 3);
  EXPECT_EQ(s[1].tps.n, 2u);
  EXPECT_DOUBLE_EQ(s[1].paired_ratio.median, 0.15);
  EXPECT_DOUBLE_EQ(s[1].cpu_us_per_tx.median, (1e6 * 5 / (100 * 5) + 1e6 * 5 / (200 * 5)) / 2);
  std::string table = summary_table(rows);
  EXPECT_EQ(table.find("Gbit/s"), std::string::npos) << "no throughput test, no throughput table:\n" << table;
  // Two rounds, ratios 0.1 and 0.2: geometric mean 0.141, and a t interval with one degree of
  // freedom so wide the table gives its width, not bounds that would read as a finding.
  EXPECT_NE(table.find("0.141 ±8075 %"), std::string::npos) << table;
  EXPECT_NE(table.find("! wg / t: 1 of 3 sample(s) not valid"), std::string::npos) << table;
  nlohmann::json j = summary_json(rows);
  ASSERT_TRUE(j.contains("transactions"));
  EXPECT_EQ(j["transactions"][1]["valid_rows"], 2);
  EXPECT_TRUE(j["results"].empty());
}

TEST(Transactions, UdpSweepAndZeroLossSearchAreReadOrRefused) {
  auto topo = parse_topology_text(
      transactions_topology(
          "server = \"b\"\nudp = true\nbitrate = \"1G\"\nsizes = [64, 0]\nzero_loss = true\nsteps = 4\n"),
      "x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  ASSERT_EQ(topo->bench.tests.size(), 2u);
  EXPECT_EQ(topo->bench.tests[0].name, "t-64");
  EXPECT_EQ(topo->bench.tests[0].length, 64);
  EXPECT_EQ(topo->bench.tests[1].name, "t-mtu");
  EXPECT_EQ(topo->bench.tests[1].length, 0);
  EXPECT_TRUE(topo->bench.tests[1].zero_loss);
  EXPECT_EQ(topo->bench.tests[1].steps, 4);
  EXPECT_EQ(error_of("server = \"b\"\nsizes = [64]\n"), "x.toml:22:9: test 't': 'sizes' sweeps UDP payload sizes");
  EXPECT_EQ(error_of("server = \"b\"\nudp = true\nbitrate = \"1G\"\nsizes = [64, 1400]\n"),
            "x.toml:24:14: test 't': payload size 1400 is not between 16 and 1372");
  EXPECT_EQ(error_of("server = \"b\"\nudp = true\nbitrate = \"1G\"\nsizes = [64]\nlength = 100\n"),
            "x.toml:24:9: test 't': 'sizes' and 'length' together");
  EXPECT_EQ(error_of("server = \"b\"\nzero_loss = true\n"),
            "x.toml:22:13: test 't': a zero-loss search offers UDP rates");
  EXPECT_EQ(error_of("server = \"b\"\nudp = true\nbitrate = \"1G\"\nmax_loss = 1\n"),
            "x.toml:24:12: test 't': 'max_loss' and 'steps' belong to a zero-loss search");
  EXPECT_EQ(error_of("server = \"b\"\nudp = true\nbitrate = \"1G\"\nzero_loss = true\nmax_loss = 70\n"),
            "x.toml:25:12: test 't': 'max_loss' is a percentage between 0 and 50");
  // A file that sets no duration gets samples long enough for its trials (vpnlab's 3 s default grows);
  // a duration the file sets is kept, and a search that does not fit it is refused.
  const std::string sixteen = "server = \"b\"\nudp = true\nbitrate = \"1G\"\nzero_loss = true\nsteps = 16\n";
  auto grown = parse_topology_text(transactions_topology(sixteen), "x.toml");
  ASSERT_TRUE(grown.ok()) << grown.error().format();
  EXPECT_EQ(grown->bench.duration_s, 16);
  std::string fixed = transactions_topology(sixteen);
  fixed.replace(fixed.find("[bench]\n"), 8, "[bench]\nduration = \"10s\"\n");
  auto refused = parse_topology_text(fixed, "x.toml");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().where_and_what(), "x.toml:26:9: test 't': 16 trials do not fit a 10 s sample");
}
