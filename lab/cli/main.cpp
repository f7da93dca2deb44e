// vpnlab: the command line. A verb table; each verb has its own --help.
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "lab/backends/hosts/hosts_runtime.h"
#include "lab/backends/netns/netns_runtime.h"
#include "lab/backends/vm/guest_runtime.h"
#include "lab/backends/vm/image_command.h"
#include "lab/base/bounds.h"
#include "lab/base/terminal_text.h"
#include "lab/base/fs_util.h"
#include "lab/base/out_dir.h"
#include "lab/base/unique_fd.h"
#include "lab/cli/args.h"
#include "lab/cli/backends.h"
#include "lab/cli/cleanup.h"
#include "lab/cli/compare_command.h"
#include "lab/cli/diff_command.h"
#include "lab/cli/doctor.h"
#include "lab/cli/history_command.h"
#include "lab/cli/json_output.h"
#include "lab/cli/product_build.h"
#include "lab/cli/product_new.h"
#include "lab/cli/run_outputs.h"
#include "lab/cli/run_request.h"
#include "lab/cli/sampling.h"
#include "lab/cli/scale_command.h"
#include "lab/cli/schema_command.h"
#include "lab/cli/up_command.h"
#include "lab/cli/version.h"
#include "lab/kernel/namespace.h"
#include "lab/model/install_layout.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"
#include "lab/results/report.h"
#include "lab/results/report_hosts.h"
#include "lab/results/run_files.h"
#include "lab/results/sampling_text.h"
#include "lab/results/summary.h"
#include "lab/run/environment.h"
#include "lab/run/interrupt.h"
#include "lab/run/product_probe.h"
#include "lab/run/progress.h"
#include "lab/run/run_state.h"
#include "lab/run/runner.h"

using namespace vpnlab;

namespace {

constexpr int kExitGate = 3;  // `diff --threshold`: a product got slower by more than allowed
constexpr int kExitNoValidRow = 4;  // `run`: a requested product x test has no valid row (broken product)


// "results/run/" and "results/run" name one run: messages then say ".../environment.json".
std::string run_dir_arg(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}


// `rerun`: `run --from`, whose recorded sample count is the round limit (for `plan`, --from
// only lends its spread).
SamplingRequest sampling_request_of(const Args& a, bool rerun) {
  return SamplingRequest{a.precision, a.max_time_s, a.min_rounds, a.samples.has_value() || rerun, a.force};
}

// Adaptive sampling's own options without --precision are a usage error (exit 2), caught
// before anything is planned.
std::optional<int> sampling_usage(const Args& a, const std::string& verb) {
  if (!a.precision && (a.max_time_s || a.min_rounds))
    return usage_error(verb, std::string(a.max_time_s ? "--max-time" : "--min-rounds") +
                                 " belongs to adaptive sampling: add --precision P (e.g. 2%), or leave it out");
  return std::nullopt;
}

RunRequest request_of(const Args& a, const std::string& file) {
  return RunRequest{file, a.products, a.samples, a.duration_s, a.no_pin, a.sequential, a.keys_dir, a.backend};
}

int cmd_validate(const Args& a) {
  if (a.positional.size() != 1) return usage_error("validate", "give one topology file");
  auto plan = plan_request(request_of(a, a.positional[0]));
  if (!plan) return fail(plan.error());
  std::cout << a.positional[0] << ": ok (" << plan->nodes.size() << " nodes, " << plan->veths.size() << " veth pairs, "
            << plan->bridges.size() << " bridges, " << plan->tests.size() << " tests)\n";
  return 0;
}

int cmd_plan(const Args& a) {
  if (a.positional.size() != 1) return usage_error("plan", "give one topology file");
  if (auto code = sampling_usage(a, "plan")) return *code;
  auto plan = plan_request(request_of(a, a.positional[0]));
  if (!plan) return fail(plan.error());
  auto seq = sequential_request(sampling_request_of(a, /*rerun=*/false), &plan.value());
  if (!seq) return fail(seq.error());
  std::optional<std::vector<SampleRow>> earlier;
  if (!a.from_dir.empty()) {
    auto rows = read_results_csv(run_dir_arg(a.from_dir) + "/results.csv");
    if (!rows) return fail(with_context(rows.error(), "plan --from"));
    earlier = std::move(*rows);
  }
  const std::string power = power_text(planned_comparisons(*plan, products_path(own_binary_dir()), a.vs),
                                       planning_spread(*plan, a.from_dir.empty() ? "" : run_dir_arg(a.from_dir), a.out_dir));
  if (a.json) {
    nlohmann::json j = plan_json(plan.value());
    if (*seq) j["sampling"] = sequential_plan_json(**seq, plan->max_time_s);
    j["power"] = power;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << describe_plan(plan.value());
    if (*seq) std::cout << describe_sampling(plan.value(), **seq, plan->max_time_s, earlier ? &*earlier : nullptr);
    if (*seq && !a.precision) std::cout << kTopologySamplingNote << "\n";
    std::cout << power;
  }
  return 0;
}

int cmd_up(const Args& a) {
  if (a.positional.size() != 1) return usage_error("up", "give one topology file");
  if (!need_root("up")) return kExitError;
  auto plan = plan_request(request_of(a, a.positional[0]));
  if (!plan) return fail(plan.error());
  if (auto s = bring_up(*plan, a.positional[0], helper_dir(own_binary_dir())); !s) {
    if (!interrupted()) return fail(s.error());
    std::cerr << "vpnlab: interrupted: lab '" << plan->lab << "' was removed again\n";
    return kExitInterrupted;
  }
  return 0;
}

int cmd_down(const Args& a) {
  if (a.positional.size() != 1) return usage_error("down", "give the topology file given to 'up'");
  if (!need_root("down")) return kExitError;
  auto topo = load_topology(a.positional[0]);
  if (!topo) return fail(topo.error());
  auto found = bring_down(topo->lab_name);
  if (!found) return fail(found.error());
  if (!*found) std::cout << "down: lab '" << topo->lab_name << "' is not up; nothing to do\n";
  return 0;
}

int cmd_scale(const Args& a) {
  if (a.positional.size() != 1) return usage_error("scale", "give one scale file (e.g. topologies/mesh-scale.toml)");
  return run_scale(ScaleRequest{a.positional[0], a.products, a.nodes, a.out_dir});
}

int cmd_exec(const Args& a) {
  if (a.positional.size() < 3) return usage_error("exec", "give the topology file given to 'up', a node and a command (after --)");
  if (!need_root("exec")) return kExitError;
  auto status = exec_in_node(a.positional[0], a.positional[1], std::vector<std::string>(a.positional.begin() + 2, a.positional.end()));
  if (!status) return fail(status.error());
  return *status;
}

// The exit code says whether the run measured what was asked: CI turns red on a product
// that never came up, not only on a slowdown.
// run --rows-jsonl FILE: created or emptied; a FIFO needs its reader already there (never
// wait for one that may not come); a symbolic link is refused as for every output. "-" is
// stdout (nothing to open).
Result<UniqueFd> open_rows_stream(const std::string& path) {
  if (path == "-") return UniqueFd();
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    const int err = errno;
    return make_error("--rows-jsonl " + path + ": " + errno_text(err),
                      err == ELOOP ? "it is a symbolic link: give the file itself" : err == ENXIO ? "a FIFO with no reader: start the reader first" : "");
  }
  // It stays non-blocking: a reader that stalls never holds the run (ResultsCsv keeps a
  // bounded backlog for it, then drops the stream with a warning).
  return fd;
}

int run_exit_code(const Completeness& c, const std::string& run_dir) {
  if (!c.without_valid.empty()) {
    std::string pairs;
    for (const auto& p : c.without_valid) pairs += (pairs.empty() ? "" : ", ") + p;
    std::cerr << "vpnlab: error: no valid row for " << pairs << "\nhint: the reasons are in " << run_dir
              << "/results.csv (column 'reason') and the logs in " << run_dir << "/logs/\n";
    return kExitNoValidRow;
  }
  if (c.not_valid > 0) {
    std::cerr << "vpnlab: warning: " << c.not_valid << " of " << c.rows << " rows failed or are invalid (every product and test has valid ones)\n"
              << "hint: the reasons are in " << run_dir << "/results.csv (column 'reason')\n";
    return kExitSomeInvalid;
  }
  return 0;
}

int cmd_run(const Args& given) {
  Args a = given;
  if (a.from_dir.empty() && a.positional.size() != 1) return usage_error("run", "give one topology file (or --from RUN_DIR)");
  if (!a.from_dir.empty() && !a.positional.empty()) return usage_error("run", "--from RUN_DIR takes the topology of that run: give no file");
  if (auto code = sampling_usage(a, "run")) return *code;
  if (a.json && a.rows_jsonl == "-")
    return usage_error("run", "--json and --rows-jsonl - both write to stdout: give --rows-jsonl a file");
  // --from repeats a run exactly: an option that would change it is refused, not ignored.
  if (!a.from_dir.empty())
    for (const auto& [given_opt, name] : {std::pair{!a.products.empty(), "--product"}, {a.samples.has_value(), "--samples"},
                                          {a.duration_s.has_value(), "--duration"}, {a.no_pin, "--no-pin"}, {a.sequential, "--sequential"},
                                          {!a.resume_dir.empty(), "--resume"}})
      if (given_opt)
        return usage_error("run", std::string(name) + " cannot be given with --from: --from repeats exactly what that run did (" +
                                      "its products, samples, duration, pinning and order); measure anew with 'vpnlab run FILE " + name + " ...'");
  RunRequest request = request_of(a, a.from_dir.empty() ? a.positional[0] : "");
  // A resumed run samples as it did: adaptively to its own precision and budget, or its
  // fixed count.
  bool fixed_count = !a.from_dir.empty();
  if (!a.resume_dir.empty()) {
    if (auto s = resume_request(run_dir_arg(a.resume_dir), &request); !s) return fail(s.error());
    if (!a.precision && request.precision) {
      a.precision = request.precision;
      if (request.max_time_s > 0) a.max_time_s = request.max_time_s;
    }
    fixed_count = fixed_count || !a.precision;
  }
  auto plan = a.from_dir.empty() ? plan_request(request) : plan_like_run(run_dir_arg(a.from_dir), &request);
  if (!plan) return fail(plan.error());
  if (!a.resume_dir.empty())
    if (auto s = check_resume_plan(run_dir_arg(a.resume_dir), *plan); !s) return fail(s.error());
  auto seq = sequential_request(sampling_request_of(a, fixed_count), &plan.value());
  if (!seq) return fail(seq.error());
  // Products are as given (NAME@TAG=/path too); rows carry the name before '='.
  if (!a.vs.empty() && std::none_of(plan->products.begin(), plan->products.end(), [&](const std::string& p) { return p.substr(0, p.find('=')) == a.vs; }))
    return usage_error("run", "--vs " + a.vs + ": not a product of this run (give it with --product too)");
  if (!need_root("run")) return kExitError;
  // A registry product asked for by name and not built yet is built now (or refused with
  // --no-build); the plan is then made again, with its binaries.
  auto built = build_products_for_run(plan->products, products_path(own_binary_dir()), shipped_dir(own_binary_dir()) + "/products", a.no_build,
                                      std::cerr, install_interrupt_handlers());
  if (!built) return interrupted() ? kExitInterrupted : fail(built.error());
  if (*built > 0) {
    plan = a.from_dir.empty() ? plan_request(request) : plan_like_run(run_dir_arg(a.from_dir), &request);
    if (!plan) return fail(plan.error());
    seq = sequential_request(sampling_request_of(a, fixed_count), &plan.value());
    if (!seq) return fail(seq.error());
  }
  auto lock = RunLock::acquire();
  if (!lock) return fail(lock.error());
  if (auto s = refuse_debris(); !s) return fail(s.error());
  if (auto s = refuse_kept_lab(plan->lab, plan->topology_file); !s) return fail(s.error());
  RunOptions opts;
  opts.run_dir = a.out_dir + "/" + plan->run_id;
  if (!a.resume_dir.empty()) {
    std::string dir = run_dir_arg(a.resume_dir);
    if (access((dir + "/results.csv").c_str(), R_OK) != 0)
      return fail(make_error("cannot resume " + dir + ": it has no results.csv", "give the run directory printed by the interrupted run"));
    if (auto s = check_no_links_below(dir); !s) return fail(with_context(s.error(), "cannot resume " + dir));
    plan->run_id = dir.substr(dir.rfind('/') + 1);  // run_bench takes the rows' own id, if there are rows
    opts.run_dir = dir;
    opts.resume = true;
  }
  opts.products_dir = products_path(own_binary_dir());
  opts.keys_dir = request.keys_dir;
  opts.sequential = *seq;
  opts.max_time_s = plan->max_time_s;
  opts.interrupt_fd = install_interrupt_handlers();
  UniqueFd rows_stream;
  if (!a.rows_jsonl.empty()) {
    auto fd = open_rows_stream(a.rows_jsonl);
    if (!fd) return fail(fd.error());
    rows_stream = std::move(*fd);
    opts.rows_jsonl_fd = a.rows_jsonl == "-" ? STDOUT_FILENO : rows_stream.get();
    opts.rows_jsonl_name = a.rows_jsonl == "-" ? "stdout" : a.rows_jsonl;
  }
  const BackendEntry& backend = backend_entry(plan->backend);
  opts.probe_capabilities = capability_probe_for(plan->backend);
  opts.in_guests = backend.products_in_guests;
  opts.lab_remains = [](const std::string& prefix) { return !list_namespaces(prefix).empty(); };
  opts.crr_program = helper_dir(own_binary_dir()) + "/vpnlab-crr";
  // Guests and agents on hosts see the run directory at the same path: it must be absolute.
  if (backend.absolute_run_dir) opts.run_dir = std::filesystem::absolute(opts.run_dir).lexically_normal().string();
  auto factory = backend.prepare_run(*plan, opts, helper_dir(own_binary_dir()));
  if (!factory) return fail(factory.error());
  opts.build_nodes = std::move(*factory);
  for (const auto& w : plan->pin_warnings) spdlog::warn("pinning: {}", w);
  if (std::find(plan->products.begin(), plan->products.end(), "baseline") == plan->products.end())
    spdlog::warn("no 'baseline' in this run: no ratio to the no-tunnel ceiling and no CPU over it (add --product baseline)");
  spdlog::info("run {}: {} product(s) x {} test(s) x {} samples of {} s; results in {}", plan->run_id, plan->products.size(),
               plan->tests.size(), plan->samples, plan->duration_s, opts.run_dir);
  if (*seq) {
    std::string how = describe_sampling(*plan, **seq, plan->max_time_s, nullptr);
    spdlog::info("{}", how.substr(0, how.find_last_not_of('\n') + 1));
    if (!given.precision && a.resume_dir.empty()) spdlog::info("{}", kTopologySamplingNote);
  }
  // Before the first sample: what this many samples can tell apart (adaptive sampling stops on precision instead).
  if (!*seq)
    std::cerr << power_text(planned_comparisons(*plan, opts.products_dir, a.vs),
                            planning_spread(*plan, a.from_dir.empty() ? "" : run_dir_arg(a.from_dir), a.out_dir));
  auto report = run_bench(plan.value(), opts);
  if (!report) return fail(report.error());
  RunOutputs outputs = write_run_outputs(plan.value(), opts.run_dir, *report, ResultView{a.vs, a.file_order});
  // With --json (or rows on stdout), stdout holds only JSON; what a person reads goes to stderr.
  std::ostream& out = a.json || a.rows_jsonl == "-" ? std::cerr : std::cout;
  out << "\n" << outputs.summary;
  if (report->sampling)
    if (auto env = read_environment(opts.run_dir, /*required=*/false); env) out << sampling_line(*env) << "\n";
  if (const std::string timing = timing_line(report->timing); !timing.empty()) out << timing << "\n";
  for (const auto& p : report->products) {
    if (!p.failure.empty())
      out << "! " << p.product << (p.started ? ": a bring-up failed (its round's rows say so): " : ": never came up: ")
          << p.failure.substr(0, p.failure.find('\n')) << "\n";
    for (const auto& l : p.leftovers) out << "! " << p.product << " left behind: " << l << "\n";
  }
  out << "results: " << opts.run_dir << "/results.csv\n";
  if (!report->interrupted && outputs.output_error.empty() && !a.no_history) add_to_history(a.history_path, opts.run_dir);
  int code = 0;
  if (report->interrupted) {
    std::cerr << "vpnlab: interrupted: finished samples are kept in " << opts.run_dir << "/results.csv\n";
    code = kExitInterrupted;
  } else if (!outputs.output_error.empty()) {
    std::cerr << "vpnlab: error: " << outputs.output_error << "\nhint: every row is in " << opts.run_dir
              << "/results.csv; once the cause is fixed, 'vpnlab report " << opts.run_dir << "' writes the summary and report\n";
    code = kExitError;
  } else {
    code = run_exit_code(outputs.completeness, opts.run_dir);
  }
  if (a.json) std::cout << run_json(opts.run_dir, code, *report, outputs).dump(2) << "\n";
  return code;
}

int cmd_cleanup(const Args& a) {
  if (a.positional.size() > 1) return usage_error("cleanup", "give at most one topology file (its hosts are cleaned too)");
  // A hosts topology: its hosts first (read before anything local is touched).
  std::optional<Plan> hosts_plan;
  if (!a.positional.empty()) {
    auto plan = plan_request(request_of(a, a.positional[0]));
    if (!plan) return fail(plan.error());
    if (plan->backend == "hosts") hosts_plan = std::move(*plan);
  }
  if (!need_root("cleanup")) return kExitError;
  auto lock = RunLock::acquire();
  if (!lock) return fail(lock.error());
  if (hosts_plan) {
    auto lines = cleanup_hosts(*hosts_plan, HostsOptions{helper_dir(own_binary_dir()) + "/vpnlab-host-agent", {}}, a.dry_run);
    if (!lines) return fail(lines.error());
    for (const auto& line : *lines) std::cout << line << "\n";
  }
  auto report = cleanup_lab_objects(a.dry_run);
  if (!report) return fail(report.error());
  for (const auto& line : report->actions) std::cout << line << "\n";
  if (report->actions.empty()) std::cout << "cleanup: nothing of vpnlab's on this machine\n";
  return 0;
}

// `products build NAME[@VERSION]...|all`: the registry builds, made where missing.
int cmd_products_build(const Args& a) {
  std::vector<std::string> names(a.positional.begin() + 1, a.positional.end());
  if (names.empty()) return usage_error("products", "products build: name the builds (NAME, NAME@VERSION) or 'all'");
  auto builds = registry_builds_named(shipped_dir(own_binary_dir()) + "/products", names);
  if (!builds) return fail(builds.error());
  if (!need_root("products build")) return kExitError;
  const int interrupt = install_interrupt_handlers();
  int failed = 0;
  for (const auto& b : *builds) {
    if (interrupted()) break;
    if (auto s = make_registry_build(b, std::cerr, interrupt); !s) {
      std::cerr << s.error().format() << "\n";
      ++failed;
    }
  }
  if (interrupted()) return kExitInterrupted;
  if (failed) std::cerr << "vpnlab: " << failed << " of " << builds->size() << " builds failed; the others are built\n";
  return failed ? kExitError : 0;
}

// Text: one product per line, tab-separated, the only field that may hold spaces (version
// or reason) last, so `cut -f` and `awk -F'\t'` read it.
int cmd_products(const Args& a) {
  if (!a.positional.empty() && a.positional[0] == "build") return cmd_products_build(a);
  if (!a.positional.empty()) return usage_error("products", "'" + a.positional[0] + "' is not a products command (products, products build)");
  std::string dir = products_path(own_binary_dir());
  nlohmann::json all = nlohmann::json::array();
  if (!a.json) std::cout << "NAME\tSTATUS\tCIPHER\tVERSION OR REASON\n";
  for (const auto& name : list_products_and_builds(dir)) {
    auto spec = load_product(dir, name);
    std::optional<Availability> av;
    if (spec) av = availability_for(spec.value(), "netns");
    if (a.json) {
      all.push_back(product_json(name, spec, av));
    } else if (!spec) {
      std::cout << name << "\tinvalid\t-\t" << one_line(spec.error().where_and_what()) << "\n";
    } else {
      // The version is what the product's binary printed: no control character passes.
      std::cout << name << "\t" << (av->available ? "available" : "unavailable") << "\t" << (spec->cipher.empty() ? "-" : spec->cipher)
                << "\t" << terminal_safe(one_line(av->available ? av->version + " (" + spec->origin + ")" : av->reason)) << "\n";
    }
  }
  if (a.json) std::cout << products_listing_json(dir, all).dump(2) << "\n";
  return 0;
}

int cmd_report(const Args& a) {
  if (a.positional.size() != 1) return usage_error("report", "give one run directory");
  const std::string dir = run_dir_arg(a.positional[0]);
  auto rows = read_results_csv(dir + "/results.csv");
  if (!rows) return fail(with_context(rows.error(), "report"));
  if (!a.vs.empty())
    if (auto s = check_vs_product(*rows, a.vs, dir + "/results.csv"); !s) return fail(with_context(s.error(), "report --vs"));
  const ResultView view{a.vs, a.file_order};
  std::string table = run_table(dir, *rows, view);
  auto out = OutDir::open(dir);
  if (!out) return fail(with_context(out.error(), "report"));
  if (auto s = out->write("summary.txt", table); !s) return fail(with_context(s.error(), "report"));
  if (auto s = out->write("summary.json", summary_json(rows.value()).dump(2) + "\n"); !s) return fail(with_context(s.error(), "report"));
  if (auto s = write_report(dir, view); !s) return fail(with_context(s.error(), "report"));
  std::cout << table;
  return 0;
}

int cmd_diff(const Args& a) {
  if (a.positional.size() != 1 && a.positional.size() != 2)
    return usage_error("diff", "give two run directories, RUN_A (before) and RUN_B (after), or one run with two tagged versions");
  if (a.positional.size() == 1 && a.relative) return usage_error("diff", "--relative compares two runs; one run's versions share their rounds already");
  Thresholds t = a.cost_thresholds;
  t.gbps = a.threshold;
  auto d = a.positional.size() == 1 ? diff_tagged_run(run_dir_arg(a.positional[0]), t)
                                    : diff_runs(run_dir_arg(a.positional[0]), run_dir_arg(a.positional[1]), t, a.relative, a.force);
  if (!d) return fail(d.error());
  if (a.json) {
    std::cout << diff_json(*d, t).dump(2) << "\n";
  } else if (a.markdown) {
    if (!d->provenance.empty()) {
      std::cout << "The runs differ in:\n\n";
      for (const auto& p : d->provenance) std::cout << "- " << p.what << ": A `" << p.a << "`, B `" << p.b << "`\n";
      std::cout << "\n";
    }
    std::cout << comparison_markdown(d->comparisons, t.gbps);
    for (const auto& metric : cost_metrics()) {
      std::vector<Comparison> of_metric;
      for (const auto& c : d->costs)
        if (c.metric == metric.key) of_metric.push_back(c);
      if (!of_metric.empty()) std::cout << "\n" << comparison_markdown(of_metric, t.of(metric.key), metric);
    }
  } else {
    std::cout << d->text;
  }
  return d->gate_failed ? kExitGate : 0;
}

int cmd_compare(const Args& a) {
  if (a.positional.size() != 3) return usage_error("compare", "give a run directory and two of its products: compare RUN A B");
  auto c = compare_in_run(run_dir_arg(a.positional[0]), a.positional[1], a.positional[2], a.test);
  if (!c) return fail(c.error());
  if (a.json) std::cout << compare_json(*c).dump(2) << "\n";
  else std::cout << c->text;
  return 0;
}

int cmd_schema(const Args& a) {
  if (a.positional.size() > 1) return usage_error("schema", "give at most one name (vpnlab schema lists them)");
  if (a.json && a.markdown) return usage_error("schema", "--json and --markdown are two formats: give one");
  auto text = schema_text(a.positional.empty() ? "" : a.positional[0], a.json ? SchemaFormat::json : a.markdown ? SchemaFormat::markdown : SchemaFormat::text);
  if (!text) return fail(text.error());
  std::cout << *text;
  return 0;
}

int cmd_doctor(const Args& a) {
  if (a.positional.size() > 1) return usage_error("doctor", "give at most one topology file (its hosts are probed too)");
  std::optional<Plan> plan;
  if (!a.positional.empty()) {
    auto p = plan_request(request_of(a, a.positional[0]));
    if (!p) return fail(p.error());
    if (p->backend != "hosts") return usage_error("doctor", a.positional[0] + " is not a hosts topology: 'vpnlab doctor' alone probes this machine");
    plan = std::move(*p);
  }
  if (!need_root("doctor")) return kExitError;
  DoctorReport report = doctor_report(products_path(own_binary_dir()));
  int status = 0;
  if (plan) {
    // Each host as a run would find it: ssh, agent version, nic, CPUs, the products.
    HostsOptions opts{helper_dir(own_binary_dir()) + "/vpnlab-host-agent", {}};
    for (const auto& name : plan->products)
      if (auto spec = load_product(products_path(own_binary_dir()), name)) opts.products.push_back({spec->name, spec->binaries, spec->version_argv});
    nlohmann::json hosts = probe_hosts(*plan, opts);
    report.json["hosts"] = hosts;
    report.text += "\nhosts of " + a.positional[0] + ":\n";
    nlohmann::json usable = nlohmann::json::array();
    for (const auto& h : hosts) {
      if (!h.contains("error")) {
        usable.push_back(h);
        continue;
      }
      status = 1;
      report.text += "  ! " + h.value("error", std::string()) + "\n";  // names the host
    }
    for (const auto& line : host_items(nlohmann::json{{"hosts", usable}})) report.text += "  " + line + "\n";
  }
  if (a.json) std::cout << report.json.dump(2) << "\n";
  else std::cout << report.text;
  return status;
}

struct Verb {
  const char* name;
  const char* synopsis;
  const char* help;
  std::vector<std::string> options;
  std::function<int(const Args&)> run;
};

const std::vector<Verb>& verbs() {
  static const std::vector<Verb> v = {
      {"validate", "validate FILE [--product NAME]... [--backend B]", "Checks a topology file and the products it names (every template rendered with stand-in values);\n"
       "creates nothing, needs no root.", {"--product", "--backend"}, cmd_validate},
      {"plan", "plan FILE [--product NAME]... [--samples N] [--duration D] [--no-pin] [--sequential] [--precision P [--max-time D] [--min-rounds N]] [--force] [--from RUN_DIR] [--vs PRODUCT] [--out DIR] [--backend B] [--json]",
       "Prints what a run would create and do; creates nothing, needs no root. Then what its samples can resolve: per kind of\n"
       "comparison the run makes, the smallest difference found with 80 % power, or that no verdict is reachable at all, from\n"
       "the spread of --from RUN_DIR, else of the newest run of the same topology file in --out DIR (default results), else\n"
       "a stated default. With --precision: the rounds adaptive sampling may take (and how many --from's spread suggests).",
       {"--product", "--samples", "--duration", "--no-pin", "--sequential", "--precision", "--max-time", "--min-rounds", "--force", "--from", "--vs", "--out", "--json",
        "--backend"},
       cmd_plan},
      {"up", "up FILE [--backend B]", "Builds the topology and leaves it up until 'vpnlab down': namespaces, links and addresses, or with\n"
       "backend \"vm\" the guests, booted and configured (addresses, MTU, routes, shaping). No product is started.",
       {"--backend"}, cmd_up},
      {"exec", "exec FILE NODE -- CMD [ARG]...", "Runs a command in a node of a topology made by 'up' and exits with its status. In a namespace the\n"
       "command takes over this process (stdin and terminal included); in a guest its agent runs it and its output is\n"
       "printed when it ends (no stdin).", {}, cmd_exec},
      {"down", "down FILE", "Removes a topology made by 'up' (guests too) and waits until the kernel released it.", {}, cmd_down},
      {"run", "run FILE [--product NAME]... [--samples N] [--duration D] [--out DIR] [--keys DIR] [--resume RUN_DIR] [--no-pin] [--sequential] [--from RUN_DIR]\n"
       "           [--precision P [--max-time D] [--min-rounds N] [--force]] [--vs PRODUCT] [--sort fastest|file] [--backend B] [--history PATH | --no-history]\n"
       "           [--json] [--rows-jsonl FILE|-]",
       "Measures the products in interleaved rounds, each on a freshly built topology, and writes DIR/<run_id>/results.csv.\n"
       "A finished run is then added to the history ('vpnlab history'); a history that cannot take it costs the run nothing\n"
       "(a warning; 'vpnlab history import RUN' adds it later).\n"
       "Ctrl-C, SIGTERM and SIGHUP (a closed terminal) stop the sample, tear down and keep the finished rows; a closed\n"
       "pipe on stdout/stderr (| head) only stops the output: the run goes on to its end. A full disk stops the run.\n"
       "Exit codes: 0 every row valid; 4 a product x test has no valid row (a product that never came up, every sample\n"
       "failed); 5 some rows failed or are invalid, but every product x test has valid ones; 1 error (bad input, a lab\n"
       "failure, a full disk, the debris of a killed run: run 'vpnlab cleanup'); 2 usage; 130 interrupted.\n"
       "With --json the table and its notes go to stderr and stdout gets one JSON document once the run ends: the run\n"
       "directory, the exit status, why sampling stopped, the timings and summary.json's rows.",
       {"--product", "--samples", "--duration", "--out", "--keys", "--resume", "--no-pin", "--sequential", "--from", "--precision", "--max-time",
        "--min-rounds", "--force", "--vs", "--sort", "--backend", "--history", "--no-history", "--no-build", "--json", "--rows-jsonl"}, cmd_run},
      {"scale", "scale FILE [--product NAME]... [--nodes N[,N]...] [--out DIR]",
       "Mesh scale: for each mesh size of FILE's [scale] (N nodes on one bridge, every node a peer of every other) and each\n"
       "product, on a fresh mesh: seconds until every node pair answers through the tunnel (all probed at once), the\n"
       "machine's CPU over that bring-up, each node's daemon RSS and threads, and one throughput sample between the first\n"
       "and the last node. Rows go to DIR/<run_id>/scale.csv; products that cannot form a mesh are refused with the reason.\n"
       "Exit codes: 0 every row complete; 5 some row failed (the table says why); 1 error; 130 interrupted.",
       {"--product", "--nodes", "--out"}, cmd_scale},
      {"cleanup", "cleanup [FILE] [--dry-run] [--backend B]", "Removes every vpnlab namespace and the processes in it (objects without the vpnlab- prefix are never touched).\n"
       "With a hosts topology FILE, on each of its hosts too (over ssh): NICs a killed agent left in a namespace go back\n"
       "under their own names, then the lab's namespaces and their processes.",
       {"--dry-run", "--backend"}, cmd_cleanup},
      {"products", "products [--json] | products build NAME[@VERSION]...|all",
       "Lists the products with availability, cipher and version (tab-separated; the reason a product cannot run\n"
       "in place of its version). Looked up in order: the shipped products (PREFIX/share/vpnlab/products, or the source\n"
       "tree), each directory of $VPNLAB_PRODUCTS (':'-separated), ~/.config/vpnlab/products; the first of a name wins.\n"
       "'build': makes the shipped products' registry builds (go install / cargo install at the pinned version) into\n"
       "$VPNLAB_CACHE/products (default /var/cache/vpnlab); NAME builds all of NAME's, 'all' every one; a build there\n"
       "already is kept. 'run' builds a product it is asked for that is not built yet (unless --no-build).",
       {"--json"}, cmd_products},
      {"product", "product new NAME --from PRODUCT --binary /path/to/your/build",
       "Writes a product folder NAME under the first directory of $VPNLAB_PRODUCTS, else ~/.config/vpnlab/products: PRODUCT's\n"
       "spec and templates, running your build where PRODUCT runs its main binary (its first 'binaries' entry). Then\n"
       "'vpnlab run FILE --product NAME' measures it like any product.",
       {"--from", "--binary"}, cmd_product},
      {"history", "history [--json] | history --product P [--test T] [--metric M] [--by date|version] [--json]\n"
                  "           | history check [--product P] [--test T] [--metric M] [--threshold X] [--json]\n"
                  "           | history report [--product P] [--metric M] [--by date|version] [--out DIR]\n"
                  "           | history import RUN_DIR|FILE.jsonl... [--replace] | history export --jsonl [--out FILE]   (each: [--history PATH])",
       "The history (an SQLite file: every run's provenance and rows). Alone: its runs. With --product: the product's series,\n"
       "one point per run (the geometric mean of its valid samples, 95 % interval), comparable runs only (same machine,\n"
       "topology, pinning, MTU, kernel, CPU, sample length; README 'History'), change points marked; --by version orders a\n"
       "product's builds (nebula, nebula@1.9.7, ...) by version. 'check': the newest run against each series' earlier\n"
       "comparable runs; exit 3 on a regression (worse beyond --threshold, default 0.05, with its prediction interval wholly\n"
       "on the worse side), 0 none, 4 no comparable history (fewer than 4 earlier runs). 'report': DIR/history.html (default\n"
       "DIR history-report), one trend chart per product, test and metric. 'import' adds run directories or exported files\n"
       "(merged by run id; append-only: a run id there already with other rows is refused unless --replace, a resumed\n"
       "run's extra rows are added); 'export --jsonl' writes one line per run. A file that is not a vpnlab history, is damaged or\n"
       "is of a newer schema is refused, never overwritten.",
       {"--history", "--json", "--product", "--test", "--metric", "--by", "--threshold", "--out", "--jsonl", "--replace"}, cmd_history},
      {"diff", "diff RUN_A RUN_B [--threshold X] [--threshold-cpu X] [--threshold-rss X] [--threshold-p99 X] [--relative] [--force] [--json|--markdown]\n"
               "           | diff RUN [the same thresholds] [--json|--markdown]",
       "Compares two runs per product x test: faster / slower / no significant difference, with the ratio B/A and its interval\n"
       "(Hodges-Lehmann, Mann-Whitney); the N comparisons of a table cover together with 95 % (each at 1 - 5 %/N) and each\n"
       "verdict is what its interval says.\n"
       "With one RUN measured with --product NAME@A=/path --product NAME@B=/path: the same verdicts for B against A, which\n"
       "ran interleaved in the same rounds (the way to compare two builds: both see the same machine drift).",
       {"--threshold", "--threshold-cpu", "--threshold-rss", "--threshold-p99", "--relative", "--force", "--json", "--markdown"}, cmd_diff},
      {"compare", "compare RUN A B [--test T] [--json]",
       "Which of two products of one run is faster and cheaper, by how much, how sure: per test, the round-paired ratio B/A\n"
       "(and A/B) of Gbit/s, CPU-s/Gbit, daemon peak RSS and p99 latency, each with its interval and the verdict it says\n"
       "(geometric mean of the round-paired ratios, Student t interval as adaptive sampling; each metric's N comparisons\n"
       "cover together with 95 %, each at 1 - 5 %/N). Exit 0 whatever the verdicts.\n"
       "A and B may also be two tests of one product, PRODUCT:TEST or PRODUCT:POINT of a sweep (wireguard-go:streams=1\n"
       "wireguard-go:streams=8): their samples paired by round, as two products' are.",
       {"--test", "--json"}, cmd_compare},
      {"report", "report RUN_DIR [--vs PRODUCT] [--sort fastest|file]",
       "Recomputes the table, summary.txt, summary.json, report.md, report.html and plots/ of a run from its raw files alone.",
       {"--vs", "--sort"},
       cmd_report},
      {"image", "image build [RECIPE] [--rebuild] | image list | image clean",
       "Guest images for the VM backend (default recipe images/debian12.toml), cached by content hash in $VPNLAB_CACHE or\n"
       "/var/cache/vpnlab: the kernel is fetched with apt-get download and unpacked there, never installed on this host.",
       {"--rebuild"}, [](const Args& a) { return image_command(a.positional, a.rebuild); }},
      {"schema", "schema [NAME] [--json|--markdown]",
       "The published data contract. 'schema results.csv': every column in file order with its type, unit, the tests\n"
       "that fill it and its meaning. Every other NAME prints a JSON Schema (draft 2020-12; installed in\n"
       "share/vpnlab/schemas): rows.jsonl (a line of run --rows-jsonl), summary.json, environment.json, and the --json\n"
       "document of run, plan, products, diff, compare, history, doctor and schema. Without a name, the names it knows.",
       {"--json", "--markdown"}, cmd_schema},
      {"doctor", "doctor [FILE] [--backend B] [--json]", "Probes what this machine can do (network features made for real in a scratch namespace, KVM, CPU,\n"
       "steal time, products) and says what that means for results. With a hosts topology FILE, each of its hosts too\n"
       "(ssh, agent version, nic, CPUs, the products there); exit 1 if one cannot be used.", {"--json", "--backend"}, cmd_doctor},
  };
  return v;
}

void print_verb_help(const Verb& v, bool for_man = false) {
  std::cout << (for_man ? "  vpnlab " : "usage: vpnlab ") << v.synopsis << "\n\n" << v.help << "\n\n" << (for_man ? "" : "options:\n");
  for (const auto& name : v.options) {
    const OptionDef* o = option_def(name);
    std::string head = std::string(o->name) + (*o->value ? std::string(" ") + o->value : "");
    std::cout << "  " << help_line(head, o->help);
  }
  std::cout << "  -q, --quiet      warnings and errors only\n  -v, --verbose    debug detail\n  -h, --help       this help\n"
               "  --               what follows is an argument (a file, a run, a name), even if it starts with '-'\n";
}

// What bash completion offers (completion/vpnlab.bash calls `vpnlab _complete CWORD
// WORDS...`, WORDS without the leading "vpnlab"): verbs, a verb's options, product names
// after --product; "_files" or "_dirs" where the shell should complete paths.
int cmd_complete(const std::vector<std::string>& words_in) {
  if (words_in.empty()) return 0;
  int cword = 0;
  try { cword = std::stoi(words_in[0]); } catch (...) { return 0; }
  std::vector<std::string> words(words_in.begin() + 1, words_in.end());
  // COMP_CWORD counts "vpnlab" as word 0; the word being completed may be past the end.
  if (cword < 1 || static_cast<size_t>(cword) > words.size() + 1) return 0;
  const std::string cur = static_cast<size_t>(cword) <= words.size() ? words[cword - 1] : "";
  auto offer = [&](const std::string& c) {
    if (c.rfind(cur, 0) == 0) std::cout << c << "\n";
  };
  if (cword <= 1) {
    for (const auto& v : verbs()) offer(v.name);
    offer("--help");
    offer("--version");
    return 0;
  }
  const Verb* verb = nullptr;
  for (const auto& v : verbs())
    if (words[0] == v.name) verb = &v;
  if (!verb) return 0;
  const std::string prev = words[cword - 2];
  if (const OptionDef* o = option_def(prev); o && *o->value) {
    if (prev == "--product" || prev == "--vs") {
      if (prev == "--product") offer("all");
      for (const auto& p : list_products(products_path(own_binary_dir()))) offer(p);
    } else if (prev == "--backend") {
      for (const auto& b : backend_names()) offer(b);
    } else if (std::string(o->value).find("DIR") != std::string::npos) {
      std::cout << "_dirs\n";
    }
    return 0;
  }
  if (!cur.empty() && cur[0] == '-') {
    for (const auto& name : verb->options) offer(name);
    for (const char* o : {"--help", "--quiet", "--verbose"}) offer(o);
    return 0;
  }
  // The positional words before the one completed (option values left out): what comes next.
  std::vector<std::string> positional;
  for (int i = 1; i < cword - 1; ++i) {
    const std::string& w = words[static_cast<size_t>(i)];
    if (!w.empty() && w[0] == '-') {
      if (const OptionDef* o = option_def(w); o && *o->value) ++i;
      continue;
    }
    positional.push_back(w);
  }
  static const std::map<std::string, std::vector<const char*>> subcommands = {
      {"image", {"build", "list", "clean"}}, {"history", {"import", "export", "report", "check"}}, {"product", {"new"}}};
  if (auto it = subcommands.find(verb->name); it != subcommands.end() && positional.empty()) {
    for (const char* sub : it->second) offer(sub);
    return 0;
  }
  // schema NAME: the names the contract has.
  if (std::string(verb->name) == "schema") {
    if (positional.empty())
      for (const auto& name : schema_names()) offer(name);
    return 0;
  }
  // compare RUN A B: A and B are the run's products.
  if (std::string(verb->name) == "compare" && (positional.size() == 1 || positional.size() == 2)) {
    if (auto env = read_environment(positional[0], /*required=*/false); env && env->contains("products") && (*env)["products"].is_object())
      for (const auto& [name, product] : (*env)["products"].items()) offer(name);
    return 0;
  }
  std::cout << "_files\n";
  return 0;
}

// To stdout when asked for (--help), to stderr when it answers a mistake (no verb at all).
// Every verb's help in one text, laid out for help2man (cmake/vpnlab.h2m adds EXIT STATUS,
// ENVIRONMENT and FILES): "Usage:"/"or:" lines become the SYNOPSIS, each "Verb:" line a
// subsection, option lines tagged paragraphs.
void print_man_text(std::ostream& out) {
  out << "Usage: vpnlab VERB [ARGS]\n";
  for (const auto& v : verbs()) {
    std::string one_line = std::regex_replace(std::string(v.synopsis), std::regex("\n +"), " ");
    out << "  or:  vpnlab " << one_line << "\n";
  }
  out << "  or:  vpnlab --version\n\nEvery verb takes -q (warnings and errors only) and -v (debug detail); "
         "'vpnlab VERB --help' describes one verb.\n";
  for (const auto& v : verbs()) {
    std::string heading = v.name;
    heading[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(heading[0])));
    out << "\n" << heading << ":\n";
    print_verb_help(v, /*for_man=*/true);
  }
}

void print_usage(std::ostream& out) {
  out << "usage: vpnlab VERB [ARGS]   (vpnlab --version or -V: the version)\n\nverbs:\n";
  for (const auto& v : verbs()) out << "  " << v.synopsis << "\n";
  out << "\nevery verb takes -q (warnings and errors only) and -v (debug detail).\n'vpnlab VERB --help' describes one verb.\n"
         "\nexit codes: 0 ok; 1 error; 2 usage; 3 'diff --threshold' gate fired, 'history check' found a regression;\n"
         "4 'run': a product x test has no valid row, 'history check': no comparable history;\n"
         "5 'run' and 'scale': some rows failed or are invalid; 130 interrupted (SIGINT, SIGTERM, SIGHUP).\n";
}

}  // namespace

int main(int argc, char** argv) {
  // Progress and warnings go to stderr; stdout carries only results (the table, listings).
  Progress::install_logger();
  ignore_broken_pipes();
  if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version"))) {
    std::cout << version_text();
    return 0;
  }
  // Every verb's help in one text, laid out for help2man, which turns it into the man page
  // (a line "NAME:" starts a section; option lines become tagged paragraphs).
  if (argc >= 2 && !strcmp(argv[1], "--help-all")) {
    print_man_text(std::cout);
    return 0;
  }
  if (argc >= 2 && !strcmp(argv[1], "_complete")) return cmd_complete(std::vector<std::string>(argv + 2, argv + argc));
  if (argc < 2) {
    print_usage(std::cerr);
    return kExitUsage;
  }
  if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    print_usage(std::cout);
    return 0;
  }
  std::string verb = argv[1];
  for (const auto& v : verbs()) {
    if (verb != v.name) continue;
    auto args = parse_args(verb, std::vector<std::string>(argv + 2, argv + argc), v.options);
    if (!args) return kExitUsage;
    if (args->quiet) spdlog::set_level(spdlog::level::warn);
    if (args->verbose) spdlog::set_level(spdlog::level::debug);
    if (args->help) {
      print_verb_help(v);
      return 0;
    }
    // Every expected failure is a Result; anything that still escapes (a bug, memory) is
    // one line and exit 1, not an abort: the run's RAII has already torn the lab down.
    try {
      return v.run(*args);
    } catch (const std::exception& e) {
      std::cerr << "vpnlab: error: " << verb << ": unexpected failure: " << e.what()
                << "\nhint: this is a bug in vpnlab; 'vpnlab cleanup' removes anything a run left\n";
      return kExitError;
    }
  }
  std::vector<std::string> names;
  for (const auto& v : verbs()) names.push_back(v.name);
  std::string guess = closest_match(verb, names);
  std::cerr << "vpnlab: error: unknown verb '" << verb << "'\nhint: " << (guess.empty() ? "see 'vpnlab --help'" : "did you mean '" + guess + "'?") << "\n";
  return kExitUsage;
}
