// What users must be able to trust without root: rows are never lost or invented from a
// hand-edited file, run files that do not parse give located errors (not aborts), bounds
// hold, templates are checked before anything runs, and the exit code's input is right.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>
#include <algorithm>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../temp_paths.h"
#include "lab/app/run_diff.h"
#include "lab/app/run_request.h"
#include "lab/base/fs_util.h"
#include "lab/base/process.h"
#include "lab/base/unique_fd.h"
#include "lab/model/product_spec.h"
#include "lab/model/topology.h"
#include "lab/record/results_csv.h"
#include "lab/results/report.h"
#include "lab/results/run_files.h"
#include "lab/results/summary.h"
#include "lab/run/product_session.h"
#include "lab/run/product_tunnels.h"
#include "lab/run/sample.h"

using namespace vpnlab;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

SampleRow row(const std::string& product, int sample, bool valid, const std::string& reason = "") {
  SampleRow r;
  r.run_id = "20261201-120000-abcd";
  r.product = product;
  r.test = "a-to-b";
  r.sample = sample;
  r.valid = valid;
  r.status = valid ? "ok" : "failed";
  r.gbps = valid ? 1.5 : 0;
  r.reason = reason;
  return r;
}

// A CSV with the current header and the given data lines.
std::string csv_with(const std::string& dir, const std::vector<std::string>& lines, bool final_newline = true) {
  std::string path = dir + "/results.csv";
  std::string text = results_csv_header_line() + "\n";
  for (size_t i = 0; i < lines.size(); ++i) text += lines[i] + (i + 1 < lines.size() || final_newline ? "\n" : "");
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const Status& s) { return s ? "" : s.error().where_and_what(); }

}  // namespace

TEST(Trust, ReasonsAreWrittenOnOneLineAndReadBack) {
  std::string dir = make_temp_dir("trust");
  std::string path = dir + "/results.csv";
  {
    auto csv = ResultsCsv::create(path);
    ASSERT_TRUE(csv.ok());
    ASSERT_TRUE(
        csv->append(
               row("wireguard-go", 1, false,
                   "product daemon died during the sample: 'wireguard-go' exited with status 137\nlast log line\n"))
            .ok());
    ASSERT_TRUE(csv->append(row("wireguard-go", 2, true)).ok());
  }
  std::string text = slurp(path);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;  // header + 2 rows, one line each
  auto rows = read_results_csv(path);
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].reason,
            "product daemon died during the sample: 'wireguard-go' exited with status 137 | last log line");
  EXPECT_EQ(one_line("a\r\nb\tc\n"), "a | b c");
  EXPECT_EQ(one_line("x\n\n\ny |z"), "x | y |z") << "a run of breaks is one separator; a '|' of the text stays";
}

TEST(Trust, AQuotedFieldSpanningLinesIsOneRowNotALostOne) {
  // What versions before this one wrote for a daemon that died mid-sample.
  std::string dir = make_temp_dir("trust");
  std::string r1 = format_row(row("wireguard-go", 1, false, "x"));
  r1.pop_back();
  r1.replace(r1.find(",x,"), 3, ",\"exited with status 137\n\",");
  std::string r2 = format_row(row("wireguard-go", 2, true));
  r2.pop_back();
  auto rows = read_results_csv(csv_with(dir, {r1, r2}));
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].reason, "exited with status 137\n");
  EXPECT_EQ((*rows)[1].sample, 2);
  // And both count in the summary: 1 valid of 2.
  auto s = summarize(*rows);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].rows, 2);
  EXPECT_EQ(s[0].gbps.n, 1);
}

TEST(Trust, AMalformedRowIsAnErrorNamingItsLine) {
  std::string dir = make_temp_dir("trust");
  std::string good = format_row(row("baseline", 1, true));
  good.pop_back();
  auto r = read_results_csv(csv_with(dir, {good, "20261201-120000-abcd,2026,baseline,a-to-b"}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            dir + "/results.csv:3: the row has 4 fields, the header " + std::to_string(results_csv_header().size()));
  EXPECT_NE(r.error().hint.find("--resume"), std::string::npos);
  std::string bad_number = good;
  bad_number.replace(bad_number.find(",1.500000,"), 10, ",1.5x,");
  r = read_results_csv(csv_with(dir, {good, bad_number}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, dir + "/results.csv:3: column 'gbps': '1.5x' does not parse");
}

TEST(Trust, RowsNoRunWritesAreRefused) {
  SampleRow nan_row = row("baseline", 1, true);
  nan_row.gbps = std::nan("");
  EXPECT_EQ(error_of(check_row(nan_row)), "column 'gbps': nan is not a figure (negative, not finite, or above 10000)");
  SampleRow negative = row("baseline", 1, true);
  negative.gbps = -2;
  EXPECT_EQ(error_of(check_row(negative)), "column 'gbps': -2 is not a figure (negative, not finite, or above 10000)");
  EXPECT_EQ(error_of(check_row(row("", 1, true))),
            "product '' is not a product name ([a-z0-9-], optionally @TAG of [a-z0-9.-])");
  EXPECT_EQ(error_of(check_row(row("baseline", 0, true))), "sample 0 is not a sample number (1 to 1000)");
  SampleRow escape = row("baseline", 1, true);
  escape.run_id = "../../etc/x";
  EXPECT_EQ(error_of(check_row(escape)), "run_id '../../etc/x' is not a run id (letters, digits, '.', '_', '-')");
  // Read from a file, the same check names the line.
  std::string dir = make_temp_dir("trust");
  std::string line = format_row(negative);
  line.pop_back();
  auto r = read_results_csv(csv_with(dir, {line}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            dir + "/results.csv:2: column 'gbps': -2 is not a figure (negative, not finite, or above 10000)");
}

TEST(Trust, ATornLastRowIsCutBeforeAppendingAndReportedOtherwise) {
  std::string dir = make_temp_dir("trust");
  std::string good = format_row(row("baseline", 1, true));
  good.pop_back();
  std::string path = csv_with(dir, {good, "20261201-120000-abcd,2026-12-01T12:00:00Z,base"}, /*final_newline=*/false);
  auto strict = read_results_csv(path);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.error().message, path + ":3: the last row is cut short (no end of line)");
  auto lenient = read_results_csv(path, /*drop_torn_tail=*/true);
  ASSERT_TRUE(lenient.ok());
  EXPECT_EQ(lenient->size(), 1u);
  std::string repaired;
  {
    auto csv = ResultsCsv::create(path, &repaired);
    ASSERT_TRUE(csv.ok());
    ASSERT_TRUE(csv->append(row("baseline", 2, true)).ok());
  }
  EXPECT_EQ(repaired, path + ": removed a torn last row (46 bytes without an end of line)");
  auto rows = read_results_csv(path);
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[1].sample, 2);
}

TEST(Trust, CompletenessNamesEveryPairWithoutAValidRow) {
  std::vector<SampleRow> rows = {row("baseline", 1, true), row("baseline", 2, true),
                                 row("wireguard-go", 1, false, "died"), row("wireguard-go", 2, true),
                                 row("nebula", 1, false, "did not come up")};
  auto c = completeness(rows, {"baseline", "wireguard-go", "nebula", "openvpn"}, {"a-to-b"});
  EXPECT_EQ(c.without_valid, (std::vector<std::string>{"nebula / a-to-b", "openvpn / a-to-b"}));
  EXPECT_EQ(c.not_valid, 2);
  EXPECT_EQ(c.rows, 5);
  auto all_good = completeness({row("baseline", 1, true)}, {"baseline"}, {"a-to-b"});
  EXPECT_TRUE(all_good.without_valid.empty());
  EXPECT_EQ(all_good.not_valid, 0);
  // A pair the product cannot run by design (no relay of its own) is kept, not failed.
  auto by_design = completeness(
      {row("baseline", 1, true), row("wireguard-go", 1, false, std::string(kNotRun) + "no relay of its own")},
      {"baseline", "wireguard-go"}, {"a-to-b"});
  EXPECT_TRUE(by_design.without_valid.empty());
  EXPECT_EQ(by_design.not_run, (std::vector<std::string>{"wireguard-go / a-to-b"}));
  EXPECT_EQ(by_design.not_valid, 0);
  EXPECT_EQ(by_design.rows, 1);
  // The summary says "not run", not "not valid", for those rows.
  auto warnings = summary_warnings(summarize(
      {row("wireguard-go", 1, false, std::string(kNotRun) + "no relay"), row("wireguard-go", 2, false, "died")}));
  EXPECT_EQ(warnings, (std::vector<std::string>{
                          "wireguard-go / a-to-b: 1 of 2 sample(s) not run: the product cannot run this test (see the "
                          "reason column of results.csv)",
                          "wireguard-go / a-to-b: 1 of 2 sample(s) not valid (see the reason column of results.csv)"}));
}

namespace {
// A copy of the golden run whose environment.json has `path` (a JSON pointer) set to `value`.
std::string golden_with(const std::string& pointer, const nlohmann::json& value) {
  std::string dir = make_temp_dir("trust-run");
  std::filesystem::copy(VPNLAB_TEST_DATA "/run-golden", dir, std::filesystem::copy_options::recursive);
  auto env = nlohmann::json::parse(slurp(dir + "/environment.json"));
  nlohmann::json::json_pointer p(pointer);
  if (value.is_discarded())
    env[p.parent_pointer()].erase(p.back());
  else
    env[p] = value;
  std::ofstream(dir + "/environment.json") << env.dump(2);
  return dir;
}
}  // namespace

TEST(Trust, HandEditedEnvironmentGivesALocatedErrorNotAnAbort) {
  std::string dir = golden_with("/products/wireguard-go/version", 5);
  auto s = write_report(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            dir + "/environment.json: products.wireguard-go.version is a whole number, expected a string");
  dir = golden_with("/bench/samples", "two");
  RunRequest req;
  auto plan = plan_like_run(dir, &req);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message, "cannot rerun " + dir + ": " + dir +
                                      "/environment.json: bench.samples is a string, expected a whole number");
  dir = golden_with("/requested_products", nlohmann::json::array({1, 2}));
  plan = plan_like_run(dir, &req);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message, "cannot rerun " + dir + ": " + dir +
                                      "/environment.json: requested_products[0] is a whole number, expected a string");
  dir = golden_with("/schema", 99);
  s = write_report(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, dir + "/environment.json: schema 99 is not one this vpnlab reads (1)");
  std::ofstream(dir + "/environment.json") << "{\"schema\": 1, \"bench\": ";
  s = write_report(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, dir + "/environment.json: not valid JSON");
  std::ofstream(dir + "/audit.json") << "{\"wireguard-go\": {\"leftovers\": \"one\"}}";
  std::ofstream(dir + "/environment.json") << "{}";
  s = write_report(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, dir + "/audit.json: wireguard-go.leftovers is a string, expected a list (JSON array)");
  for (auto [text, found] : {std::pair{"[]", "a list"}, {"3", "a whole number"}, {"\"audit\"", "a string"}}) {
    std::ofstream(dir + "/audit.json") << text;  // nothing under /* to check: the top level is what refuses it
    s = write_report(dir);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.error().message, dir + "/audit.json: the top level is " + std::string(found) + ", expected a table");
  }
}

TEST(Trust, RunFromRepeatsOnlyWhatWasRecorded) {
  RunRequest req;
  std::string dir = golden_with("/bench", nlohmann::json::value_t::discarded);
  auto plan = plan_like_run(dir, &req);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message, dir +
                                      "/environment.json: no bench section (samples, duration, pinning, order): the "
                                      "run cannot be repeated exactly");
  dir = golden_with("/bench/pinned", nlohmann::json::value_t::discarded);
  plan = plan_like_run(dir, &req);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message, dir + "/environment.json: no bench.pinned: the run cannot be repeated exactly");
  dir = golden_with("/bench/samples", 1000000000);
  plan = plan_like_run(dir, &req);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message,
            dir + "/environment.json: bench.samples 1000000000 or bench.duration_s 2.0 is out of range");
}

TEST(Trust, DiffWithoutProvenanceSaysSo) {
  std::string a = golden_with("/schema", 1);
  std::string b = golden_with("/schema", 1);
  std::filesystem::remove(b + "/environment.json");
  auto d = diff_runs(a, b, Thresholds{}, false);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, "run B: " + b + "/environment.json: No such file or directory (ENOENT)");
}

TEST(Trust, DurationsAndCountsHaveOneSetOfBounds) {
  std::string text = slurp(VPNLAB_TOPOLOGIES "/quick.toml");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    auto r = parse_topology_text(t, "x.toml");
    return r.ok() ? std::string() : r.error().where_and_what() + " / " + r.error().hint;
  };
  EXPECT_EQ(with("duration = \"3s\"", "duration = \"99999999999999999999s\""),
            "x.toml:40:12: bench: 'duration' is too long / use at most 3600s");
  EXPECT_EQ(with("samples = 10", "samples = 1001"),
            "x.toml:39:11: bench: 'samples' = 1001 is out of range / use a value from 1 to 1000");
  EXPECT_EQ(with("warmup = \"1s\"", "warmup = \"2h\""),
            "x.toml:41:10: bench: 'warmup' is not a duration / write warmup = \"10s\" (units: ms, s, m)");
  EXPECT_EQ(with("warmup = \"1s\"", "warmup = \"11m\""),
            "x.toml:41:10: bench: 'warmup' is too long / use at most 600s");
}

TEST(Trust, TemplatesAreRenderedBeforeAnythingRuns) {
  // A copy of wireguard-go whose config template uses a value that does not exist.
  std::string products = make_temp_dir("trust-products");
  std::filesystem::copy(VPNLAB_PRODUCTS_DIR "/wireguard-go", products + "/wireguard-go",
                        std::filesystem::copy_options::recursive);
  std::ofstream(products + "/wireguard-go/wg.conf.tmpl", std::ios::app) << "Extra = {{no_such_value}}\n";
  auto spec = load_product(products, "wireguard-go");
  ASSERT_TRUE(spec.ok()) << "loading alone does not render";
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/quick.toml");
  ASSERT_TRUE(topo.ok());
  PlanOptions po;
  po.run_id = "t";
  po.tag = "t";
  auto plan = make_plan(*topo, po);
  ASSERT_TRUE(plan.ok());
  auto s = ProductSession::check_templates(*spec, plan->vpn_only());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where_and_what(), products + "/wireguard-go/wg.conf.tmpl:11: unknown value '{{no_such_value}}'");
  // An unclosed block, likewise.
  std::filesystem::copy_file(VPNLAB_PRODUCTS_DIR "/wireguard-go/wg.conf.tmpl", products + "/wireguard-go/wg.conf.tmpl",
                             std::filesystem::copy_options::overwrite_existing);
  std::ofstream(products + "/wireguard-go/wg.conf.tmpl", std::ios::app) << "{{#peers}}\n";
  spec = load_product(products, "wireguard-go");
  ASSERT_TRUE(spec.ok());
  s = ProductSession::check_templates(*spec, plan->vpn_only());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "block 'peers' is not closed");
  // Every shipped product renders on the shapes it supports (with its services' values).
  for (const auto& name : list_products(VPNLAB_PRODUCTS_DIR)) {
    auto shipped = load_product(VPNLAB_PRODUCTS_DIR, name);
    ASSERT_TRUE(shipped.ok()) << name;
    auto rendered = ProductTunnels::check_templates(*shipped, plan->vpn_only());
    EXPECT_TRUE(rendered.ok()) << name << ": " << (rendered.ok() ? "" : rendered.error().format());
  }
}

TEST(Trust, ATemplatePathMustStayInTheProductFolder) {
  std::string products = make_temp_dir("trust-products");
  std::filesystem::copy(VPNLAB_PRODUCTS_DIR "/wireguard-go", products + "/wireguard-go",
                        std::filesystem::copy_options::recursive);
  std::string spec_path = products + "/wireguard-go/product.toml";
  std::string spec = slurp(spec_path);
  const size_t at = spec.find("template = \"wg.conf.tmpl\"");
  const std::string line =
      std::to_string(1 + std::count(spec.begin(), spec.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  spec.replace(at, 25, "template = \"../../../../etc/shadow\"");
  std::ofstream(spec_path) << spec;
  auto r = load_product(products, "wireguard-go");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where_and_what(),
            spec_path + ":" + line + ":12: file: template '../../../../etc/shadow' is outside the product folder " +
                products + "/wireguard-go");
  // A symlink out of the folder is outside too.
  std::filesystem::create_symlink("/etc/hostname", products + "/wireguard-go/link.tmpl");
  spec.replace(spec.find("template = \"../../../../etc/shadow\""), 35, "template = \"link.tmpl\"");
  std::ofstream(spec_path) << spec;
  r = load_product(products, "wireguard-go");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("template 'link.tmpl' is outside the product folder"), std::string::npos)
      << r.error().message;
}

TEST(Trust, ADirectoryIsNoProgram) {
  std::string dir = make_temp_dir("trust-dir");
  EXPECT_EQ(find_program(dir), "");
  EXPECT_EQ(find_program("/bin/sh"), "/bin/sh");
  auto r = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go@x=" + dir);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "product 'wireguard-go@x=" + dir + "': " + dir + " is not a program file (a directory?)");
}

TEST(Trust, FreeSpaceCheckNamesEnospc) {
  EXPECT_TRUE(check_free_space("/tmp", 1).ok());
  auto s = check_free_space("/tmp", uint64_t{1} << 62);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/tmp: disk full: "), std::string::npos);
  EXPECT_NE(s.error().message.find("No space left on device (ENOSPC)"), std::string::npos) << s.error().message;
}

TEST(Trust, AnUnknownProductInTheFileNamesItsLine) {
  std::string file = make_temp_dir("trust-topo") + "/quick.toml";
  std::string text = slurp(VPNLAB_TOPOLOGIES "/quick.toml");
  text.replace(text.find("products = [\"baseline\", \"wireguard-go\"]"), 39,
               "products = [\"baseline\", \"wireguard-goo\"]");
  std::ofstream(file) << text;
  RunRequest req;
  req.topology_file = file;
  auto plan = plan_request(req);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().where_and_what().substr(0, file.size() + 39),
            file + ":30:12: unknown product 'wireguard-goo'");
  EXPECT_EQ(plan.error().hint.substr(0, 28), "did you mean 'wireguard-go'?");
  EXPECT_NE(plan.error().hint.find("~/.config/vpnlab/products"), std::string::npos) << plan.error().hint;
}

TEST(Trust, ReplaceFileSwapsWholeVersions) {
  std::string dir = make_temp_dir("trust-replace");
  ASSERT_TRUE(write_file(dir + "/environment.json", "{\"a\": 1}\n", 0640).ok());
  ASSERT_TRUE(replace_file(dir + "/environment.json", "{\"a\": 2}\n", 0640).ok());
  EXPECT_EQ(slurp(dir + "/environment.json"), "{\"a\": 2}\n");
  EXPECT_FALSE(std::filesystem::exists(dir + "/environment.json.new"));
  // Where the new version cannot be written, the old one stays as it was.
  auto s = replace_file(dir + "/no-such-dir/environment.json", "x", 0640);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(slurp(dir + "/environment.json"), "{\"a\": 2}\n");
}

// The pure part of a sample's validity (issue: sample scoring without root).
TEST(SampleScoring, ValidBypassedAndSpreadSamples) {
  TunnelCounters crossed;
  crossed.if_rx = crossed.if_tx = 2'000'000;
  crossed.underlay_rx = crossed.underlay_tx = 2'100'000;
  SampleScore s;
  s.tunnel = true;
  s.duration_s = 10;
  s.start_spread_ms = 12;
  s.expect = {{"a", {1'000'000, 0}}, {"b", {0, 1'000'000}}};
  s.delta = {{"a", crossed}, {"b", crossed}};
  EXPECT_EQ(score_sample(s), "");
  // The bytes went around the tunnel: the overlay interface of b saw less than iperf3 got.
  TunnelCounters bypassed = crossed;
  bypassed.if_rx = 1000;
  s.delta["b"] = bypassed;
  EXPECT_EQ(score_sample(s),
            "VPN node 'b': the overlay interface received 1000 bytes, less than iperf3's 1000000: traffic did not "
            "cross the tunnel");
  // The tunnel's packets took another way than the links toward the peers.
  TunnelCounters elsewhere = crossed;
  elsewhere.underlay_tx = 10;
  s.delta["b"] = crossed;
  s.delta["a"] = elsewhere;
  EXPECT_EQ(score_sample(s),
            "VPN node 'a': the underlay toward the peers sent 10 bytes, less than iperf3's 1000000: the tunnel's "
            "packets went elsewhere");
  // The product's own peer counters must agree too.
  TunnelCounters product = crossed;
  product.has_product = true;
  product.product_tx = 5;
  s.delta["a"] = product;
  EXPECT_EQ(score_sample(s), "VPN node 'a': the product's peer counters sent 5 bytes, less than iperf3's 1000000");
  // Starts further apart than 2 % of the duration are no one window; 50 ms at least.
  s.delta["a"] = crossed;
  s.start_spread_ms = 201;
  EXPECT_EQ(score_sample(s), "the iperf3 processes started 201 ms apart: their sum is not one window");
  s.start_spread_ms = 199;
  EXPECT_EQ(score_sample(s), "");
  s.duration_s = 1;
  s.start_spread_ms = 49;
  EXPECT_EQ(score_sample(s), "");
  s.start_spread_ms = 51;
  EXPECT_NE(score_sample(s), "");
  s.repeating_payload = true;  // the plaintext check needs no window
  EXPECT_EQ(score_sample(s), "");
  // No tunnel: the counters prove nothing and are not asked; nothing moved is still no data for a tunnel.
  SampleScore baseline = s;
  baseline.tunnel = false;
  baseline.delta["a"] = TunnelCounters{};
  EXPECT_EQ(score_sample(baseline), "");
  SampleScore idle = s;
  idle.expect = {{"a", {0, 0}}};
  EXPECT_EQ(score_sample(idle), "VPN node 'a': iperf3 moved no data");
}

TEST(Trust, ReportMarkdownCarriesNoRawHtmlFromProductStrings) {
  std::string dir = golden_with("/products/wireguard-go/cipher", "<img src=x onerror=alert(1)> | AES & co");
  ASSERT_TRUE(write_report(dir).ok());
  std::string md = slurp(dir + "/report.md");
  EXPECT_EQ(md.find("<img"), std::string::npos) << md;
  EXPECT_NE(md.find("cipher &lt;img src=x onerror=alert(1)> | AES &amp; co"), std::string::npos) << md;
  EXPECT_EQ(slurp(dir + "/report.html").find("<img"), std::string::npos);
}

TEST(Trust, ResumeRefusesAResultsFileOfOtherColumns) {
  std::string dir = make_temp_dir("trust-columns");
  std::ofstream(dir + "/results.csv") << "run_id,timestamp,product\nr,t,baseline\n";
  auto csv = ResultsCsv::create(dir + "/results.csv");
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(csv.error().message,
            dir + "/results.csv: its columns are not this vpnlab version's (written by another version)");
  EXPECT_EQ(read_file_text(dir + "/results.csv"), "run_id,timestamp,product\nr,t,baseline\n") << "nothing appended";
  std::filesystem::remove_all(dir);
}

TEST(Trust, HandEditedShapingAndPinningRecordsAreLocatedErrors) {
  std::string dir = golden_with("/shaped_links", nlohmann::json::array({{{"link", "lan"}, {"rate_bps", "fast"}}}));
  auto s = write_report(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, dir + "/environment.json: shaped_links[0].rate_bps is a string, expected a number");
  dir = golden_with("/test_links", nlohmann::json{{"a-to-b", "lan"}});
  s = write_report(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, dir + "/environment.json: test_links.a-to-b is a string, expected a list (JSON array)");
  // diff shows a hand-edited pinning as it is instead of aborting.
  std::string a = golden_with("/pinning/a", "cpu zero");
  std::string b = golden_with("/schema", 1);
  auto d = diff_runs(a, b, Thresholds{}, false, /*force=*/true);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_NE(d->text.find("a \"cpu zero\""), std::string::npos) << d->text;
}

namespace vpnlab {
namespace {

// `--rows-jsonl -` made the caller's stdout O_NONBLOCK (on a terminal also its stdin and
// stderr: one open file), and the next program in the shell failed with EAGAIN. The stream
// is non-blocking only where a write can block, on a descriptor the run opened itself.
TEST(Trust, TheRowsStreamLeavesARegularFilesFlagsAsTheyWere) {
  const std::string dir = make_temp_dir("rows-stream");
  auto csv = ResultsCsv::create(dir + "/results.csv");
  ASSERT_TRUE(csv.ok()) << csv.error().format();
  UniqueFd file(open((dir + "/rows.jsonl").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  ASSERT_TRUE(file.valid());
  csv->mirror_to(file.get(), "rows.jsonl");
  EXPECT_EQ(fcntl(file.get(), F_GETFL) & O_NONBLOCK, 0) << "a regular file never blocks: its flags are left alone";
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  UniqueFd r(p[0]), w(p[1]);
  csv->mirror_to(w.get(), "a pipe");
  EXPECT_NE(fcntl(w.get(), F_GETFL) & O_NONBLOCK, 0) << "a pipe whose reader stalls must not hold the run";
}

}  // namespace
}  // namespace vpnlab
