#include "lab/results/report_hosts.h"

#include <fmt/format.h>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <tuple>

#include "lab/base/stats.h"

namespace vpnlab {

std::map<std::string, double> cpu_by_host(const std::string& field) {
  std::map<std::string, double> out;
  std::istringstream in(field);
  for (std::string item; std::getline(in, item, ';');) {
    auto colon = item.rfind(':');
    if (colon == std::string::npos || colon == 0) continue;
    char* end = nullptr;
    double v = std::strtod(item.c_str() + colon + 1, &end);
    if (end == item.c_str() + colon + 1 || *end != '\0' || !(v >= 0)) continue;
    out[item.substr(0, colon)] = v;
  }
  return out;
}

std::vector<std::string> host_items(const nlohmann::json& env) {
  std::vector<std::string> items;
  if (!env.contains("hosts") || !env["hosts"].is_array()) return items;
  for (const auto& h : env["hosts"]) {
    if (!h.is_object()) continue;
    auto text = [&](const char* key) {
      return h.contains(key) ? (h[key].is_string() ? h[key].get<std::string>() : h[key].dump()) : std::string("?");
    };
    std::string line = "Host " + text("name") + " (ssh " + text("ssh") + "): kernel " + text("kernel") + ", CPU " +
                       text("cpu_model") + " x " + text("cpus") + ", boot " + text("boot_id").substr(0, 8) +
                       ", agent " + text("version");
    if (h.contains("nics") && h["nics"].is_object())
      for (const auto& [nic, facts] : h["nics"].items())
        line += "; nic " + nic + " (" + facts.value("driver", std::string("?")) + ", " +
                facts.value("speed_mbps", std::string("?")) + " Mbit/s)";
    if (h.contains("products") && h["products"].is_object())
      for (const auto& [name, p] : h["products"].items())
        line += "; " + name + " " + p.value("version", std::string("?"));
    items.push_back(line + ".");
  }
  return items;
}

std::vector<std::vector<std::string>> host_cpu_rows(const std::vector<SampleRow>& rows) {
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> per;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  for (const auto& r : rows) {
    if (!counts_as_result(r) || r.cpu_by_host.empty()) continue;
    const double gbit = r.gbps * r.duration_s;
    if (gbit <= 0) continue;
    for (const auto& [host, cpu] : cpu_by_host(r.cpu_by_host)) {
      auto key = std::make_tuple(r.product, r.test, host);
      if (!per.count(key)) order.push_back(key);
      per[key].push_back(cpu / gbit);
    }
  }
  std::vector<std::vector<std::string>> out;
  if (order.empty()) return out;
  out.push_back({"product", "test", "host (machine)", "CPU-s/Gbit (median)", "samples"});
  for (const auto& key : order) {
    std::string buf = fmt::format("{:.2f}", describe(per[key]).median);
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), buf, std::to_string(per[key].size())});
  }
  return out;
}

}  // namespace vpnlab
