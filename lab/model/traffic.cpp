#include "lab/model/traffic.h"

#include <algorithm>
#include <map>

namespace vpnlab {

std::string traffic_pattern(const TestSpec& t) {
  if (t.servers.size() == 1) return "one-to-one";
  return t.reverse ? "many-to-one" : "one-to-many";
}

std::string traffic_direction(const TestSpec& t) {
  if (t.bidirectional) return "bidirectional";
  return t.reverse ? "reverse" : "forward";
}

int udp_length(const TestSpec& t, int overlay_mtu) {
  if (!t.udp) return 0;
  if (t.length > 0) return t.length;
  return overlay_mtu > 0 ? max_udp_payload(overlay_mtu) : 0;  // IPv4 20 + UDP 8; 0 until "auto" is resolved
}

std::vector<TrafficProcess> expand_traffic(const Plan& plan, const PlanTest& test, int base_port) {
  const TestSpec& t = test.spec;
  const PlanNode& client = *plan.node(t.client);
  size_t m = t.servers.size();
  size_t k = std::max<size_t>(1, client.load_cpus.size());
  // At least one process per server, at most one per stream, otherwise one per load CPU.
  size_t count = std::max(m, std::min(k, static_cast<size_t>(t.streams)));
  std::vector<TrafficProcess> out;
  std::map<std::string, size_t> per_server;  // processes already placed on each server
  for (size_t i = 0; i < count; ++i) {
    TrafficProcess p;
    p.server_index = i % m;
    p.client = t.client;
    p.server = t.servers[p.server_index];
    p.port = base_port + static_cast<int>(i);
    // Exactly `streams` in total: the first (streams mod count) processes take one more.
    p.parallel = t.streams / static_cast<int>(count) + (i < static_cast<size_t>(t.streams) % count ? 1 : 0);
    if (!client.load_cpus.empty()) p.client_cpu = client.load_cpus[i % client.load_cpus.size()];
    const PlanNode& server = *plan.node(p.server);
    size_t on_server = per_server[p.server]++;
    if (!server.load_cpus.empty()) p.server_cpu = server.load_cpus[on_server % server.load_cpus.size()];
    if (t.bitrate_bps > 0) p.bitrate_bps = t.bitrate_bps / t.streams;
    p.length = udp_length(t, plan.overlay_mtu);
    out.push_back(p);
  }
  return out;
}

}  // namespace vpnlab
