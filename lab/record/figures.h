// One descriptor per results.csv column, in file order: how it is written and read, its
// type, unit, which tests fill it, what it means and since when, the bounds a row is held
// to, and, for a figure rows are judged by, its metric facet (title, direction, verdict
// words, whether compare/diff judge it, how the summary and report tables show it).
// The CSV header and reader, check_row, the column document (`vpnlab schema results.csv`,
// docs/output.md), the rows.jsonl schema, the metric table and the summary's and report's
// interval columns all come from this table. A new figure: its SampleRow field, its entry
// here, the line that measures it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "lab/record/results_csv.h"

namespace vpnlab {

struct MetricFacet {
  int rank;           // place in the summary's metric order (Gbit/s is 0)
  const char* title;  // "CPU-s/Gbit"
  bool higher_is_better;
  const char* better;  // verdict words: "faster"/"slower", "cheaper"/"costlier", ...
  const char* worse;
  bool judged;  // `compare` and `diff` give it a verdict (beside Gbit/s)
  // The value a summary takes (nullptr: the column's own number) and whether the row
  // measured it (nullptr: always; no daemon: no RSS; no echoes: no latency).
  double (*value)(const SampleRow&) = nullptr;
  bool (*measured)(const SampleRow&) = nullptr;
  // A column "median (interval)" in the summary table (its head and width) and the report
  // ("HEAD (95 %)"), the median's format and the scale it is divided by; no head: not tabled.
  const char* table_head = nullptr;
  int table_width = 12;
  const char* format = "{:.2f}";
  double scale = 1;
  int table_rank = 0;  // the column's place among the tabled metrics
};

struct Figure {
  const char* name;
  ColumnType type;
  std::string (*get)(const SampleRow&);
  void (*set)(SampleRow&, const std::string&);
  double (*number)(const SampleRow&);  // integer and real columns; nullptr for text and flags
  const char* unit;                    // "" for a name, a count or a flag
  const char* filled_by;               // "all", a test kind, "udp", "hosts backend", "[[chain]]"
  const char* about;
  const char* since;  // the vpnlab version that first wrote it
  // Numbers: check_row refuses a row outside [min, max] (max: above what no machine measures).
  double min = 0, max = 0;
  bool bounded = false;
  std::optional<MetricFacet> metric;
  // A number this row did not measure (the baseline's daemon RSS, latency without probes, a
  // transaction time of a bulk sample) is written empty, not 0: a reader that averages the
  // column (a dashboard fed by --rows-jsonl) must not average in zeros. Read back as 0.
  bool (*measured)(const SampleRow&) = nullptr;
};

// The column's text for this row: empty where the row did not measure it.
std::string figure_text(const Figure& f, const SampleRow& r);

// v with `digits` decimals, as a real column is written ("%.*f").
std::string fixed_text(double v, int digits);

// Every column, in file order.
const std::vector<Figure>& figures();
const Figure* find_figure(const std::string& name);

}  // namespace vpnlab
