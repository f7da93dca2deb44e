// `--json` of `products`, `plan`, `validate`, `cleanup`, `diff`, `compare`, `history` and `run`: stable keys (README,
// "Machine-readable output"), pinned by golden files in tests/data/json/ and by the JSON Schemas in schemas/ (each
// document validated against its own in ctest's package.json_schemas). A key is only ever
// added, never renamed.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "lab/app/run_compare.h"
#include "lab/app/run_diff.h"
#include "lab/app/run_outputs.h"
#include "lab/backends/vm/image.h"
#include "lab/history/history_check.h"
#include "lab/history/history_store.h"
#include "lab/history/trend.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/run/product_probe.h"
#include "lab/run/runner.h"

namespace vpnlab {

inline constexpr int kJsonSchema = 1;  // "schema" of every --json document

// One product as `products --json` lists it; `spec` is empty when its product.toml is invalid.
nlohmann::json product_json(const std::string& name, const Result<ProductSpec>& spec,
                            const std::optional<Availability>& availability);

// `products --json`: the folder read and its products (each a product_json).
nlohmann::json products_listing_json(const std::string& products_path, nlohmann::json products);

nlohmann::json plan_json(const Plan& plan);

// `validate --json`: the file checked and what it plans (an invalid file is an error on
// stderr and exit 2, as every verb's).
nlohmann::json validate_json(const std::string& file, const Plan& plan);

// `cleanup --json`: what was removed (or, with --dry-run, would be), on a hosts topology's
// hosts (`remote`) and on this machine (`local`), one line per object.
nlohmann::json cleanup_json(bool dry_run, const std::vector<std::string>& remote,
                            const std::vector<std::string>& local);

// `image build|list|clean --json`: the action, the cache, the images it built or found (build:
// the one; list: every one, by name) and, for clean, how many it removed.
nlohmann::json image_json(const std::string& action, const std::string& cache, const std::vector<Image>& images,
                          std::optional<int> removed);

nlohmann::json diff_json(const DiffOutcome& diff, const Thresholds& thresholds);

nlohmann::json compare_json(const CompareOutcome& compare);
nlohmann::json effects_json(const EffectsOutcome& e);  // compare RUN --effects

// `history --json` of the file at `path`: its runs; with --product, the series; `history
// check --json`: the newest run judged against each series' comparable past.
nlohmann::json history_runs_json(const std::string& path, const std::vector<HistoryRun>& runs);
nlohmann::json history_series_json(const std::string& path, const std::string& metric, bool by_version,
                                   const std::vector<Trend>& trends);
nlohmann::json history_check_json(const std::string& path, const std::string& metric, double threshold,
                                  const CheckOutcome& outcome);

// `run --json`, once the run ended with `exit_status`: where it is, how it ended, and the
// summary's rows (summary.json as written; null when it could not be).
nlohmann::json run_json(const std::string& run_dir, int exit_status, const RunReport& report,
                        const RunOutputs& outputs);

}  // namespace vpnlab
