#include "lab/run/adaptive.h"

#include <fmt/format.h>
#include <cmath>
#include <limits>
#include <map>

#include "lab/model/names.h"
#include "lab/model/test_kinds.h"

namespace vpnlab {

namespace {

// "nebula@new=/opt/nebula" as requested is "nebula@new" in the rows.
std::string shown_name(const std::string& requested) { return requested.substr(0, requested.find('=')); }

}  // namespace

Result<std::vector<RatioSeries>> watched_series(const Plan& plan) {
  const bool has_baseline = std::find(plan.products.begin(), plan.products.end(), "baseline") != plan.products.end();
  std::vector<std::string> products;
  for (const auto& p : plan.products) products.push_back(shown_name(p));
  std::map<std::string, std::string> first_tag;  // base name -> its first tagged version
  for (const auto& p : products)
    if (p.find('@') != std::string::npos && !first_tag.count(product_base_name(p))) first_tag[product_base_name(p)] = p;
  std::vector<RatioSeries> out;
  for (const auto& p : products) {
    if (p == "baseline") continue;
    std::string reference;
    auto tag = first_tag.find(product_base_name(p));
    if (tag != first_tag.end() && tag->second != p)
      reference = tag->second;
    else if (has_baseline)
      reference = "baseline";
    else
      continue;
    // A kind with no ratio to the baseline (idle latency: no rate) would never get an
    // interval, and the run would never stop on precision: only the others are watched.
    for (const auto& t : plan.tests)
      if (const TestKindTraits* kind = find_test_kind(t.spec.kind); !kind || kind->rate_vs_baseline)
        out.push_back({p, reference, t.spec.name});
  }
  if (out.empty())
    return make_error(
        "--precision needs something to be precise about: a ratio to 'baseline', or two tagged versions of one product",
        "add --product baseline, or measure NAME@old=/path --product NAME@new=/path");
  return out;
}

std::vector<std::vector<double>> paired_ratios(const std::vector<RatioSeries>& series,
                                               const std::vector<SampleRow>& rows) {
  // (product, test) -> sample -> Gbit/s of its valid rows.
  std::map<std::pair<std::string, std::string>, std::map<int, double>> gbps;
  for (const auto& r : rows)
    if (counts_as_result(r) && !is_disturbed(r) && r.gbps > 0) gbps[{r.product, r.test}][r.sample] = r.gbps;
  std::vector<std::vector<double>> out;
  for (const auto& s : series) {
    std::vector<double> ratios;
    const auto& mine = gbps[{s.product, s.test}];
    const auto& ref = gbps[{s.reference, s.test}];
    for (const auto& [sample, value] : mine)
      if (auto other = ref.find(sample); other != ref.end()) ratios.push_back(value / other->second);
    out.push_back(std::move(ratios));
  }
  return out;
}

nlohmann::json sequential_plan_json(const SequentialPlan& plan, double max_time_s) {
  return {{"precision", plan.target}, {"min_rounds", plan.min_rounds},   {"max_rounds", plan.max_rounds},
          {"max_time_s", max_time_s}, {"first_look", plan.first_look()}, {"confidence_per_look", plan.confidence()}};
}

nlohmann::json sampling_json(const SamplingOutcome& s) {
  nlohmann::json j = sequential_plan_json(s.plan, s.max_time_s);
  j["rule"] =
      "Student t interval of the mean log round-paired ratio at 97.5 %, looked at after every round from the first "
      "look: simulated, the interval it stops on covers with at least 95 %";
  j["stopped"] = s.why;
  j["rounds"] = s.rounds;
  j["widest_half_width"] = std::isfinite(s.widest) ? nlohmann::json(s.widest) : nlohmann::json(nullptr);
  j["widest_series"] = s.widest_series;
  j["series"] = nlohmann::json::array();
  for (const auto& x : s.series)
    j["series"].push_back(
        {{"series", x.series},
         {"rounds", x.rounds},
         {"half_width", std::isfinite(x.half_width) ? nlohmann::json(x.half_width) : nlohmann::json(nullptr)},
         {"needed", x.needed},
         {"met", x.met},
         {"why_not", x.why_not}});
  return j;
}

std::vector<size_t> SeriesStops::look(const std::vector<SampleRow>& rows, const std::set<std::string>& dead) {
  std::vector<bool> looked;
  for (const auto& l : looks_) looked.push_back(l.needed > 0);
  look_at_series(plan_, paired_ratios(watched_, rows), &looks_);
  std::vector<size_t> first_looked;
  for (size_t i = 0; i < looks_.size(); ++i)
    if (looks_[i].needed > 0 && !looks_[i].met && (i >= looked.size() || !looked[i])) first_looked.push_back(i);
  dead_.resize(watched_.size());
  for (size_t i = 0; i < watched_.size(); ++i)
    if (!looks_[i].met && dead_[i].empty())
      for (const auto& who : {watched_[i].product, watched_[i].reference})
        if (dead.count(who)) dead_[i] = who;
  return first_looked;
}

std::string SeriesStops::planned_line(size_t i) const {
  const SeriesLook& l = looks_.at(i);
  // The spread the expectation stands on: the half-width back through the t quantile.
  const double sd = l.rounds >= 2 ? std::log1p(l.half_width) * std::sqrt(static_cast<double>(l.rounds)) /
                                        t_quantile(plan_.confidence(), l.rounds - 1)
                                  : 0;
  const std::string head =
      fmt::format("{}: ±{:.1f} % after its first {} rounds (log spread {:.1f} %): ", watched_.at(i).label(),
                  100 * l.half_width, l.rounds, 100 * sd);
  if (l.needed > plan_.max_rounds)
    return head + fmt::format("±{:.1f} % would take about {} rounds, more than the {} this run may take",
                              100 * plan_.target, l.needed, plan_.max_rounds);
  return head + fmt::format("about {} rounds for ±{:.1f} %", l.needed, 100 * plan_.target);
}

int SeriesStops::expected_rounds(const std::string& product) const {
  bool involved = false;
  int most = 0;
  for (size_t i = 0; i < watched_.size(); ++i) {
    if (watched_[i].product != product && watched_[i].reference != product) continue;
    involved = true;
    int rounds = plan_.max_rounds;  // before its first look
    if (i < looks_.size() && done(i))
      rounds = looks_[i].rounds;  // met, or a product in it never came up
    else if (i < looks_.size() && looks_[i].needed > 0)
      rounds = looks_[i].needed;
    most = std::max(most, rounds);
  }
  return involved ? std::min(most, plan_.max_rounds) : plan_.max_rounds;
}

bool SeriesStops::all_done() const {
  if (looks_.size() != watched_.size()) return false;
  for (size_t i = 0; i < watched_.size(); ++i)
    if (!done(i)) return false;
  return true;
}

bool SeriesStops::all_met() const {
  if (looks_.size() != watched_.size()) return false;
  for (const auto& l : looks_)
    if (!l.met) return false;
  return true;
}

bool SeriesStops::product_done(const std::string& product) const {
  if (looks_.size() != watched_.size()) return false;
  bool involved = false;
  for (size_t i = 0; i < watched_.size(); ++i)
    if (watched_[i].product == product || watched_[i].reference == product) {
      involved = true;
      if (!done(i)) return false;
    }
  return involved;
}

std::vector<SeriesOutcome> SeriesStops::outcomes(const std::string& why) const {
  std::vector<SeriesOutcome> out;
  for (size_t i = 0; i < watched_.size(); ++i) {
    SeriesOutcome o{watched_[i].label(), 0, std::numeric_limits<double>::infinity(), 0, false, why};
    if (i < looks_.size()) {
      o.rounds = looks_[i].rounds;
      o.half_width = looks_[i].half_width;
      o.needed = looks_[i].needed;
      o.met = looks_[i].met;
    }
    if (o.met)
      o.why_not = "";
    else if (i < dead_.size() && !dead_[i].empty())
      o.why_not = dead_[i] + " never came up";
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace vpnlab
