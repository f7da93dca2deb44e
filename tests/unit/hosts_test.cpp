// The hosts backend's pure parts: [[host]] parsing and the layouts it refuses, each host's
// part of a plan, the part's wire form, and ssh's argv.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "../temp_paths.h"
#include "lab/backends/hosts/plan_wire.h"
#include "lab/backends/hosts/ssh_channel.h"
#include "lab/base/fs_util.h"
#include "lab/model/plan.h"
#include "lab/model/topology.h"
#include "lab/results/report_hosts.h"

using namespace vpnlab;

namespace {

// a and b on h1 (link local between them), c on h2; link wan, a-c, crosses the hosts.
const char* kHosts = R"([lab]
name = "hl"
backend = "hosts"

[[host]]
name = "h1"
ssh = "root@192.0.2.10"
nic = "enp2s0"
ssh_options = ["-p", "2222"]

[[host]]
name = "h2"
ssh = "lab-h2"
nic = "eth1"

[overlay]
subnet = "10.77.0.0/24"

[[node]]
name = "a"
host = "h1"

[[node]]
name = "b"
host = "h1"

[[node]]
name = "c"
host = "h2"

[[link]]
name = "local"
nodes = ["a", "b"]
subnet = "192.168.1.0/24"

[[link]]
name = "wan"
nodes = ["a", "c"]
subnet = "192.168.2.0/24"

[bench]
products = ["baseline"]

[[bench.test]]
name = "a-to-c"
client = "a"
server = "c"
)";

std::string with(const std::string& from, const std::string& to) {
  std::string s = kHosts;
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  auto r = parse_topology_text(text, "topologies/x.toml");
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().where_and_what() + "\nhint: " + r.error().hint;
}

Plan plan_of(const std::string& text, const std::string& backend = "") {
  auto topo = parse_topology_text(text, "topologies/x.toml");
  EXPECT_TRUE(topo.ok()) << (topo.ok() ? "" : topo.error().format());
  PlanOptions o;
  o.run_id = "r";
  o.tag = "t1";
  o.backend = backend;
  auto plan = make_plan(*topo, o);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().format());
  return *plan;
}

}  // namespace

TEST(HostsTopology, HostsAndNodeHostsAreRead) {
  auto topo = parse_topology_text(kHosts, "x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  ASSERT_EQ(topo->hosts.size(), 2u);
  EXPECT_EQ(topo->hosts[0].ssh, "root@192.0.2.10");
  EXPECT_EQ(topo->hosts[0].ssh_options, (std::vector<std::string>{"-p", "2222"}));
  EXPECT_EQ(topo->hosts[1].nic, "eth1");
  EXPECT_EQ(topo->nodes[2].host, "h2");
}

TEST(HostsTopology, MistakesAreLocatedWithAHint) {
  EXPECT_EQ(error_of(with("host = \"h2\"", "host = \"h3\"")),
            "topologies/x.toml:29:8: node 'c': host 'h3' is not defined\nhint: did you mean 'h1'?");
  EXPECT_EQ(error_of(with("[[node]]\nname = \"c\"\nhost = \"h2\"", "[[node]]\nname = \"c\"")),
            "topologies/x.toml:27:1: node 'c' has no host (backend 'hosts')\nhint: add host = \"h1\" (one of the "
            "[[host]] names)");
  EXPECT_EQ(error_of(with("ssh = \"lab-h2\"", "ssh = \"-oProxyCommand=x\"")),
            "topologies/x.toml:13:7: host 'h2': ssh = \"-oProxyCommand=x\" is not an SSH destination: host "
            "'-oProxyCommand=x' is not a host name or "
            "address ([A-Za-z0-9.-_], an IPv4 address or [IPv6])\n"
            "hint: write ssh = \"root@192.0.2.10\" (vpnlab runs ssh with -F none: no ~/.ssh/config Host applies)");
  EXPECT_EQ(error_of(with("nic = \"eth1\"", "nic = \"lo\"")),
            "topologies/x.toml:14:7: host 'h2': nic 'lo' is not an interface the lab may take\n"
            "hint: name the host's spare interface for the lab's links (no addresses on it, not the one SSH uses)");
  // A link between hosts is a pair's wire: two nodes.
  EXPECT_EQ(error_of(with("nodes = [\"a\", \"c\"]", "nodes = [\"a\", \"b\", \"c\"]")),
            "topologies/x.toml:36:1: link 'wan' joins 3 nodes on several hosts\n"
            "hint: a link between hosts is that pair's wire: give it two nodes, one on each host, and keep larger "
            "links on one host");
  // One nic per host: b cannot cross too.
  std::string two =
      with("[bench]", "[[link]]\nname = \"wan2\"\nnodes = [\"b\", \"c\"]\nsubnet = \"192.168.3.0/24\"\n\n[bench]");
  EXPECT_NE(error_of(two).find("host 'h1' has one nic ('enp2s0'), but link 'wan' (node 'a') and link 'wan2' (node 'b') "
                               "both cross to other hosts"),
            std::string::npos)
      << error_of(two);
  EXPECT_EQ(error_of(with("backend = \"hosts\"", "backend = \"host\"")).substr(0, 51),
            "topologies/x.toml:3:11: lab: unknown backend 'host'");
  EXPECT_NE(error_of(with("[link]]\nname = \"wan\"", "[link]]\nrate = \"1gbit\"\nname = \"wan\""))
                .find("link 'wan' crosses hosts and is shaped"),
            std::string::npos);
}

// The file's own backend is netns here: --backend hosts still checks the layout, and the
// hosts tables are ignored by netns.
TEST(HostsTopology, OneFileServesEveryBackend) {
  std::string netns = with("backend = \"hosts\"", "backend = \"netns\"");
  Plan local = plan_of(netns);
  EXPECT_EQ(local.backend, "netns");
  EXPECT_TRUE(local.hosts.empty());
  EXPECT_TRUE(local.node("c")->host.empty());
  Plan hosts = plan_of(netns, "hosts");
  EXPECT_EQ(hosts.backend, "hosts");
  EXPECT_EQ(hosts.hosts.size(), 2u);
  EXPECT_EQ(hosts.node("c")->host, "h2");
  std::string no_host = with("[[node]]\nname = \"c\"\nhost = \"h2\"", "[[node]]\nname = \"c\"");
  no_host = no_host.replace(no_host.find("backend = \"hosts\""), 17, "backend = \"netns\"");
  auto t2 = parse_topology_text(no_host, "x.toml");
  ASSERT_TRUE(t2.ok());
  PlanOptions o;
  o.backend = "hosts";
  auto refused = make_plan(*t2, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "node 'c' has no host (backend 'hosts')");
}

TEST(HostsPlan, EachHostGetsItsNodesLinksRoutesAndTheNicOfTheCrossingLink) {
  Plan plan = plan_of(kHosts);
  Plan h1 = plan_for_host(plan, "h1");
  ASSERT_EQ(h1.nodes.size(), 2u);
  EXPECT_EQ(h1.nodes[0].name, "a");
  ASSERT_EQ(h1.veths.size(), 1u);  // local, a-b
  EXPECT_EQ(h1.veths[0].link, "local");
  ASSERT_EQ(h1.nics.size(), 1u);
  EXPECT_EQ(h1.nics[0].nic, "enp2s0");
  EXPECT_EQ(h1.nics[0].node, "a");
  EXPECT_EQ(h1.nics[0].ifname, "wan");
  EXPECT_EQ(h1.nics[0].addr.str(), "192.168.2.1/24");
  Plan h2 = plan_for_host(plan, "h2");
  ASSERT_EQ(h2.nodes.size(), 1u);
  EXPECT_TRUE(h2.veths.empty());
  ASSERT_EQ(h2.nics.size(), 1u);
  EXPECT_EQ(h2.nics[0].nic, "eth1");
  EXPECT_EQ(h2.nics[0].addr.str(), "192.168.2.2/24");
  for (const auto& r : h2.routes) EXPECT_EQ(r.node, "c");
  std::string text = describe_plan(plan);
  EXPECT_NE(text.find("host h1 (ssh root@192.0.2.10, nic enp2s0): nodes a b\n"
                      "  enp2s0 moves into node a as wan 192.168.2.1/24 (link wan), back at teardown\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  wan: the wire between h1 and h2 (nic enp2s0 of h1, eth1 of h2), MTU 1500\n"),
            std::string::npos)
      << text;
}

TEST(HostsPlan, APartSurvivesItsWireFormAndAMalformedOneIsRefused) {
  Plan part = plan_for_host(plan_of(kHosts), "h1");
  auto back = host_part_from_json(host_part_json(part));
  ASSERT_TRUE(back.ok()) << back.error().format();
  EXPECT_EQ(host_part_json(*back), host_part_json(part));
  EXPECT_EQ(back->nics[0].addr.str(), "192.168.2.1/24");
  auto j = host_part_json(part);
  j["veths"][0]["mtu"] = "big";
  EXPECT_FALSE(host_part_from_json(j).ok());
  j["veths"][0]["mtu"] = 1.5e115;  // fuzz_host_part: converting it to int was undefined behaviour
  auto too_big = host_part_from_json(j);
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.error().message,
            "malformed host part of the plan: 'mtu': 1.5e+115 is not a whole number from -2147483648 to 2147483647");
  j = host_part_json(part);
  j["nodes"][0]["ns"] = "other-ns";  // not the lab's prefix: never made
  auto refused = host_part_from_json(j);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "namespace 'other-ns' lacks the lab's prefix vpnlab-");
}

TEST(HostsSsh, ArgvKeepsTheDestinationAndQuotesTheRemoteCommand) {
  SshTarget t{"h1", "root@192.0.2.10", {"-p", "2222"}, "/opt/vpn lab/vpnlab-host-agent", "", ""};
  std::vector<std::string> argv =
      ssh_argv(t, SshTrust{"/var/lib/vpnlab/known_hosts", "yes", ""}, "/tmp/vpnlab-ssh-Ab12Cd");
  ASSERT_GE(argv.size(), 5u);
  EXPECT_EQ(argv[0], "ssh");
  EXPECT_EQ(argv[1], "-F");
  EXPECT_EQ(argv[2], "none") << "no ssh_config is read";
  EXPECT_NE(std::find(argv.begin(), argv.end(), "BatchMode=yes"), argv.end());
  EXPECT_EQ(std::find(argv.begin(), argv.end(), "StrictHostKeyChecking=no"), argv.end());
  EXPECT_EQ(argv[argv.size() - 3], "--");
  EXPECT_EQ(argv[argv.size() - 2], "root@192.0.2.10");
  EXPECT_EQ(argv.back(), "exec '/opt/vpn lab/vpnlab-host-agent' --stdio");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

// vpnlab's trust options come before the topology's (ssh keeps the first value of each), the
// control socket sits in the private directory, a pinned key is filed under vpnlab's alias.
TEST(HostsSsh, VpnlabsOwnFileModeAndSocketComeFirst) {
  SshTarget t{"h1", "root@192.0.2.10", {"-p", "2222"}, "/usr/libexec/vpnlab/vpnlab-host-agent", "", ""};
  auto argv =
      ssh_argv(t, SshTrust{"/tmp/vpnlab-ssh-Ab12Cd/known_hosts-h1", "yes", "vpnlab-host-h1"}, "/tmp/vpnlab-ssh-Ab12Cd");
  auto at = [&](const std::string& word) { return std::find(argv.begin(), argv.end(), word) - argv.begin(); };
  EXPECT_LT(at("UserKnownHostsFile=/tmp/vpnlab-ssh-Ab12Cd/known_hosts-h1"), at("-p"));
  EXPECT_LT(at("StrictHostKeyChecking=yes"), at("-p"));
  EXPECT_LT(at("HostKeyAlias=vpnlab-host-h1"), at("-p"));
  EXPECT_LT(at("GlobalKnownHostsFile=/dev/null"), at("-p"));
  EXPECT_LT(at("ControlPath=/tmp/vpnlab-ssh-Ab12Cd/%C"), at("-p"));
}

// Where the keys come from: a pinned key is written (0600) into the private directory under
// the alias; a named file is copied there after it is read as a regular file; otherwise
// vpnlab's own file, which must be this user's and writable by nobody else.
TEST(HostsSsh, TrustIsPinnedCopiedOrVpnlabsOwnFile) {
  const std::string dir = make_temp_dir("ssh-private");
  ASSERT_EQ(::chmod(dir.c_str(), 0700), 0);
  SshTarget t{
      "h1", "root@192.0.2.10", {}, "/usr/libexec/vpnlab/vpnlab-host-agent", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEY",
      ""};
  auto pinned = prepare_ssh_trust(t, dir);
  ASSERT_TRUE(pinned.ok()) << pinned.error().format();
  EXPECT_EQ(pinned->alias, "vpnlab-host-h1");
  EXPECT_EQ(pinned->strict, "yes");
  EXPECT_EQ(read_file_text(pinned->known_hosts_file), "vpnlab-host-h1 ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKEY\n");
  EXPECT_EQ(std::filesystem::status(pinned->known_hosts_file).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  t.host_key = "";
  t.known_hosts = dir + "/fifo";
  ASSERT_EQ(::mkfifo(t.known_hosts.c_str(), 0600), 0);
  auto fifo = prepare_ssh_trust(t, dir);
  ASSERT_FALSE(fifo.ok());
  EXPECT_NE(fifo.error().message.find("a FIFO, not a file vpnlab wrote"), std::string::npos) << fifo.error().message;

  t.known_hosts = "";
  t.host_key = "accept-new";
  const std::string own = dir + "/own/known_hosts";
  setenv("VPNLAB_KNOWN_HOSTS", own.c_str(), 1);
  auto first = prepare_ssh_trust(t, dir);
  ASSERT_TRUE(first.ok()) << first.error().format();
  EXPECT_EQ(first->known_hosts_file, own);
  EXPECT_EQ(first->strict, "accept-new");
  EXPECT_EQ(first->alias, "");
  ASSERT_EQ(::chmod(own.c_str(), 0666), 0);
  auto writable = prepare_ssh_trust(t, dir);
  ASSERT_FALSE(writable.ok());
  EXPECT_NE(writable.error().message.find("is not a regular file of this user that only it may write"),
            std::string::npos)
      << writable.error().message;
  std::filesystem::remove(own);
  std::filesystem::create_symlink("/etc/cron.d/vpnlab-victim", own);
  auto link = prepare_ssh_trust(t, dir);
  ASSERT_FALSE(link.ok());
  EXPECT_NE(link.error().message.find("is a symbolic link"), std::string::npos) << link.error().message;
  EXPECT_FALSE(std::filesystem::exists("/etc/cron.d/vpnlab-victim"));
  unsetenv("VPNLAB_KNOWN_HOSTS");

  ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
  auto open_dir = prepare_ssh_trust(t, dir);
  ASSERT_FALSE(open_dir.ok());
  EXPECT_NE(open_dir.error().message.find("is not a private directory of this user (mode 0700)"), std::string::npos);
  auto mine = ssh_private_dir();
  if (ssh_private_dir_prefix().empty()) {  // not root, no private runtime directory: refused, never /tmp
    ASSERT_FALSE(mine.ok());
    EXPECT_EQ(mine.error().hint,
              "run vpnlab as root (it keeps them in /run), or set XDG_RUNTIME_DIR to a directory only you may enter");
  } else {
    ASSERT_TRUE(mine.ok()) << mine.error().format();
    EXPECT_EQ(std::filesystem::status(*mine).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_all);
    EXPECT_EQ(mine->rfind(::geteuid() == 0 ? "/run/vpnlab-ssh-"
                                           : ssh_private_dir_prefix_for(::geteuid(), std::getenv("XDG_RUNTIME_DIR")),
                          0),
              0u)
        << "root's own /run when root";
    // The pid (for `vpnlab cleanup`), then mkdtemp's random part: a name nobody can compute.
    const std::string prefix = ssh_private_dir_prefix() + std::to_string(::getpid()) + "-";
    EXPECT_EQ(mine->rfind(prefix, 0), 0u) << *mine;
    EXPECT_EQ(mine->size(), prefix.size() + 6) << *mine;
    EXPECT_NE(mine->substr(prefix.size()), "XXXXXX") << *mine;
  }
  // Not root: its own runtime directory when it is private, and nowhere without one (not
  // /tmp, where any user could take the name first).
  std::string runtime = make_temp_dir("xdg");
  uid_t user = ::geteuid();
  if (user == 0) {
    user = 12345;
    ASSERT_EQ(::chown(runtime.c_str(), user, 0), 0);
  }
  ASSERT_EQ(::chmod(runtime.c_str(), 0700), 0);
  EXPECT_EQ(ssh_private_dir_prefix_for(user, runtime.c_str()), runtime + "/vpnlab-ssh-");
  EXPECT_EQ(ssh_private_dir_prefix_for(user, nullptr), "");
  EXPECT_EQ(ssh_private_dir_prefix_for(user, "relative/dir"), "");
  EXPECT_EQ(ssh_private_dir_prefix_for(user + 1, runtime.c_str()), "") << "another user's directory";
  ASSERT_EQ(::chmod(runtime.c_str(), 0755), 0);
  EXPECT_EQ(ssh_private_dir_prefix_for(user, runtime.c_str()), "") << "others may enter it";
  EXPECT_EQ(ssh_private_dir_prefix_for(0, runtime.c_str()), "/run/vpnlab-ssh-");
  EXPECT_EQ(ssh_private_dir_prefix_for(0, nullptr), "/run/vpnlab-ssh-");
}

TEST(HostsReport, CpuPerMachineFromTheRowsAndHostsFromTheEnvironment) {
  EXPECT_EQ(cpu_by_host("h1:1.5;h2+h3:0.25;bad;:1;h4:x;h5:-1"),
            (std::map<std::string, double>{{"h1", 1.5}, {"h2+h3", 0.25}}));
  std::vector<SampleRow> rows(3);
  for (int i = 0; i < 3; ++i) {
    rows[i].product = "wireguard-go";
    rows[i].test = "a-to-b";
    rows[i].status = "ok";
    rows[i].valid = true;
    rows[i].gbps = 0.5;
    rows[i].duration_s = 2;
    rows[i].cpu_by_host = "h1:" + std::to_string(1 + i) + ";h2:0.5";
  }
  rows[2].valid = false;  // does not count
  auto table = host_cpu_rows(rows);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[1], (std::vector<std::string>{"wireguard-go", "a-to-b", "h1", "1.50", "2"}));
  EXPECT_EQ(table[2], (std::vector<std::string>{"wireguard-go", "a-to-b", "h2", "0.50", "2"}));
  rows[0].cpu_by_host = rows[1].cpu_by_host = "";
  EXPECT_TRUE(host_cpu_rows(rows).empty());  // netns and vm runs: no section

  nlohmann::json env = nlohmann::json::parse(
      R"({"hosts": [{"name": "h1", "ssh": "root@192.0.2.10", "kernel": "6.1.0", "cpu_model": "EPYC",
      "cpus": 8, "boot_id": "0123456789ab", "version": "v1", "nics": {"enp2s0": {"driver": "ixgbe", "speed_mbps": "10000"}},
      "products": {"nebula": {"version": "Version: 1.6.1"}}}, 7]})");
  EXPECT_EQ(
      host_items(env),
      (std::vector<std::string>{
          "Host h1 (ssh root@192.0.2.10): kernel 6.1.0, CPU EPYC x 8, boot 01234567, agent v1; nic enp2s0 (ixgbe, "
          "10000 Mbit/s); nebula Version: 1.6.1."}));
  EXPECT_TRUE(host_items(nlohmann::json::object()).empty());
}

// The shipped two-machine example plans on both backends it is meant for.
TEST(HostsTopology, TheShippedTwoHostsExamplePlansAsHostsAndAsNetns) {
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/two-hosts.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  PlanOptions o;
  o.run_id = "r";
  o.tag = "t";
  auto hosts = make_plan(*topo, o);
  ASSERT_TRUE(hosts.ok()) << hosts.error().format();
  EXPECT_EQ(hosts->backend, "hosts");
  EXPECT_EQ(plan_for_host(*hosts, "h1").nics.size(), 1u);
  EXPECT_EQ(plan_for_host(*hosts, "h2").nics.size(), 1u);
  o.backend = "netns";
  auto local = make_plan(*topo, o);
  ASSERT_TRUE(local.ok());
  EXPECT_TRUE(local->hosts.empty());
  EXPECT_EQ(local->veths.size(), 1u);
}
