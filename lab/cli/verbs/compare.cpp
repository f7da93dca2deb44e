// `vpnlab compare RUN A B`: two products (or tests, or sweep points) of one run, round-paired.
#include <iostream>

#include <nlohmann/json.hpp>

#include "lab/app/run_compare.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"
#include "lab/results/run_files.h"

namespace vpnlab {
namespace {

int cmd_effects(const Args& a) {
  if (a.positional.size() != 1)
    return usage_error("compare", "--effects takes the run directory alone: compare RUN --effects");
  if (!a.test.empty()) return usage_error("compare", "--effects gives every swept test's effects: drop --test");
  auto e = effects_in_run(run_dir_arg(a.positional[0]));
  if (!e) return fail(e.error());
  if (a.json)
    std::cout << effects_json(*e).dump(2) << "\n";
  else
    std::cout << e->text;
  return 0;
}

struct CompareOptions {
  bool effects = false;
};

const std::vector<Option<CompareOptions>> kCompareOptions = {
    {"--effects", "",
     "compare RUN --effects: what each swept axis does per product (every point over the axis's first value, the "
     "other axes held), one family per figure, as the summary prints it",
     set_flag<&CompareOptions::effects>},
};

int cmd_compare(const Args& a) {
  CompareOptions own;
  if (auto code = parse_own("compare", kCompareOptions, a, &own)) return *code;
  if (own.effects) return cmd_effects(a);
  if (a.positional.size() != 3)
    return usage_error("compare", "give a run directory and two of its products: compare RUN A B");
  auto c = compare_in_run(run_dir_arg(a.positional[0]), a.positional[1], a.positional[2], a.test);
  if (!c) return fail(c.error());
  if (a.json)
    std::cout << compare_json(*c).dump(2) << "\n";
  else
    std::cout << c->text;
  return 0;
}

// compare RUN A B: A and B are the run's products (its environment.json names them).
std::optional<std::vector<std::string>> complete_run_products(const std::vector<std::string>& positional) {
  if (positional.size() != 1 && positional.size() != 2) return std::nullopt;
  std::vector<std::string> names;
  if (auto env = read_environment(positional[0], /*required=*/false);
      env && env->contains("products") && (*env)["products"].is_object())
    for (const auto& [name, product] : (*env)["products"].items()) names.push_back(name);
  return names;
}

}  // namespace

extern const Verb kCompareVerb = {
    "compare",
    "compare RUN A B [--test T] [--json] | compare RUN --effects [--json]",
    "Which of two products of one run is faster and cheaper, by how much, how sure: per test, the round-paired ratio "
    "B/A\n"
    "(and A/B) of Gbit/s, CPU-s/Gbit, daemon peak RSS and p99 latency, each with its interval and the verdict it says\n"
    "(geometric mean of the round-paired ratios, Student t interval as adaptive sampling; each metric's N comparisons\n"
    "cover together with 95 %, each at 1 - 5 %/N). Exit 0 whatever the verdicts.\n"
    "A and B may also be two tests of one product, PRODUCT:TEST or PRODUCT:POINT of a sweep (wireguard-go:streams=1\n"
    "wireguard-go:streams=8): their samples paired by round, as two products' are.\n"
    "With --effects: what each swept axis of the run does per product, every point over the axis's first value with "
    "the\n"
    "other axes held (\"does MTU 9000 help, do 8 streams help\"), all in one family per figure.",
    {"--test", "--effects", "--json"},
    cmd_compare,
    {},
    complete_run_products,
    own_options(kCompareOptions)};

}  // namespace vpnlab
