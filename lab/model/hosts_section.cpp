// [[host]] tables and the layout the hosts backend can build. A host is a machine reached
// over SSH; its nodes are namespaces there, linked by veths and bridges as on this machine,
// and a link between nodes of two hosts is that pair of hosts' physical network: each end's
// node takes its host's `nic`. One NIC per host, so one such link end per host (several
// would need macvlan, which this backend does not make).
#include <algorithm>
#include <map>
#include <set>

#include "lab/model/plan_parts.h"
#include "lab/model/ssh_policy.h"
#include "lab/model/topology_parse.h"

namespace vpnlab {

namespace {

const size_t kMaxHostName = 32;
const size_t kMaxIfName = 15;  // IFNAMSIZ - 1

// A relative path in the topology is to its folder, as every other file it names.
std::string beside_topology(const std::string& topology_file, const std::string& path) {
  if (path.empty() || path[0] == '/' || path[0] == '~') return path;
  const auto slash = topology_file.rfind('/');
  return slash == std::string::npos ? path : topology_file.substr(0, slash + 1) + path;
}

// -i FILE, -iFILE and -o IdentityFile=FILE: relative to the topology's folder, as ssh would
// otherwise read them from wherever vpnlab was started.
void resolve_identity_files(const std::string& topology_file, std::vector<std::string>* options) {
  for (const auto& at : identity_file_places(*options)) {
    std::string& item = (*options)[at.item];
    item = item.substr(0, at.offset) + beside_topology(topology_file, item.substr(at.offset));
  }
}

}  // namespace

Status parse_hosts(const TomlReader& r, const toml::table& root, Topology* topo) {
  const toml::node* hosts = root.get("host");
  if (!hosts) {
    if (backend_traits(topo->backend).remote_hosts)
      return r.at(
          SourcePos{1, 1}, "backend '" + topo->backend + "' but no [[host]] defined",
          "add [[host]] tables with name, ssh (e.g. \"root@192.0.2.10\") and nic, and host = \"...\" in each [[node]]");
    return ok_status();
  }
  std::set<std::string> seen;
  if (auto s = for_each_table(
          r, root, "host",
          [&](const toml::table& t) -> Status {
            HostSpec h;
            h.pos = pos_of(t);
            if (auto s =
                    r.only_keys(t, "host", {"name", "ssh", "ssh_options", "nic", "agent", "host_key", "known_hosts"});
                !s)
              return s;
            if (auto s = get_string(r, t, "name", "host", &h.name, true, h.pos); !s) return s;
            std::string what = "host '" + h.name + "'";
            if (auto s = check_name(r, pos_of(*t.get("name")), "host", h.name, kMaxHostName); !s) return s;
            if (!seen.insert(h.name).second)
              return r.at(*t.get("name"), what + " is defined twice", "give every host a unique name");
            if (auto s = get_string(r, t, "ssh", what, &h.ssh, true, h.pos); !s) return s;
            // ssh reads a destination that starts with '-' as an option, and puts the host into
            // commands of the user's own ssh_config (%h): a plain name or address only.
            if (auto why = ssh_destination_problem(h.ssh); !why.empty())
              return r.at(
                  *t.get("ssh"), what + ": ssh = \"" + h.ssh + "\" is not an SSH destination: " + why,
                  "write ssh = \"root@192.0.2.10\" (vpnlab runs ssh with -F none: no ~/.ssh/config Host applies)");
            if (t.get("ssh_options")) {
              SourcePos pos;
              if (auto s = get_string_list(r, t, "ssh_options", what, &h.ssh_options, &pos); !s) return s;
              size_t bad = 0;
              if (auto why = ssh_options_problem(h.ssh_options, &bad); !why.empty())
                return r.at(*t.get("ssh_options")->as_array()->get(bad), what + ": ssh_options: " + why,
                            "give ssh what it needs with -i, -p, -l and the -o keys listed in the README (\"Trust\"); "
                            "host keys with host_key or known_hosts");
              resolve_identity_files(r.file(), &h.ssh_options);
            }
            if (auto s = get_string(r, t, "host_key", what, &h.host_key, false, h.pos); !s) return s;
            if (auto why = h.host_key.empty() ? "" : host_key_problem(h.host_key); !why.empty())
              return r.at(*t.get("host_key"), what + ": host_key " + why,
                          "copy the key from the host: ssh-keyscan -t ed25519 HOST, without the host name");
            if (auto s = get_string(r, t, "known_hosts", what, &h.known_hosts, false, h.pos); !s) return s;
            if (!h.known_hosts.empty() && !h.host_key.empty())
              return r.at(*t.get("known_hosts"), what + ": both host_key and known_hosts",
                          "trust the host's key one way: pin it, or name the file");
            if (!h.known_hosts.empty()) h.known_hosts = beside_topology(r.file(), h.known_hosts);
            if (auto s = get_string(r, t, "nic", what, &h.nic, false, h.pos); !s) return s;
            if (h.nic.size() > kMaxIfName || h.nic == "lo" || h.nic.find('/') != std::string::npos)
              return r.at(
                  *t.get("nic"), what + ": nic '" + h.nic + "' is not an interface the lab may take",
                  "name the host's spare interface for the lab's links (no addresses on it, not the one SSH uses)");
            if (auto s = get_string(r, t, "agent", what, &h.agent, false, h.pos); !s) return s;
            if (auto why = h.agent.empty() ? "" : agent_path_problem(h.agent); !why.empty())
              return r.at(*t.get("agent"), what + ": agent " + why,
                          "write agent = \"/usr/libexec/vpnlab/vpnlab-host-agent\"");
            topo->hosts.push_back(std::move(h));
            return ok_status();
          });
      !s)
    return s;
  return ok_status();
}

Status check_hosts_layout(const Topology& topo) {
  if (topo.hosts.empty())
    return plan_error(topo, SourcePos{1, 1}, "backend 'hosts' but no [[host]] defined",
                      "add [[host]] tables with name, ssh and nic, and host = \"...\" in each [[node]]");
  std::map<std::string, std::string> host_of;
  for (const auto& n : topo.nodes) {
    if (n.host.empty())
      return plan_error(topo, n.pos, "node '" + n.name + "' has no host (backend 'hosts')",
                        "add host = \"" + topo.hosts.front().name + "\" (one of the [[host]] names)");
    host_of[n.name] = n.host;
  }
  std::map<std::string, std::string> nic_user;  // host -> "link 'x' (node n)"
  for (const auto& l : topo.links) {
    std::set<std::string> hosts;
    for (const auto& n : l.nodes) hosts.insert(host_of[n]);
    if (hosts.size() == 1) continue;
    std::string what = "link '" + l.name + "'";
    if (l.nodes.size() != 2)
      return plan_error(topo, l.pos, what + " joins " + std::to_string(l.nodes.size()) + " nodes on several hosts",
                        "a link between hosts is that pair's wire: give it two nodes, one on each host, and keep "
                        "larger links on one host");
    if (l.rate_bps > 0 || l.delay_ms > 0 || l.loss_pct > 0)
      return plan_error(topo, l.shaping_pos, what + " crosses hosts and is shaped",
                        "a physical link is measured as it is: remove rate/delay/loss, or keep both nodes on one host");
    for (const auto& n : l.nodes) {
      const std::string& host = host_of[n];
      auto h = std::find_if(topo.hosts.begin(), topo.hosts.end(), [&](const HostSpec& hs) { return hs.name == host; });
      if (h->nic.empty())
        return plan_error(topo, h->pos,
                          "host '" + host + "' has no nic, but " + what + " reaches node '" + n + "' from another host",
                          "add nic = \"...\": the host's spare interface wired to the other host");
      std::string use = what + " (node '" + n + "')";
      auto [it, fresh] = nic_user.emplace(host, use);
      if (!fresh)
        return plan_error(topo, l.pos,
                          "host '" + host + "' has one nic ('" + h->nic + "'), but " + it->second + " and " + use +
                              " both cross to other hosts",
                          "keep one cross-host link end per host (this backend makes no macvlan), or add a host");
    }
  }
  return ok_status();
}

}  // namespace vpnlab
