#include "lab/run/product_round.h"

#include <algorithm>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/model/finalize.h"
#include "lab/record/run_layout.h"
#include "lab/run/achieved_path.h"
#include "lab/run/environment.h"
#include "lab/run/interrupt.h"
#include "lab/run/product_services.h"
#include "lab/run/product_tunnels.h"
#include "lab/run/progress.h"
#include "lab/run/sample.h"
#include "lab/run/sample_meters.h"
#include "lab/run/variant.h"

namespace vpnlab {

Status dirs_for(const std::string& run_dir, const std::string& product, const std::string& test, std::string* raw,
                std::string* logs) {
  *raw = raw_dir(run_dir, product, test);
  *logs = run_dir + "/logs/" + product + "/" + test;
  if (auto s = make_dirs(*raw, 0750); !s) return s;
  return make_dirs(*logs, 0750);
}

// A row for each sample of the tests in `out` (name -> why the product cannot run it).
Status refuse_rows(const RoundContext& c, const std::vector<int>& samples,
                   const std::map<std::string, std::string>& out, std::vector<SampleRow>* rows, bool* interrupted) {
  PhaseSpan span(c.clock, kPhaseRecording);
  for (const auto& test : c.plan->tests)
    for (int i : samples) {
      auto why = out.find(test.spec.name);
      if (*interrupted || why == out.end()) break;
      if (c.measured(test.spec.name, i)) continue;
      SampleRow row = row_for(*c.plan, test, *c.spec, c.plan->duration_s);
      row.sample = i;
      row.reason = kNotRun + why->second;
      if (auto s = c.csv->append(row); !s) return s;
      rows->push_back(row);
    }
  return ok_status();
}

Status fail_rows(const RoundContext& c, const std::vector<int>& samples, const std::string& why,
                 std::vector<SampleRow>* rows, bool* interrupted) {
  PhaseSpan span(c.clock, kPhaseRecording);
  for (const auto& test : c.plan->tests)
    for (int i : samples) {
      if (*interrupted) return ok_status();
      if (c.measured(test.spec.name, i)) continue;
      SampleRow row = row_for(*c.plan, test, *c.spec, c.plan->duration_s);
      row.sample = i;
      row.reason = why;
      if (auto s = c.csv->append(row); !s) return s;
      rows->push_back(row);
    }
  return ok_status();
}

namespace {

// Starts the product on a built topology: session, routes to remote sites (through the
// tunnel, or plainly routed for the baseline), and receive packet steering so that the
// softirq work of what a node receives lands on its own CPUs.
Result<std::unique_ptr<ProductTunnels>> start_product(const RoundContext& c, NodeRuntime& topo, int attempt) {
  PhaseSpan span(c.clock, kPhaseBringUp);
  const Plan& plan = *c.plan;
  const ProductSpec& spec = *c.spec;
  ProductSession::Context ctx{.plan = c.vpn_plan,
                              .nodes = &topo,
                              .spec = &spec,
                              .keys = c.keys,
                              .run_dir = c.opts->run_dir,
                              .interrupt_fd = c.opts->interrupt_fd,
                              .run_values = {{"psk", c.psk}},
                              .round = c.round,
                              .attempt = attempt};
  // Its control services first (their values are the nodes'), stopped after the nodes.
  std::unique_ptr<ProductServices> services;
  if (!spec.services.empty()) {
    auto started = ProductServices::start(*c.build_plan, ctx);
    if (!started) return started.error();
    services = std::move(started.value());
    ctx.node_values = services->node_values();
  }
  auto session = ProductTunnels::start(ctx);
  if (!session) return session;
  (*session)->keep_services(std::move(services));
  auto give_up = [&](Error e) -> Result<std::unique_ptr<ProductTunnels>> {
    (*session)->stop();
    return e;
  };
  // The topology's routes, and a service's control routes (build_plan has both).
  if (auto r = topo.add_routes(*c.build_plan, spec.tunnel ? PlanRoute::When::tunnel : PlanRoute::When::baseline); !r)
    return give_up(r.error());
  if (plan.pinned && plan.rps)
    for (const auto& node : plan.nodes) {
      if (node.service) continue;
      std::vector<std::string> ifnames;
      for (const auto& u : node.underlay) ifnames.push_back(u.ifname);
      // A site client behind a gateway runs no VPN: it has no tunnel interface to steer.
      if (node.vpn)
        for (const auto& ifname : (*session)->interfaces(node.name)) ifnames.push_back(ifname);
      Status rps = topo.set_rps(node.name, ifnames, node.cpus);
      if (!rps) return give_up(with_context(rps.error(), "node '" + node.name + "'"));
    }
  return session;
}

Result<std::unique_ptr<NodeRuntime>> build_topology(const RoundContext& c) {
  PhaseSpan span(c.clock, kPhaseBuild);
  const Plan& plan = *c.plan;
  if (!c.opts->build_nodes) return make_error("no backend to build the topology on (RunOptions::build_nodes is empty)");
  auto topo = c.opts->build_nodes(*c.build_plan, c.opts->run_dir, c.opts->interrupt_fd);
  if (!topo) return with_context(topo.error(), "building the topology for " + c.spec->name);
  if (c.write_topology_records)
    if (auto fields = (*topo)->record(c.opts->run_dir); !fields.empty())
      if (auto s = c.environment->set(fields); !s)
        spdlog::warn("the {} backend's records are not in environment.json: {}", (*topo)->backend(), s.error().message);
  if (!c.spec->offloads)
    for (const auto& node : plan.nodes)
      for (const auto& u : node.underlay)
        if (auto s = (*topo)->set_offloads(node.name, u.ifname, false); !s)
          return with_context(s.error(), c.spec->name + ": node '" + node.name + "'");
  // What the impaired links achieve, on the first lab before any product: the baseline's path.
  if (c.write_topology_records)
    if (auto s = measure_impaired_paths(plan, **topo, c.environment, c.opts->interrupt_fd); !s)
      spdlog::warn("what the impaired links achieved is not in environment.json: {}", s.error().message);
  // The lab point's variant, on the built lab and before the product: the same for all.
  if (auto s = apply_variant(plan, **topo); !s)
    return with_context(s.error(), "building the topology for " + c.spec->name);
  return topo;
}

using NodesPtr = std::unique_ptr<NodeRuntime>;
using Session = Result<std::unique_ptr<ProductTunnels>>;

// The topology torn down, then the kernel's release of it waited for: the next product
// starts on a kernel that has finished destroying this one.
Status teardown_and_settle(const RoundContext& c, NodeRuntime& topo) {
  PhaseSpan down(c.clock, kPhaseTeardown);
  if (auto s = topo.teardown(15); !s) return with_context(s.error(), "tearing down after " + c.spec->name);
  down.stop();
  PhaseSpan settle(c.clock, kPhaseKernelRelease);
  if (auto s = topo.settle_after_teardown(10); !s) spdlog::warn("{}", s.error().message);
  return ok_status();
}

// A bring-up that fails is tried once more on a topology built anew: one transient
// failure (wireguard-go once could not bind its control socket) should not cost a whole
// round. Both attempts keep their logs (the retry's in attempt-2 below the round's), and
// the failure is said in audit.json and the report; a second failure is the product's
// result. A failure of the lab itself (building, tearing down) is an error of *topo's Result.
Session bring_up(const RoundContext& c, Result<NodesPtr>* topo, ProductOutcome* outcome) {
  *topo = build_topology(c);
  if (!*topo) return topo->error();
  auto session = start_product(c, ***topo, 1);
  if (session || vpnlab::interrupted()) return session;
  const std::string why = session.error().message.substr(0, session.error().message.find('\n'));
  spdlog::warn("{}: bring-up failed, trying once more on a new topology: {}", c.spec->name, why);
  const std::string logs = "logs/" + c.spec->name + (c.round > 0 ? "/round-" + std::to_string(c.round) : "");
  outcome->failed_bringups.push_back((c.round > 0 ? "round " + std::to_string(c.round) + ": " : "") + why +
                                     " (its logs: " + logs + "; the retry's: " + logs + "/attempt-2)");
  if (auto s = teardown_and_settle(c, ***topo); !s) {
    *topo = s.error();
    return topo->error();
  }
  *topo = build_topology(c);
  if (!*topo) return topo->error();
  return start_product(c, ***topo, 2);
}

// Once per product, on its first bring-up: the offloads its interface has on each node
// (a TUN with GSO/GRO moves 64 KB per read, one without 1 packet), in environment.json's
// interface_offloads. What cannot be read is said there, not fatal.
void record_interface_offloads(const RoundContext& c, NodeRuntime& topo) {
  if (!c.spec->tunnel) return;
  nlohmann::json per_node = nlohmann::json::object();
  for (const auto& node : c.vpn_plan->nodes) {
    auto o = topo.link_offloads(node.name, c.spec->interface);
    per_node[node.name] = o ? nlohmann::json(o.value()) : nlohmann::json(o.error().message);
  }
  if (auto s = c.environment->set_entry("interface_offloads", c.spec->name, per_node); !s)
    spdlog::warn("{}: its interface's offloads are not in environment.json: {}", c.spec->name, s.error().message);
}

// The plaintext check rides on the first warm-up when that is a throughput sample of at
// least a second (see PlaintextWatch); otherwise it takes a 1 s sample of its own.
bool warmup_carries_plaintext(const Plan& plan) {
  return plan.warmup_s >= 1 && !plan.tests.empty() && plan.tests.front().spec.kind == "throughput";
}

void record_plaintext(const ProductSpec& spec, std::string verdict, ProductOutcome* outcome) {
  outcome->plaintext = std::move(verdict);
  outcome->plaintext_checked = true;
  const char* as_expected = !spec.tunnel      ? "payload seen in clear, as it must be without a tunnel"
                            : !spec.encrypted ? "payload seen in clear, as its spec says (encrypted = false)"
                                              : "no payload in clear on the underlay";
  spdlog::info("  plaintext check: {}", outcome->plaintext.empty() ? as_expected : outcome->plaintext);
}

// Once per product, on its first bring-up, unless its first warm-up carries it.
Status check_plaintext_once(const RoundContext& c, NodeRuntime& topo, ProductTunnels& session, ProductOutcome* outcome,
                            bool* interrupted) {
  const Plan& plan = *c.plan;
  const ProductSpec& spec = *c.spec;
  if (!topo.can_watch_payload()) {
    outcome->plaintext_checked = true;  // asked once, answered once: not here
    spdlog::info("  plaintext check: not taken ({} backend: {})", topo.backend(), topo.limits());
    return ok_status();
  }
  if (warmup_carries_plaintext(plan)) return ok_status();
  // With warm-ups asked for, the check's transfer, as long as one, is the first test's
  // warm-up this round (measure_tests skips that one), and timed as one.
  const bool warms = plan.warmup_s >= 1;
  PhaseSpan span(c.clock, warms ? kPhaseWarmup : kPhaseChecks);
  std::string raw, logs;
  if (auto s = dirs_for(c.opts->run_dir, spec.name, plan.tests.front().spec.name, &raw, &logs); !s) return s;
  // iperf3's repeating payload is what the watch looks for: an rr or crr test lends its
  // path to a one-stream TCP transfer.
  PlanTest path = plan.tests.front();
  path.spec.kind = "throughput";
  record_plaintext(spec,
                   plaintext_check(SampleContext{.plan = &plan,
                                                 .test = &path,
                                                 .spec = &spec,
                                                 .nodes = &topo,
                                                 .session = &session,
                                                 .raw_dir = raw,
                                                 .log_dir = logs,
                                                 .interrupt_fd = c.opts->interrupt_fd},
                                   warms ? plan.warmup_s : 1, interrupted),
                   outcome);
  outcome->warmed_by_check = warms;
  return ok_status();
}

// A warm-up is one plain sample (a zero-loss search's trials would not fit in it),
// discarded; the product's first one may carry the plaintext check.
void warm_up(const RoundContext& c, const SampleContext& sc, int first_sample, ProductOutcome* outcome,
             bool* interrupted) {
  PlanTest plain = *sc.test;
  plain.spec.zero_loss = false;
  SampleContext wc = sc;
  wc.test = &plain;
  wc.discarded = true;
  PlaintextWatch watch;
  std::string watch_error;
  const bool carries =
      !outcome->plaintext_checked && sc.test == &c.plan->tests.front() && warmup_carries_plaintext(*c.plan);
  PhaseSpan warm(c.clock, kPhaseWarmup);
  if (carries) watch_error = watch.start(&wc);
  SampleRow w = run_sample(wc, "warmup-" + std::to_string(first_sample), c.plan->warmup_s, interrupted);
  warm.stop();
  spdlog::info("  {} warm-up: {} (discarded)", sc.test->spec.name, w.status == "ok" ? headline_figure(w) : w.reason);
  if (carries && !*interrupted)
    record_plaintext(*c.spec, watch_error.empty() ? watch.verdict(*c.spec, w) : watch_error, outcome);
}

// A measured row into the CSV and the run's rows, with one log line (or the live line).
Status keep_row(const RoundContext& c, const std::string& test, int i, SampleRow row, const ProductOutcome& outcome,
                std::vector<SampleRow>* rows) {
  const ProductSpec& spec = *c.spec;
  const int samples = c.plan->samples;
  row.sample = i;
  if (!outcome.plaintext.empty() && spec.tunnel) {
    row.valid = false;
    row.reason = outcome.plaintext;
  }
  if (auto s = c.csv->append(row); !s) return s;
  // On a terminal the live progress line shows each sample; in logs, one line each.
  auto level = Progress::get().live() ? spdlog::level::debug : spdlog::level::info;
  if (row.status != "ok")
    spdlog::log(level, "  {} sample {}/{}: failed: {}", test, i, samples, row.reason);
  else
    spdlog::log(level, "  {} sample {}/{}: {}{}", test, i, samples, headline_figure(row),
                row.valid || !spec.tunnel ? "" : "  INVALID: " + row.reason);
  if (row.status == "ok" && !row.valid && spec.tunnel && level == spdlog::level::debug)
    spdlog::warn("  {} sample {}: INVALID: {}", test, i, row.reason);
  Progress::get().sample_done(spec.name + " " + test + " sample " + std::to_string(i) + "/" + std::to_string(samples),
                              headline_figure(row), row.status == "ok");
  rows->push_back(std::move(row));
  return ok_status();
}

// One sample: the seconds its load ran count as measuring (a zero-loss search's trials, which
// may be more than the asked duration; the asked seconds where no load ran), its idle round
// trip as that, the rest of its wall time (starting iperf3, counters, the proof that traffic
// crossed the tunnel) as the sample's overhead.
SampleRow timed_sample(const RoundContext& c, const SampleContext& sc, int i, bool* interrupted) {
  double load_s = 0;
  SampleContext timed = sc;
  timed.load_seconds_out = &load_s;
  PhaseSpan span(nullptr, "");
  SampleRow row = run_sample(timed, "sample-" + std::to_string(i), c.plan->duration_s, interrupted);
  const double wall = span.stop();
  if (c.clock) {
    const double measuring = std::min(wall, load_s > 0 ? load_s : c.plan->duration_s);
    const double idle = std::min(wall - measuring, idle_window_s(row));
    c.clock->add(kPhaseMeasuring, measuring);
    if (row.idle_probes > 0) c.clock->add(kPhaseIdleRoundTrip, idle);
    c.clock->add(kPhaseSampleOverhead, wall - measuring - idle);
  }
  return row;
}

// Every test: a warm-up (discarded), then the given samples not measured yet.
Status measure_tests(const RoundContext& c, const std::vector<int>& samples, NodeRuntime& topo, ProductTunnels& session,
                     ProductOutcome* outcome, std::vector<SampleRow>* rows, bool* interrupted) {
  const Plan& plan = *c.plan;
  const std::string& run_dir = c.opts->run_dir;
  for (const auto& test : plan.tests) {
    if (*interrupted) break;
    std::string raw, logs;
    if (auto s = dirs_for(run_dir, c.spec->name, test.spec.name, &raw, &logs); !s) return s;
    SampleContext sc{.plan = &plan,
                     .test = &test,
                     .spec = c.spec,
                     .nodes = &topo,
                     .session = &session,
                     .raw_dir = raw,
                     .log_dir = logs,
                     .interrupt_fd = c.opts->interrupt_fd};
    sc.crr_program = c.opts->crr_program;
    sc.meters_off = c.opts->meters_off;
    const bool warmed = outcome->warmed_by_check && &test == &plan.tests.front();
    outcome->warmed_by_check = false;
    if (plan.warmup_s >= 1 && !warmed) warm_up(c, sc, samples.front(), outcome, interrupted);
    for (int i : samples) {
      if (*interrupted) break;
      if (c.measured(test.spec.name, i)) continue;
      // A full disk is the lab's failure, not the product's: stop before a sample whose
      // output could not be kept, and never record a row that failed for want of space.
      if (auto s = check_free_space(run_dir); !s) return s;
      SampleRow row = timed_sample(c, sc, i, interrupted);
      if (*interrupted) break;  // a cut-short sample is not a result
      if (row.status != "ok")
        if (auto s = check_free_space(run_dir); !s)
          return with_context(s.error(),
                              c.spec->name + " " + test.spec.name + " sample " + std::to_string(i) + " not kept");
      PhaseSpan record(c.clock, kPhaseRecording);
      if (auto s = keep_row(c, test.spec.name, i, std::move(row), *outcome, rows); !s) return s;
    }
  }
  return ok_status();
}

// What the product's stop left (recorded), then the topology torn down and released.
Status audit_and_teardown(const RoundContext& c, NodeRuntime& topo, ProductOutcome* outcome) {
  const std::string& name = c.spec->name;
  PhaseSpan audit_span(c.clock, kPhaseAudit);
  auto audit = topo.audit();
  for (const auto& l : audit.leftovers) {
    spdlog::warn("{}: teardown leftover: {}", name, l);
    outcome->leftovers.push_back(l);
  }
  for (const auto& f : audit.run_files) {
    if (std::find(outcome->run_files.begin(), outcome->run_files.end(), f) != outcome->run_files.end()) continue;
    spdlog::debug("  {}: {} was in the node's private /run and went with the node (as expected)", name, f);
    outcome->run_files.push_back(f);
  }
  audit_span.stop();
  return teardown_and_settle(c, topo);
}

}  // namespace

Status run_product_round(const RoundContext& given, const std::vector<int>& samples, bool check_plaintext,
                         ProductOutcome* outcome, std::vector<SampleRow>* rows, bool* interrupted) {
  RoundContext c = given;
  c.build_plan = c.plan;
  const ProductSpec& spec = *c.spec;
  Plan with_services;
  if (!spec.services.empty()) {
    auto p = plan_with_services(*c.plan, ProductServices::names(spec));
    if (!p) {
      outcome->failure = p.error().message;
      return fail_rows(c, samples, "product did not come up: " + p.error().message, rows, interrupted);
    }
    with_services = std::move(p.value());
    c.build_plan = &with_services;
  }
  // Tests the product cannot run (a relay chain, and no relay of its own): a row for each of
  // their samples with the reason; the rest run on a plan without them, and without the
  // routes into the tunnels of hops it does not bring up.
  Plan reachable, reachable_build;
  if (auto out = tests_out_of_reach(spec, *c.plan); !out.empty()) {
    if (auto s = refuse_rows(c, samples, out, rows, interrupted); !s) return s;
    reachable = *c.plan;
    std::erase_if(reachable.tests, [&](const PlanTest& t) { return out.count(t.spec.name) > 0; });
    reachable_build = *c.build_plan;
    std::erase_if(reachable_build.routes, [&](const PlanRoute& r) {
      return r.when == PlanRoute::When::tunnel &&
             std::any_of(c.plan->hops.begin(), c.plan->hops.end(),
                         [&](const PlanHop& h) { return !hop_out_of_reach(spec, h).empty() && h.has(r.node); });
    });
    c.plan = &reachable;
    c.build_plan = &reachable_build;
  }
  Result<NodesPtr> topo = make_error("not built");
  auto session = bring_up(c, &topo, outcome);
  if (!topo) return topo.error();
  if (!session) {
    outcome->failure = session.error().message;
    spdlog::error("{}: did not come up: {}", spec.name, session.error().message);
    *interrupted = vpnlab::interrupted();
    if (auto s =
            fail_rows(c, samples, "product did not come up: " + outcome->failure.substr(0, outcome->failure.find('\n')),
                      rows, interrupted);
        !s)
      return s;
  } else {
    PhaseSpan checks(c.clock, kPhaseChecks);
    if (!outcome->started) {
      outcome->bringup_s = (*session)->bringup_seconds();
      record_interface_offloads(c, **topo);
    }
    outcome->started = true;
    if (spec.tunnel) spdlog::info("  up and answering pings after {:.2f} s", (*session)->bringup_seconds());
    checks.stop();  // the plaintext check times itself: it may be the first warm-up
    if (check_plaintext && !c.plan->tests.empty())
      if (auto s = check_plaintext_once(c, **topo, **session, outcome, interrupted); !s) return s;
    if (auto s = measure_tests(c, samples, **topo, **session, outcome, rows, interrupted); !s) return s;
    PhaseSpan stop(c.clock, kPhaseProductStop);
    (*session)->stop();
  }
  session = make_error("released");  // the session ends before the audit
  return audit_and_teardown(c, **topo, outcome);
}

}  // namespace vpnlab
