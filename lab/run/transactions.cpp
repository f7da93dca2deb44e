#include "lab/run/transactions.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"

namespace vpnlab {

namespace {

std::string whole_seconds(double s) { return std::to_string(std::max(1L, std::lround(s))); }

// The number after `key` on the line, if the line has it.
bool number_after(const std::string& line, const std::string& key, double* out) {
  size_t at = line.find(key);
  if (at == std::string::npos) return false;
  return std::sscanf(line.c_str() + at + key.size(), "%lf", out) == 1;
}

}  // namespace

std::vector<std::string> sockperf_server_argv(int port) {
  std::vector<std::string> argv = {"sockperf", "server", "--tcp", "-i", "0.0.0.0", "-p", std::to_string(port)};
  return argv;  // spelt as argv = {...}: scripts/check-programs.sh reads the program from it
}

std::vector<std::string> sockperf_client_argv(const std::string& address, int port, int size, double seconds) {
  std::vector<std::string> argv = {"sockperf", "ping-pong", "--tcp", "-i", address, "-p", std::to_string(port), "-m", std::to_string(size),
                                   "-t", whole_seconds(seconds)};
  return argv;
}

Result<TransactionSample> parse_sockperf(const std::string& text) {
  TransactionSample s;
  bool valid_duration = false;
  int percentiles = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find("ERROR") != std::string::npos) return make_error("sockperf: " + line.substr(line.find("ERROR")));
    if (line.find("[Valid Duration]") != std::string::npos) {
      valid_duration = number_after(line, "RunTime=", &s.seconds) && number_after(line, "ReceivedMessages=", &s.transactions);
      continue;
    }
    double q = 0, us = 0;
    if (!number_after(line, "percentile ", &q) || !number_after(line, "= ", &us)) continue;
    double* into = q == 50 ? &s.p50_ms : q == 90 ? &s.p90_ms : q == 99 ? &s.p99_ms : std::abs(q - 99.9) < 1e-9 ? &s.p999_ms : nullptr;
    if (into) *into = 2 * us / 1000, ++percentiles;
  }
  if (!valid_duration || s.seconds <= 0) return make_error("sockperf printed no [Valid Duration] line", "see the sample's raw output");
  if (s.transactions > 0 && percentiles < 4) return make_error("sockperf printed no percentiles", "see the sample's raw output");
  return s;
}

std::vector<std::string> crr_server_argv(const std::string& program, int port, int size) {
  return {program, "server", std::to_string(port), std::to_string(size)};
}

std::vector<std::string> crr_client_argv(const std::string& program, const std::string& address, int port, int size, double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds);
  return {program, "client", address, std::to_string(port), std::to_string(size), buf};
}

Result<TransactionSample> parse_crr(const std::string& text) {
  nlohmann::json j = parse_json_bounded(text);
  if (j.is_discarded() || !j.is_object() || !j.contains("connections") || !j["connections"].is_number())
    return make_error("vpnlab-crr output is not its JSON line", "see the sample's raw output");
  const uint64_t errors = whole_number_or<uint64_t>(j, "errors", 0);
  if (errors > 0)
    return make_error("vpnlab-crr: " + std::to_string(errors) + " transaction(s) failed, the first: " + j.value("first_error", std::string("?")));
  TransactionSample s;
  s.transactions = j.value("connections", 0.0);
  s.seconds = j.value("seconds", 0.0);
  s.p50_ms = j.value("p50_ms", 0.0);
  s.p90_ms = j.value("p90_ms", 0.0);
  s.p99_ms = j.value("p99_ms", 0.0);
  s.p999_ms = j.value("p999_ms", 0.0);
  if (s.transactions <= 0) return make_error("vpnlab-crr finished no transaction");
  return s;
}

}  // namespace vpnlab
