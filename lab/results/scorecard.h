// The scorecard of a suite (`vpnlab suite`): one cell per scenario x test x product x metric,
// each with its value, its 95 % interval, the verdicts that interval gives against the
// baseline and against the scenario's leader, its tier, and the run directory whose rows it
// comes from; DIR/scorecard.json, and DIR/index.html drawn from that JSON alone, so the page
// cannot show a number the file does not hold.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vpnlab {

inline constexpr int kScorecardSchema = 1;
// A cell measured longer ago than this is marked stale on the page.
inline constexpr double kStaleAfterDays = 90;

// A scenario as the suite left it (lab/app/suite_run.h's state, without the app's types).
struct ScorecardScenario {
  std::string name, topology, state, run, error;
  std::vector<std::string> tests;  // the scenario's own choice ("" = every test)
  std::string feature;             // the feature matrix's row it measures ("" = none)
};

// Reads each scenario's RUN/results.csv and environment.json below `out_dir`; a run that
// cannot be read is the scenario's error, never a missing scenario.
nlohmann::json scorecard_json(const std::string& suite_name, const std::string& suite_file, const std::string& out_dir,
                              const std::vector<ScorecardScenario>& scenarios, const std::string& now_utc);

// The feature matrix's columns: per product what its spec declares (cipher, encrypted, the
// shapes it carries, largest MTU, per-packet overhead, where its build comes from). Put in
// scorecard["products"] by the caller, which reads the product specs.
struct ProductFeatures {
  std::string name, cipher, origin;
  bool encrypted = true;
  std::vector<std::string> shapes;
  int max_mtu = 0, overhead = 0;
};
nlohmann::json features_json(const std::vector<ProductFeatures>& products);

// The page: self-contained (no script, no style or font from elsewhere), every text from the
// runs escaped.
std::string scorecard_html(const nlohmann::json& scorecard);

// Tiers of a ranking: values sorted best first, each with its interval; a product joins the
// current tier when its interval overlaps that of the tier's first (the data cannot tell it
// from the tier's head), else starts the next tier. Each input's tier, 1-based, in input
// order. Overlap with the head, not with the one just ahead: a chain of small overlaps must
// not put products 6x apart in one tier.
struct RankedValue {
  double value = 0, low = 0, high = 0;
};
std::vector<int> tiers_of(const std::vector<RankedValue>& values, bool higher_is_better);

}  // namespace vpnlab
