#include "lab/run/transactions.h"

#include <fmt/format.h>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "lab/base/json_depth.h"
#include "lab/base/json_number.h"

namespace vpnlab {

std::vector<std::string> crr_server_argv(const std::string& program, int port, int size, bool one_connection) {
  return {program, one_connection ? "rr-server" : "server", std::to_string(port), std::to_string(size)};
}

std::vector<std::string> crr_client_argv(const std::string& program, const std::string& address, int port, int size,
                                         double seconds, bool one_connection) {
  std::string buf = fmt::format("{:.3f}", seconds);
  return {program, one_connection ? "rr-client" : "client", address, std::to_string(port), std::to_string(size), buf};
}

Result<TransactionSample> parse_crr(const std::string& text) {
  nlohmann::json j = parse_json_bounded(text);
  if (j.is_discarded() || !j.is_object() || !j.contains("connections") || !j["connections"].is_number())
    return make_error("vpnlab-crr output is not its JSON line", "see the sample's raw output");
  const uint64_t errors = whole_number_or<uint64_t>(j, "errors", 0);
  if (errors > 0)
    return make_error("vpnlab-crr: " + std::to_string(errors) +
                      " transaction(s) failed, the first: " + j.value("first_error", std::string("?")));
  TransactionSample s;
  // rr's line counts transactions on one connection; crr's, one per connection.
  s.transactions = j.contains("transactions") ? j.value("transactions", 0.0) : j.value("connections", 0.0);
  s.seconds = j.value("seconds", 0.0);
  s.p50_ms = j.value("p50_ms", 0.0);
  s.p90_ms = j.value("p90_ms", 0.0);
  s.p99_ms = j.value("p99_ms", 0.0);
  s.p999_ms = j.value("p999_ms", 0.0);
  if (s.transactions <= 0) return make_error("vpnlab-crr finished no transaction");
  return s;
}

}  // namespace vpnlab
