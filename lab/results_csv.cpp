#include "lab/results_csv.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "netns/fault.h"

namespace vpnlab {

const std::vector<std::string>& results_csv_header() {
  static const std::vector<std::string> h = {"run_id", "timestamp", "product", "test", "pattern", "direction", "protocol",
                                             "sample", "client", "server", "streams", "reverse", "mss", "duration_s",
                                             "gbps", "retransmits", "valid", "status", "reason", "cipher", "bringup_s",
                                             "cpu_s", "cpu_user_s", "cpu_sys_s", "cpu_softirq_s", "steal_s", "cpu_s_per_gbit"};
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

namespace {
std::string fmt(double v, int digits) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
}  // namespace

std::string format_row(const SampleRow& r) {
  std::vector<std::string> f = {r.run_id, r.timestamp, r.product, r.test, r.pattern, r.direction, r.protocol,
                                std::to_string(r.sample), r.client, r.server, std::to_string(r.streams),
                                r.reverse ? "true" : "false", r.mss ? std::to_string(r.mss) : "",
                                fmt(r.duration_s, 1), fmt(r.gbps, 6), r.retransmits >= 0 ? std::to_string(r.retransmits) : "",
                                r.valid ? "true" : "false", r.status, r.reason, r.cipher, fmt(r.bringup_s, 3),
                                fmt(r.cpu_s, 3), fmt(r.cpu_user_s, 3), fmt(r.cpu_sys_s, 3), fmt(r.cpu_softirq_s, 3), fmt(r.steal_s, 3),
                                fmt(r.cpu_s_per_gbit, 3)};
  std::string line;
  for (size_t i = 0; i < f.size(); ++i) line += (i ? "," : "") + csv_escape(f[i]);
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
  std::vector<SampleRow> rows;
  while (std::getline(in, line)) {
    auto f = split_csv_line(line);
    if (f.size() != results_csv_header().size()) continue;
    SampleRow r;
    r.run_id = f[0]; r.timestamp = f[1]; r.product = f[2]; r.test = f[3]; r.pattern = f[4]; r.direction = f[5];
    r.protocol = f[6]; r.sample = std::stoi(f[7]); r.client = f[8]; r.server = f[9]; r.streams = std::stoi(f[10]);
    r.reverse = f[11] == "true"; r.mss = f[12].empty() ? 0 : std::stoi(f[12]); r.duration_s = std::stod(f[13]);
    r.gbps = std::stod(f[14]); r.retransmits = f[15].empty() ? -1 : std::stoll(f[15]); r.valid = f[16] == "true";
    r.status = f[17]; r.reason = f[18]; r.cipher = f[19]; r.bringup_s = std::stod(f[20]);
    r.cpu_s = std::stod(f[21]); r.cpu_user_s = std::stod(f[22]); r.cpu_sys_s = std::stod(f[23]);
    r.cpu_softirq_s = std::stod(f[24]); r.steal_s = std::stod(f[25]); r.cpu_s_per_gbit = std::stod(f[26]);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace vpnlab
