#include "lab/record/results_csv.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <tuple>

#include <spdlog/spdlog.h>

#include "lab/base/bounds.h"
#include "lab/base/fault.h"
#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/model/names.h"
#include "lab/model/test_kinds.h"
#include "lab/record/figures.h"

namespace vpnlab {

namespace {

// A figure in a message: 1e+308 stays short, 12.5 stays plain.
std::string fmt_figure(double v) { return fmt::format("{:.6g}", v); }

}  // namespace

const std::vector<std::string>& results_csv_header() {
  static const std::vector<std::string> h = [] {
    std::vector<std::string> names;
    for (const auto& c : figures()) names.push_back(c.name);
    return names;
  }();
  return h;
}

std::string results_csv_header_line() {
  std::string line;
  for (const auto& h : results_csv_header()) line += (line.empty() ? "" : ",") + h;
  return line;
}

std::string csv_escape(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

nlohmann::json row_json(const SampleRow& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& c : figures()) {
    const std::string v = figure_text(c, r);
    // The CSV's own text, typed: an empty number (mss, retransmits not measured) is null.
    if (c.type == ColumnType::text)
      j[c.name] = v;
    else if (v.empty())
      j[c.name] = nullptr;
    else if (c.type == ColumnType::boolean)
      j[c.name] = v == "true";
    else if (c.type == ColumnType::integer)
      j[c.name] = std::stoll(v);
    else
      j[c.name] = std::stod(v);
  }
  return j;
}

std::vector<std::pair<std::string, ColumnType>> results_csv_columns() {
  std::vector<std::pair<std::string, ColumnType>> out;
  for (const auto& c : figures()) out.emplace_back(c.name, c.type);
  return out;
}

std::string format_row(const SampleRow& r) {
  std::string line;
  for (const auto& c : figures()) line += (line.empty() ? "" : ",") + csv_escape(figure_text(c, r));
  return line + "\n";
}

Result<ResultsCsv> ResultsCsv::create(const std::string& path, std::string* repaired) {
  ResultsCsv csv;
  csv.path_ = path;
  // A resumed run directory is input: its results.csv may be a link to any file, which
  // appending would write into. Links and anything but a regular file are refused.
  csv.fd_ = UniqueFd(open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0640));
  if (!csv.fd_.valid())
    return make_error("cannot create " + path + ": " + errno_text(errno),
                      errno == ELOOP ? "it is a symbolic link: a run directory holds only what vpnlab wrote" : "");
  struct stat st {};
  if (fstat(csv.fd_.get(), &st) < 0 || !S_ISREG(st.st_mode))
    return make_error(path + " is not a regular file", "a run directory holds only what vpnlab wrote");
  // A row cut short (a full disk, a crash of an older version, a hand edit) is removed
  // before anything is appended: a new row glued onto it would be lost with it.
  auto tail = inspect_csv_tail(path);
  if (!tail) return tail.error();
  if (tail->whole_size < tail->size) {
    if (ftruncate(csv.fd_.get(), tail->whole_size) < 0)
      return make_error("cannot truncate the torn last row of " + path + ": " + errno_text(errno));
    if (repaired)
      *repaired = path + ": removed a torn last row (" + std::to_string(tail->size - tail->whole_size) +
                  " bytes without an end of line)";
  }
  const std::string header = results_csv_header_line() + "\n";
  if (tail->whole_size > 0) {
    // Rows appended under another header would not parse: a file of another version's
    // columns is refused, not mixed.
    std::string text(header.size(), '\0');
    UniqueFd in(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (!in.valid() || pread(in.get(), text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
        text != header)
      return make_error(path + ": its columns are not this vpnlab version's (written by another version)",
                        "finish it with the version that started it, or start a new run");
  }
  if (tail->whole_size == 0) {
    if (write(csv.fd_.get(), header.data(), header.size()) != static_cast<ssize_t>(header.size()))
      return make_error("cannot write " + path + ": " + errno_text(errno));
  }
  return csv;
}

Status ResultsCsv::append(const SampleRow& row) {
  std::string line = format_row(row);
  fault_point("csv-row");
  // One write() per row (O_APPEND): a row is either all there or not there at all.
  ssize_t n = write(fd_.get(), line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size())) {
    int err = n < 0 ? errno : ENOSPC;
    // Drop the half row; if even that fails, the reader refuses its line by number.
    bool half_row_left = n > 0 && ftruncate(fd_.get(), lseek(fd_.get(), 0, SEEK_END) - n) != 0;
    return make_error("cannot append to " + path_ + ": " + errno_text(err) +
                          (half_row_left ? " (a partial row is left at its end)" : ""),
                      "free disk space; finished rows are kept");
  }
  if (fsync(fd_.get()) < 0) return make_error("fsync " + path_ + ": " + errno_text(errno));
  mirror_row(row);
  return ok_status();
}

void ResultsCsv::mirror_to(int fd, std::string name) {
  mirror_fd_ = fd;
  mirror_name_ = std::move(name);
  // A stalled reader must not hold the run: non-blocking, but only where writes can block (a
  // regular file never does, and its flags may be another program's).
  struct stat st {};
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// The stream is for watchers: a reader gone (EPIPE), one that stalls past the backlog, or a
// full disk there ends the stream with a warning and costs the run nothing; results.csv is
// the record.
void ResultsCsv::mirror_row(const SampleRow& row) {
  if (mirror_fd_ < 0) return;
  mirror_backlog_ += row_json(row).dump() + "\n";
  size_t done = 0;
  while (done < mirror_backlog_.size()) {
    ssize_t n = write(mirror_fd_, mirror_backlog_.data() + done, mirror_backlog_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;  // the reader is behind: keep the rest
    if (n <= 0) {
      spdlog::warn("rows stream {}: {}: no more rows go there (results.csv has them all)", mirror_name_,
                   errno_text(n < 0 ? errno : EIO));
      mirror_fd_ = -1;
      mirror_backlog_.clear();
      return;
    }
    done += static_cast<size_t>(n);
  }
  mirror_backlog_.erase(0, done);
  if (mirror_backlog_.size() > kMaxRowsBacklog) {
    spdlog::warn(
        "rows stream {}: its reader fell behind by more than {} KiB: no more rows go there (results.csv has them all)",
        mirror_name_, kMaxRowsBacklog >> 10);
    mirror_fd_ = -1;
    mirror_backlog_.clear();
  }
}

namespace {

// Reads CSV text one record at a time: a quoted field may hold commas, quotes ("") and
// newlines. One record's fields at a time (not the whole file's: 64 000 rows of 50 fields
// as strings would be ~100 MB), with the 1-based line it starts on, for messages. A record
// that ends inside quotes, or text without a final newline, is torn.
class CsvRecordReader {
 public:
  explicit CsvRecordReader(const std::string& text) : text_(text) {}
  // The next record into *fields; false at the end of the text.
  bool next(std::vector<std::string>* fields) {
    if (pos_ >= text_.size()) return false;
    fields->clear();
    std::string cur;
    bool quoted = false;
    start_line_ = line_;
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (c == '\n') ++line_;
      if (quoted) {
        if (c == '"' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '"') {
          cur += '"';
          ++pos_;
        } else if (c == '"')
          quoted = false;
        else
          cur += c;
      } else if (c == '"')
        quoted = true;
      else if (c == ',') {
        fields->push_back(std::move(cur));
        cur.clear();
      } else if (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n')
        continue;
      else if (c == '\n') {
        fields->push_back(std::move(cur));
        ++pos_;
        return true;
      } else
        cur += c;
    }
    fields->push_back(std::move(cur));  // no final newline: torn, the caller decides
    torn_ = true;
    return true;
  }
  int line() const { return start_line_; }
  bool torn() const { return torn_; }

 private:
  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1, start_line_ = 1;
  bool torn_ = false;
};

Error row_error(const std::string& path, int line, const std::string& what) {
  return make_error(path + ":" + std::to_string(line) + ": " + what,
                    "the file was cut or edited by hand: restore it from a copy, or delete that row and run 'vpnlab "
                    "run FILE --resume RUN_DIR' to measure it again");
}

}  // namespace

std::string one_line(const std::string& text) {
  std::string out;
  bool pending_break = false;  // a run of line breaks becomes one " | " before the next text
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      pending_break = !out.empty();
      continue;
    }
    if (pending_break) {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += " | ";
      pending_break = false;
    }
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  }
  return out;
}

Result<CsvTail> inspect_csv_tail(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) return make_error("cannot read " + path + ": " + errno_text(errno));
  off_t size = lseek(fd.get(), 0, SEEK_END);
  CsvTail tail;
  tail.size = size;
  tail.whole_size = size;
  // Walk back from the end to the last newline: what follows it is a torn row.
  char buf[4096];
  off_t pos = size;
  while (pos > 0) {
    off_t n = std::min<off_t>(pos, sizeof buf);
    if (pread(fd.get(), buf, n, pos - n) != n) return make_error("cannot read " + path + ": " + errno_text(errno));
    for (off_t i = n - 1; i >= 0; --i)
      if (buf[i] == '\n') {
        tail.whole_size = pos - n + i + 1;
        return tail;
      }
    pos -= n;
  }
  tail.whole_size = 0;
  return tail;
}

namespace {

// The oldest results.csv this version reads has the first 27 columns (through
// cpu_s_per_gbit: the first version's); every later version appended its columns at the end. So a header is
// valid when it is a prefix of this version's columns at least that long, or all of them
// followed by a later version's (skipped). A column deleted or moved by hand is refused:
// its figures would otherwise read as zeros and a metric would silently disappear.
constexpr size_t kOldestColumnCount = 27;

Result<std::vector<const Figure*>> header_layout(const std::string& path, const std::vector<std::string>& header) {
  const auto& cols = figures();
  if (header.empty() || header[0] != cols[0].name)
    return row_error(path, 1, "the first line is not a results.csv header");
  std::vector<const Figure*> layout;
  for (size_t i = 0; i < header.size(); ++i) {
    if (i < cols.size() && header[i] == cols[i].name) {
      layout.push_back(&cols[i]);
      continue;
    }
    if (i >= cols.size()) {
      layout.push_back(nullptr);  // a later version's column
      continue;
    }
    const bool known = std::any_of(cols.begin(), cols.end(), [&](const Figure& c) { return header[i] == c.name; });
    return make_error(path + ":1: column " + std::to_string(i + 1) + " is '" + header[i] + "' where results.csv has '" +
                          cols[i].name + "'" + (known ? " (columns moved)" : ""),
                      "a column was deleted, renamed or moved by hand: restore the file from the run");
  }
  if (layout.size() < kOldestColumnCount)
    return make_error(path + ":1: the header ends after '" + header.back() + "': column '" + cols[layout.size()].name +
                          "' and those after it are missing",
                      "a column was deleted by hand, or the file was cut: restore it from the run");
  return layout;
}

}  // namespace

Result<std::vector<SampleRow>> read_results_csv(const std::string& path, bool drop_torn_tail) {
  auto text = read_input_file(path, kMaxRunFileBytes);
  if (!text) return text.error();
  return parse_results_csv(*text, path, drop_torn_tail);
}

Result<std::vector<SampleRow>> parse_results_csv(const std::string& text, const std::string& path,
                                                 bool drop_torn_tail) {
  CsvRecordReader csv(text);
  std::vector<std::string> fields;
  if (!csv.next(&fields)) return make_error(path + ": empty file, not even a header", "give the results.csv of a run");
  if (csv.torn()) return row_error(path, csv.line(), "the header is cut short (no end of line)");
  auto layout = header_layout(path, fields);
  if (!layout) return layout.error();
  std::vector<SampleRow> rows;
  std::map<std::tuple<std::string, std::string, int>, int> first_line;  // (product, test, sample) -> line
  while (csv.next(&fields)) {
    const int line_no = csv.line();
    if (csv.torn()) {
      if (drop_torn_tail) break;
      return row_error(path, line_no, "the last row is cut short (no end of line)");
    }
    if (fields.size() != layout->size())
      return row_error(
          path, line_no,
          "the row has " + std::to_string(fields.size()) + " fields, the header " + std::to_string(layout->size()));
    SampleRow r;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (!(*layout)[i]) continue;
      try {
        (*layout)[i]->set(r, fields[i]);
      } catch (const std::exception&) {
        return row_error(path, line_no,
                         std::string("column '") + (*layout)[i]->name + "': '" + fields[i] + "' does not parse");
      }
    }
    if (auto s = check_row(r); !s) return row_error(path, line_no, s.error().message);
    auto [it, fresh] = first_line.emplace(std::make_tuple(r.product, r.test, r.sample), line_no);
    if (!fresh)
      return row_error(path, line_no,
                       "product '" + r.product + "', test '" + r.test + "', sample " + std::to_string(r.sample) +
                           " is there twice (first on line " + std::to_string(it->second) + ")");
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string headline_figure(const SampleRow& r) {
  if (!r.is_transactions()) return fixed_text(r.gbps, 3) + " Gbit/s";
  const TestKindTraits& kind = test_kind(r.kind);
  if (!kind.rate_vs_baseline)
    return "idle " + kind.one + " p50 " + fixed_text(r.tx_p50_ms, 3) + " ms, p99 " + fixed_text(r.tx_p99_ms, 3) + " ms";
  return fixed_text(r.tps, 1) + " " + kind.counted + "/s, p99 " + fixed_text(r.tx_p99_ms, 3) + " ms";
}

Status check_row(const SampleRow& r) {
  // The run id names files (/run/vpnlab/<run_id>.json on resume): nothing but a plain name.
  if (r.run_id.empty() || r.run_id.size() > 128 ||
      r.run_id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string::npos ||
      r.run_id[0] == '.')
    return make_error("run_id '" + r.run_id + "' is not a run id (letters, digits, '.', '_', '-')");
  // Product and test names become file and directory names (samples/PRODUCT/TEST, plots):
  // the topology's name rules, so a tampered file cannot name a path.
  if (!is_product_label(r.product))
    return make_error("product '" + r.product + "' is not a product name ([a-z0-9-], optionally @TAG of [a-z0-9.-])");
  if (!is_lab_name(r.test, kMaxGeneratedTestName))
    return make_error("test '" + r.test + "' is not a test name ([a-z0-9-], at most 64)");
  if (r.sample < 1 || r.sample > kMaxSamples)
    return make_error("sample " + std::to_string(r.sample) + " is not a sample number (1 to " +
                      std::to_string(kMaxSamples) + ")");
  if (r.status != "ok" && r.status != "failed")
    return make_error("status '" + r.status + "' is neither 'ok' nor 'failed'");
  // Every figure finite and within its bounds (figures.cpp: non-negative, and below what no
  // machine measures); reals first, then counts, each in file order.
  for (const ColumnType type : {ColumnType::real, ColumnType::integer})
    for (const auto& f : figures()) {
      if (f.type != type || !f.bounded) continue;
      const double v = f.number(r);
      if (type == ColumnType::real && (!std::isfinite(v) || v < f.min || v > f.max))
        return make_error(std::string("column '") + f.name + "': " + fmt_figure(v) +
                          " is not a figure (negative, not finite, or above " + fmt_figure(f.max) + ")");
      if (type == ColumnType::integer && (v < f.min || v > f.max))
        return make_error(std::string("column '") + f.name + "': " + fixed_text(v, 0) + " is outside " +
                          fixed_text(f.min, 0) + ".." + fixed_text(f.max, 0));
    }
  // Names and values of the topology's own character set: a tampered file names no markup.
  if (!r.sweep_of.empty() && !is_lab_name(r.sweep_of, kMaxTestName))
    return make_error("sweep_of '" + r.sweep_of + "' is not a test name ([a-z0-9-], at most 32)");
  if (r.point.size() > 256 ||
      r.point.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_=;-") != std::string::npos ||
      r.point.empty() != r.sweep_of.empty())
    return make_error("point '" + r.point + "' is not a sweep point (axis=value;..., with sweep_of)");
  if (r.valid && r.status != "ok") return make_error("a failed row cannot be valid");
  if (!r.kind.empty() && !find_test_kind(r.kind))
    return make_error("kind '" + r.kind + "' is none of " + test_kind_names());
  return ok_status();
}

bool SampleRow::is_transactions() const { return !kind.empty() && is_transaction_test(kind); }

}  // namespace vpnlab
