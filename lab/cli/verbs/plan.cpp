// `vpnlab plan FILE`: what a run would create and do, and what its samples can resolve.
#include <iostream>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/app/run_request.h"
#include "lab/app/sampling.h"
#include "lab/base/fs_util.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"
#include "lab/model/install_layout.h"
#include "lab/model/plan.h"
#include "lab/record/results_csv.h"
#include "lab/results/power.h"
#include "lab/run/adaptive.h"

namespace vpnlab {
namespace {

int cmd_plan(const Args& a) {
  if (a.positional.size() != 1) return usage_error("plan", "give one topology file");
  if (auto code = sampling_usage(a, "plan")) return *code;
  auto plan = plan_request(request_of(a, a.positional[0]));
  if (!plan) return fail(plan.error());
  auto seq = sequential_request(sampling_request_of(a, /*rerun=*/false), &plan.value());
  if (!seq) return fail(seq.error());
  std::optional<std::vector<SampleRow>> earlier;
  if (!a.from_dir.empty()) {
    auto rows = read_results_csv(run_dir_arg(a.from_dir) + "/results.csv");
    if (!rows) return fail(with_context(rows.error(), "plan --from"));
    earlier = std::move(*rows);
  }
  const std::string power =
      power_text(planned_comparisons(*plan, products_path(own_binary_dir()), a.vs),
                 planning_spread(*plan, a.from_dir.empty() ? "" : run_dir_arg(a.from_dir), a.out_dir));
  if (a.json) {
    nlohmann::json j = plan_json(plan.value());
    if (*seq) j["sampling"] = sequential_plan_json(**seq, plan->max_time_s);
    j["power"] = power;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << describe_plan(plan.value());
    if (*seq) std::cout << describe_sampling(plan.value(), **seq, plan->max_time_s, earlier ? &*earlier : nullptr);
    if (*seq && !a.precision && !plan->adaptive_by_default) std::cout << kTopologySamplingNote << "\n";
    std::cout << power;
  }
  return 0;
}

}  // namespace

extern const Verb kPlanVerb = {
    "plan",
    "plan FILE [--product NAME]... [--test T]... [--samples N] [--duration D] [--no-pin] [--sequential] [--precision P "
    "[--max-time D] [--min-rounds N]] [--force] [--from RUN_DIR] [--vs PRODUCT] [--out DIR] [--backend B] [--json]",
    "Prints what a run would create and do; creates nothing, needs no root. Then what its samples can resolve: per "
    "kind of\n"
    "comparison the run makes, the smallest difference found with 80 % power, or that no verdict is reachable at all, "
    "from\n"
    "the spread of --from RUN_DIR, else of the newest run of the same topology file in --out DIR (default results), "
    "else\n"
    "a stated default. With --precision: the rounds adaptive sampling may take (and how many --from's spread "
    "suggests).",
    {"--product", "--test", "--samples", "--duration", "--no-pin", "--sequential", "--precision", "--max-time",
     "--min-rounds", "--force", "--from", "--vs", "--out", "--json", "--backend"},
    cmd_plan};

}  // namespace vpnlab
