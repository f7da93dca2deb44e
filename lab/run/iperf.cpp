#include "lab/run/iperf.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "lab/base/json_depth.h"

namespace vpnlab {

namespace {
std::string seconds_arg(double s) {
  // iperf3 takes whole seconds for -t.
  return std::to_string(static_cast<int>(std::lround(s)));
}
}  // namespace

std::vector<std::string> iperf_client_argv(const IperfClientOptions& o) {
  std::vector<std::string> argv = {"iperf3", "-4", "-c", o.server_address, "-p", std::to_string(o.port), "-J",
                                   "-t", seconds_arg(o.duration_s), "-P", std::to_string(o.streams)};
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

Result<IperfSample> parse_iperf_json(const std::string& json_text) {
  nlohmann::json j = parse_json_bounded(json_text);
  if (j.is_discarded() || !j.is_object()) return make_error("iperf3 output is not JSON", "see the sample's raw output");
  if (j.contains("error") && j["error"].is_string()) return make_error("iperf3: " + j["error"].get<std::string>());
  const auto& end = j.value("end", nlohmann::json::object());
  if (!end.contains("sum_received") || !end.contains("sum_sent"))
    return make_error("iperf3 JSON has no end.sum_received/sum_sent", "the test did not finish");
  const auto& rx = end["sum_received"];
  const auto& tx = end["sum_sent"];
  IperfSample s;
  s.gbps = rx.value("bits_per_second", 0.0) / 1e9;
  s.bytes_received = rx.value("bytes", uint64_t{0});
  s.bytes_sent = tx.value("bytes", uint64_t{0});
  s.sent_bps = tx.value("bits_per_second", 0.0);
  s.seconds = rx.value("seconds", 0.0);
  if (tx.contains("retransmits")) s.retransmits = tx["retransmits"].get<int64_t>();
  if (end.contains("sum_received_bidir_reverse")) {
    const auto& back = end["sum_received_bidir_reverse"];
    s.bytes_received_back = back.value("bytes", uint64_t{0});
    s.gbps += back.value("bits_per_second", 0.0) / 1e9;
    if (end.contains("sum_sent_bidir_reverse") && end["sum_sent_bidir_reverse"].contains("retransmits") && s.retransmits >= 0)
      s.retransmits += end["sum_sent_bidir_reverse"]["retransmits"].get<int64_t>();
  }
  if (end.contains("sum") && end["sum"].contains("lost_packets")) {  // UDP: the receiver's count, reported back
    s.udp_packets = end["sum"].value("packets", uint64_t{0});
    s.udp_lost = end["sum"].value("lost_packets", uint64_t{0});
  }
  if (end.contains("cpu_utilization_percent")) {
    s.cpu_host_pct = end["cpu_utilization_percent"].value("host_total", 0.0);
    s.cpu_remote_pct = end["cpu_utilization_percent"].value("remote_total", 0.0);
  }
  if (end.contains("streams") && end["streams"].is_array()) s.streams = static_cast<int>(end["streams"].size());
  return s;
}

}  // namespace vpnlab
