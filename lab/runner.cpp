#include "lab/runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lab/environment.h"
#include "lab/fs_util.h"
#include "lab/interrupt.h"
#include "lab/keys.h"
#include "lab/product_session.h"
#include "lab/run_state.h"
#include "lab/sample.h"
#include "lab/summary.h"
#include "netns/live_topology.h"
#include "netns/namespace.h"
#include "netns/offloads.h"

namespace vpnlab {

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
  // Resuming: the same topology, and every row already there counts as done. Checked
  // before anything is written, so a refused resume leaves the earlier run as it was.
  RunReport report;
  std::set<std::tuple<std::string, std::string, int>> done;
  if (opts.resume) {
    std::string before = read_file_text(opts.run_dir + "/topology.toml");
    if (before != read_file_text(plan.topology_file))
      return make_error(opts.run_dir + " was measured with a different topology than " + plan.topology_file,
                        "resume with the same file (its copy is " + opts.run_dir + "/topology.toml)");
    auto earlier = read_results_csv(opts.run_dir + "/results.csv");
    if (!earlier) return with_context(earlier.error(), "resume");
    for (const auto& r : *earlier) done.insert({r.product, r.test, r.sample});
    report.rows = earlier.value();
    spdlog::info("resuming {}: {} rows already measured", plan.run_id, done.size());
  }
  if (auto s = make_dirs(opts.run_dir, 0750); !s) return s.error();
  chmod(opts.run_dir.c_str(), 0750);
  if (auto s = make_dirs(opts.run_dir + "/secrets", 0700); !s) return s.error();
  std::vector<std::string> node_names;
  for (const auto& n : plan.nodes) node_names.push_back(n.name);
  std::string keys_dir = opts.keys_dir.empty() ? opts.run_dir + "/secrets/keys" : opts.keys_dir;
  auto keys = prepare_node_keys(keys_dir, node_names);
  if (!keys) return keys.error();
  auto psk = prepare_run_psk(keys_dir);
  if (!psk) return psk.error();
  if (auto s = make_dirs(opts.run_dir + "/keys", 0750); !s) return s.error();
  for (const auto& [node, kp] : *keys) (void)write_file(opts.run_dir + "/keys/" + node + ".pub", kp.public_base64() + "\n", 0640);
  std::vector<Availability> availability;
  for (const auto& spec : specs) availability.push_back(check_availability(spec));
  std::string environment = describe_environment(plan, specs, availability).dump(2) + "\n";
  if (!opts.resume) {
    (void)write_file(opts.run_dir + "/topology.toml", read_file_text(plan.topology_file), 0640);
    (void)write_file(opts.run_dir + "/plan.txt", describe_plan(plan), 0640);
    (void)write_file(opts.run_dir + "/environment.json", environment, 0640);
  } else {
    // Each resumed session adds its own provenance next to the first one's.
    int n = 1;
    while (access((opts.run_dir + "/environment-resume-" + std::to_string(n) + ".json").c_str(), F_OK) == 0) ++n;
    (void)write_file(opts.run_dir + "/environment-resume-" + std::to_string(n) + ".json", environment, 0640);
  }
  auto csv = ResultsCsv::create(opts.run_dir + "/results.csv");
  if (!csv) return csv.error();

  RunState state{plan.run_id, plan.lab, plan.topology_file, opts.run_dir, static_cast<int>(getpid()), false, plan.namespaces()};
  if (auto s = write_state(state); !s) return s.error();

  auto measured = [&](const std::string& product, const std::string& test, int sample) {
    return done.count({product, test, sample}) > 0;
  };
  for (size_t pi = 0; pi < specs.size() && !report.interrupted; ++pi) {
    const ProductSpec& spec = specs[pi];
    ProductOutcome outcome;
    outcome.product = spec.name;
    const Availability& avail = availability[pi];
    spdlog::info("[{}/{}] {} ({})", pi + 1, specs.size(), spec.name, avail.available ? avail.version : avail.reason);
    if (!avail.available) {
      outcome.failure = avail.reason;
      report.products.push_back(outcome);
      continue;
    }
    bool missing = false;
    for (const auto& test : plan.tests)
      for (int i = 1; i <= plan.samples; ++i) missing = missing || !measured(spec.name, test.spec.name, i);
    if (!missing) {
      spdlog::info("  already measured");
      report.products.push_back(outcome);
      continue;
    }
    auto topo = LiveTopology::build(plan);
    if (!topo) return with_context(topo.error(), "building the topology for " + spec.name);
    if (pi == 0) {
      nlohmann::json sysctls;
      for (const auto& ns : (*topo)->namespaces()) sysctls[ns.name] = ns.sysctls;
      (void)write_file(opts.run_dir + "/sysctls.json", sysctls.dump(2) + "\n", 0640);
      nlohmann::json offloads;
      for (const auto& ns : (*topo)->namespaces())
        if (auto links = list_links(ns.sock.get()))
          for (const auto& l : *links)
            if (l.name != "lo")
              if (auto o = read_offloads(ns.fd.get(), l.name)) offloads[ns.name][l.name] = o.value();
      (void)write_file(opts.run_dir + "/offloads.json", offloads.dump(2) + "\n", 0640);
    }
    ProductSession::Context ctx{&plan, topo->get(), &spec, &keys.value(), opts.run_dir, opts.interrupt_fd, {{"psk", psk.value()}}};
    auto session = ProductSession::start(ctx);
    if (!session) {
      outcome.failure = session.error().message;
      spdlog::error("{}: did not come up: {}", spec.name, session.error().message);
      report.interrupted = interrupted();
      for (const auto& test : plan.tests)
        for (int i = 1; i <= plan.samples && !report.interrupted; ++i) {
          if (measured(spec.name, test.spec.name, i)) continue;
          SampleRow row = row_for(plan, test, spec, plan.duration_s);
          row.sample = i;
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
        if (auto s = make_dirs(dir, 0750); !s) return s.error();
        if (auto s = make_dirs(logs, 0750); !s) return s.error();
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
        if (auto s = make_dirs(raw_dir, 0750); !s) return s.error();
        if (auto s = make_dirs(log_dir, 0750); !s) return s.error();
        SampleContext sc{&plan, &test, &spec, topo->get(), session->get(), raw_dir, log_dir, opts.interrupt_fd};
        if (plan.warmup_s >= 1) {
          SampleRow w = run_sample(sc, "warmup", plan.warmup_s, &report.interrupted);
          spdlog::info("  {} warm-up: {}", test.spec.name, w.status == "ok" ? fmt::format("{:.3f} Gbit/s (discarded)", w.gbps) : w.reason);
        }
        for (int i = 1; i <= plan.samples && !report.interrupted; ++i) {
          if (measured(spec.name, test.spec.name, i)) continue;
          SampleRow row = run_sample(sc, "sample-" + std::to_string(i), plan.duration_s, &report.interrupted);
          if (report.interrupted) break;  // a cut-short sample is not a result
          row.sample = i;
          if (!outcome.plaintext.empty() && spec.tunnel) {
            row.valid = false;
            row.reason = outcome.plaintext;
          }
          if (auto s = csv->append(row); !s) return s.error();
          if (row.status != "ok")
            spdlog::info("  {} sample {}/{}: failed: {}", test.spec.name, i, plan.samples, row.reason);
          else
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
  // The summary comes from the file, the source of truth: `vpnlab report` gives the same.
  auto written = read_results_csv(opts.run_dir + "/results.csv");
  const std::vector<SampleRow>& rows = written ? written.value() : report.rows;
  report.summary = summary_table(rows);
  (void)write_file(opts.run_dir + "/summary.txt", report.summary, 0640);
  (void)write_file(opts.run_dir + "/summary.json", summary_json(rows).dump(2) + "\n", 0640);
  return report;
}

}  // namespace vpnlab
