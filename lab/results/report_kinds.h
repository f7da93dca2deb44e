// The report's sections for tests that are not bulk throughput: per rr/crr/latency test its
// rates and percentiles (a rate chart and a percentile chart; a CDF where raw round trips
// were kept), and for UDP tests of several payload sizes, packets/s against the size.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "lab/record/results_csv.h"
#include "lab/results/svg.h"

namespace vpnlab {

struct KindSection {
  std::string heading;
  std::vector<std::vector<std::string>> table;  // header first; empty: no table
  std::string caption, note;
  std::vector<std::pair<std::string, std::string>> plots;  // file name, SVG
};

// `color`: one palette slot per product, shared with the rest of the report.
std::vector<KindSection> transaction_sections(const std::vector<SampleRow>& rows, const std::string& run_dir,
                                              const std::map<std::string, int>& color);
std::vector<KindSection> udp_size_sections(const std::vector<SampleRow>& rows, const std::map<std::string, int>& color);
// Per swept test (lab/results/sweep_table.h): its grid with intervals and a line chart by
// point, one line per product, its interval bounds pale.
std::vector<KindSection> sweep_sections(const std::vector<SampleRow>& rows, const std::map<std::string, int>& color);
// The effects of the swept axes (lab/results/sweep_effects.h): their table, and per sweep
// and axis a chart of the ratios on a log axis around 1 (none: no sweep on two values).
KindSection sweep_effects_section(const std::vector<SampleRow>& rows, const std::map<std::string, int>& color);

// Adds plot `name` to k: one line per series with two or more points (none: no plot).
void add_line_chart(KindSection* k, const std::string& name, const std::string& title, const std::string& x_label,
                    const std::string& y_label, const std::map<std::string, Series>& series);

// A product's palette slot in `color` (-1: none).
int color_of(const std::map<std::string, int>& color, const std::string& product);

// One figure in a fmt format ("{:.3f}"), for the report's tables.
std::string number_text(const char* format, double v);

// x of a percentile on a "nines" axis: p50 -> 0.3, p90 -> 1, p99 -> 2, p99.9 -> 3.
double nines(double percentile);

}  // namespace vpnlab
