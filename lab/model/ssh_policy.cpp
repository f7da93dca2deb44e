#include "lab/model/ssh_policy.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace vpnlab {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool has_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

bool all_of_chars(const std::string& s, const char* extra) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [&](unsigned char c) { return std::isalnum(c) || std::strchr(extra, c); });
}

// "Key=Value" or "Key Value", as ssh -o reads it.
std::string check_o_value(const std::string& kv) {
  if (has_control(kv)) return "'" + kv + "' holds a control character";
  const size_t split = kv.find_first_of("= \t");
  const std::string key = kv.substr(0, split);
  std::string value = split == std::string::npos ? "" : kv.substr(split + 1);
  value.erase(0, value.find_first_not_of(" \t="));
  // Options that name a file ssh writes as root, or change what it writes and trusts there:
  // vpnlab sets these itself (its own known-hosts file, 0600), from host_key or known_hosts.
  for (const auto& [owned, instead] : std::vector<std::pair<std::string, std::string>>{
           {"userknownhostsfile",
            "name a known-hosts file with known_hosts = \"FILE\" (vpnlab reads it, never writes it)"},
           {"globalknownhostsfile",
            "name a known-hosts file with known_hosts = \"FILE\" (vpnlab reads it, never writes it)"},
           {"hostkeyalias", "pin the host's key with host_key = \"ssh-ed25519 AAAA...\""},
           {"stricthostkeychecking",
            "host_key = \"accept-new\" trusts a host's first key (kept in vpnlab's own known-hosts file)"},
           {"checkhostip", "vpnlab checks the host's key, not its address"},
           {"updatehostkeys", "vpnlab's known-hosts file changes only through host_key = \"accept-new\""}})
    if (lower(key) == owned)
      return "-o " + key + " is vpnlab's to set: with it ssh writes host keys to a file as root; " + instead;
  const auto& allowed = allowed_ssh_option_keys();
  if (std::none_of(allowed.begin(), allowed.end(), [&](const std::string& k) { return lower(k) == lower(key); })) {
    std::string list;
    for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
    return "-o " + key +
           " is not an option a topology may set (some ssh options run commands or load code); allowed: " + list;
  }
  if (value.empty()) return "-o " + key + " has no value";
  if (value[0] == '-') return "-o " + key + "=" + value + ": a value may not start with '-'";
  return "";
}

}  // namespace

const std::vector<std::string>& allowed_ssh_option_keys() {
  static const std::vector<std::string> keys = {"IdentityFile",
                                                "IdentitiesOnly",
                                                "Port",
                                                "User",
                                                "ConnectTimeout",
                                                "ConnectionAttempts",
                                                "ServerAliveInterval",
                                                "ServerAliveCountMax",
                                                "AddressFamily",
                                                "Compression",
                                                "HostKeyAlgorithms",
                                                "PubkeyAcceptedAlgorithms",
                                                "Ciphers",
                                                "MACs",
                                                "KexAlgorithms",
                                                "LogLevel"};
  return keys;
}

std::string ssh_options_problem(const std::vector<std::string>& options, size_t* bad) {
  for (size_t i = 0; i < options.size(); ++i) {
    *bad = i;
    const std::string& o = options[i];
    if (has_control(o)) return "'" + o + "' holds a control character";
    // Flags without a value.
    if (o == "-4" || o == "-6" || o == "-C") continue;
    // -F none: no ssh_config at all (vpnlab gives it anyway); any other file could say anything.
    if ((o == "-F" && i + 1 < options.size() && options[i + 1] == "none") || o == "-Fnone") {
      i += o == "-F";
      continue;
    }
    if (o == "-F" || o.rfind("-F", 0) == 0)
      return "-F names an ssh configuration, which may run commands: only '-F none' is taken";
    // Flags with a value, glued ("-p2222") or as the next item ("-p", "2222").
    if (o.size() >= 2 && o[0] == '-' && std::strchr("iplo", o[1]) && o.size() <= 2 + 4096) {
      std::string value = o.substr(2);
      if (value.empty()) {
        if (i + 1 >= options.size()) return o + " needs a value after it";
        value = options[++i];
        *bad = i;
        if (has_control(value)) return "'" + value + "' holds a control character";
      }
      if (o[1] == 'o') {
        if (auto why = check_o_value(value); !why.empty()) return why;
      } else if (o[1] == 'p' && !all_of_chars(value, "")) {
        return "-p " + value + " is not a port number";
      } else if (o[1] == 'l' && !all_of_chars(value, "._-")) {
        return "-l " + value + " is not a user name";
      } else if (value[0] == '-') {
        return o + " " + value + ": a value may not start with '-'";
      }
      continue;
    }
    return "'" + o +
           "' is not an ssh option a topology may give (allowed: -i FILE, -p PORT, -l USER, -o KEY=VALUE, -4, -6, -C)";
  }
  return "";
}

std::string ssh_destination_problem(const std::string& destination) {
  std::string host = destination;
  if (auto at = destination.rfind('@'); at != std::string::npos) {
    const std::string user = destination.substr(0, at);
    if (!all_of_chars(user, "._-") || user[0] == '-') return "user '" + user + "' is not a plain user name";
    host = destination.substr(at + 1);
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host.size() > 253 || host[0] == '-' || !all_of_chars(host, ".-_:"))
    return "host '" + host + "' is not a host name or address ([A-Za-z0-9.-_], an IPv4 address or [IPv6])";
  return "";
}

std::vector<OptionPath> identity_file_places(const std::vector<std::string>& options) {
  std::vector<OptionPath> out;
  auto key_value = [&](size_t item, size_t from) {  // "IdentityFile=FILE" starting at `from`
    const std::string& kv = options[item];
    const size_t split = kv.find_first_of("= \t", from);
    const size_t value = split == std::string::npos ? std::string::npos : kv.find_first_not_of("= \t", split);
    if (value != std::string::npos && lower(kv.substr(from, split - from)) == "identityfile")
      out.push_back({item, value});
  };
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string& o = options[i];
    if ((o == "-i" || o == "-o") && i + 1 < options.size()) {
      if (o == "-i")
        out.push_back({i + 1, 0});
      else
        key_value(i + 1, 0);
      ++i;
    } else if (o.size() > 2 && o.rfind("-i", 0) == 0) {
      out.push_back({i, 2});
    } else if (o.size() > 2 && o.rfind("-o", 0) == 0) {
      key_value(i, 2);
    }
  }
  return out;
}

std::string host_key_problem(const std::string& key) {
  if (key == "accept-new") return "";
  static const std::vector<std::string> types = {"ssh-ed25519",
                                                 "ecdsa-sha2-nistp256",
                                                 "ecdsa-sha2-nistp384",
                                                 "ecdsa-sha2-nistp521",
                                                 "ssh-rsa",
                                                 "sk-ssh-ed25519@openssh.com",
                                                 "sk-ecdsa-sha2-nistp256@openssh.com"};
  const size_t space = key.find(' ');
  const std::string type = key.substr(0, space);
  if (space == std::string::npos || std::find(types.begin(), types.end(), type) == types.end())
    return "'" + key.substr(0, 40) +
           "' is not TYPE KEY (ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa) or \"accept-new\"";
  const std::string body = key.substr(space + 1);
  if (body.size() < 16 || body.size() > 4096 || !all_of_chars(body, "+/="))
    return "the key after '" + type + "' is not base64 (the second field of the host's .pub file, nothing after it)";
  return "";
}

std::string agent_path_problem(const std::string& agent) {
  const std::string name = "/vpnlab-host-agent";
  if (agent.empty() || agent[0] != '/') return "'" + agent + "' is not an absolute path";
  if (agent.size() < name.size() || agent.compare(agent.size() - name.size(), name.size(), name) != 0)
    return "'" + agent +
           "' does not name vpnlab-host-agent (a topology says where the agent is installed, not which program runs as "
           "root)";
  if (!all_of_chars(agent, "/._-") || agent.find("/../") != std::string::npos || agent.find("/./") != std::string::npos)
    return "'" + agent + "' is not a plain path ([A-Za-z0-9/._-], no '..')";
  return "";
}

}  // namespace vpnlab
