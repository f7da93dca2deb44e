#include "lab/run/iperf.h"

#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"
#include "lab/base/terminal_text.h"

namespace vpnlab {

namespace {
std::string seconds_arg(double s) {
  // iperf3 takes whole seconds for -t.
  return std::to_string(static_cast<int>(std::lround(s)));
}
}  // namespace

std::vector<std::string> iperf_client_argv(const IperfClientOptions& o) {
  std::vector<std::string> argv = {"iperf3",
                                   "-4",
                                   "-c",
                                   o.server_address,
                                   "-p",
                                   std::to_string(o.port),
                                   "-J",
                                   "-t",
                                   seconds_arg(o.duration_s),
                                   "-P",
                                   std::to_string(o.streams)};
  if (o.reverse) argv.push_back("-R");
  if (o.bidirectional) argv.push_back("--bidir");
  if (o.udp) argv.push_back("-u");
  if (o.bitrate_bps > 0) {
    argv.push_back("-b");
    argv.push_back(std::to_string(static_cast<uint64_t>(o.bitrate_bps)));
  }
  if (o.length > 0) {
    argv.push_back("-l");
    argv.push_back(std::to_string(o.length));
  }
  if (o.mss) {
    argv.push_back("-M");
    argv.push_back(std::to_string(*o.mss));
  }
  if (o.repeating_payload) argv.push_back("--repeating-payload");
  return argv;
}

std::vector<std::string> iperf_server_argv(int port) {
  // -1: serve exactly one test, so every sample gets a fresh server.
  return {"iperf3", "-4", "-s", "-1", "-p", std::to_string(port)};
}

namespace {

// Fields of a sample read from a file: a missing field, one of another type or a number out
// of the target's range is the fallback, never an exception or an out-of-range conversion
// (the fuzz tier found 8.99e50 bytes converted to uint64_t: undefined behaviour).
using json = nlohmann::json;
const json& field(const json& object, const char* key) {
  static const json none;
  if (!object.is_object()) return none;
  auto it = object.find(key);
  return it == object.end() ? none : *it;
}
double number_at(const json& object, const char* key) {
  const json& v = field(object, key);
  const double d = v.is_number() ? v.get<double>() : 0.0;
  return std::isfinite(d) ? d : 0.0;
}
uint64_t count_at(const json& object, const char* key) {
  const json& v = field(object, key);
  if (v.is_number_integer()) return whole_number<uint64_t>(v).value_or(0);  // a negative count is none
  const double d = v.is_number_float() ? v.get<double>() : 0.0;
  return d >= 0 && d < 1.8e19 ? static_cast<uint64_t>(d) : 0;
}
// -1 when not reported (or not a count).
int64_t retransmits_at(const json& object) {
  const json& v = field(object, "retransmits");
  const auto n = v.is_number_integer() ? whole_number<int64_t>(v) : std::nullopt;
  return n && *n >= 0 ? *n : -1;
}

}  // namespace

Result<IperfSample> parse_iperf_json(const std::string& json_text) {
  json j = parse_json_bounded(json_text);
  if (j.is_discarded() || !j.is_object()) return make_error("iperf3 output is not JSON", "see the sample's raw output");
  if (field(j, "error").is_string()) return make_error("iperf3: " + terminal_safe(j["error"].get<std::string>()));
  const json& end = field(j, "end");
  const json& rx = field(end, "sum_received");
  const json& tx = field(end, "sum_sent");
  if (!rx.is_object() || !tx.is_object())
    return make_error("iperf3 JSON has no end.sum_received/sum_sent", "the test did not finish");
  IperfSample s;
  s.gbps = number_at(rx, "bits_per_second") / 1e9;
  s.bytes_received = count_at(rx, "bytes");
  s.bytes_sent = count_at(tx, "bytes");
  s.sent_bps = number_at(tx, "bits_per_second");
  s.seconds = number_at(rx, "seconds");
  s.retransmits = retransmits_at(tx);
  if (const json& back = field(end, "sum_received_bidir_reverse"); back.is_object()) {
    s.bytes_received_back = count_at(back, "bytes");
    s.gbps += number_at(back, "bits_per_second") / 1e9;
    const int64_t more = retransmits_at(field(end, "sum_sent_bidir_reverse"));
    if (more >= 0 && s.retransmits >= 0) s.retransmits += more;
  }
  if (const json& sum = field(end, "sum");
      !field(sum, "lost_packets").is_null()) {  // UDP: the receiver's count, reported back
    s.udp_packets = count_at(sum, "packets");
    s.udp_lost = count_at(sum, "lost_packets");
  }
  if (const json& cpu = field(end, "cpu_utilization_percent"); cpu.is_object()) {
    s.cpu_host_pct = number_at(cpu, "host_total");
    s.cpu_remote_pct = number_at(cpu, "remote_total");
  }
  if (const json& streams = field(end, "streams"); streams.is_array()) s.streams = static_cast<int>(streams.size());
  if (s.gbps < 0 || s.sent_bps < 0 || s.seconds < 0)
    return make_error("iperf3 JSON holds a negative rate or duration", "see the sample's raw output");
  return s;
}

}  // namespace vpnlab
