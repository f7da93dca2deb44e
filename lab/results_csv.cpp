#include "lab/results_csv.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "netns/fault.h"

namespace vpnlab {

namespace {

std::string fmt(double v, int digits) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// One table says how each column is written and read, so the two cannot drift apart.
struct Column {
  const char* name;
  std::string (*get)(const SampleRow&);
  void (*set)(SampleRow&, const std::string&);
};

double to_d(const std::string& s) { return s.empty() ? 0 : std::stod(s); }
int64_t to_i(const std::string& s) { return s.empty() ? 0 : std::stoll(s); }

#define STR_COL(f) {#f, [](const SampleRow& r) { return r.f; }, [](SampleRow& r, const std::string& v) { r.f = v; }}
#define INT_COL(f) {#f, [](const SampleRow& r) { return std::to_string(r.f); }, [](SampleRow& r, const std::string& v) { r.f = static_cast<decltype(r.f)>(to_i(v)); }}
#define DBL_COL(f, digits) {#f, [](const SampleRow& r) { return fmt(r.f, digits); }, [](SampleRow& r, const std::string& v) { r.f = to_d(v); }}
#define BOOL_COL(f) {#f, [](const SampleRow& r) { return std::string(r.f ? "true" : "false"); }, [](SampleRow& r, const std::string& v) { r.f = v == "true"; }}

const std::vector<Column>& columns() {
  static const std::vector<Column> c = {
      STR_COL(run_id), STR_COL(timestamp), STR_COL(product), STR_COL(test), STR_COL(pattern), STR_COL(direction), STR_COL(protocol),
      INT_COL(sample), STR_COL(client), STR_COL(server), INT_COL(streams), BOOL_COL(reverse),
      {"mss", [](const SampleRow& r) { return r.mss ? std::to_string(r.mss) : std::string(); },
       [](SampleRow& r, const std::string& v) { r.mss = static_cast<int>(to_i(v)); }},
      DBL_COL(duration_s, 1), DBL_COL(gbps, 6),
      {"retransmits", [](const SampleRow& r) { return r.retransmits >= 0 ? std::to_string(r.retransmits) : std::string(); },
       [](SampleRow& r, const std::string& v) { r.retransmits = v.empty() ? -1 : std::stoll(v); }},
      BOOL_COL(valid), STR_COL(status), STR_COL(reason), STR_COL(cipher), DBL_COL(bringup_s, 3),
      DBL_COL(cpu_s, 3), DBL_COL(cpu_user_s, 3), DBL_COL(cpu_sys_s, 3), DBL_COL(cpu_softirq_s, 3), DBL_COL(steal_s, 3),
      DBL_COL(cpu_s_per_gbit, 3), INT_COL(processes), DBL_COL(pps, 0), DBL_COL(loss_pct, 3), DBL_COL(generator_cpu_pct, 1),
      INT_COL(daemon_rss_kb), INT_COL(daemon_threads), DBL_COL(latency_p50_ms, 3), DBL_COL(latency_p99_ms, 3),
      INT_COL(latency_probes), DBL_COL(outside_load, 2), STR_COL(softirq_by_cpu)};
  return c;
}

}  // namespace

const std::vector<std::string>& results_csv_header() {
  static const std::vector<std::string> h = [] {
    std::vector<std::string> names;
    for (const auto& c : columns()) names.push_back(c.name);
    return names;
  }();
  return h;
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

std::string format_row(const SampleRow& r) {
  std::string line;
  for (const auto& c : columns()) line += (line.empty() ? "" : ",") + csv_escape(c.get(r));
  return line + "\n";
}

Result<ResultsCsv> ResultsCsv::create(const std::string& path) {
  ResultsCsv csv;
  csv.path_ = path;
  csv.fd_ = UniqueFd(open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640));
  if (!csv.fd_.valid()) return make_error("cannot create " + path + ": " + errno_text(errno));
  if (lseek(csv.fd_.get(), 0, SEEK_END) == 0) {
    std::string header;
    for (const auto& h : results_csv_header()) header += (header.empty() ? "" : ",") + h;
    header += "\n";
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
    if (n > 0) (void)ftruncate(fd_.get(), lseek(fd_.get(), 0, SEEK_END) - n);  // drop the half row
    return make_error("cannot append to " + path_ + ": " + errno_text(err), "free disk space; finished rows are kept");
  }
  if (fsync(fd_.get()) < 0) return make_error("fsync " + path_ + ": " + errno_text(errno));
  return ok_status();
}

namespace {
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') { cur += '"'; ++i; }
      else if (c == '"') quoted = false;
      else cur += c;
    } else if (c == '"') quoted = true;
    else if (c == ',') { out.push_back(cur); cur.clear(); }
    else cur += c;
  }
  out.push_back(cur);
  return out;
}
}  // namespace

Result<std::vector<SampleRow>> read_results_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) return make_error("cannot read " + path + ": " + errno_text(errno));
  std::string line;
  std::getline(in, line);
  std::vector<const Column*> layout;
  for (const auto& name : split_csv_line(line)) {
    const Column* found = nullptr;
    for (const auto& c : columns())
      if (name == c.name) found = &c;
    layout.push_back(found);  // an unknown column (a later version's) is skipped
  }
  std::vector<SampleRow> rows;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    auto f = split_csv_line(line);
    if (f.size() != layout.size()) continue;  // a torn last line cannot happen (one write per row), but never trust it
    SampleRow r;
    try {
      for (size_t i = 0; i < f.size(); ++i)
        if (layout[i]) layout[i]->set(r, f[i]);
    } catch (const std::exception&) {
      return make_error(path + ":" + std::to_string(line_no) + ": a number does not parse", "the file was edited by hand? restore it from the run");
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace vpnlab
