#include "lab/backends/hosts/plan_wire.h"
#include "lab/base/json_number.h"

namespace vpnlab {

using nlohmann::json;

namespace {

std::string when_name(PlanRoute::When w) {
  return w == PlanRoute::When::tunnel ? "tunnel" : w == PlanRoute::When::baseline ? "baseline" : "always";
}

json addr_json(const std::optional<HostAddr>& a) { return a ? json(a->str()) : json(nullptr); }

// Reads what to_json wrote; nlohmann's exceptions (wrong type, missing key) become the
// Error of the one place that catches them.
HostAddr host_addr(const json& j) {
  auto a = parse_host_addr(j.get<std::string>());
  if (!a) throw std::invalid_argument("bad interface address '" + j.get<std::string>() + "'");
  return *a;
}

std::optional<HostAddr> opt_addr(const json& j) {
  if (j.is_null()) return std::nullopt;
  return host_addr(j);
}

Ipv4Prefix prefix(const json& j) {
  std::string why;
  auto p = parse_ipv4_prefix(j.get<std::string>(), &why);
  if (!p) throw std::invalid_argument("bad prefix: " + why);
  return *p;
}

Ipv4Addr address(const json& j) {
  auto a = parse_ipv4(j.get<std::string>());
  if (!a) throw std::invalid_argument("bad address '" + j.get<std::string>() + "'");
  return *a;
}

}  // namespace

json host_part_json(const Plan& part) {
  json nodes = json::array(), bridges = json::array(), veths = json::array(), nics = json::array(),
       routes = json::array();
  for (const auto& n : part.nodes) {
    json sites = json::array();
    for (const auto& s : n.sites) sites.push_back(s.str());
    nodes.push_back({{"name", n.name}, {"ns", n.ns}, {"sites", sites}, {"forwards", n.forwards}});
  }
  for (const auto& b : part.bridges)
    bridges.push_back({{"link", b.link}, {"ns", b.ns}, {"name", b.name}, {"mtu", b.mtu}});
  for (const auto& v : part.veths)
    veths.push_back({{"link", v.link},
                     {"ns_a", v.ns_a},
                     {"if_a", v.if_a},
                     {"addr_a", addr_json(v.addr_a)},
                     {"ns_b", v.ns_b},
                     {"if_b", v.if_b},
                     {"addr_b", addr_json(v.addr_b)},
                     {"master_b", v.master_b},
                     {"mtu", v.mtu},
                     {"rate_bps", v.rate_bps},
                     {"delay_ms", v.delay_ms},
                     {"jitter_ms", v.jitter_ms},
                     {"loss_pct", v.loss_pct},
                     {"reorder", v.reorder},
                     {"profile", v.profile}});
  for (const auto& n : part.nics)
    nics.push_back({{"link", n.link},
                    {"host", n.host},
                    {"nic", n.nic},
                    {"node", n.node},
                    {"ns", n.ns},
                    {"ifname", n.ifname},
                    {"addr", n.addr.str()},
                    {"mtu", n.mtu}});
  for (const auto& r : part.routes)
    routes.push_back({{"node", r.node}, {"dest", r.dest.str()}, {"via", r.via.str()}, {"when", when_name(r.when)}});
  return {{"ns_prefix", part.ns_prefix},
          {"nodes", nodes},
          {"bridges", bridges},
          {"veths", veths},
          {"nics", nics},
          {"routes", routes}};
}

Result<Plan> host_part_from_json(const json& j) {
  Plan part;
  try {
    part.backend = "netns";  // what the agent builds on its host
    part.ns_prefix = j.at("ns_prefix").get<std::string>();
    for (const auto& n : j.at("nodes")) {
      PlanNode node;
      node.name = n.at("name").get<std::string>();
      node.ns = n.at("ns").get<std::string>();
      for (const auto& s : n.at("sites")) node.sites.push_back(prefix(s));
      node.forwards = n.value("forwards", !node.sites.empty());  // an older vpnlab: gateways only
      part.nodes.push_back(std::move(node));
    }
    for (const auto& b : j.at("bridges"))
      part.bridges.push_back(PlanBridge{b.at("link").get<std::string>(), b.at("ns").get<std::string>(),
                                        b.at("name").get<std::string>(), whole_number_at<int>(b, "mtu")});
    for (const auto& v : j.at("veths"))
      part.veths.push_back(
          PlanVeth{v.at("link").get<std::string>(), v.at("ns_a").get<std::string>(), v.at("if_a").get<std::string>(),
                   opt_addr(v.at("addr_a")), v.at("ns_b").get<std::string>(), v.at("if_b").get<std::string>(),
                   opt_addr(v.at("addr_b")), v.at("master_b").get<std::string>(), whole_number_at<int>(v, "mtu"),
                   v.at("rate_bps").get<double>(), v.at("delay_ms").get<double>(), v.at("jitter_ms").get<double>(),
                   v.at("loss_pct").get<double>(), v.value("reorder", false), v.value("profile", std::string())});
    for (const auto& n : j.at("nics"))
      part.nics.push_back(PlanNic{n.at("link").get<std::string>(), n.at("host").get<std::string>(),
                                  n.at("nic").get<std::string>(), n.at("node").get<std::string>(),
                                  n.at("ns").get<std::string>(), n.at("ifname").get<std::string>(),
                                  host_addr(n.at("addr")), whole_number_at<int>(n, "mtu")});
    for (const auto& r : j.at("routes")) {
      std::string when = r.at("when").get<std::string>();
      if (when != "always" && when != "tunnel" && when != "baseline")
        throw std::invalid_argument("bad route kind '" + when + "'");
      part.routes.push_back(PlanRoute{r.at("node").get<std::string>(), prefix(r.at("dest")), address(r.at("via")),
                                      when == "tunnel"     ? PlanRoute::When::tunnel
                                      : when == "baseline" ? PlanRoute::When::baseline
                                                           : PlanRoute::When::always});
    }
  } catch (const std::exception& e) {
    return make_error(std::string("malformed host part of the plan: ") + e.what(),
                      "controller and agent must be the same vpnlab build");
  }
  // Every namespace the agent makes must carry the lab's prefix (cleanup finds it by that).
  for (const auto& n : part.nodes)
    if (n.ns.rfind(kLabPrefix, 0) != 0)
      return make_error("namespace '" + n.ns + "' lacks the lab's prefix " + kLabPrefix);
  for (const auto& b : part.bridges)
    if (b.ns.rfind(kLabPrefix, 0) != 0)
      return make_error("namespace '" + b.ns + "' lacks the lab's prefix " + kLabPrefix);
  return part;
}

}  // namespace vpnlab
