// What a topology file may tell ssh. vpnlab runs ssh with an argv (no shell), but ssh itself
// runs some option values through a shell (ProxyCommand, LocalCommand, KnownHostsCommand,
// Match exec), loads code named by others (PKCS11Provider, SecurityKeyProvider) or reads a
// whole configuration that may do either (-F, Include). A topology from a colleague or a
// repository must not run anything on this machine, so ssh_options is an allowlist: the
// flags and `-o` keys below, everything else refused at validate with the item and why.
// Nor may it make root's ssh write a file: the options that name or change the known-hosts
// file ssh appends to are vpnlab's own (lab/backends/hosts/ssh_channel.h), and host keys
// come from host_key = "TYPE KEY" or a known_hosts file the topology names, read only.
// The destination and the agent path are held to plain forms for the same reason.
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

// The `-o` keys a topology may set (compared case-insensitively, as ssh does).
const std::vector<std::string>& allowed_ssh_option_keys();

// Empty when `options` is allowed; otherwise why, and in *bad the index of the item at fault.
std::string ssh_options_problem(const std::vector<std::string>& options, size_t* bad);

// Empty when `destination` is [user@]host with a plain user and host name, IPv4 or [IPv6]
// address (ssh substitutes the host into commands of the user's own ssh_config).
std::string ssh_destination_problem(const std::string& destination);

// Where `options` name an identity file (-i FILE, -iFILE, -o IdentityFile=FILE, -oIdentityFile
// FILE, any case, '=' or blanks): the item holding it and the offset of the path in that item.
// The topology's parser makes them relative to its folder, the hosts backend checks them.
struct OptionPath {
  size_t item = 0;
  size_t offset = 0;
};
std::vector<OptionPath> identity_file_places(const std::vector<std::string>& options);

// Empty when `key` is a host key as a .pub file has it without its comment ("ssh-ed25519
// AAAA..."), or "accept-new" (trust the first key seen, kept in vpnlab's own file).
std::string host_key_problem(const std::string& key);

// Empty when `agent` is an absolute path to a program named vpnlab-host-agent: a topology
// chooses where the agent is installed on a host, not which program runs there as root.
std::string agent_path_problem(const std::string& agent);

}  // namespace vpnlab
