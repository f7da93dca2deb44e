#include "lab/runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lab/interrupt.h"
#include "lab/iperf.h"
#include "lab/keys.h"
#include "lab/process.h"
#include "lab/product_session.h"
#include "lab/run_state.h"
#include "netns/live_topology.h"
#include "netns/namespace.h"
#include "netns/payload_watch.h"
#include "netns/probes.h"

namespace vpnlab {

namespace {

std::string now_iso() {
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Status mkdir_p(const std::string& path, mode_t mode) {
  std::string cur;
  for (size_t i = 0; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!cur.empty() && mkdir(cur.c_str(), mode) < 0 && errno != EEXIST)
        return make_error("cannot create " + cur + ": " + errno_text(errno));
    }
    if (i < path.size()) cur += path[i];
  }
  return ok_status();
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

struct SampleContext {
  const Plan* plan;
  const PlanTest* test;
  const ProductSpec* spec;
  LiveTopology* topo;
  ProductSession* session;
  std::string raw_dir;
  std::string log_dir;
  int interrupt_fd;
  bool repeating_payload = false;
  uint64_t* port_bytes_out = nullptr;  // gets iperf3's delivered bytes of a valid sample
};

// One iperf3 run: fresh server, client, counters around it. `label` names the raw files.
SampleRow run_sample(const SampleContext& c, const std::string& label, double duration_s, bool* interrupted) {
  const Plan& plan = *c.plan;
  const TestSpec& t = c.test->spec;
  SampleRow row;
  row.run_id = plan.run_id;
  row.timestamp = now_iso();
  row.product = c.spec->name;
  row.test = t.name;
  row.direction = t.reverse ? "reverse" : "forward";
  row.client = t.client;
  row.server = t.servers[0];
  row.streams = t.streams;
  row.reverse = t.reverse;
  row.mss = t.mss.value_or(0);
  row.duration_s = duration_s;
  row.status = "failed";
  row.cipher = c.spec->cipher;
  row.bringup_s = c.session->bringup_seconds();
  auto fail = [&](const std::string& why) {
    row.reason = why;
    return row;
  };

  const PlanNode& server_node = *plan.node(row.server);
  const PlanNode& client_node = *plan.node(row.client);
  Netns& server_ns = c.topo->ns_of_node(row.server);
  Netns& client_ns = c.topo->ns_of_node(row.client);

  SpawnSpec server;
  server.argv = iperf_server_argv(kIperfPort);
  server.netns_fd = server_ns.fd.get();
  server.cpus = server_node.load_cpus;
  server.stdout_path = c.log_dir + "/" + label + "-server.log";
  auto srv = Child::spawn(server);
  if (!srv) return fail(srv.error().message);
  if (auto s = wait_tcp_listening(server_ns.fd.get(), kIperfPort, 5, c.interrupt_fd); !s) {
    *interrupted = interrupt_signal() != 0;
    return fail(s.error().message + " " + log_tail(server.stdout_path, 3));
  }
  auto before = c.session->read_counters(row.client);
  if (!before) return fail(before.error().message);

  SpawnSpec client;
  IperfClientOptions o;
  o.server_address = c.session->target_address(*c.test).str();
  o.duration_s = duration_s;
  o.streams = t.streams;
  o.reverse = t.reverse;
  o.mss = t.mss;
  o.repeating_payload = c.repeating_payload;
  client.argv = iperf_client_argv(o);
  client.netns_fd = client_ns.fd.get();
  client.cpus = client_node.load_cpus;
  client.stdout_path = c.raw_dir + "/" + label + ".json";
  client.stderr_path = c.log_dir + "/" + label + "-client.err";
  auto run = run_command(client, duration_s + 20, c.interrupt_fd);
  if (!run) return fail(run.error().message);
  if (run->interrupted) {
    *interrupted = true;
    return fail("interrupted");
  }
  if (!(*srv)->wait_exit(5000)) (*srv)->stop(1000);
  if (run->timed_out) return fail("iperf3 client did not finish within " + std::to_string(static_cast<int>(duration_s + 20)) + " s");
  auto sample = parse_iperf_json(read_all(client.stdout_path));
  if (!sample) return fail(sample.error().message);
  row.gbps = sample->gbps;
  row.retransmits = sample->retransmits;
  auto after = c.session->read_counters(row.client);
  if (!after) return fail(after.error().message);
  if (auto d = c.session->check_daemons(); !d) return fail("product daemon died during the sample: " + d.error().message);
  TunnelCounters delta;
  delta.if_rx = after->if_rx - before->if_rx;
  delta.if_tx = after->if_tx - before->if_tx;
  delta.underlay_rx = after->underlay_rx - before->underlay_rx;
  delta.underlay_tx = after->underlay_tx - before->underlay_tx;
  delta.has_product = after->has_product;
  delta.product_rx = after->product_rx - before->product_rx;
  delta.product_tx = after->product_tx - before->product_tx;
  row.reason = tunnel_check(c.spec->tunnel, t.reverse, sample->bytes_received, delta);
  if (row.reason.empty() && c.port_bytes_out) *c.port_bytes_out = sample->bytes_received;
  row.valid = row.reason.empty();
  row.status = "ok";
  if (!c.spec->tunnel) row.reason = "no tunnel (baseline)";
  return row;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Once per product: a short sample with iperf3's repeating payload while the client's
// underlay interface is watched for that payload in clear. An encrypted tunnel must not
// show it; the baseline must (or the watch itself is blind). Returns "" when as expected.
std::string plaintext_check(SampleContext c, bool* interrupted) {
  const PlanTest& test = *c.test;
  Netns& client_ns = c.topo->ns_of_node(test.spec.client);
  std::string ifname;
  for (const auto& u : c.plan->node(test.spec.client)->underlay)
    if (u.link == test.underlay_link) ifname = u.ifname;
  auto index = link_index(client_ns.sock.get(), ifname);
  if (!index) return "plaintext check: " + index.error().message;
  int port = c.session->underlay_port();
  auto watch = PayloadWatch::start(client_ns.fd.get(), *index, iperf_repeating_pattern(), port);
  if (!watch) return "plaintext check: " + watch.error().message;
  c.repeating_payload = true;
  uint64_t delivered = 0;
  c.port_bytes_out = &delivered;
  SampleRow row = run_sample(c, "plaintext-check", 1, interrupted);
  PayloadWatch::Summary seen = (*watch)->stop();
  if (row.status != "ok") return "plaintext check: the sample failed: " + row.reason;
  std::string frames = std::to_string(seen.frames) + " frames on " + ifname + " watched, " + std::to_string(seen.drops) + " not captured";
  if (c.spec->tunnel && seen.pattern_seen) return "plaintext of the payload seen on the underlay (" + frames + ")";
  // Each row proves with exact counters that the underlay carried at least iperf3's bytes;
  // the watch (which may miss frames under load) proves those bytes used the product's port.
  if (c.spec->tunnel && (delivered == 0 || seen.ipv4_bytes == 0 || seen.port_bytes < seen.ipv4_bytes * 99 / 100))
    return "only " + std::to_string(seen.port_bytes) + " of " + std::to_string(seen.ipv4_bytes) + " IPv4 bytes on the underlay used port " +
           std::to_string(port) + " (" + frames + ")";
  if (!c.spec->tunnel && !seen.pattern_seen) return "plaintext check is blind: no payload seen on the baseline (" + frames + ")";
  return "";
}

}  // namespace

int underlay_mtu(const Plan& plan) {
  int underlay = 65535;
  for (const auto& v : plan.veths) underlay = std::min(underlay, v.mtu);
  return underlay;
}

void resolve_overlay_mtu(Plan* plan, const std::vector<ProductSpec>& specs, std::string* limited_by) {
  if (plan->overlay_mtu > 0) return;
  int mtu = underlay_mtu(*plan);
  std::string by = "the underlay";
  for (const auto& spec : specs) {
    int carried = carried_mtu(spec, underlay_mtu(*plan));
    if (carried < mtu) {
      mtu = carried;
      by = spec.name;
    }
  }
  plan->overlay_mtu = mtu;
  if (limited_by) *limited_by = by;
}

Status check_product_fits(const ProductSpec& spec, const Plan& plan) {
  if (!spec.tunnel) return ok_status();
  std::string shape = overlay_shape(plan.nodes.size());
  if (std::find(spec.shapes.begin(), spec.shapes.end(), shape) == spec.shapes.end())
    return make_error("product '" + spec.name + "' does not carry a " + shape + " overlay of " + std::to_string(plan.nodes.size()) +
                          " nodes (it supports: " + [&] {
                            std::string all;
                            for (const auto& s : spec.shapes) all += (all.empty() ? "" : ", ") + s;
                            return all;
                          }() + ")",
                      "leave it out of this run, or use a topology of that shape");
  int underlay = underlay_mtu(plan);
  int carried = carried_mtu(spec, underlay);
  if (plan.overlay_mtu > carried)
    return make_error("overlay MTU " + std::to_string(plan.overlay_mtu) + " is more than product '" + spec.name + "' carries (" +
                          std::to_string(carried) + " over a " + std::to_string(underlay) + "-byte underlay)",
                      "set [overlay] mtu = " + std::to_string(carried) + " or lower: every product gets the same MTU");
  return ok_status();
}

std::string tunnel_check(bool tunnel, bool reverse, uint64_t iperf_bytes, const TunnelCounters& d) {
  if (!tunnel) return "";
  if (iperf_bytes == 0) return "iperf3 moved no data";
  // The client sends on forward tests and receives on reverse ones.
  auto check = [&](uint64_t rx, uint64_t tx, const std::string& what) -> std::string {
    uint64_t bytes = reverse ? rx : tx;
    if (bytes >= iperf_bytes) return "";
    return what + " carried " + std::to_string(bytes) + " bytes, less than iperf3's " + std::to_string(iperf_bytes);
  };
  if (auto r = check(d.if_rx, d.if_tx, "the overlay interface"); !r.empty()) return r + ": traffic did not cross the tunnel";
  if (auto r = check(d.underlay_rx, d.underlay_tx, "the underlay interface"); !r.empty()) return r + ": the tunnel's packets went elsewhere";
  if (d.has_product)
    if (auto r = check(d.product_rx, d.product_tx, "the product's peer counters"); !r.empty()) return r;
  return "";
}

Result<RunReport> run_bench(const Plan& given_plan, const RunOptions& given) {
  // Absolute paths only: a process joining a node's mount namespace has its working
  // directory reset to that namespace's root, where a relative path means nothing.
  RunOptions opts = given;
  std::error_code ec;
  opts.run_dir = std::filesystem::absolute(given.run_dir, ec).lexically_normal().string();
  if (!opts.keys_dir.empty()) opts.keys_dir = std::filesystem::absolute(given.keys_dir, ec).lexically_normal().string();
  // Every product is checked before anything is created: a typo fails fast.
  std::vector<ProductSpec> specs;
  for (const auto& name : given_plan.products) {
    auto spec = load_product(opts.products_dir, name);
    if (!spec) return spec.error();
    specs.push_back(std::move(spec.value()));
  }
  Plan resolved = given_plan;
  resolve_overlay_mtu(&resolved, specs);
  const Plan& plan = resolved;
  for (const auto& spec : specs)
    if (auto s = check_product_fits(spec, plan); !s) return s.error();
  if (auto s = mkdir_p(opts.run_dir, 0750); !s) return s.error();
  chmod(opts.run_dir.c_str(), 0750);
  if (auto s = mkdir_p(opts.run_dir + "/secrets", 0700); !s) return s.error();
  std::vector<std::string> node_names;
  for (const auto& n : plan.nodes) node_names.push_back(n.name);
  std::string keys_dir = opts.keys_dir.empty() ? opts.run_dir + "/secrets/keys" : opts.keys_dir;
  auto keys = prepare_node_keys(keys_dir, node_names);
  if (!keys) return keys.error();
  auto psk = prepare_run_psk(keys_dir);
  if (!psk) return psk.error();
  if (auto s = mkdir_p(opts.run_dir + "/keys", 0750); !s) return s.error();
  for (const auto& [node, kp] : *keys) write_text(opts.run_dir + "/keys/" + node + ".pub", kp.public_base64() + "\n");
  write_text(opts.run_dir + "/topology.toml", read_all(plan.topology_file));
  write_text(opts.run_dir + "/plan.txt", describe_plan(plan));
  auto csv = ResultsCsv::create(opts.run_dir + "/results.csv");
  if (!csv) return csv.error();

  RunState state{plan.run_id, plan.lab, plan.topology_file, opts.run_dir, static_cast<int>(getpid()), false, plan.namespaces()};
  if (auto s = write_state(state); !s) return s.error();

  RunReport report;
  for (size_t pi = 0; pi < specs.size() && !report.interrupted; ++pi) {
    const ProductSpec& spec = specs[pi];
    ProductOutcome outcome;
    outcome.product = spec.name;
    auto avail = check_availability(spec);
    spdlog::info("[{}/{}] {} ({})", pi + 1, specs.size(), spec.name, avail.available ? avail.version : avail.reason);
    if (!avail.available) {
      outcome.failure = avail.reason;
      report.products.push_back(outcome);
      continue;
    }
    auto topo = LiveTopology::build(plan);
    if (!topo) return with_context(topo.error(), "building the topology for " + spec.name);
    if (pi == 0) {
      nlohmann::json sysctls;
      for (const auto& ns : (*topo)->namespaces()) sysctls[ns.name] = ns.sysctls;
      write_text(opts.run_dir + "/sysctls.json", sysctls.dump(2) + "\n");
    }
    ProductSession::Context ctx{&plan, topo->get(), &spec, &keys.value(), opts.run_dir, opts.interrupt_fd, {{"psk", psk.value()}}};
    auto session = ProductSession::start(ctx);
    if (!session) {
      outcome.failure = session.error().message;
      spdlog::error("{}: did not come up: {}", spec.name, session.error().message);
      report.interrupted = interrupted();
      for (const auto& test : plan.tests)
        for (int i = 1; i <= plan.samples && !report.interrupted; ++i) {
          SampleRow row{plan.run_id, now_iso(), spec.name, test.spec.name};
          row.direction = test.spec.reverse ? "reverse" : "forward";
          row.sample = i;
          row.client = test.spec.client;
          row.server = test.spec.servers[0];
          row.streams = test.spec.streams;
          row.reverse = test.spec.reverse;
          row.mss = test.spec.mss.value_or(0);
          row.duration_s = plan.duration_s;
          row.status = "failed";
          row.cipher = spec.cipher;
          row.reason = "product did not come up: " + session.error().message.substr(0, session.error().message.find('\n'));
          if (auto s = csv->append(row); !s) return s.error();
          report.rows.push_back(row);
        }
    } else {
      outcome.started = true;
      outcome.bringup_s = (*session)->bringup_seconds();
      if (spec.tunnel) spdlog::info("  up and answering pings after {:.2f} s", outcome.bringup_s);
      if (!plan.tests.empty()) {
        const PlanTest& first = plan.tests.front();
        std::string dir = opts.run_dir + "/raw/" + spec.name + "/" + first.spec.name;
        std::string logs = opts.run_dir + "/logs/" + spec.name + "/" + first.spec.name;
        if (auto s = mkdir_p(dir, 0750); !s) return s.error();
        if (auto s = mkdir_p(logs, 0750); !s) return s.error();
        outcome.plaintext = plaintext_check(SampleContext{&plan, &first, &spec, topo->get(), session->get(), dir, logs, opts.interrupt_fd},
                                            &report.interrupted);
        spdlog::info("  plaintext check: {}", outcome.plaintext.empty() ? (spec.tunnel ? "no payload in clear on the underlay"
                                                                                      : "payload seen in clear, as it must be without a tunnel")
                                                                       : outcome.plaintext);
      }
      for (const auto& test : plan.tests) {
        if (report.interrupted) break;
        std::string raw_dir = opts.run_dir + "/raw/" + spec.name + "/" + test.spec.name;
        std::string log_dir = opts.run_dir + "/logs/" + spec.name + "/" + test.spec.name;
        if (auto s = mkdir_p(raw_dir, 0750); !s) return s.error();
        if (auto s = mkdir_p(log_dir, 0750); !s) return s.error();
        SampleContext sc{&plan, &test, &spec, topo->get(), session->get(), raw_dir, log_dir, opts.interrupt_fd};
        if (plan.warmup_s >= 1) {
          SampleRow w = run_sample(sc, "warmup", plan.warmup_s, &report.interrupted);
          spdlog::info("  {} warm-up: {}", test.spec.name, w.status == "ok" ? fmt::format("{:.3f} Gbit/s (discarded)", w.gbps) : w.reason);
        }
        for (int i = 1; i <= plan.samples && !report.interrupted; ++i) {
          SampleRow row = run_sample(sc, "sample-" + std::to_string(i), plan.duration_s, &report.interrupted);
          if (report.interrupted) break;  // a cut-short sample is not a result
          row.sample = i;
          if (!outcome.plaintext.empty() && spec.tunnel) {
            row.valid = false;
            row.reason = outcome.plaintext;
          }
          if (auto s = csv->append(row); !s) return s.error();
          spdlog::info("  {} sample {}/{}: {:.3f} Gbit/s{}", test.spec.name, i, plan.samples, row.gbps,
                       row.valid || !spec.tunnel ? "" : "  INVALID: " + row.reason);
          report.rows.push_back(std::move(row));
        }
      }
      (*session)->stop();
    }
    session = make_error("released");  // the session ends before the audit
    auto audit = (*topo)->audit();
    outcome.leftovers = audit.leftovers;
    outcome.run_files = audit.run_files;
    for (const auto& l : outcome.leftovers) spdlog::warn("{}: teardown leftover: {}", spec.name, l);
    for (const auto& f : outcome.run_files) spdlog::info("  {} left {} (discarded with it)", spec.name, f);
    if (auto s = (*topo)->teardown(10); !s) return with_context(s.error(), "tearing down after " + spec.name);
    // The next product starts on a kernel that has finished destroying this topology.
    if (auto s = wait_kernel_netns_cleanup(10); !s) spdlog::warn("{}", s.error().message);
    report.products.push_back(outcome);
    report.interrupted = report.interrupted || interrupted();
  }
  (void)remove_state(plan.run_id);
  write_text(opts.run_dir + "/summary.txt", summary_table(report.rows));
  return report;
}

std::string summary_table(const std::vector<SampleRow>& rows) {
  struct Key {
    std::string product, test;
    bool operator<(const Key& o) const { return std::tie(test, product) < std::tie(o.test, o.product); }
  };
  std::map<Key, std::vector<double>> valid;
  std::map<Key, int> total;
  std::vector<Key> order;
  for (const auto& r : rows) {
    Key k{r.product, r.test};
    if (!total.count(k)) order.push_back(k);
    total[k]++;
    if (r.status == "ok" && (r.valid || r.product == "baseline")) valid[k].push_back(r.gbps);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  std::ostringstream o;
  char line[256];
  snprintf(line, sizeof line, "%-20s %-16s %10s %19s %9s %7s\n", "product", "test", "median", "min-max Gbit/s", "x baseline", "valid");
  o << line;
  for (const Key& k : order) {
    auto& v = valid[k];
    std::string ratio = "-";
    if (!v.empty() && valid.count(Key{"baseline", k.test}) && !valid[Key{"baseline", k.test}].empty()) {
      char b[32];
      snprintf(b, sizeof b, "%.3f", median(v) / median(valid[Key{"baseline", k.test}]));
      ratio = b;
    }
    std::string valid_text = std::to_string(v.size()) + "/" + std::to_string(total[k]);
    if (v.empty())
      snprintf(line, sizeof line, "%-20s %-16s %10s %19s %9s %7s\n", k.product.c_str(), k.test.c_str(), "-", "-", "-", valid_text.c_str());
    else {
      char range[48];
      snprintf(range, sizeof range, "%.3f-%.3f", *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
      snprintf(line, sizeof line, "%-20s %-16s %10.3f %19s %9s %7s\n", k.product.c_str(), k.test.c_str(), median(v), range, ratio.c_str(),
               valid_text.c_str());
    }
    o << line;
  }
  return o.str();
}

}  // namespace vpnlab
