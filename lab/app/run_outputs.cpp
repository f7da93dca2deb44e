#include "lab/app/run_outputs.h"

#include <nlohmann/json.hpp>

#include "lab/base/out_dir.h"
#include "lab/results/conclusion.h"
#include "lab/results/emulation_note.h"
#include "lab/results/link_ceiling.h"
#include "lab/results/product_compare.h"
#include "lab/results/report.h"
#include "lab/results/run_files.h"

namespace vpnlab {

std::string run_table(const std::string& run_dir, const std::vector<SampleRow>& rows, const ResultView& view) {
  std::string table = summary_table(rows, view.file_order);
  auto env = read_environment(run_dir, /*required=*/false);
  if (env) table += link_share_text(link_shares(rows, *env));
  if (env && emulated_run(*env)) table += "! " + emulation_note(*env) + "\n";
  if (env && !meters_off_note(*env).empty()) table += "! " + meters_off_note(*env) + "\n";
  if (!view.vs.empty()) table += "\n" + vs_block(rows, view.vs);
  if (std::string end = conclusion_text(conclude(rows)); !end.empty()) table += "\n" + end;
  return table;
}

RunOutputs write_run_outputs(const Plan& plan, const std::string& run_dir, const RunReport& report,
                             const ResultView& view) {
  RunOutputs out;
  out.output_error = report.output_error;
  auto written = read_results_csv(run_dir + "/results.csv");
  const std::vector<SampleRow>& rows = written ? written.value() : report.rows;
  out.summary = run_table(run_dir, rows, view);
  std::vector<std::string> product_names, test_names;
  for (const auto& p : report.products) product_names.push_back(p.product);
  for (const auto& t : plan.tests) test_names.push_back(t.spec.name);
  out.completeness = completeness(rows, product_names, test_names);
  auto keep_first_error = [&](Status s) {
    if (!s && out.output_error.empty()) out.output_error = s.error().message;
  };
  auto dir = OutDir::open(run_dir);
  if (!dir) {
    keep_first_error(dir.error());
    return out;
  }
  keep_first_error(dir->write("summary.txt", out.summary));
  keep_first_error(dir->write("summary.json", summary_json(rows).dump(2) + "\n"));
  // What teardown audits found, for the report (which reads only files of the run).
  nlohmann::json audit = nlohmann::json::object();
  for (const auto& p : report.products)
    if (!p.leftovers.empty() || !p.failed_bringups.empty())
      audit[p.product] = {{"leftovers", p.leftovers},
                          {"bringups_retried", p.failed_bringups.size()},
                          {"failed_bringups", p.failed_bringups}};
  keep_first_error(dir->write("audit.json", audit.dump(2) + "\n"));
  keep_first_error(write_report(run_dir, view));
  return out;
}

}  // namespace vpnlab
