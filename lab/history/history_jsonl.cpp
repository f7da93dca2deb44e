#include "lab/history/history_jsonl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"
#include "lab/base/unique_fd.h"
#include "lab/results/run_files.h"

namespace vpnlab {

namespace {

constexpr const char* kFormat = "vpnlab-history-run";
constexpr int kFormatVersion = 1;

std::string results_text(const RunRecord& run) {
  std::string text = results_csv_header_line() + "\n";
  for (const auto& r : run.rows) text += format_row(r);  // each ends with its newline
  return text;
}

// Reads `fd` a line at a time, refusing a line past `max` bytes (an endless or hostile
// file fails at that line, holding at most `max` bytes).
class LineReader {
 public:
  LineReader(int fd, uint64_t max) : fd_(fd), max_(max) {}
  // 1: a line in *line; 0: the end; -1: errno; -2: too long.
  int next(std::string* line) {
    line->clear();
    for (;;) {
      if (pos_ == len_) {
        ssize_t n = ::read(fd_, buf_, sizeof buf_);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        if (n == 0) return line->empty() ? 0 : 1;  // a last line without its newline
        pos_ = 0, len_ = static_cast<size_t>(n);
      }
      const char* start = buf_ + pos_;
      const void* nl = memchr(start, '\n', len_ - pos_);
      const size_t take = nl ? static_cast<size_t>(static_cast<const char*>(nl) - start) : len_ - pos_;
      if (line->size() + take > max_) return -2;
      line->append(start, take);
      pos_ += take + (nl ? 1 : 0);
      if (nl) return 1;
    }
  }

 private:
  int fd_;
  uint64_t max_;
  char buf_[1 << 16];
  size_t pos_ = 0, len_ = 0;
};

}  // namespace

Result<RunRecord> parse_export_line(const std::string& line, const std::string& where) {
  auto refuse = [&](const std::string& what) {
    return make_error(where + ": " + what, "give a file written by 'vpnlab history export --jsonl', unedited");
  };
  if (auto why = json_nesting_problem(line); !why.empty()) return refuse(why);
  nlohmann::json j = parse_json_bounded(line);
  if (!j.is_object()) return refuse("not a JSON object");
  if (!j.contains("format") || j["format"] != kFormat)
    return refuse("field 'format' is not \"" + std::string(kFormat) + "\"");
  if (!j.contains("version") || !j["version"].is_number_integer()) return refuse("field 'version': not an integer");
  if (whole_number<int64_t>(j["version"]) != kFormatVersion)
    return make_error(where + ": export format version " + j["version"].dump() + " is not one this vpnlab reads (" +
                          std::to_string(kFormatVersion) + ")",
                      "import it with the vpnlab that exported it, or a newer one");
  for (const char* key : {"source", "results_csv"})
    if (!j.contains(key) || !j[key].is_string()) return refuse(std::string("field '") + key + "': not a string");
  if (!j.contains("environment")) return refuse("field 'environment' is missing");
  // The line's own run_id is the environment's: one run per line, named once.
  if (!j.contains("run_id") || !j["run_id"].is_string()) return refuse("field 'run_id': not a string");
  if (!j["environment"].is_object() || !j["environment"].contains("run_id") ||
      j["environment"]["run_id"] != j["run_id"])
    return refuse("field 'run_id' is not the environment's run_id");
  if (auto s = check_environment(j["environment"], where + ": environment"); !s) return s.error();
  auto rows = parse_results_csv(j["results_csv"].get<std::string>(), where + ": results_csv");
  if (!rows) return rows.error();
  return run_record_from(j["environment"], std::move(*rows), j["source"].get<std::string>(), where);
}

namespace {

Error export_failure(int err, size_t written) {
  if (err == EPIPE)  // `history export --jsonl | head`: the reader is done, the history is fine
    return make_error("the export's reader closed the pipe after " + std::to_string(written) + " run(s)",
                      "nothing is wrong with the history");
  return make_error("cannot write the export: " + errno_text(err), "free some disk space, or write elsewhere");
}

}  // namespace

std::string export_line(const RunRecord& run) {
  nlohmann::json j = {{"format", kFormat},    {"version", kFormatVersion},      {"run_id", run.run_id},
                      {"source", run.source}, {"environment", run.environment}, {"results_csv", results_text(run)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<size_t> export_jsonl(HistoryStore& store, std::ostream& out) {
  size_t n = 0;
  auto s = store.for_each_run("", [&](const RunRecord& run) -> Status {
    out << export_line(run) << "\n";
    if (!out) return export_failure(errno, n);
    ++n;
    return ok_status();
  });
  if (!s) return s.error();
  out.flush();
  if (!out) return export_failure(errno, n);
  return n;
}

Result<ImportCount> import_jsonl(HistoryStore& store, const std::string& file, bool replace) {
  // Input: a regular file only (a FIFO or a device could be endless), opened without blocking.
  UniqueFd fd(open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return make_error("cannot read " + file + ": " + errno_text(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return make_error(file + ": not a regular file", "give a file written by 'vpnlab history export --jsonl'");
  LineReader reader(fd.get(), kMaxExportLineBytes);
  ImportCount count;
  std::string line;
  for (int line_no = 1;; ++line_no) {
    const std::string where = file + ":" + std::to_string(line_no);
    int rc = reader.next(&line);
    if (rc == 0) break;
    if (rc == -1) return make_error("cannot read " + where + ": " + errno_text(errno));
    if (rc == -2)
      return make_error(where + ": a line longer than " + std::to_string(kMaxExportLineBytes >> 20) +
                            " MiB, more than a run's files can hold",
                        "give a file written by 'vpnlab history export --jsonl'; the lines before it were merged");
    if (line.empty()) continue;
    auto run = parse_export_line(line, where);
    if (!run) return run.error();
    run->source = "import " + file + " (" + run->source + ")";
    std::string said;
    auto added = store.add(*run, replace, &said);
    if (!added) return with_context(added.error(), where);
    ++(*added ? count.added : count.present);
    if (*added && said != "added") count.changed.push_back(run->run_id + ": " + said);
  }
  return count;
}

}  // namespace vpnlab
