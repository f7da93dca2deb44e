// `vpnlab history`: the runs kept in the history file (lab/history), and `history import RUN...`
// to add run directories to it (the runs made before the history existed count too).
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "lab/app/history_append.h"
#include "lab/base/fs_util.h"
#include "lab/base/terminal_text.h"
#include "lab/base/text_table.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"
#include "lab/history/history_check.h"
#include "lab/history/history_jsonl.h"
#include "lab/history/history_page.h"
#include "lab/history/history_store.h"
#include "lab/history/trend.h"

namespace vpnlab {

namespace {

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Each argument in turn: a run directory, or a file written by 'history export --jsonl'.
// One that cannot be read is named and the others are still added. Exit 1 when any failed.
int import_runs(HistoryStore& store, const std::vector<std::string>& inputs, bool replace) {
  int failed = 0;
  for (const auto& input : inputs) {
    if (is_regular_file(input)) {
      auto count = import_jsonl(store, input, replace);
      if (!count) {
        std::cerr << count.error().format() << "\n";
        ++failed;
        continue;
      }
      std::cout << input << ": " << count->added << " run(s) added, " << count->present << " already in the history\n";
      for (const auto& c : count->changed) std::cout << "  " << c << "\n";
      continue;
    }
    std::string said;
    auto added = store.add_run(input, "", replace, &said);
    if (!added) {
      std::cerr << with_context(added.error(), "history import").format() << "\n";
      ++failed;
      continue;
    }
    std::cout << input << ": " << said << "\n";
  }
  return failed ? kExitError : 0;
}

int list_runs(HistoryStore& store, bool json) {
  auto runs = store.runs();
  if (!runs) return fail(runs.error());
  if (json) {
    std::cout << history_runs_json(store.path(), *runs).dump(2) << "\n";
    return 0;
  }
  std::cout << terminal_safe(store.path()) << ": " << runs->size() << " run(s)\n";
  TextTable t({-22, -21, -28, 9, -1});
  std::cout << t.line({"run", "started", "topology", "valid", "products"});
  for (const auto& r : *runs)
    std::cout << t.line(
        {r.run_id, r.started, r.topology_file, std::to_string(r.valid) + "/" + std::to_string(r.rows), r.products});
  if (!runs->empty())
    std::cout << "a product's figures over these runs: vpnlab history --product NAME [--metric ratio] [--by version]\n";
  return 0;
}

void print_trend(const Trend& t) {
  std::cout << "\n"
            << t.product << " \u2014 " << t.test << " \u2014 " << t.metric.title << " (environment: " << t.environment
            << ")\n";
  TextTable table({-22, -21, -24, -14, 4, 10, -22, -1});
  std::cout << table.line({"run", "started", "product", "version", "n", "value", "95 % interval", ""});
  for (const auto& p : t.points)
    std::cout << table.line(
        {p.run_id, p.started, p.product, p.version, std::to_string(p.n), history_figure(p.value),
         p.n >= 2 ? "[" + history_figure(p.low) + ", " + history_figure(p.high) + "]" : "(one sample)",
         p.change_point ? "<- a new level starts" : ""});
  if (!t.apart.empty()) {
    std::cout << t.apart.size() << " point(s) measured in other environments, not in this series:";
    for (const auto& p : t.apart) std::cout << " " << p.run_id << " (" << history_figure(p.value) << ")";
    std::cout << "\n";
  }
}

// The options only `history` takes.
struct HistoryOptions {
  std::string metric;       // --metric M (default gbps)
  bool by_version = false;  // --by version
  bool jsonl = false;       // export --jsonl
  bool replace = false;     // import --replace: a run id there already with other rows is replaced
};

Refusal parse_by(HistoryOptions& into, const std::string& v) {
  if (v != "date" && v != "version") return "--by '" + v + "' is not an axis: date or version";
  into.by_version = v == "version";
  return {};
}

const std::vector<Option<HistoryOptions>> kHistoryOptions = {
    {"--replace", "",
     "history import: replace a run whose id is in the history already with other rows (the history is append-only "
     "without it)",
     set_flag<&HistoryOptions::replace>},
    {"--metric", "M",
     "history: the figure followed (default gbps; 'ratio' = to the same run's baseline; others: cpu_s_per_gbit, "
     "daemon_rss_kb, latency_p99_ms, tps, ...)",
     set_text<&HistoryOptions::metric>, history_metric_keys},
    {"--by", "AXIS",
     "history: order points by date (default) or version (one series per product across its builds NAME@TAG)", parse_by,
     [] {
       return std::vector<std::string>{"date", "version"};
     }},
    {"--jsonl", "", "history export: one JSON object per run per line (history import FILE.jsonl reads it back)",
     set_flag<&HistoryOptions::jsonl>},
};

Result<std::vector<Trend>> trends_asked(HistoryStore& store, const Args& a, const HistoryOptions& own,
                                        HistoryMetric* metric) {
  auto m = history_metric(own.metric.empty() ? "gbps" : own.metric);
  if (!m) return m.error();
  *metric = *m;
  const std::string product = a.products.empty() ? "" : a.products.front();
  auto loaded = load_trends(store, TrendQuery{product, a.test, m->key, own.by_version}, *m);
  if (!loaded) return loaded.error();
  auto trends = std::move(*loaded);
  // Nothing at all is most likely a misspelt name or test: said, not an empty answer.
  if (trends.empty() && !(product.empty() && a.test.empty()))
    return make_error(store.path() + ": no run has " + (product.empty() ? "" : "product '" + product + "'") +
                          (product.empty() || a.test.empty() ? "" : " in ") +
                          (a.test.empty() ? "" : "test '" + a.test + "'") + " with " + m->title,
                      "'vpnlab history' lists the runs and their products");
  return trends;
}

int show_series(HistoryStore& store, const Args& a, const HistoryOptions& own) {
  HistoryMetric metric;
  auto trends = trends_asked(store, a, own, &metric);
  if (!trends) return fail(trends.error());
  if (a.json) {
    std::cout << history_series_json(store.path(), metric.key, own.by_version, *trends).dump(2) << "\n";
    return 0;
  }
  std::cout << store.path() << ": " << metric.title
            << ", each point a run's geometric mean with its 95 % interval, comparable runs only\n";
  for (const auto& t : *trends) print_trend(t);
  return 0;
}

int write_page(HistoryStore& store, const Args& a, const HistoryOptions& own) {
  HistoryMetric metric;
  auto trends = trends_asked(store, a, own, &metric);
  if (!trends) return fail(trends.error());
  auto page = write_history_page(a.out_given ? a.out_dir : "history-report", *trends, store.path(), own.by_version);
  if (!page) return fail(with_context(page.error(), "history report"));
  std::cout << "history report: " << *page << " (" << trends->size() << " chart(s))\n";
  return 0;
}

int check(HistoryStore& store, const Args& a, const HistoryOptions& own) {
  auto metric = history_metric(own.metric.empty() ? "gbps" : own.metric);
  if (!metric) return fail(metric.error());
  CheckQuery q{a.products.empty() ? "" : a.products.front(), a.test, metric->key, a.threshold.value_or(0.05)};
  auto trends = load_trends(store, TrendQuery{q.product, q.test, metric->key, /*by_version=*/false}, *metric);
  if (!trends) return fail(trends.error());
  CheckOutcome o = check_newest(*trends, q, *metric);
  if (a.json) {
    std::cout << history_check_json(store.path(), metric->key, q.threshold, o).dump(2) << "\n";
  } else {
    std::cout << check_text(o, q, *metric);
  }
  return o.exit_code;
}

int export_runs(HistoryStore& store, const Args& a, const HistoryOptions& own) {
  if (!own.jsonl) return usage_error("history", "history export writes JSON lines: give --jsonl");
  if (!a.out_given) {
    auto n = export_jsonl(store, std::cout);
    if (!n) return fail(n.error());
    return 0;
  }
  // Written whole through the file door: never through a link, never into a FIFO.
  std::ostringstream out;
  auto n = export_jsonl(store, out);
  if (!n) return fail(with_context(n.error(), a.out_dir));
  if (auto s = write_file(a.out_dir, out.str(), 0644); !s)
    return fail(make_error(s.error().message, "give --out a regular file in a writable directory"));
  std::cerr << "history export: " << *n << " run(s) to " << a.out_dir << "\n";
  return 0;
}

// The sub-verbs, as the usage error lists them and completion offers them.
const std::vector<std::string> kHistorySubverbs = {"import", "export", "report", "check"};

int cmd_history(const Args& a) {
  HistoryOptions own;
  if (auto code = parse_own("history", kHistoryOptions, a, &own)) return *code;
  const std::string sub = a.positional.empty() ? "" : a.positional[0];
  if (!sub.empty() && std::find(kHistorySubverbs.begin(), kHistorySubverbs.end(), sub) == kHistorySubverbs.end()) {
    std::string known;
    for (const auto& s : kHistorySubverbs) known += (known.empty() ? "" : ", ") + s;
    return usage_error("history", "'" + sub + "' is not a history command (" + known + ")");
  }
  if (sub == "import" && a.positional.size() < 2)
    return usage_error("history",
                       "give the run directories or exported files to import: history import RUN_DIR|FILE.jsonl...");
  if (sub != "import" && a.positional.size() > 1)
    return usage_error("history", "'" + a.positional[1] + "': history " + sub + " takes no file");
  if (a.products.size() > 1) return usage_error("history", "give one --product");
  // Only import writes; every other history verb reads, and opens the file read-only.
  auto store = open_history(a.history_path, sub == "import" ? HistoryAccess::read_write : HistoryAccess::read_only);
  if (!store) return fail(store.error());
  if (sub == "import")
    return import_runs(*store, std::vector<std::string>(a.positional.begin() + 1, a.positional.end()), own.replace);
  if (sub == "export") return export_runs(*store, a, own);
  if (sub == "report") return write_page(*store, a, own);
  if (sub == "check") return check(*store, a, own);
  if (!a.products.empty() || !a.test.empty() || !own.metric.empty() || own.by_version)
    return show_series(*store, a, own);
  return list_runs(*store, a.json);
}

}  // namespace

extern const Verb kHistoryVerb = {
    "history",
    "history [--json] | history --product P [--test T] [--metric M] [--by date|version] [--json]\n"
    "           | history check [--product P] [--test T] [--metric M] [--threshold X] [--json]\n"
    "           | history report [--product P] [--metric M] [--by date|version] [--out DIR]\n"
    "           | history import RUN_DIR|FILE.jsonl... [--replace] | history export --jsonl [--out FILE]   (each: "
    "[--history PATH])",
    "The history (an SQLite file: every run's provenance and rows). Alone: its runs. With --product: the product's "
    "series,\n"
    "one point per run (the geometric mean of its valid samples, 95 % interval), comparable runs only (same machine,\n"
    "topology, pinning, MTU, kernel, CPU, sample length; README 'History'), change points marked; --by version orders "
    "a\n"
    "product's builds (nebula, nebula@1.9.7, ...) by version. 'check': the newest run against each series' earlier\n"
    "comparable runs; exit 3 on a regression (worse beyond --threshold, default 0.05, with its prediction interval "
    "wholly\n"
    "on the worse side), 0 none, 4 no comparable history (fewer than 4 earlier runs). 'report': DIR/history.html "
    "(default\n"
    "DIR history-report), one trend chart per product, test and metric. 'import' adds run directories or exported "
    "files\n"
    "(merged by run id; append-only: a run id there already with other rows is refused unless --replace, a resumed\n"
    "run's extra rows are added); 'export --jsonl' writes one line per run. A file that is not a vpnlab history, is "
    "damaged or\n"
    "is of a newer schema is refused, never overwritten.",
    {"--history", "--json", "--product", "--test", "--metric", "--by", "--threshold", "--out", "--jsonl", "--replace"},
    cmd_history,
    {{"--out", "report: the directory of history.html (default history-report); export: the file (default stdout)"},
     {"--product", "the product (or build NAME@VERSION) whose series to show or check"},
     {"--threshold",
      "check: a regression is worse by more than X (default 0.05) with its interval wholly on the worse side"}},
    [](const std::vector<std::string>& p) { return first_word_of(p, kHistorySubverbs); },
    own_options(kHistoryOptions)};

}  // namespace vpnlab
