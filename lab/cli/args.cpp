#include "lab/cli/args.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <regex>

#include "lab/base/bounds.h"
#include "lab/base/fs_util.h"
#include "lab/base/wrap_text.h"
#include "lab/model/backend_traits.h"
#include "lab/model/install_layout.h"
#include "lab/model/product_spec.h"
#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"

namespace vpnlab {

std::optional<int> whole_int(const std::string& v) {
  int n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size() || v.empty()) return std::nullopt;
  return n;
}

std::optional<double> whole_double(const std::string& v) {
  if (v.empty() || std::isspace(static_cast<unsigned char>(v.front()))) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (errno != 0 || end != v.c_str() + v.size() || !std::isfinite(x)) return std::nullopt;
  return x;
}

namespace {

// What completion offers after --product, --vs and --backend.
std::vector<std::string> product_names() { return list_products(products_path(own_binary_dir())); }
std::vector<std::string> product_choices() {
  std::vector<std::string> names = {"all", "all-plain"};
  for (auto& p : product_names()) names.push_back(std::move(p));
  return names;
}

// Each option's parser: sets its field of Args, or says why the value is refused (a usage
// error, exit 2). The bounds are those of the topology file's own keys.
Refusal parse_samples(Args& a, const std::string& v) {
  // The same bounds as [bench] samples: a typo must not grow vpnlab until the OOM killer.
  a.samples = whole_int(v);
  if (!a.samples) return "--samples '" + v + "' is not a number";
  if (*a.samples < kMinSamples || *a.samples > kMaxSamples)
    return "--samples " + v + " is out of range: " + std::to_string(kMinSamples) + " to " + std::to_string(kMaxSamples);
  return {};
}

Refusal parse_duration_option(Args& a, const std::string& v) {
  a.duration_s = parse_duration(v);
  if (!a.duration_s) return "--duration '" + v + "' is not a duration (e.g. 10s, 500ms)";
  if (*a.duration_s < kMinSampleSeconds || *a.duration_s > kMaxSampleSeconds)
    return "--duration " + v + " is out of range: " + std::to_string(static_cast<int>(kMinSampleSeconds)) + "s to " +
           std::to_string(static_cast<int>(kMaxSampleSeconds)) + "s per sample";
  return {};
}

Refusal parse_backend(Args& a, const std::string& v) {
  if (!is_backend(v)) return "--backend '" + v + "' is not a backend: " + backend_list();
  a.backend = v;
  return {};
}

Refusal parse_threshold(Args& a, const std::string& v) {
  auto x = whole_double(v);
  if (!x || *x < 0 || *x >= 1) return "--threshold '" + v + "' is not a fraction in [0, 1), e.g. 0.1 for 10 %";
  a.threshold = *x;
  return {};
}

// "2%" or 0.02: the relative half-width asked for.
Refusal parse_precision_option(Args& a, const std::string& v) {
  a.precision = parse_precision(v);
  if (!a.precision) return "--precision '" + v + "' is not a precision, e.g. 2% or 0.02";
  if (*a.precision < kMinPrecision || *a.precision > kMaxPrecision)
    return "--precision " + v + " is out of range: 0.1% to 50%";
  return {};
}

// A budget, unlike a sample's length, may be hours.
Refusal parse_max_time(Args& a, const std::string& v) {
  a.max_time_s = parse_budget(v);
  if (!a.max_time_s || *a.max_time_s < 1 || *a.max_time_s > kMaxBudgetSeconds)
    return "--max-time '" + v + "' is not a duration from 1s to 168h (e.g. 15m, 2h)";
  return {};
}

Refusal parse_min_rounds(Args& a, const std::string& v) {
  a.min_rounds = whole_int(v);
  if (!a.min_rounds) return "--min-rounds '" + v + "' is not a number";
  if (*a.min_rounds < 2 || *a.min_rounds > kMaxSamples)
    return "--min-rounds " + v + " is out of range: 2 to " + std::to_string(kMaxSamples);
  return {};
}

Refusal parse_sort(Args& a, const std::string& v) {
  if (v != "fastest" && v != "file") return "--sort '" + v + "' is not an order: fastest or file";
  a.file_order = v == "file";
  return {};
}

}  // namespace

int usage_error(const std::string& verb, const std::string& msg) {
  std::cerr << "vpnlab: error: " << msg << "\nhint: see 'vpnlab " << verb << " --help'\n";
  return kExitUsage;
}

int fail(const Error& e) {
  std::cerr << e.format() << "\n";
  return kExitError;
}

bool need_root(const std::string& verb) {
  if (geteuid() == 0) return true;
  std::cerr << "vpnlab: error: '" << verb << "' creates network namespaces and needs root\nhint: run it as root\n";
  return false;
}

namespace {

// What a run measures and where it writes.
void add_run_options(std::vector<OptionDef>* o) {
  std::vector<OptionDef> part = {
      {"--product", "NAME",
       "a product (repeatable; 'all' = every product and registry build NAME@VERSION that can run here, 'all-plain' = "
       "every product by its plain name; NAME@TAG=/path: another build); default: [bench] products",
       [](Args& a, const std::string& v) {
         a.products.push_back(v);
         return std::string();
       },
       product_choices},
      {"--samples", "N", "samples per test, 1 to 1000 (default: [bench] samples)", parse_samples},
      {"--duration", "D", "seconds per sample, 1s to 3600s, e.g. 10s (default: [bench] duration)",
       parse_duration_option},
      {"--out", "DIR", "parent of the run directory (default: results)",
       [](Args& a, const std::string& v) {
         a.out_dir = v, a.out_given = true;
         return std::string();
       }},
      {"--keys", "DIR", "reuse the key set in DIR, so two runs use the very same keys", set_text<&Args::keys_dir>},
      {"--resume", "RUN_DIR", "continue an interrupted run: same topology and keys, only the missing rows",
       set_text<&Args::resume_dir>},
      {"--backend", "B",
       "netns, vm or hosts instead of [lab] backend (one file serves all: [[host]] and node hosts are used by 'hosts' "
       "only)",
       parse_backend, backend_names},
      {"--no-pin", "", "pin nothing (daemons, iperf3, softirq), to show what pinning changes", set_flag<&Args::no_pin>},
      {"--sequential", "", "all samples of one product, then the next (default: interleaved rounds)",
       set_flag<&Args::sequential>},
      {"--from", "RUN_DIR",
       "rerun exactly what that run did (its topology copy, products, samples, keys); versions must match; "
       "--product, --samples, --duration, --no-pin, --sequential and --resume cannot change it; with "
       "'plan --precision': the earlier run whose spread predicts the rounds; with 'product new': "
       "the product whose spec and templates the new one copies",
       set_text<&Args::from_dir>},
      {"--history", "PATH",
       "the history file (default $VPNLAB_HISTORY, else /var/lib/vpnlab/history.sqlite as root, else "
       "~/.local/share/vpnlab/history.sqlite)",
       set_text<&Args::history_path>},
  };
  o->insert(o->end(), part.begin(), part.end());
}

// Thresholds and adaptive sampling: what a verdict and a stop are held to.
void add_verdict_options(std::vector<OptionDef>* o) {
  std::vector<OptionDef> part = {
      {"--threshold", "X", "exit 3 when a product is slower by more than X (0.1 = 10 %) even at the interval's best",
       parse_threshold},
      {"--precision", "P",
       "adaptive sampling: rounds go on until the 95 % interval of every product's round-paired ratio to the "
       "baseline (or of NAME@new to NAME@old) is within ±P (e.g. 2%), then stop; at most --samples "
       "rounds (default 100) and --max-time (README: 'Adaptive sampling')",
       parse_precision_option},
      {"--max-time", "D", "with --precision: start no round that would end after D (e.g. 15m, 2h)", parse_max_time},
      {"--min-rounds", "N", "with --precision: rounds before the first look (default 5)", parse_min_rounds},
  };
  o->insert(o->end(), part.begin(), part.end());
}

// How results are read, listed and written out.
void add_reading_options(std::vector<OptionDef>* o) {
  std::vector<OptionDef> part = {
      {"--test", "T",
       "only this test (default: every test both products ran; run, plan: repeatable, these tests of the file)",
       [](Args& a, const std::string& v) {
         a.test = v, a.tests.push_back(v);
         return std::string();
       }},
      {"--vs", "PRODUCT",
       "add a 'vs PRODUCT' block to the table (and the report's pairwise chart): every other product over PRODUCT, "
       "round-paired, with 95 % intervals and verdicts (as 'vpnlab compare')",
       set_text<&Args::vs>, product_names},
      {"--sort", "ORDER",
       "the table's rows within each test: fastest (default: the highest median Gbit/s first) or file (as the products "
       "ran)",
       parse_sort,
       [] {
         return std::vector<std::string>{"fastest", "file"};
       }},
      {"--force", "",
       "diff: compare runs of different topologies or pinning anyway (every difference is printed above the verdicts); "
       "run, plan: measure a sweep whose points the time budget cannot give 3 rounds",
       set_flag<&Args::force>},
      {"--no-history", "", "do not add this run to the history", set_flag<&Args::no_history>},
      {"--no-build", "",
       "build no registry product: one that is not built yet is an error naming 'vpnlab products build NAME'",
       set_flag<&Args::no_build>},
      {"--json", "", "print JSON (stable keys: README, 'Machine-readable output') instead of text",
       set_flag<&Args::json>},
      {"--markdown", "",
       "print a Markdown table (diff: the verdicts, for a CI job's step summary; schema: the columns)",
       set_flag<&Args::markdown>},
  };
  o->insert(o->end(), part.begin(), part.end());
}

}  // namespace

const std::vector<OptionDef>& option_defs() {
  static const std::vector<OptionDef> o = [] {
    std::vector<OptionDef> all;
    add_run_options(&all);
    add_verdict_options(&all);
    add_reading_options(&all);
    return all;
  }();
  return o;
}

std::string help_line(const std::string& head, const std::string& given) {
  constexpr size_t kField = 17, kText = kField + 2;  // the text's column, after the two-space indent
  // One paragraph: a hand-made break (a verb's own help text may carry some) would leave
  // a short line before wrap_line's next one.
  const std::string help = std::regex_replace(given, std::regex("\n *"), " ");
  // Wrapped as printed (with the indent), so that no line passes the terminal's 100 columns.
  if (head.size() < kField)
    return wrap_line("  " + head + std::string(kField - head.size(), ' ') + help, kText).substr(2);
  return head + "\n" + wrap_line(std::string(kText, ' ') + help, kText);
}

const OptionDef* option_def(const std::string& name) {
  for (const auto& o : option_defs())
    if (name == o.name) return &o;
  return nullptr;
}

std::optional<Args> parse_args(const std::string& verb, const std::vector<std::string>& argv,
                               const std::vector<std::string>& allowed, const std::vector<OptionText>& own) {
  Args a;
  auto allowed_opt = [&](const std::string& o) {
    return std::find(allowed.begin(), allowed.end(), o) != allowed.end();
  };
  bool options_end = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string s = argv[i];
    if (options_end || s == "-" || s.empty() || s[0] != '-') {
      a.positional.push_back(s);
      continue;
    }
    if (s == "--") {
      options_end = true;
      continue;
    }  // what follows is a file, even if it starts with '-'
    if (s == "-h" || s == "--help") {
      a.help = true;
      continue;
    }
    if (s == "-q" || s == "--quiet") {
      a.quiet = true;
      continue;
    }
    if (s == "-v" || s == "--verbose") {
      a.verbose = true;
      continue;
    }
    if (s.rfind("--", 0) != 0) {
      usage_error(verb, "unknown option '" + s + "' for '" + verb + "' (short ones: -h, -q, -v)");
      return std::nullopt;
    }
    std::optional<std::string> inline_value;  // --opt=value
    if (auto eq = s.find('='); eq != std::string::npos) {
      inline_value = s.substr(eq + 1);
      s = s.substr(0, eq);
    }
    const OptionText* own_text = nullptr;
    for (const auto& o : own)
      if (s == o.name) own_text = &o;
    const OptionDef* def = allowed_opt(s) && !own_text ? option_def(s) : nullptr;
    if (!allowed_opt(s) || (!def && !own_text)) {
      const std::string guess = closest_match(s, allowed);
      usage_error(verb, "unknown option '" + s + "' for '" + verb + "'" +
                            (guess.empty() ? "" : ": did you mean '" + guess + "'?"));
      return std::nullopt;
    }
    const bool takes_value = *(own_text ? own_text->value : def->value);
    if (!takes_value && inline_value) {
      usage_error(verb, s + " takes no value");
      return std::nullopt;
    }
    if (takes_value && !inline_value && i + 1 >= argv.size()) {
      usage_error(verb, s + " needs a value");
      return std::nullopt;
    }
    const std::string v = !takes_value ? "" : inline_value ? *inline_value : argv[++i];
    if (own_text) {
      a.own.emplace_back(s, v);
      continue;
    }
    if (std::string refused = def->parse(a, v); !refused.empty()) {
      usage_error(verb, refused);
      return std::nullopt;
    }
  }
  return a;
}

}  // namespace vpnlab
