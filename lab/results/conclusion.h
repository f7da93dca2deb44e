// The answer at a glance: per test, which tunnel is fastest and which is cheapest per Gbit,
// by how much over the runner-up, and how sure. The leader is judged against the runner-up
// in the same rounds (lab/results/product_compare.h); all the "fastest" lines of a run are
// one family and all the "cheapest" lines another, so their intervals cover together with
// 95 % and each verdict is what its interval says.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/record/results_csv.h"
#include "lab/results/compare.h"
#include "lab/results/summary.h"

namespace vpnlab {

struct Leader {
  std::string kind;              // "fastest", "cheapest per Gbit"
  std::string product;           // the leader
  std::string runner_up;         // "" when it is the only tunnel with valid rows
  bool per_transaction = false;  // an rr/crr test: rates are transactions, costs per transaction
  Comparison vs_runner_up;       // leader over runner-up (ratio > 0 when compared)
};

struct TestConclusion {
  std::string test;
  std::string unit;  // "Gbit/s" or "tx/s"
  std::vector<Leader> leaders;
};

std::vector<TestConclusion> conclude(const std::vector<SampleRow>& rows);

// The closing block of the run table: one line per test and leader.
std::string conclusion_text(const std::vector<TestConclusion>& cs);
// One sentence: "nebula: 27.8 % faster than wireguard-go (14.8 to 42.4 %): significant".
std::string leader_sentence(const Leader& l);
// After "may be equal": how many rounds would show the difference seen, 80 % of the time, at
// the spread seen (" (about 56 rounds would show a 5.0 % difference ...)"); "" when not judged.
std::string rounds_to_settle(const Comparison& c);
// The report's first line, the answer with its numbers, from the first test's fastest line:
// "Answer (a-to-b): the fastest tunnel is nebula at 0.651 Gbit/s, 0.051 (0.047-0.054) of the
// baseline; 1.027x strongswan-libipsec (0.944-1.117): not significant, the two may be equal."
// "" when the run has no conclusion.
std::string answer_sentence(const std::vector<TestConclusion>& cs, const std::vector<SampleRow>& rows,
                            const std::vector<ProductTestSummary>& summaries);

}  // namespace vpnlab
