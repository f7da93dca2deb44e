#include "lab/cli/json_output.h"

#include <cmath>

#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/model/sweep.h"
#include "lab/run/environment.h"

namespace vpnlab {

using nlohmann::json;

json product_json(const std::string& name, const Result<ProductSpec>& spec,
                  const std::optional<Availability>& availability) {
  json p = {{"name", name}};
  if (!spec) {
    p["valid"] = false;
    p["error"] = spec.error().where_and_what();
    return p;
  }
  p["valid"] = true;
  p["dir"] = spec->dir;
  p["description"] = spec->description;
  p["cipher"] = spec->cipher;
  p["tunnel"] = spec->tunnel;
  p["shapes"] = spec->shapes;
  p["overhead"] = spec->overhead;
  p["max_mtu"] = spec->max_mtu;
  p["packages"] = spec->packages;
  p["origin"] = spec->origin;   // Debian's package, or the registry build's command and cache dir
  json builds = json::array();  // the [[source]] builds: --product NAME@VERSION
  for (const auto& src : spec->sources) {
    builds.push_back({{"version", src.version},
                      {"command", src.command()},
                      {"default", src.is_default},
                      {"dir", product_build_dir(src.owner(name), src.version)},
                      {"built", build_is_there(src.owner(name), src)}});
  }
  p["builds"] = builds;
  if (availability) {
    p["available"] = availability->available;
    p["version"] = availability->version;
    p["reason"] = availability->reason;
  }
  return p;
}

json products_listing_json(const std::string& products_path, json products) {
  return {{"schema", kJsonSchema}, {"products_path", products_path}, {"products", std::move(products)}};
}

namespace {

const char* when_name(PlanRoute::When w) {
  switch (w) {
    case PlanRoute::When::always:
      return "always";
    case PlanRoute::When::tunnel:
      return "tunnel";
    case PlanRoute::When::baseline:
      return "baseline";
  }
  return "always";
}

json test_json(const PlanTest& t) {
  const TestSpec& s = t.spec;
  json j = {{"name", s.name},       {"kind", s.kind},
            {"size", s.size},       {"client", s.client},
            {"servers", s.servers}, {"streams", s.streams},
            {"reverse", s.reverse}, {"bidirectional", s.bidirectional},
            {"udp", s.udp},         {"underlay_links", t.underlay_links}};
  j["mss"] = s.mss ? json(*s.mss) : json(nullptr);
  j["bitrate_bps"] = s.bitrate_bps;
  j["length"] = s.length;
  j["sweep_of"] = s.sweep_of;        // "": not a point of a sweep
  j["point"] = point_text(s.point);  // "streams=8;length=64"
  j["lab_point"] = s.lab_point;      // index into lab_points; -1: none
  return j;
}

}  // namespace

json plan_json(const Plan& plan) {
  json nodes = json::array();
  for (const auto& n : plan.nodes) {
    json underlay = json::array();
    for (const auto& u : n.underlay)
      underlay.push_back({{"link", u.link}, {"ifname", u.ifname}, {"addr", u.addr.str()}, {"carrier", u.carrier}});
    json sites = json::array();
    for (const auto& s : n.sites) sites.push_back(s.str());
    nodes.push_back({{"name", n.name},
                     {"namespace", n.ns},
                     {"vpn", n.vpn},
                     {"gateway", n.gateway},
                     {"overlay", n.overlay.str()},
                     {"cpus", n.cpus},
                     {"load_cpus", n.load_cpus},
                     {"default_cpus", n.default_cpus},
                     {"underlay", underlay},
                     {"sites", sites}});
  }
  json links = json::array();
  for (const auto& v : plan.veths)
    links.push_back({{"link", v.link},
                     {"ns_a", v.ns_a},
                     {"if_a", v.if_a},
                     {"addr_a", v.addr_a ? json(v.addr_a->str()) : json(nullptr)},
                     {"ns_b", v.ns_b},
                     {"if_b", v.if_b},
                     {"addr_b", v.addr_b ? json(v.addr_b->str()) : json(nullptr)},
                     {"bridge", v.master_b},
                     {"mtu", v.mtu},
                     {"rate_bps", v.rate_bps},
                     {"delay_ms", v.delay_ms},
                     {"jitter_ms", v.jitter_ms},
                     {"loss_pct", v.loss_pct},
                     {"reorder", v.reorder},
                     {"profile", v.profile}});
  json bridges = json::array();
  for (const auto& b : plan.bridges)
    bridges.push_back({{"link", b.link}, {"namespace", b.ns}, {"name", b.name}, {"mtu", b.mtu}});
  json routes = json::array();
  for (const auto& r : plan.routes)
    routes.push_back({{"node", r.node}, {"dest", r.dest.str()}, {"via", r.via.str()}, {"when", when_name(r.when)}});
  json tests = json::array();
  for (const auto& t : plan.tests) tests.push_back(test_json(t));
  return {{"schema", kJsonSchema},
          {"run_id", plan.run_id},
          {"lab", plan.lab},
          {"backend", plan.backend},
          {"topology_file", plan.topology_file},
          {"overlay", {{"subnet", plan.overlay_subnet.str()}, {"mtu", plan.overlay_mtu}, {"port", plan.overlay_port}}},
          {"products", plan.products},
          {"bench",
           {{"samples", plan.samples},
            {"duration_s", plan.duration_s},
            {"warmup_s", plan.warmup_s},
            {"interleaved", plan.interleave},
            {"pinned", plan.pinned},
            {"rps", plan.rps},
            {"threads", plan.threads ? json(*plan.threads) : json(nullptr)},
            {"precision", plan.precision ? json(*plan.precision) : json(nullptr)},
            {"max_time_s", plan.max_time_s},
            {"estimated_s", plan.estimated_seconds()}}},
          {"lab_points", lab_points_json(plan)},
          {"variants", variants_json(plan)},
          {"pin_notes", plan.pin_notes},
          {"pin_warnings", plan.pin_warnings},
          {"nodes", nodes},
          {"links", links},
          {"bridges", bridges},
          {"routes", routes},
          {"tests", tests}};
}

namespace {

// The change a comparison detects (0.042 = 4.2 %); null when it cannot detect any (too few
// samples) or was not judged.
json detectable_json(const Comparison& c) {
  if (c.ratio <= 0 || !(c.detectable > 0) || !std::isfinite(c.detectable)) return nullptr;
  return c.detectable;
}

}  // namespace

json diff_json(const DiffOutcome& diff, const Thresholds& thresholds) {
  auto list = [&](const std::vector<Comparison>& from) {
    json cs = json::array();
    for (const auto& c : from) {
      auto limit = thresholds.of(c.metric);
      cs.push_back({{"product", c.product},
                    {"test", c.test},
                    {"metric", c.metric},
                    {"n_a", c.n_a},
                    {"n_b", c.n_b},
                    {"ratio", c.ratio},
                    {"ci_low", c.ci_low},
                    {"ci_high", c.ci_high},
                    {"level", c.level},
                    {"coverage", c.coverage},
                    {"family", c.family},
                    {"p", c.p_value},
                    {"p_adjusted", c.p_adjusted},
                    {"detectable", detectable_json(c)},
                    {"between_run_sd", c.between_runs > 0 ? json(c.between_run_sd) : json(nullptr)},
                    {"between_runs", c.between_runs},
                    {"verdict", c.verdict},
                    {"fails_threshold", limit ? fails_threshold(c, *limit) : false}});
    }
    return cs;
  };
  auto opt = [](std::optional<double> x) { return x ? json(*x) : json(nullptr); };
  json provenance = json::array();
  for (const auto& d : diff.provenance)
    provenance.push_back({{"what", d.what}, {"a", d.a}, {"b", d.b}, {"refuses", d.refuses}});
  return {{"schema", kJsonSchema},
          {"threshold", opt(thresholds.gbps)},
          {"thresholds",
           {{"gbps", opt(thresholds.gbps)},
            {"cpu_s_per_gbit", opt(thresholds.cpu)},
            {"daemon_rss_kb", opt(thresholds.rss)},
            {"latency_p99_ms", opt(thresholds.p99)}}},
          {"gate_failed", diff.gate_failed},
          {"provenance", provenance},
          {"comparisons", list(diff.comparisons)},
          {"costs", list(diff.costs)},
          {"baseline_moves", list(diff.baseline_moves)}};
}

json compare_json(const CompareOutcome& c) {
  json cs = json::array();
  for (const auto& x : c.comparisons) {
    json one = {{"test", x.test}, {"metric", x.metric}, {"pairs", x.n_a}, {"verdict", x.verdict}};
    if (x.ratio > 0) {
      one["ratio_b_over_a"] = x.ratio;
      one["ci_low"] = x.ci_low;
      one["ci_high"] = x.ci_high;
      one["ratio_a_over_b"] = 1 / x.ratio;
      one["ci_low_a_over_b"] = 1 / x.ci_high;
      one["ci_high_a_over_b"] = 1 / x.ci_low;
      one["level"] = x.level;
      one["coverage"] = x.coverage;
      one["family"] = x.family;
      one["p"] = x.p_value;
      one["p_adjusted"] = x.p_adjusted;
      one["detectable"] = detectable_json(x);
    }
    cs.push_back(one);
  }
  return {{"schema", kJsonSchema}, {"run_id", c.run_id}, {"a", c.a}, {"b", c.b}, {"comparisons", cs}};
}

json effects_json(const EffectsOutcome& e) {
  return {{"schema", kJsonSchema}, {"run_id", e.run_id}, {"effects", sweep_effects_json(e.effects)}};
}

json history_runs_json(const std::string& path, const std::vector<HistoryRun>& runs) {
  json out = json::array();
  for (const auto& r : runs)
    out.push_back({{"run_id", r.run_id},
                   {"started", r.started},
                   {"topology_file", r.topology_file},
                   {"vpnlab_version", r.vpnlab_version},
                   {"products", r.products},
                   {"rows", r.rows},
                   {"valid", r.valid}});
  return {{"schema", kJsonSchema}, {"history", path}, {"runs", out}};
}

namespace {

json points_json(const std::vector<TrendPoint>& points) {
  json out = json::array();
  for (const auto& p : points)
    out.push_back({{"run_id", p.run_id},
                   {"started", p.started},
                   {"product", p.product},
                   {"version", p.version},
                   {"n", p.n},
                   {"value", p.value},
                   {"ci_low", p.low},
                   {"ci_high", p.high},
                   {"change_point", p.change_point}});
  return out;
}

}  // namespace

json history_series_json(const std::string& path, const std::string& metric, bool by_version,
                         const std::vector<Trend>& trends) {
  json series = json::array();
  for (const auto& t : trends)
    series.push_back({{"product", t.product},
                      {"test", t.test},
                      {"metric", t.metric.key},
                      {"environment", t.environment},
                      {"points", points_json(t.points)},
                      {"apart", points_json(t.apart)}});
  return {{"schema", kJsonSchema},
          {"history", path},
          {"metric", metric},
          {"by", by_version ? "version" : "date"},
          {"series", series}};
}

json history_check_json(const std::string& path, const std::string& metric, double threshold, const CheckOutcome& o) {
  json lines = json::array();
  for (const auto& l : o.lines)
    lines.push_back({{"product", l.product},
                     {"test", l.test},
                     {"history", l.result.history},
                     {"newest", l.newest},
                     {"ratio", l.result.ratio},
                     {"ci_low", l.result.low},
                     {"ci_high", l.result.high},
                     {"level", l.result.level},
                     {"verdict", l.result.verdict},
                     {"regression", l.result.regression},
                     {"detectable", l.result.detectable}});
  return {{"schema", kJsonSchema},      {"history", path},
          {"metric", metric},           {"threshold", threshold},
          {"newest_run", o.newest_run}, {"environment", o.environment},
          {"family", o.family},         {"detectable", o.detectable},
          {"exit_code", o.exit_code},   {"lines", lines}};
}

nlohmann::json run_json(const std::string& run_dir, int exit_status, const RunReport& report,
                        const RunOutputs& outputs) {
  auto from_file = [&](const std::string& name) {
    // The run's own files, just written; a missing or torn one is null, never an abort.
    return parse_json_bounded(read_file_text(run_dir + "/" + name));
  };
  json env = from_file("environment.json"), summary = from_file("summary.json");
  json products = json::array();
  for (const auto& p : report.products)
    products.push_back({{"product", p.product},
                        {"started", p.started},
                        {"failure", p.failure},
                        {"leftovers", p.leftovers},
                        {"plaintext", p.plaintext}});
  return {{"schema", kJsonSchema},
          {"run_id", run_dir.substr(run_dir.rfind('/') + 1)},
          {"run_dir", run_dir},
          {"results_csv", run_dir + "/results.csv"},
          {"exit_status", exit_status},
          {"interrupted", report.interrupted},
          {"output_error", outputs.output_error},
          {"rows", outputs.completeness.rows},
          {"rows_not_valid", outputs.completeness.not_valid},
          {"without_valid", outputs.completeness.without_valid},
          {"products", products},
          {"sampling", env.is_object() && env.contains("sampling") ? env["sampling"] : json(nullptr)},
          {"timings", env.is_object() && env.contains("timings") ? env["timings"] : json(nullptr)},
          {"summary", summary.is_discarded() ? json(nullptr) : summary}};
}

json validate_json(const std::string& file, const Plan& plan) {
  json tests = json::array();
  for (const auto& t : plan.tests) tests.push_back(t.spec.name);
  return {{"schema", kJsonSchema},
          {"file", file},
          {"backend", plan.backend},
          {"nodes", plan.nodes.size()},
          {"veth_pairs", plan.veths.size()},
          {"bridges", plan.bridges.size()},
          {"tests", tests},
          {"products", plan.products}};
}

json cleanup_json(bool dry_run, const std::vector<std::string>& remote, const std::vector<std::string>& local) {
  return {{"schema", kJsonSchema}, {"dry_run", dry_run}, {"remote", remote}, {"local", local}};
}

json image_json(const std::string& action, const std::string& cache, const std::vector<Image>& images,
                std::optional<int> removed) {
  json list = json::array();
  for (const auto& im : images)
    list.push_back({{"name", im.name},
                    {"key", im.key},
                    {"dir", im.dir},
                    {"kernel_release", im.kernel_release},
                    {"kernel_package", im.kernel_package},
                    {"build_s", im.build_s},
                    {"cached", im.cached}});
  json j = {{"schema", kJsonSchema}, {"action", action}, {"cache", cache}, {"images", list}};
  if (removed) j["removed"] = *removed;
  return j;
}

}  // namespace vpnlab
