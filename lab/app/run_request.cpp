#include "lab/app/run_request.h"
#include "lab/app/backends.h"
#include "lab/app/recorded_run.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>
#include <tuple>
#include <utility>

#include <spdlog/spdlog.h>

#include "lab/base/bounds.h"
#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/kernel/capabilities.h"
#include "lab/kernel/nftables.h"
#include "lab/model/finalize.h"
#include "lab/model/install_layout.h"
#include "lab/model/product_spec.h"
#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"
#include "lab/results/run_files.h"
#include "lab/run/product_probe.h"
#include "lab/run/product_tunnels.h"
#include "lab/run/runner.h"

namespace vpnlab {

namespace {
int cpu_count() { return static_cast<int>(sysconf(_SC_NPROCESSORS_CONF)); }
}  // namespace

std::string make_run_id(std::string* tag) {
  std::random_device rd;
  const std::string hex = fmt::format("{:04x}", rd() & 0xffff);
  *tag = hex;
  char buf[32];
  std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
  return std::string(buf) + "-" + hex;
}

namespace {

// A variant's rules, applied where nothing else is (a namespace of their own), so that
// nft's verdict comes before any lab is built, at the rules' place in the file. Needs
// root: `validate` without it leaves the rules to the run, which has it.
Status check_variant_rules(const Topology& topo) {
  if (geteuid() != 0) return ok_status();
  for (const auto& v : topo.variants) {
    if (v.nft.empty()) continue;
    auto checked = nft_check(v.nft);
    std::string why = !checked                 ? checked.error().message
                      : checked->counters == 0 ? "nft lists no counter in the tables the rules make"
                                               : "";
    if (why.empty()) continue;
    return TomlReader(topo.file).at(v.nft_pos, "variant '" + v.name + "': " + why,
                                    "nft -f syntax; the rules are tried in a namespace of their own before the run");
  }
  return ok_status();
}

// What the file asks of this kernel that it lacks, found before any lab is built: netem for
// a link's delay, jitter or loss, and a variant's qdisc, each tried in a namespace of its
// own and refused at its place in the file. Guests and hosts have kernels of their own;
// without root nothing is tried (the run, which has it, finds it).
Status check_kernel_qdiscs(const Topology& topo, const std::string& backend) {
  const BackendTraits& traits = backend_traits(backend);
  if (geteuid() != 0 || traits.guests || traits.remote_hosts) return ok_status();
  struct Need {
    std::string kind, who;
    SourcePos pos;  // where the file asks for it
  };
  std::vector<Need> needed;
  for (const auto& l : topo.links)
    if (l.delay_ms > 0 || l.jitter_ms > 0 || l.loss_pct > 0)
      needed.push_back({"netem", "link '" + l.name + "'", l.shaping_pos});
  for (const auto& v : topo.variants)
    if (!v.qdisc.empty()) needed.push_back({v.qdisc, "variant '" + v.name + "'", v.pos});
  if (needed.empty()) return ok_status();
  std::vector<std::string> kinds;
  for (const auto& n : needed) kinds.push_back(n.kind);
  const auto tried = probe_qdiscs(kinds);
  for (size_t i = 0; i < tried.size(); ++i) {
    if (tried[i].second) continue;
    const Need& n = needed[i];
    const std::string guests = backends_with(&BackendTraits::guests);
    return TomlReader(topo.file).at(
        n.pos,
        n.who + (n.kind == "netem" ? ": delay, jitter and loss need the netem qdisc" : ": qdisc '" + n.kind + "'") +
            ", which this kernel lacks (" + tried[i].second.error().message + ")",
        n.kind == "netem" ? "remove delay/jitter/loss (or the profile) from the link, or run it with --backend " +
                                guests + " (its guests' kernel has netem)"
                          : "measure a qdisc this kernel has ('vpnlab doctor' lists them), or leave the variant out");
  }
  return ok_status();
}

}  // namespace

namespace {

// A suite's scenario may measure some of a topology's tests: the others leave the plan before
// anything is counted or checked against them.
Status keep_tests(const std::vector<std::string>& names, Plan* plan) {
  if (names.empty()) return ok_status();
  std::vector<std::string> known;
  for (const auto& t : plan->tests) known.push_back(t.spec.name);
  for (const auto& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return make_error("test '" + n + "' is not a test of " + plan->topology_file, "its tests: " + list);
    }
  std::erase_if(plan->tests,
                [&](const PlanTest& t) { return std::find(names.begin(), names.end(), t.spec.name) == names.end(); });
  return ok_status();
}

}  // namespace

Result<Plan> plan_request(const RunRequest& a) {
  auto topo = load_topology(a.topology_file);
  if (!topo) return topo.error();
  if (auto s = check_variant_rules(*topo); !s) return s.error();
  if (auto s = check_kernel_qdiscs(*topo, a.backend.empty() ? topo->backend : a.backend); !s) return s.error();
  PlanOptions po;
  po.run_id = a.run_id.empty() ? make_run_id(&po.tag) : a.run_id;
  if (!a.run_id.empty()) po.tag = a.run_id.substr(a.run_id.rfind('-') + 1);
  po.products = a.products;
  po.samples = a.samples;
  po.duration_s = a.duration_s;
  po.cpu_count = cpu_count();
  po.no_pin = a.no_pin;
  po.backend = a.backend;
  auto plan = make_plan(topo.value(), po);
  if (plan && a.sequential) plan->interleave = false;
  if (!plan) return plan;
  if (auto s = keep_tests(a.tests, &plan.value()); !s) return s.error();
  if (a.products.empty() && a.samples && *a.samples < 1) return make_error("--samples must be at least 1");
  // "--product all" means every product and registry build (NAME@VERSION) that can run here,
  // on this shape; "all-plain" the products by their plain names only.
  const std::string dir = products_path(own_binary_dir());
  const bool all_builds = std::find(plan->products.begin(), plan->products.end(), "all") != plan->products.end();
  const bool all =
      all_builds || std::find(plan->products.begin(), plan->products.end(), "all-plain") != plan->products.end();
  std::vector<ProductSpec> specs;
  for (const auto& name : !all ? plan->products : all_builds ? list_products_and_builds(dir) : list_products(dir)) {
    auto spec = load_product(dir, name);
    if (!spec && spec.error().file.empty() && a.products.empty()) {
      // The name came from [bench] products: point at it.
      return TomlReader(a.topology_file).at(topo->bench.products_pos, spec.error().message, spec.error().hint);
    }
    if (!spec) return spec.error();
    if (all) {
      if (auto fits = check_product_fits(spec.value(), plan.value()); !fits) {
        spdlog::warn("skipping {}: {}", name, fits.error().message);
        continue;
      }
      if (auto av = availability_for(spec.value(), plan->backend); !av.available) {
        spdlog::warn("skipping {}: {}", name, av.reason);
        continue;
      }
    }
    specs.push_back(std::move(spec.value()));
  }
  if (all) {
    plan->products.clear();
    for (const auto& spec : specs) plan->products.push_back(spec.name);
  }
  const bool automatic = plan->overlay_mtu == 0;
  std::string by;
  if (auto s = finalize_plan(&plan.value(), specs, &by); !s) return s.error();
  for (const auto& spec : specs) {
    const auto out = tests_out_of_reach(spec, plan.value());
    for (const auto& [test, why] : out)
      spdlog::warn("{}: test '{}' is not run (its rows say why): {}", spec.name, test, why);
    if (!out.empty()) plan->tests_not_run[spec.name] = out.size();
    plan->bringup_s[spec.name] = spec.bringup_s;
  }
  if (automatic) spdlog::info("overlay MTU auto: {} (limited by {})", plan->overlay_mtu, by);
  const Plan vpn_plan = plan->vpn_only();
  for (const auto& spec : specs) {
    if (auto rendered = ProductTunnels::check_templates(spec, vpn_plan); !rendered)
      return with_context(rendered.error(), "product '" + spec.name + "'");
  }
  return plan;
}

Result<Plan> plan_like_run(const std::string& from, RunRequest* a) {
  auto recorded = read_recorded_run(from, Repeat::rerun);
  if (!recorded) return recorded.error();
  a->products = recorded->requested_products;
  a->tests = recorded->tests;
  a->samples = recorded->samples;
  a->duration_s = recorded->duration_s;
  a->no_pin = !recorded->pinned;
  a->sequential = !recorded->interleaved;
  if (a->keys_dir.empty()) a->keys_from = from + "/secrets/keys";
  a->topology_file = from + "/topology.toml";
  auto plan = plan_request(*a);
  if (!plan) return plan;
  for (const auto& name : plan->products) {
    auto spec = load_product(products_path(own_binary_dir()), name);
    if (!spec) return spec.error();
    const auto recorded_version = recorded->product_versions.find(spec->name);
    const std::string then = recorded_version == recorded->product_versions.end() ? "" : recorded_version->second;
    std::string now = availability_for(spec.value(), plan->backend).version;
    if (then != now)
      return make_error("product '" + spec->name + "' was '" + then + "' in " + from + ", here it is '" +
                            (now.empty() ? "not available" : now) + "'",
                        "install the version the run used, or measure anew with 'vpnlab run FILE'");
  }
  return plan;
}

namespace {

Error resume_differs(const std::string& run_dir, const std::string& what, const std::string& now,
                     const std::string& then, const std::string& hint) {
  return make_error("cannot resume " + run_dir + ": " + what + " " + now + " here, but the run was made with " + then +
                        " (" + run_dir + "/environment.json)",
                    hint);
}

std::string seconds_text(double s) { return fmt::format("{:g} s", s); }

std::string list_text(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return "[" + out + "]";
}

}  // namespace

Status resume_request(const std::string& run_dir, RunRequest* a) {
  auto recorded = read_recorded_run(run_dir, Repeat::resume);
  if (!recorded) return recorded.error();
  const RecordedRun& r = *recorded;
  const std::string same = "resume with the run's own values: leave the option out";
  if (a->samples && *a->samples != r.samples)
    return resume_differs(run_dir, "--samples", std::to_string(*a->samples), std::to_string(r.samples) + " samples",
                          same);
  if (a->duration_s && std::abs(*a->duration_s - r.duration_s) > 1e-9)
    return resume_differs(run_dir, "--duration", seconds_text(*a->duration_s), seconds_text(r.duration_s) + " samples",
                          same);
  if (a->no_pin && r.pinned) return resume_differs(run_dir, "--no-pin", "is given", "pinning", same);
  if (a->sequential && r.interleaved)
    return resume_differs(run_dir, "--sequential", "is given", "interleaved rounds", same);
  a->samples = r.samples;
  a->duration_s = r.duration_s;
  a->no_pin = !r.pinned;
  a->sequential = !r.interleaved;
  if (a->products.empty()) a->products = r.requested_products;
  if (a->tests.empty()) a->tests = r.tests;
  if (r.precision) {
    a->precision = r.precision;
    a->max_time_s = r.max_time_s;
  }
  return ok_status();
}

Status check_resume_topology(const std::string& run_dir, const std::string& topology_file) {
  auto then = read_input_file(run_dir + "/topology.toml", kMaxTopologyBytes);
  auto now = read_input_file(topology_file, kMaxTopologyBytes);
  if (!then || !now || *then != *now)
    return make_error(run_dir + " was measured with a different topology than " + topology_file,
                      "resume with the same file (its copy is " + run_dir + "/topology.toml)");
  return ok_status();
}

Status check_resume_plan(const std::string& run_dir, const Plan& plan) {
  // Another topology first: every other difference would follow from it.
  if (auto s = check_resume_topology(run_dir, plan.topology_file); !s) return s;
  auto recorded = read_recorded_run(run_dir, Repeat::resume);
  if (!recorded) return recorded.error();
  if (std::abs(plan.warmup_s - recorded->warmup_s) > 1e-9)
    return resume_differs(run_dir, "the warm-up is", seconds_text(plan.warmup_s), seconds_text(recorded->warmup_s),
                          "resume with the run's own topology file");
  if (plan.products != recorded->requested_products)
    return resume_differs(run_dir, "the products (in order) are", list_text(plan.products),
                          list_text(recorded->requested_products),
                          "leave --product out to measure the run's own products");
  return ok_status();
}

CapabilityProbe capability_probe_for(const std::string& backend) {
  if (backend_traits(backend).guests) return {};
  return [] { return probe_network_capabilities("vpnlab-probe-" + std::to_string(getpid())); };
}

Availability availability_for(const ProductSpec& spec, const std::string& backend) {
  // Its control service runs in a namespace of its own beside the nodes (plan_with_services):
  // only this host's namespaces have one yet.
  if (!spec.services.empty() && !backend_traits(backend).services) {
    Availability a;
    a.reason = "runs its control service (" + spec.services.front().name +
               ") in a namespace of its own beside the nodes: only the " + backends_with(&BackendTraits::services) +
               " backend builds it";
    return a;
  }
  return check_availability(spec, capability_probe_for(backend), backend_traits(backend).guests);
}

}  // namespace vpnlab
