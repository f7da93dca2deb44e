// `vpnlab history ...`: the runs kept across time (lab/cli/history_command.h).
#include "lab/cli/history_command.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {

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
      "check: a regression is worse by more than X (default 0.05) with its interval wholly on the worse side"}}};

}  // namespace vpnlab
