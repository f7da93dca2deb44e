#include "lab/run/runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/base/out_dir.h"
#include "lab/model/finalize.h"
#include "lab/model/sweep.h"
#include "lab/run/environment.h"
#include "lab/run/environment_record.h"
#include "lab/run/interrupt.h"
#include "lab/run/keys.h"
#include "lab/run/product_probe.h"
#include "lab/run/product_round.h"
#include "lab/run/product_session.h"
#include "lab/run/progress.h"
#include "lab/run/run_state.h"
#include "lab/run/sample.h"

namespace vpnlab {

namespace {

using DoneRows = std::set<std::tuple<std::string, std::string, int>>;  // (product, test, sample) in results.csv

// Every product loaded before anything is created; the plan is final (finalize_plan), but a
// caller that skipped that gets the same refusal here rather than a half-made lab.
Result<std::vector<ProductSpec>> load_checked_products(const std::string& products_dir, Plan* plan) {
  std::vector<ProductSpec> specs;
  for (const auto& name : plan->products) {
    auto spec = load_product(products_dir, name);
    if (!spec) return spec.error();
    specs.push_back(std::move(spec.value()));
  }
  if (auto s = finalize_plan(plan, specs); !s) return s.error();
  return specs;
}

// Resuming: the same topology, and every row already there counts as done. Checked
// before anything is written, so a refused resume leaves the earlier run as it was.
Status read_earlier_rows(const RunOptions& opts, Plan* resolved, DoneRows* done, RunReport* report) {
  // The topology, samples, duration, products and order were checked against the run's own
  // records before planning (lab/app/run_request.h: check_resume_plan).
  auto earlier = read_results_csv(opts.run_dir + "/results.csv", /*drop_torn_tail=*/true);
  if (!earlier) return with_context(earlier.error(), "resume");
  // New rows keep the run's id, also in a directory that was renamed or copied.
  if (!earlier->empty()) resolved->run_id = earlier->front().run_id;
  for (const auto& r : *earlier) done->insert({r.product, r.test, r.sample});
  report->rows = earlier.value();
  spdlog::info("resuming {}: {} rows already measured", resolved->run_id, done->size());
  return ok_status();
}

struct RunKeys {
  std::map<std::string, X25519KeyPair> nodes;
  std::string psk;
};

// The run directory with its keys and provenance: a run that cannot record what it
// measures with does not start. *record is the run's environment.json, which only it writes.
Result<RunKeys> prepare_run_dir(const Plan& plan, const RunOptions& opts, const std::vector<ProductSpec>& specs,
                                const std::vector<Availability>& availability,
                                std::optional<EnvironmentRecord>* record) {
  if (auto s = make_dirs(opts.run_dir, 0750); !s) return s.error();
  // 0750 whatever the umask, set on the directory opened (not on a name that may change).
  if (auto dir = OutDir::open(opts.run_dir); !dir)
    return dir.error();
  else
    fchmod(dir->fd(), 0750);
  if (auto s = make_dirs(opts.run_dir + "/secrets", 0700); !s) return s.error();
  if (auto s = check_free_space(opts.run_dir); !s) return s.error();
  std::vector<std::string> node_names;
  for (const auto& n : plan.nodes) node_names.push_back(n.name);
  std::string keys_dir = opts.keys_dir.empty() ? opts.run_dir + "/secrets/keys" : opts.keys_dir;
  if (!opts.keys_from.empty() && opts.keys_dir.empty())
    if (auto s = copy_run_keys(opts.keys_from, keys_dir, node_names); !s) return with_context(s.error(), "run --from");
  auto keys = prepare_node_keys(keys_dir, node_names);
  if (!keys) return keys.error();
  auto psk = prepare_run_psk(keys_dir);
  if (!psk) return psk.error();
  if (auto s = make_dirs(opts.run_dir + "/keys", 0750); !s) return s.error();
  for (const auto& [node, kp] : *keys)
    if (auto s = write_file(opts.run_dir + "/keys/" + node + ".pub", kp.public_base64() + "\n", 0640); !s)
      return s.error();
  nlohmann::json described = describe_environment(plan, specs, availability);
  if (!opts.resume) {
    for (const auto& [name, text] :
         {std::pair<std::string, std::string>{"topology.toml", read_file_text(plan.topology_file)},
          {"plan.txt", describe_plan(plan)}})
      if (auto s = write_file(opts.run_dir + "/" + name, text, 0640); !s) return s.error();
    if (!opts.meters_off.empty()) described["meters_off"] = opts.meters_off;
    auto created = EnvironmentRecord::create(opts.run_dir, std::move(described));
    if (!created) return created.error();
    record->emplace(std::move(*created));
  } else {
    auto first = EnvironmentRecord::reopen(opts.run_dir);
    if (!first) return first.error();
    record->emplace(std::move(*first));
    // Each resumed session adds its own provenance next to the first one's.
    int n = 1;
    while (access((opts.run_dir + "/environment-resume-" + std::to_string(n) + ".json").c_str(), F_OK) == 0) ++n;
    if (auto s = write_file(opts.run_dir + "/environment-resume-" + std::to_string(n) + ".json",
                            described.dump(2) + "\n", 0640);
        !s)
      return s.error();
  }
  return RunKeys{std::move(keys.value()), std::move(psk.value())};
}

// What the rounds need besides the plan: products, keys, the CSV, what is done already.
struct Rounds {
  const Plan& plan;
  const Plan& vpn_plan;
  const std::vector<ProductSpec>& specs;
  const std::vector<Availability>& availability;
  const RunKeys& keys;
  const RunOptions& opts;
  ResultsCsv& csv;
  const DoneRows& done;
  const std::vector<RatioSeries>& watched;  // --precision: the ratios the stopping rule watches
  PhaseClock* clock;
  EnvironmentRecord* environment;
};

// Once the looks say how many rounds each product is expected to need, the progress line
// counts the samples those rounds hold (each product's tests; a product that never came up
// takes no more).
void expect_rounds(const Rounds& in, const SeriesStops& stops, int rounds_done, const std::set<std::string>& dead) {
  int total = 0;
  for (const auto& spec : in.specs)
    total += static_cast<int>(in.plan.tests.size()) *
             (dead.count(spec.name) ? rounds_done : std::max(stops.expected_rounds(spec.name), rounds_done));
  Progress::get().set_total(total);
}

// --precision: whether sampling stops before round `rounds_done + 1` (another round would
// not fit the time) or after round `rounds_done`: every series done (met at a look, or its
// product or reference never came up, which no further round can mend) or the round limit.
// Series stop one by one (SeriesStops); *report says why, and where each ended.
bool sampling_stops(const Rounds& in, SeriesStops* stops, int rounds_done, double elapsed_s, bool before_round,
                    const std::vector<ProductOutcome>& outcomes, RunReport* report) {
  if (!in.opts.sequential) return false;
  const SequentialPlan& seq = *in.opts.sequential;
  std::string why;
  if (before_round) {
    if (round_fits(elapsed_s, rounds_done, in.opts.max_time_s)) return false;
    why = "time out";
  } else {
    std::set<std::string> dead;
    for (const auto& o : outcomes)
      if (!o.started && !o.failure.empty()) dead.insert(o.product);
    for (size_t i : stops->look(report->rows, dead)) spdlog::info("{}", stops->planned_line(i));
    expect_rounds(in, *stops, rounds_done, dead);
    if (stops->all_met())
      why = "target met";
    else if (stops->all_done())
      why = "target met for every series whose products came up";
    else if (rounds_done >= seq.max_rounds)
      why = "max rounds";
    else
      return false;
  }
  SamplingOutcome out{why, rounds_done, 0, "", seq, in.opts.max_time_s, stops->outcomes(why)};
  for (const auto& s : out.series)
    if (out.widest_series.empty() || !(s.half_width <= out.widest)) {
      out.widest = s.half_width;
      out.widest_series = s.series;
    }
  spdlog::info("sampling stopped after {} rounds: {} (widest {}: {})", rounds_done, why,
               std::isfinite(out.widest) ? fmt::format("±{:.1f} %", 100 * out.widest) : "no interval yet",
               out.widest_series);
  report->sampling = std::move(out);
  return true;
}

// The [bench] sweep: each lab point's plan (its tests, its links' MTU, its overlay), a
// bring-up of its own per product and round; without one, the plan itself.
std::vector<Plan> plans_per_point(const Plan& plan) {
  std::vector<Plan> out;
  for (size_t i = 0; i < std::max<size_t>(1, plan.lab_points.size()); ++i) out.push_back(plan.at_lab_point(i));
  return out;
}

// Which products run: available, with something left to measure. Every product's outcome
// starts here, an unavailable one's with the reason.
std::vector<size_t> runnable_products(const Rounds& in, const std::function<bool(const std::string&, int)>& missing,
                                      std::vector<ProductOutcome>* outcomes) {
  std::vector<size_t> runnable;
  for (size_t pi = 0; pi < in.specs.size(); ++pi) {
    const Availability& avail = in.availability[pi];
    spdlog::info("{} ({})", in.specs[pi].name, avail.available ? avail.version : avail.reason);
    (*outcomes)[pi].product = in.specs[pi].name;
    if (!avail.available) (*outcomes)[pi].failure = avail.reason;
    bool any = false;
    for (int i = 1; i <= in.plan.samples; ++i) any = any || missing(in.specs[pi].name, i);
    if (avail.available && any) runnable.push_back(pi);
  }
  return runnable;
}

// The samples each round measures: interleaved, one each; otherwise all of them in one.
std::vector<std::vector<int>> sample_rounds(const Plan& plan) {
  std::vector<std::vector<int>> rounds;
  for (int i = 1; i <= plan.samples; ++i) {
    if (plan.interleave || rounds.empty()) rounds.push_back({});
    rounds.back().push_back(i);
  }
  return rounds;
}

// Interleaved: round r runs sample r of every product in turn, each on a fresh topology,
// so slow drifts of the machine hit all products alike and rounds pair up for ratios.
// Sequential: one round of every sample. Outcomes per product go to report->products.
Status run_rounds(const Rounds& in, RunReport* report) {
  const Plan& plan = in.plan;
  auto measured = [&](const std::string& product, const std::string& test, int sample) {
    return in.done.count({product, test, sample}) > 0;
  };
  auto missing_in = [&](const Plan& p, const std::string& product, int sample) {
    for (const auto& test : p.tests)
      if (!measured(product, test.spec.name, sample)) return true;
    return false;
  };
  auto missing = [&](const std::string& product, int sample) { return missing_in(plan, product, sample); };
  std::vector<Plan> point_plans = plans_per_point(plan), point_vpn_plans = plans_per_point(in.vpn_plan);
  std::vector<ProductOutcome> outcomes(in.specs.size());
  const std::vector<size_t> runnable = runnable_products(in, missing, &outcomes);
  const std::vector<std::vector<int>> rounds = sample_rounds(plan);
  bool first_build = true;
  Progress::get().start(static_cast<int>(runnable.size() * plan.tests.size()) * plan.samples, plan.estimated_seconds());
  const auto started = std::chrono::steady_clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
  SeriesStops stops(in.opts.sequential.value_or(SequentialPlan{}), in.watched);
  std::set<std::string> settled;  // adaptive sampling: products whose ratios are known
  for (size_t r = 0; r < rounds.size() && !report->interrupted; ++r) {
    if (sampling_stops(in, &stops, static_cast<int>(r), elapsed_s(), /*before_round=*/true, outcomes, report)) break;
    for (size_t k = 0; k < runnable.size() && !report->interrupted; ++k) {
      const ProductSpec& spec = in.specs[runnable[k]];
      ProductOutcome& outcome = outcomes[runnable[k]];
      if (in.opts.sequential && r > 0 && stops.product_done(spec.name)) {
        if (settled.insert(spec.name).second)
          spdlog::info("{}: every ratio it is part of is known (or cannot be): no more rounds for it", spec.name);
        continue;
      }
      for (size_t pt = 0; pt < point_plans.size() && !report->interrupted; ++pt) {
        const Plan& at = point_plans[pt];
        std::vector<int> todo;
        for (int i : rounds[r])
          if (missing_in(at, spec.name, i)) todo.push_back(i);
        if (todo.empty()) continue;
        RoundContext rc{
            .plan = &at,
            .vpn_plan = &point_vpn_plans[pt],
            .spec = &spec,
            .keys = &in.keys.nodes,
            .psk = in.keys.psk,
            .opts = &in.opts,
            .csv = &in.csv,
            .write_topology_records = first_build,
            .round = rounds.size() > 1 ? static_cast<int>(r) + 1 : 0,
            .measured = [&](const std::string& test, int sample) { return measured(spec.name, test, sample); },
            .clock = in.clock,
            .environment = in.environment};
        // A product that never came up is not brought up again every round (or point).
        if (!outcome.failure.empty() && !outcome.started && (r > 0 || pt > 0)) {
          std::string why = "product did not come up: " + outcome.failure.substr(0, outcome.failure.find('\n'));
          if (auto s = fail_rows(rc, todo, why, &report->rows, &report->interrupted); !s) return s;
          continue;
        }
        const std::string where = plan.lab_points.empty() ? "" : " at " + point_text(plan.lab_points[pt].values);
        if (rounds.size() > 1)
          spdlog::info("round {}/{}: [{}/{}] {}{}", r + 1, rounds.size(), k + 1, runnable.size(), spec.name, where);
        else
          spdlog::info("[{}/{}] {}{}", k + 1, runnable.size(), spec.name, where);
        first_build = false;
        bool plaintext = !outcome.plaintext_checked;
        if (auto s = run_product_round(rc, todo, plaintext, &outcome, &report->rows, &report->interrupted); !s)
          return s;
        report->interrupted = report->interrupted || interrupted();
      }
    }
    if (!report->interrupted &&
        sampling_stops(in, &stops, static_cast<int>(r) + 1, elapsed_s(), /*before_round=*/false, outcomes, report))
      break;
  }
  Progress::get().finish();
  report->products = std::move(outcomes);
  return ok_status();
}

}  // namespace

Result<RunReport> run_bench(const Plan& given_plan, const RunOptions& given) {
  // Absolute paths only: a process joining a node's mount namespace has its working
  // directory reset to that namespace's root, where a relative path means nothing.
  const auto wall_start = std::chrono::steady_clock::now();
  PhaseClock clock;
  PhaseSpan preparation(&clock, kPhasePreparation);
  RunOptions opts = given;
  std::error_code ec;
  opts.run_dir = std::filesystem::absolute(given.run_dir, ec).lexically_normal().string();
  if (!opts.keys_dir.empty()) opts.keys_dir = std::filesystem::absolute(given.keys_dir, ec).lexically_normal().string();
  Plan plan = given_plan;
  auto specs = load_checked_products(opts.products_dir, &plan);
  if (!specs) return specs.error();
  std::vector<RatioSeries> watched;
  if (opts.sequential) {
    if (!plan.interleave) return make_error("--precision needs interleaved rounds", "leave out --sequential");
    auto w = watched_series(plan);
    if (!w) return w.error();
    // A test a product does not run (a relay chain, no relay of its own) never gets precise.
    for (const auto& spec : *specs)
      for (const auto& [test, why] : tests_out_of_reach(spec, plan))
        std::erase_if(*w, [&, &t = test](const RatioSeries& s) {
          return s.product == spec.name && s.test == t;
        });  // clang 14 captures no binding
    watched = std::move(*w);
    opts.sequential->max_rounds = plan.samples;
  }
  RunReport report;
  DoneRows done;
  if (opts.resume)
    if (auto s = read_earlier_rows(opts, &plan, &done, &report); !s) return s.error();
  // Products run on the VPN nodes only; site clients behind gateways run none.
  const Plan vpn_plan = plan.vpn_only();
  std::vector<Availability> availability;
  for (const auto& spec : *specs)
    availability.push_back(check_availability(spec, opts.probe_capabilities, opts.in_guests));
  std::optional<EnvironmentRecord> environment;
  auto keys = prepare_run_dir(plan, opts, *specs, availability, &environment);
  if (!keys) return keys.error();
  std::string repaired;
  auto csv = ResultsCsv::create(opts.run_dir + "/results.csv", &repaired);
  if (!csv) return csv.error();
  if (!repaired.empty()) spdlog::warn("{}", repaired);
  if (opts.rows_jsonl_fd >= 0) csv->mirror_to(opts.rows_jsonl_fd, opts.rows_jsonl_name);

  RunState state{plan.run_id, plan.lab,         plan.topology_file, opts.run_dir, static_cast<int>(getpid()),
                 false,       plan.namespaces()};
  if (auto s = write_state(state); !s) return s.error();
  // However the run ends (an error returns after the rounds' RAII teardown), its record
  // goes once nothing of it is left; what teardown could not remove stays on record for
  // `vpnlab cleanup`.
  struct StateRecord {
    const Plan& plan;
    const RunOptions& opts;
    ~StateRecord() {
      if (!opts.lab_remains || !opts.lab_remains(plan.ns_prefix))
        (void)remove_state(plan.run_id);
      else
        spdlog::warn("namespaces of run {} remain: run 'vpnlab cleanup'", plan.run_id);
    }
  } state_record{plan, opts};
  preparation.stop();
  if (auto s = run_rounds(
          Rounds{plan, vpn_plan, *specs, availability, *keys, opts, *csv, done, watched, &clock, &*environment},
          &report);
      !s)
    return s.error();
  report.timing =
      finish_timing(clock, std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(),
                    clock.count(kPhaseMeasuring));
  nlohmann::json learnt = {{"timings", timing_json(report.timing)}};
  // A resumed run keeps the end of the session that finished it.
  if (!opts.resume) learnt.update(run_end_fields());
  if (report.sampling) learnt["sampling"] = sampling_json(*report.sampling);
  if (auto s = environment->set(learnt); !s) report.output_error = s.error().message;
  return report;
}

}  // namespace vpnlab
