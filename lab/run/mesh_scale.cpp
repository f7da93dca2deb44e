#include "lab/run/mesh_scale.h"

#include <algorithm>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "lab/base/cpu_stat.h"
#include "lab/run/product_round.h"
#include "lab/run/product_tunnels.h"
#include "lab/run/sample.h"

namespace vpnlab {
namespace {

template <typename T>
T median_of(std::vector<T> v) {
  if (v.empty()) return T{};
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Per-node daemon figures: the median node and the largest.
void usage_into(const ProductTunnels& session, ScaleRow* row) {
  std::vector<double> rss;
  std::vector<int> threads;
  for (const auto& [node, u] : session.daemon_usage()) {
    rss.push_back(u.rss_kb / 1024.0);
    threads.push_back(u.threads);
  }
  row->rss_mb_median = median_of(rss);
  row->rss_mb_max = rss.empty() ? 0 : *std::max_element(rss.begin(), rss.end());
  row->threads_median = median_of(threads);
  row->threads_max = threads.empty() ? 0 : *std::max_element(threads.begin(), threads.end());
}

// One throughput sample from the first node to the last, through the mesh.
void sample_into(const ScaleRound& c, const ProductSpec& spec, NodeRuntime& nodes, ProductTunnels& session,
                 ScaleRow* row, bool* interrupted) {
  const PlanTest& test = c.plan->tests.front();
  std::string raw, logs;
  if (auto s = dirs_for(c.run_dir, spec.name, test.spec.name, &raw, &logs); !s) {
    row->reason = s.error().message;
    return;
  }
  SampleContext sc{.plan = c.plan,
                   .test = &test,
                   .spec = &spec,
                   .nodes = &nodes,
                   .session = &session,
                   .raw_dir = raw,
                   .log_dir = logs,
                   .interrupt_fd = c.interrupt_fd};
  SampleRow sample = run_sample(sc, "sample-1", c.plan->duration_s, interrupted);
  row->gbps = sample.gbps;
  row->sample_valid = sample.valid;
  if (!sample.valid && row->reason.empty()) row->reason = "throughput sample: " + first_line(sample.reason);
}

}  // namespace

Result<ScaleRow> measure_mesh(const ScaleRound& c, const ProductSpec& spec, bool* interrupted) {
  const Plan& plan = *c.plan;
  ScaleRow row;
  row.product = spec.name;
  row.nodes = static_cast<int>(plan.nodes.size());
  row.contended = row.nodes > c.cpu_count;
  auto nodes = c.build_nodes(plan, c.run_dir, c.interrupt_fd);
  if (!nodes)
    return with_context(nodes.error(), "building the mesh of " + std::to_string(row.nodes) + " nodes for " + spec.name);
  ProductSession::Context ctx{.plan = &plan,
                              .nodes = nodes->get(),
                              .spec = &spec,
                              .keys = &c.keys,
                              .run_dir = c.run_dir,
                              .interrupt_fd = c.interrupt_fd,
                              .run_values = {{"psk", c.psk}},
                              .mesh_timeout_s = c.converge_timeout_s};
  CpuTimes before = read_cpu_times();
  auto session = ProductTunnels::start(ctx);
  CpuTimes after = read_cpu_times();
  row.bringup_cpu_s = (after - before).busy();
  if (session) {
    row.converge_s = (*session)->bringup_seconds();
    row.sweep_s = (*session)->first().convergence().all_answered_s;
    row.pairs = (*session)->first().convergence().pairs;
    row.answered = (*session)->first().convergence().answered;
    usage_into(**session, &row);
    if (!*interrupted) sample_into(c, spec, **nodes, **session, &row, interrupted);
    (*session)->stop();
  } else {
    row.reason = first_line(session.error().message);
  }
  if (auto s = (*nodes)->teardown(30); !s)
    return with_context(s.error(), "tearing down the mesh of " + std::to_string(row.nodes) + " nodes");
  if (auto s = (*nodes)->settle_after_teardown(30); !s) spdlog::warn("{}", s.error().message);
  return row;
}

}  // namespace vpnlab
