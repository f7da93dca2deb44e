// Sweeps (lab/model/sweep.h): the expansion into points (every combination, or zip), their
// names and axis values, every refusal located with its hint, and the curves the summary
// and report build from the points' rows (lab/results/sweep_table.h).
#include <gtest/gtest.h>

#include <map>

#include "../temp_paths.h"
#include "../topology_text.h"
#include "lab/app/run_compare.h"
#include "lab/app/sampling.h"
#include "lab/base/fs_util.h"
#include "lab/model/backend_traits.h"
#include "lab/model/plan.h"
#include "lab/model/plan_time.h"
#include "lab/model/sweep.h"
#include "lab/model/topology.h"
#include "lab/model/variant_facets.h"
#include "lab/results/report_kinds.h"
#include "lab/results/sweep_table.h"
#include "lab/run/variant.h"

using namespace vpnlab;

namespace {

// Test "t" from a to b (topology_text.h), its other keys `body`.
std::string with_test(const std::string& body) { return topology_with_test("server = \"b\"\n" + body); }

std::string error_of(const std::string& body) {
  auto r = parse_topology_text(with_test(body), "x.toml");
  return r.ok() ? std::string() : r.error().where_and_what() + " | " + r.error().hint;
}

std::vector<std::string> names_of(const std::string& body) {
  auto r = parse_topology_text(with_test(body), "x.toml");
  EXPECT_TRUE(r.ok()) << r.error().format();
  std::vector<std::string> names;
  if (r.ok())
    for (const auto& t : r->bench.tests) names.push_back(t.name + " " + t.sweep_of + " " + point_text(t.point));
  return names;
}

TEST(Sweep, AxesMultiplyTheLastTurningFastest) {
  EXPECT_EQ(names_of("sweep = { streams = [1, 8], bitrate = [\"100M\", \"2G\"] }\n"),
            (std::vector<std::string>{"t-1-100m t streams=1;bitrate=100m", "t-1-2g t streams=1;bitrate=2g",
                                      "t-8-100m t streams=8;bitrate=100m", "t-8-2g t streams=8;bitrate=2g"}));
  auto topo = parse_topology_text(with_test("sweep = { streams = [1, 8] }\n"), "x.toml");
  ASSERT_TRUE(topo.ok());
  EXPECT_EQ(topo->bench.tests[1].streams, 8);
  EXPECT_EQ(topo->bench.tests[0].streams, 1);
}

TEST(Sweep, ZipPairsTheListsPositionByPosition) {
  EXPECT_EQ(names_of("udp = true\nsweep = { length = [64, 0], bitrate = [\"100M\", \"1G\"], zip = true }\n"),
            (std::vector<std::string>{"t-64-100m t length=64;bitrate=100m", "t-mtu-1g t length=mtu;bitrate=1g"}));
  EXPECT_EQ(error_of("udp = true\nsweep = { length = [64, 0], bitrate = [\"1G\"], zip = true }\n"),
            "x.toml:23:39: test 't': zip pairs lists of one length: 'bitrate' has 1, 'length' 2 | give every axis as "
            "many values, or drop zip for "
            "every combination");
}

TEST(Sweep, SizesIsTheLengthAxisUnderItsOlderName) {
  EXPECT_EQ(names_of("udp = true\nbitrate = \"1G\"\nsizes = [64, 0]\n"),
            (std::vector<std::string>{"t-64 t length=64", "t-mtu t length=mtu"}));
  EXPECT_EQ(names_of("kind = \"rr\"\nsweep = { size = [64, 1024] }\n"),
            (std::vector<std::string>{"t-64 t size=64", "t-1024 t size=1024"}));
  EXPECT_EQ(names_of("streams = 2\n"), (std::vector<std::string>{"t  "})) << "not swept: no point";
}

TEST(Sweep, BadSweepsAreLocatedWithAHint) {
  EXPECT_EQ(error_of("sweep = { underlay_mtu = [1500, 9000] }\n"),
            "x.toml:22:26: test 't': sweep has no axis 'underlay_mtu' | axes: streams, length, size, bitrate (and zip "
            "= true)");
  EXPECT_EQ(error_of("sweep = { streams = [] }\n"),
            "x.toml:22:21: test 't': sweep 'streams' is a non-empty list of values | write streams = [1, 8]");
  EXPECT_EQ(
      error_of("sweep = { streams = [1, 0] }\n"),
      "x.toml:22:25: test 't': streams 0 is not a whole number from 1 to 128 | streams count all servers together");
  EXPECT_EQ(error_of("sweep = { size = [64] }\n"),
            "x.toml:22:18: test 't': cannot sweep 'size': size is a request/response size: kind = \"rr\" takes it | "
            "e.g. size = [64, 1024]");
  EXPECT_EQ(error_of("sweep = { length = [64] }\n"),
            "x.toml:22:20: test 't': cannot sweep 'length': length is a UDP payload size: the test needs udp = true | "
            "e.g. length = [64, 512, 0]");
  EXPECT_EQ(error_of("kind = \"rr\"\nsweep = { streams = [1, 2] }\n"),
            "x.toml:23:21: test 't': cannot sweep 'streams': streams are a TCP bulk test's (kind = \"throughput\") | "
            "e.g. streams = [1, 8]");
  EXPECT_EQ(error_of("udp = true\nsweep = { length = [64, 1400], bitrate = [\"1G\"] }\n"),
            "x.toml:23:25: test 't': payload size 1400 is not between 16 and 1372 | 0 stands for the largest that fits "
            "the overlay MTU");
  EXPECT_EQ(error_of("sweep = { bitrate = [\"fast\"] }\n"),
            "x.toml:22:22: test 't': bitrate \"fast\" is not a rate | bits/s: k, M, G");
  EXPECT_EQ(error_of("streams = 2\nsweep = { streams = [1, 8] }\n"),
            "x.toml:22:11: test 't': 'streams' is given and swept | drop streams: the sweep sets it");
  EXPECT_EQ(error_of("sweep = { }\n"),
            "x.toml:22:9: test 't': 'sweep' names no axis | e.g. sweep = { streams = [1, 8] }; axes: streams, length, "
            "size, bitrate");
  EXPECT_EQ(error_of("sweep = [1, 8]\n"),
            "x.toml:22:9: test 't': 'sweep' is a table of axes | write sweep = { streams = [1, 8] }");
  // 11 x 100 points: more than 1000; 11 x 90 are not.
  std::string eleven = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]";
  auto rates = [](int n) {
    std::string out = "[";
    for (int i = 1; i <= n; ++i) out += (i > 1 ? ", \"" : "\"") + std::to_string(i) + "M\"";
    return out + "]";
  };
  EXPECT_EQ(
      error_of("sweep = { streams = " + eleven + ", bitrate = " + rates(100) + " }\n"),
      "x.toml:22:9: test 't': the sweep has more than 1000 points | sweep fewer values, or pair them with zip = true");
  EXPECT_EQ(error_of("sweep = { streams = " + eleven + ", bitrate = " + rates(90) + " }\n"), "")
      << "990 points are fine";
}

SampleRow point_row(const std::string& product, const std::string& point, int sample, double gbps) {
  SampleRow r;
  r.run_id = "20261203-000000-test";
  r.product = product;
  r.sweep_of = "t";
  r.point = point;
  r.test = "t-" + point.substr(point.find('=') + 1);
  r.sample = sample;
  r.status = "ok";
  r.valid = true;
  r.gbps = gbps;
  return r;
}

TEST(Sweep, CurvesHaveACellPerProductAndPointWithItsInterval) {
  std::vector<SampleRow> rows;
  for (int s = 1; s <= 6; ++s) {
    rows.push_back(point_row("baseline", "streams=1", s, 10 + s * 0.1));
    rows.push_back(point_row("wireguard-go", "streams=1", s, 1 + s * 0.01));
    rows.push_back(point_row("baseline", "streams=8", s, 12 + s * 0.1));
    SampleRow failed = point_row("wireguard-go", "streams=8", s, 0);
    failed.valid = false, failed.status = "failed";
    rows.push_back(failed);
  }
  auto curves = summarize_sweeps(rows);
  ASSERT_EQ(curves.size(), 1u);
  EXPECT_EQ(curves[0].points, (std::vector<std::string>{"streams=1", "streams=8"}));
  EXPECT_EQ(curves[0].products, (std::vector<std::string>{"baseline", "wireguard-go"}));
  EXPECT_EQ(curves[0].cells[1][1].n, 0u) << "no valid sample at that point";
  EXPECT_NEAR(curves[0].cells[0][1].median, 12.35, 1e-9);
  EXPECT_EQ(sweep_tables(rows),
            "\nsweep 't': Gbit/s, median [95 % interval of the median] per point\n"
            "product              streams=1                streams=8               \n"
            "baseline             10.4 [10.1, 10.6]        12.4 [12.1, 12.6]       \n"
            "wireguard-go         1.035 [1.010, 1.060]     -                       \n");
  auto j = sweeps_json(rows);
  EXPECT_EQ(j[0]["products"][0]["cells"][1]["test"], "t-8");
  EXPECT_EQ(j[0]["products"][1]["cells"][1]["n"], 0);
  EXPECT_EQ(sweep_tables({}), "") << "no sweep, no table";
  // The report's chart: x is the first axis where it is a number, one chart per value of
  // the others (never a line from one MTU's points into the other's).
  std::vector<SampleRow> grid;
  for (const char* point : {"streams=1;underlay_mtu=1500", "streams=8;underlay_mtu=1500", "streams=1;underlay_mtu=9000",
                            "streams=8;underlay_mtu=9000"})
    for (int s = 1; s <= 2; ++s) grid.push_back(point_row("baseline", point, s, 10 + s));
  auto sections = sweep_sections(grid, {});
  ASSERT_EQ(sections.size(), 1u);
  ASSERT_EQ(sections[0].plots.size(), 2u);
  EXPECT_EQ(sections[0].plots[0].first, "sweep-t-1.svg");
  EXPECT_NE(sections[0].plots[1].second.find("t: Gbit/s by streams at underlay_mtu=9000"), std::string::npos);
  // Two samples: the interval is [min, max], marked and said, never passed off as 95 %.
  std::vector<SampleRow> two = {point_row("baseline", "streams=1", 1, 10), point_row("baseline", "streams=1", 2, 11)};
  EXPECT_EQ(sweep_tables(two),
            "\nsweep 't': Gbit/s, median [95 % interval of the median] per point\n"
            "product              streams=1               \n"
            "baseline             10.5 [10.0, 11.0]*      \n"
            "* fewer than 6 samples: the interval is [min, max] and covers the median with only 50.0 %\n");
  // Points that are names (a variant sweep) have no x axis: a bar per product and point
  // with its interval, and the report's cells are the summary's.
  std::vector<SampleRow> named;
  for (int s = 1; s <= 6; ++s)
    for (const char* point : {"variant=none", "variant=conntrack"})
      named.push_back(point_row("nebula", point, s, 0.6 + s * 0.01));
  auto bars = sweep_sections(named, {});
  ASSERT_EQ(bars.size(), 1u);
  ASSERT_EQ(bars[0].plots.size(), 1u);
  EXPECT_NE(bars[0].plots[0].second.find("nebula, variant=conntrack"), std::string::npos);
  EXPECT_EQ(bars[0].plots[0].second.find("polyline"), std::string::npos) << "no line between names";
  EXPECT_EQ(bars[0].table.at(1).at(1), "0.635 [0.610, 0.660]");
}

}  // namespace

namespace vpnlab {
namespace {

// A sweep's points multiply the rounds' length: a time budget that cannot hold the 3 rounds
// of a first look is refused with the count (plan and run), unless --force.
TEST(Sweep, ABudgetTooShortForTheSweepIsRefusedUnlessForced) {
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/cilium-grid.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  PlanOptions po;
  po.run_id = "20261203-000000-swp";
  po.tag = "swp";
  Plan plan = make_plan(*topo, po).value();
  ASSERT_EQ(plan.tests.size(), 10u) << "5 tests at 2 underlay MTUs";
  SamplingRequest request{0.05, 60.0, std::nullopt, false};
  Plan refused_plan = plan;
  auto refused = sequential_request(request, &refused_plan);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "the sweep's 10 points (10 tests) x 3 products take ~126 s a round: the time budget holds 1 of the 3 "
            "rounds a first look needs");
  EXPECT_EQ(refused.error().hint,
            "raise max_time (--max-time; 3 rounds take about 6.3 min), sweep fewer points, or give --force to measure "
            "what fits");
  request.force = true;
  EXPECT_TRUE(sequential_request(request, &plan).ok());
  request.force = false;
  request.max_time_s = 600;
  Plan roomy = make_plan(*topo, po).value();
  EXPECT_TRUE(sequential_request(request, &roomy).ok()) << "10 minutes hold 3 rounds";
}

// compare RUN P:X P:Y: two points (or tests) of one product, paired by round as two
// products are; a point names its test when one test has it.
TEST(Sweep, CompareTakesTwoPointsOfOneProduct) {
  const std::string dir = make_temp_dir("sweep-compare");
  std::string csv = results_csv_header_line() + "\n";
  for (int s = 1; s <= 6; ++s) {
    SampleRow one = point_row("wireguard-go", "streams=1", s, 1.0 + 0.01 * s);
    SampleRow eight = point_row("wireguard-go", "streams=8", s, 2.0 + 0.02 * s);
    one.cipher = eight.cipher = "x";
    csv += format_row(one) + format_row(eight);
  }
  ASSERT_TRUE(write_file(dir + "/results.csv", csv, 0644).ok());
  auto c = compare_in_run(dir, "wireguard-go:streams=1", "wireguard-go:t-8", "");
  ASSERT_TRUE(c.ok()) << c.error().format();
  ASSERT_FALSE(c->comparisons.empty());
  EXPECT_EQ(c->comparisons[0].test, "t-1 vs t-8");
  EXPECT_EQ(c->comparisons[0].n_a, 6u);
  EXPECT_NEAR(c->comparisons[0].ratio, 2.0, 1e-9) << "every round's 8-stream sample is twice its 1-stream one";
  EXPECT_EQ(c->comparisons[0].verdict, "faster");
  // The same question in the run's effects table: its answer and family said beside this one.
  EXPECT_NE(
      c->text.find(
          "the run's effects table asks this question with 0 others of its figure together (each interval at 95 %): "
          "Gbit/s 2.000 (2.000-2.000), faster; here it is asked alone (95 %): the same answer\n"),
      std::string::npos)
      << c->text;
  auto unknown = compare_in_run(dir, "wireguard-go:streams=2", "wireguard-go:t-8", "");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "'wireguard-go' has no test or sweep point 'streams=2'");
  EXPECT_EQ(unknown.error().hint, "its tests: t-1, t-8");
  EXPECT_EQ(compare_in_run(dir, "wireguard-go:t-1", "wireguard-go", "").error().message,
            "compare: 'wireguard-go' names no test");

  // compare RUN --effects: the same pair, as the axis' effect, from the run directory.
  auto e = effects_in_run(dir);
  ASSERT_TRUE(e.ok()) << e.error().format();
  ASSERT_EQ(e->effects.size(), 1u);
  EXPECT_EQ(e->effects[0].axis, "streams");
  EXPECT_EQ(e->effects[0].from + " -> " + e->effects[0].to, "1 -> 8");
  EXPECT_NEAR(e->effects[0].c.ratio, 2.0, 1e-9);
  EXPECT_EQ(e->text.rfind("run ", 0), 0u) << e->text;
  EXPECT_NE(e->text.find("faster"), std::string::npos) << e->text;
  ASSERT_TRUE(write_file(dir + "/results.csv",
                         results_csv_header_line() + "\n" + format_row(point_row("wireguard-go", "streams=1", 1, 1.0)),
                         0644)
                  .ok());
  auto none = effects_in_run(dir);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, dir + "/results.csv: no test is swept on two values, so there is no effect to give");
}

}  // namespace
}  // namespace vpnlab

namespace vpnlab {
namespace {

// [bench] sweep = { underlay_mtu = [...] }: every test at every point of the lab; a point's
// plan has its tests only and every link at its MTU; an "auto" overlay MTU follows each
// point's underlay when the plan is finalized.
TEST(Sweep, ABenchSweepPutsEveryTestAtEveryPointOfTheLab) {
  const std::string bench_sweep =
      "[lab]\nname = \"x\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\nmtu = 1400\n"
      "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n"
      "[[link]]\nname = \"lan\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.77.0/24\"\n"
      "[bench]\nproducts = [\"baseline\"]\nsweep = { underlay_mtu = [1500, 9000] }\n"
      "[[bench.test]]\nname = \"t\"\nclient = \"a\"\nserver = \"b\"\nsweep = { streams = [1, 2] }\n";
  auto topo = parse_topology_text(bench_sweep, "x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  std::vector<std::string> names;
  for (const auto& t : topo->bench.tests)
    names.push_back(t.name + " " + point_text(t.point) + " " + std::to_string(t.lab_point));
  EXPECT_EQ(names, (std::vector<std::string>{
                       "t-1-1500 streams=1;underlay_mtu=1500 0", "t-1-9000 streams=1;underlay_mtu=9000 1",
                       "t-2-1500 streams=2;underlay_mtu=1500 0", "t-2-9000 streams=2;underlay_mtu=9000 1"}));
  PlanOptions po;
  po.run_id = "20261203-000000-lab";
  po.tag = "lab";
  Plan plan = make_plan(*topo, po).value();
  Plan jumbo = plan.at_lab_point(1);
  ASSERT_EQ(jumbo.tests.size(), 2u);
  EXPECT_EQ(jumbo.tests[0].spec.name, "t-1-9000");
  EXPECT_EQ(jumbo.veths.at(0).mtu, 9000);
  EXPECT_EQ(plan.at_lab_point(0).veths.at(0).mtu, 1500);
  EXPECT_TRUE(jumbo.lab_points.empty());
  // 10 rounds (the adaptive default's limit before a budget is applied), each a lab per
  // point, and 4 tests x (1 s warm-up + 3 s sample): vpnlab's defaults, the file sets none.
  const RunTimeEstimate e = estimate_run_time(plan);
  const BackendTraits& netns = backend_traits("netns");
  EXPECT_NEAR(e.labs_s, 10 * 2 * (netns.lab_s + 2 * netns.lab_node_s), 1e-9) << "a lab per point and round";
  EXPECT_NEAR(e.measuring_s, 10 * 4 * 3, 1e-9);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string text = bench_sweep;
    text.replace(text.find(from), from.size(), to);
    auto r = parse_topology_text(text, "x.toml");
    return r.ok() ? std::string() : r.error().where_and_what() + " | " + r.error().hint;
  };
  EXPECT_EQ(with("underlay_mtu = [1500, 9000]", "underlay_mtu = [1500, 1300]"),
            "x.toml:16:33: bench: underlay_mtu 1300 is below the overlay MTU 1400 (no tunnel carries that over it) | "
            "every link of the lab gets this "
            "MTU (68 to 9000; jumbo frames: 9000)");
  EXPECT_EQ(with("underlay_mtu = [1500, 9000]", "mtu = [1500]"),
            "x.toml:16:17: bench: sweep has no axis 'mtu' | [bench] sweep axes change the lab: underlay_mtu, rate, "
            "threads, variant; a test's own "
            "(streams, length, size, bitrate) go in its [[bench.test]]");
  EXPECT_EQ(with("underlay_mtu = [1500, 9000]", "underlay_mtu = [9000, 9000]"),
            "x.toml:16:33: bench: underlay_mtu 9000 is listed twice | list each value once");
  // The hostile review: lab points times a test's points grew validate past 2 GB. The
  // product is counted before a test is made: 2 points x 501 streams values is refused.
  std::string many = "[";
  for (int i = 1; i <= 128; ++i) many += (i > 1 ? ", " : "") + std::to_string(i);
  many += "]";
  EXPECT_EQ(with("sweep = { streams = [1, 2] }",
                 "sweep = { streams = " + many + ", bitrate = [\"1G\", \"2G\", \"3G\", \"4G\"] }"),
            "x.toml:21:9: test 't': 512 tests at 2 [bench] sweep point(s) make more than 1000 tests to measure | sweep "
            "fewer values (every test is "
            "measured at every point of the [bench] sweep)");
  EXPECT_EQ(
      with("sweep = { streams = [1, 2] }", "sweep = { streams = " + many + ", bitrate = [\"1G\", \"2G\", \"3G\"] }"),
      "")
      << "384 x 2 are fine";
}

// The lab's axes multiply like a test's; a variant is a named setup, data like any other
// axis value, and a rate sweep sets every shaped link's rate.
const std::string kVariantLab =
    "[lab]\nname = \"x\"\n[overlay]\nsubnet = \"10.77.0.0/24\"\nmtu = 1400\n"
    "[[node]]\nname = \"a\"\n[[node]]\nname = \"b\"\n"
    "[[link]]\nname = \"lan\"\nnodes = [\"a\", \"b\"]\nsubnet = \"192.168.77.0/24\"\nrate = \"1G\"\n"
    "[[variant]]\nname = \"conntrack\"\n"
    "nft = \"table inet vpnlab_fw { chain input { type filter hook input priority 0; ct state established counter "
    "accept } }\"\n"
    "sysctl = { \"net/netfilter/nf_conntrack_max\" = \"65536\" }\n"
    "[bench]\nproducts = [\"baseline\"]\nsweep = { variant = [\"none\", \"conntrack\"], rate = [\"100M\", \"1G\"] }\n"
    "[[bench.test]]\nname = \"t\"\nclient = \"a\"\nserver = \"b\"\n";

std::string variant_error(const std::string& from, const std::string& to) {
  std::string text = kVariantLab;
  text.replace(text.find(from), from.size(), to);
  auto r = parse_topology_text(text, "x.toml");
  return r.ok() ? std::string() : r.error().where_and_what() + " | " + r.error().hint;
}

TEST(Sweep, LabAxesMultiplyAndAVariantIsAPointOfTheLab) {
  auto topo = parse_topology_text(kVariantLab, "x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  std::vector<std::string> names;
  for (const auto& t : topo->bench.tests) names.push_back(t.name + " " + point_text(t.point));
  EXPECT_EQ(names, (std::vector<std::string>{"t-none-100m variant=none;rate=100m", "t-none-1g variant=none;rate=1g",
                                             "t-conntrack-100m variant=conntrack;rate=100m",
                                             "t-conntrack-1g variant=conntrack;rate=1g"}));
  PlanOptions po;
  po.run_id = "20261203-000000-lab";
  po.tag = "lab";
  Plan plan = make_plan(*topo, po).value();
  ASSERT_EQ(plan.lab_points.size(), 4u);
  Plan plain = plan.at_lab_point(0), filtered = plan.at_lab_point(3);
  EXPECT_FALSE(plain.variant) << "'none' applies nothing";
  ASSERT_TRUE(filtered.variant);
  EXPECT_EQ(filtered.variant->name, "conntrack");
  EXPECT_EQ(filtered.variant->sysctls.at(0).first, "net/netfilter/nf_conntrack_max");
  EXPECT_DOUBLE_EQ(plain.veths.at(0).rate_bps, 100e6);
  EXPECT_DOUBLE_EQ(filtered.veths.at(0).rate_bps, 1e9);
  EXPECT_EQ(filtered.tests.at(0).spec.name, "t-conntrack-1g");
  // Threads: the products' data-plane threads at each point.
  std::string threads = kVariantLab;
  threads.replace(threads.find("rate = [\"100M\", \"1G\"]"), 21, "threads = [1, 2]");
  auto t2 = parse_topology_text(threads, "x.toml");
  ASSERT_TRUE(t2.ok()) << t2.error().format();
  Plan tp = make_plan(*t2, po).value();
  EXPECT_EQ(tp.at_lab_point(1).threads, 2);
  EXPECT_EQ(tp.at_lab_point(1).tests.at(0).spec.name, "t-none-2");
  EXPECT_NE(describe_plan(plan).find("variant conntrack (every VPN node, after the lab is built, before the product): "
                                     "nftables rules (1 lines; their "
                                     "counters read after each sample) net/netfilter/nf_conntrack_max=65536"),
            std::string::npos)
      << describe_plan(plan);
}

// A variant's facets are each described in the plan, the qdisc among them.
TEST(Sweep, AQdiscVariantIsReadAndDescribed) {
  std::string text = kVariantLab;
  for (const std::string shaping : {"rate = \"1G\"\n", ", rate = [\"100M\", \"1G\"]"})
    text.erase(text.find(shaping), shaping.size());
  text.replace(text.find("sysctl = {"), 10, "qdisc = \"fq_codel\"\nsysctl = {");
  auto topo = parse_topology_text(text, "x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  ASSERT_EQ(topo->variants.size(), 1u);
  EXPECT_EQ(topo->variants[0].qdisc, "fq_codel");
  PlanOptions po;
  po.run_id = "20261203-000000-lab";
  po.tag = "lab";
  const std::string described = describe_plan(make_plan(*topo, po).value());
  EXPECT_NE(
      described.find("variant conntrack (every VPN node, after the lab is built, before the product): nftables rules "
                     "(1 lines; their "
                     "counters read after each sample) net/netfilter/nf_conntrack_max=65536 underlay qdisc fq_codel"),
      std::string::npos)
      << described;
}

// The facets a topology may set (model) and what applies and records each (run) are two
// tables joined by key: a facet without an applier would parse and never apply.
TEST(Sweep, EveryVariantFacetHasOneApplierAndBack) {
  std::map<std::string, int> facets, appliers;
  for (const auto& f : variant_facets()) ++facets[f.key];
  for (const auto& a : variant_appliers()) ++appliers[a.key];
  for (const auto& [key, n] : facets) {
    EXPECT_EQ(n, 1) << "facet '" << key << "' is read twice (lab/model/variant_facets.cpp)";
    EXPECT_EQ(appliers[key], 1) << "facet '" << key
                                << "' has no applier in lab/run/variant.cpp: it would parse and never apply";
  }
  for (const auto& [key, n] : appliers)
    EXPECT_EQ(facets.count(key), 1u) << "applier '" << key
                                     << "' has no facet in lab/model/variant_facets.cpp: no file can set it";
}

TEST(Sweep, AVariantThatCannotMeasureIsRefusedWhereItIsWritten) {
  // --backend cannot move a netns file's variants elsewhere either.
  PlanOptions vm;
  vm.run_id = "20261203-000000-lab";
  vm.tag = "lab";
  vm.backend = "vm";
  auto moved = make_plan(parse_topology_text(kVariantLab, "x.toml").value(), vm);
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.error().where_and_what() + " | " + moved.error().hint,
            "x.toml:15:1: variant 'conntrack': variants are applied in the nodes' namespaces on the netns backend, not "
            "on 'vm' | leave out "
            "--backend vm for this topology");
  EXPECT_EQ(variant_error("[\"none\", \"conntrack\"]", "[\"none\", \"nat\"]"),
            "x.toml:21:30: bench: variant 'nat' is not defined (variants: none, conntrack) | \"none\" or the name of a "
            "[[variant]]");
  EXPECT_EQ(variant_error("variant = [\"none\", \"conntrack\"], ", ""),
            "x.toml:15:1: variant 'conntrack' is defined but no sweep names it | add sweep = { variant = [\"none\", "
            "\"conntrack\"] } to [bench], or "
            "remove the variant");
  EXPECT_EQ(variant_error("counter accept", "accept"),
            "x.toml:17:7: variant 'conntrack': the rules have no 'counter' | add 'counter' to the rule that matters: "
            "the run reads it after each sample "
            "and flags a rule that matched nothing");
  EXPECT_EQ(variant_error("nft = \"table", "nft = \"include \\\"/etc/nftables.conf\\\"\\ntable"),
            "x.toml:17:7: variant 'conntrack': the rules 'include' a file: nft would read it from this host | write "
            "the rules themselves into nft");
  EXPECT_EQ(
      variant_error("name = \"conntrack\"", "name = \"none\""),
      "x.toml:16:8: variant 'none': 'none' is the sweep's point without a variant | give the variant another name");
  EXPECT_EQ(variant_error("\"net/netfilter/nf_conntrack_max\"", "\"kernel/panic\""),
            "x.toml:18:29: variant 'conntrack': sysctl 'kernel/panic' is not a network namespace setting | keys are "
            "/proc/sys paths below net/ (e.g. "
            "net/ipv6/conf/default/disable_ipv6): only those stay in the node");
  // The hostile review: below net/, but one switch for the whole machine.
  EXPECT_EQ(variant_error("\"net/netfilter/nf_conntrack_max\"", "\"net/netfilter/nf_hooks_lwtunnel\""),
            "x.toml:18:48: variant 'conntrack': sysctl 'net/netfilter/nf_hooks_lwtunnel' is one switch for the whole "
            "machine, though every "
            "namespace shows it | vpnlab changes nothing outside the lab's nodes: leave it out");
  // ... and the same key spelled another way opens the same file: refused, not matched.
  for (const char* other : {"net/netfilter/./nf_hooks_lwtunnel", "net//netfilter/nf_hooks_lwtunnel",
                            "net/netfilter/nf_hooks_lwtunnel/", "net/ipv4/../netfilter/nf_hooks_lwtunnel"}) {
    const std::string err = variant_error("\"net/netfilter/nf_conntrack_max\"", "\"" + std::string(other) + "\"");
    EXPECT_NE(err.find(": sysctl '" + std::string(other) + "' is not a network namespace setting"), std::string::npos)
        << err;
  }
  EXPECT_EQ(variant_error("rate = \"1G\"\n", ""),
            "x.toml:20:52: bench: rate sweeps a shaped link's rate, and no [[link]] has a rate | every shaped link "
            "([[link]] rate = ...) gets this "
            "rate: bits/s with k, M or G");
  EXPECT_EQ(variant_error("rate = [\"100M\", \"1G\"]", "rate = [\"100M\", \"100m\"]"),
            "x.toml:21:60: bench: point variant=none;rate=100m is listed twice | list each value once (\"100M\" and "
            "\"100m\" are one rate)");
  // The qdisc facet: a parameterless kind, and never over a link the file shapes (the
  // qdisc would replace the TBF that shapes it).
  EXPECT_EQ(variant_error("sysctl = {", "qdisc = \"codel\"\nsysctl = {"),
            "x.toml:18:9: variant 'conntrack': 'qdisc' is one of fq, fq_codel, cake, sfq, pfifo | write qdisc = "
            "\"fq_codel\"");
  EXPECT_EQ(variant_error("sysctl = {", "qdisc = \"fq_codel\"\nsysctl = {"),
            "x.toml:18:9: variant 'conntrack': 'qdisc' replaces the underlay's root qdisc, which shapes link 'lan' | "
            "measure the qdisc on "
            "unshaped links, or shape without it");
  EXPECT_EQ(variant_error("[lab]\nname = \"x\"\n", "[lab]\nname = \"x\"\nbackend = \"vm\"\n"),
            "x.toml:16:1: variant 'conntrack': variants are applied in the nodes' namespaces on the netns backend, not "
            "on 'vm' | run the variant "
            "sweep with backend = \"netns\"");
}

}  // namespace
}  // namespace vpnlab
