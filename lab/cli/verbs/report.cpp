// `vpnlab report RUN_DIR`: a run's table, summaries and report remade from its raw files.
#include <iostream>

#include <nlohmann/json.hpp>

#include "lab/app/run_compare.h"
#include "lab/app/run_outputs.h"
#include "lab/base/out_dir.h"
#include "lab/cli/verbs/verb.h"
#include "lab/record/results_csv.h"
#include "lab/results/report.h"
#include "lab/results/summary.h"

namespace vpnlab {
namespace {

int cmd_report(const Args& a) {
  if (a.positional.size() != 1) return usage_error("report", "give one run directory");
  const std::string dir = run_dir_arg(a.positional[0]);
  auto rows = read_results_csv(dir + "/results.csv");
  if (!rows) return fail(with_context(rows.error(), "report"));
  if (!a.vs.empty())
    if (auto s = check_vs_product(*rows, a.vs, dir + "/results.csv"); !s)
      return fail(with_context(s.error(), "report --vs"));
  const ResultView view{a.vs, a.file_order};
  std::string table = run_table(dir, *rows, view);
  auto out = OutDir::open(dir);
  if (!out) return fail(with_context(out.error(), "report"));
  if (auto s = out->write("summary.txt", table); !s) return fail(with_context(s.error(), "report"));
  if (auto s = out->write("summary.json", summary_json(rows.value()).dump(2) + "\n"); !s)
    return fail(with_context(s.error(), "report"));
  if (auto s = write_report(dir, view); !s) return fail(with_context(s.error(), "report"));
  std::cout << table;
  return 0;
}

}  // namespace

extern const Verb kReportVerb = {"report",
                                 "report RUN_DIR [--vs PRODUCT] [--sort fastest|file]",
                                 "Recomputes the table, summary.txt, summary.json, report.md, report.html and plots/ "
                                 "of a run from its raw files alone.",
                                 {"--vs", "--sort"},
                                 cmd_report};

}  // namespace vpnlab
