// The hosts backend against emulated hosts (tests/support/emulated_hosts.h): namespaces
// running Debian's sshd, reached from a controller namespace where vpnlab runs, with a
// veth pair between them as the wire. Everything real: ssh, sshd, the agent, the products.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

#include <linux/if_addr.h>
#include <netlink/route/addr.h>

#include "hosts_fixture.h"
#include "lab/base/fs_util.h"
#include "lab/kernel/netlink.h"
#include "lab/record/results_csv.h"
#include "root_test_support.h"
#include "tests/support/emulated_hosts.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

// The links of a namespace (by fd): the host's wire must be back as "wire0" after a run.
std::vector<std::string> links_in(int netns_fd) {
  std::vector<std::string> names;
  (void)run_in_netns(netns_fd, [&] {
    auto sock = open_route_socket();
    if (!sock) return;
    if (auto links = list_links(sock->get()))
      for (const auto& l : *links) names.push_back(l.name);
  });
  return names;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// `vpnlab run FILE` of 30 s samples in the controller, once a sample is under way (its raw
// iperf3 output has appeared); nullptr (and a test failure) otherwise.

}  // namespace

// The check: baseline, wireguard-go and nebula across two hosts, every row valid
// (the tunnel's counters on both hosts' nodes prove the crossing), the wires given back;
// then the same file on the netns backend.
TEST(Hosts, TwoEmulatedHostsMeasureBaselineWireguardGoAndNebula) {
  VPNLAB_REQUIRE_SSH();
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  VPNLAB_REQUIRE_PROGRAM("nebula");
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  const std::string file = f.dir + "/two-hosts.toml";
  ASSERT_TRUE(
      write_file(file, topology(*f.hosts, "hoststest", "\"baseline\", \"wireguard-go\", \"nebula\""), 0644).ok());
  CliOutcome o = run_controller(*f.hosts, {"run", file, "--out", f.dir + "/results"}, f.dir);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  auto rows = read_results_csv(run_dir_in(f.dir + "/results") + "/results.csv");
  ASSERT_TRUE(rows.ok()) << o.err;
  std::map<std::string, int> valid;
  for (const auto& r : *rows) {
    EXPECT_EQ(r.status, "ok") << r.product << ": " << r.reason;
    if (r.product != "baseline") {
      EXPECT_TRUE(r.valid) << r.product << ": " << r.reason;
    }
    if (counts_as_result(r)) ++valid[r.product];
    // Measured on the hosts: CPU per machine (the two emulated hosts are one), latency
    // under load from the client's host, the daemons' memory where they run.
    EXPECT_EQ(r.cpu_by_host.rfind("h1+h2:", 0), 0u) << r.cpu_by_host;
    EXPECT_GT(r.latency_probes, 0) << r.product;
    if (r.product != "baseline") {
      EXPECT_GT(r.daemon_rss_kb, 1000) << r.product;
    }
  }
  // The plaintext check ran on the remote nodes' underlay.
  EXPECT_NE((o.out + o.err).find("plaintext check: no payload in clear on the underlay"), std::string::npos)
      << o.out << o.err;
  EXPECT_EQ(valid["baseline"], 2);
  EXPECT_EQ(valid["wireguard-go"], 2);
  EXPECT_EQ(valid["nebula"], 2);
  std::string env = read_file(run_dir_in(f.dir + "/results") + "/environment.json");
  EXPECT_NE(env.find("\"hosts\""), std::string::npos);
  EXPECT_NE(env.find("\"boot_id\""), std::string::npos);
  for (int i = 0; i < 2; ++i)
    EXPECT_TRUE(has(links_in(f.hosts->host_netns_fd(i)), EmulatedHosts::kNic)) << "host " << i + 1;
  EXPECT_TRUE(list_namespaces("vpnlab-hoststest-").empty());

  // One file serves both backends: [[host]] and node hosts are ignored by netns.
  CliOutcome local =
      vpnlab_cli({"run", file, "--backend", "netns", "--product", "baseline", "--out", f.dir + "/local"});
  EXPECT_EQ(local.status, 0) << local.out << local.err;
  EXPECT_NE(local.out.find("baseline"), std::string::npos);
}

// kill -9 of vpnlab mid-sample: ssh sees its stdin close, each agent its stdin, and they
// tear down on their own: no namespace left on either host, both wires back, no cleanup.
TEST(Hosts, KillNineOfTheControllerLeavesBothHostsCleanWithinSeconds) {
  VPNLAB_REQUIRE_SSH();
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  const std::string file = f.dir + "/two-hosts.toml";
  ASSERT_TRUE(write_file(file, topology(*f.hosts, "hostskill", "\"wireguard-go\""), 0644).ok());
  auto child = start_run_until_mid_sample(f, file);
  ASSERT_TRUE(child);
  EXPECT_FALSE(list_namespaces("vpnlab-hostskill-").empty());
  ::kill(child->pid(), SIGKILL);
  child->wait_exit(5000);
  auto t0 = std::chrono::steady_clock::now();
  bool clean = wait_until(
      [&] {
        return list_namespaces("vpnlab-hostskill-").empty() &&
               has(links_in(f.hosts->host_netns_fd(0)), EmulatedHosts::kNic) &&
               has(links_in(f.hosts->host_netns_fd(1)), EmulatedHosts::kNic);
      },
      15);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ figures ] kill -9 -> both hosts clean (namespaces gone, wires back) after %.2f s\n", seconds);
  // The deadline is the design's (ssh keepalives: 3 x 5 s), not a speed: the figure above is.
  EXPECT_TRUE(clean) << "still there after 15 s";
  EXPECT_TRUE(
      wait_until([] { return pids_named("wireguard-go").empty() && pids_named("vpnlab-host-age").empty(); }, 5));
}

// An SSH failure is one line naming the host, before anything is created on any host.
TEST(Hosts, AnUnreachableHostOrAWrongKeyIsOneLineNamingTheHost) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  const std::string file = f.dir + "/two-hosts.toml";
  // h2's sshd is gone: h1 answers, h2 does not.
  f.hosts->stop_sshd(1);
  ASSERT_TRUE(write_file(file, topology(*f.hosts, "hostsdown", "\"baseline\""), 0644).ok());
  CliOutcome o = run_controller(*f.hosts, {"run", file, "--out", f.dir + "/results"}, f.dir);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_EQ(o.err.find("vpnlab: error: host 'h2' (ssh root@10.231.2.2): ssh: connect to host 10.231.2.2 port 22: "), 0u)
      << o.err;
  EXPECT_NE(o.err.find("Connection refused"), std::string::npos) << o.err;
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 2) << "one error line and its hint:\n" << o.err;
  EXPECT_TRUE(list_namespaces("vpnlab-hostsdown-").empty());
  EXPECT_TRUE(has(links_in(f.hosts->host_netns_fd(0)), EmulatedHosts::kNic)) << "h1 was touched";
  // doctor FILE probes each host on its own: h1 is described, h2's failure named.
  CliOutcome doctor = run_controller(*f.hosts, {"doctor", file}, f.dir);
  EXPECT_EQ(doctor.status, 1) << doctor.out << doctor.err;
  EXPECT_NE(doctor.out.find(
                "  ! host 'h2' (ssh root@10.231.2.2): ssh: connect to host 10.231.2.2 port 22: Connection refused"),
            std::string::npos)
      << doctor.out;
  EXPECT_NE(doctor.out.find("  Host h1 (ssh root@10.231.1.2): kernel "), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("baseline iperf 3"), std::string::npos) << doctor.out;

  // A key the host does not accept.
  std::string text = topology(*f.hosts, "hostskey", "\"baseline\"");
  ASSERT_TRUE(run_program({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", f.dir + "/other_key"}).status == 0);
  for (size_t at; (at = text.find(f.dir + "/id_ed25519")) != std::string::npos;)
    text.replace(at, (f.dir + "/id_ed25519").size(), f.dir + "/other_key");
  ASSERT_TRUE(write_file(file, text, 0644).ok());
  o = run_controller(*f.hosts, {"run", file, "--out", f.dir + "/results2"}, f.dir);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("host 'h1' (ssh root@10.231.1.2): "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("Permission denied"), std::string::npos) << o.err;
  EXPECT_TRUE(list_namespaces("vpnlab-hostskey-").empty());
}

// An agent of another version is refused before it builds anything.
TEST(Hosts, AnAgentOfAnotherVersionIsRefused) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  // Stands in for an older vpnlab-host-agent: answers hello with its own version.
  ASSERT_TRUE(make_dirs(f.dir + "/old", 0755).ok());
  const std::string agent = f.dir + "/old/vpnlab-host-agent";
  // calls: sh
  ASSERT_TRUE(write_file(agent,
                         "#!/bin/sh\nread line\necho '{\"ok\":true,\"version\":\"0.0-old\",\"seq\":1}'\nread line\n",
                         0755)
                  .ok());
  const std::string file = f.dir + "/two-hosts.toml";
  ASSERT_TRUE(write_file(file, topology(*f.hosts, "hostsver", "\"baseline\"", agent), 0644).ok());
  CliOutcome o = run_controller(*f.hosts, {"run", file, "--out", f.dir + "/results"}, f.dir);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("host 'h1': its vpnlab-host-agent is version '0.0-old', this vpnlab is '"), std::string::npos)
      << o.err;
  EXPECT_NE(o.err.find("hint: install the same vpnlab build on every host"), std::string::npos) << o.err;
  EXPECT_TRUE(list_namespaces("vpnlab-hostsver-").empty());
}

// A nic with an address carries something else: refused on its host, nothing built.
TEST(Hosts, ANicWithAnAddressIsRefused) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  ASSERT_TRUE(run_in_netns(f.hosts->host_netns_fd(1), [] {
                auto sock = open_route_socket();
                if (sock)
                  (void)add_address(sock->get(), EmulatedHosts::kNic, HostAddr{*parse_ipv4("198.51.100.7"), 24});
              }).ok());
  const std::string file = f.dir + "/two-hosts.toml";
  ASSERT_TRUE(write_file(file, topology(*f.hosts, "hostsnic", "\"baseline\""), 0644).ok());
  CliOutcome o = run_controller(*f.hosts, {"run", file, "--out", f.dir + "/results"}, f.dir);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("host 'h2': nic 'wire0' has address 198.51.100.7/24"), std::string::npos) << o.err;
  EXPECT_TRUE(list_namespaces("vpnlab-hostsnic-").empty());
  EXPECT_TRUE(has(links_in(f.hosts->host_netns_fd(0)), EmulatedHosts::kNic)) << "h1's nic was taken";
}

// A global IPv6 address is in use as much as an IPv4 one: the hostile review's NIC held
// only 2001:db8::7/64, was accepted, and lost the address.
TEST(Hosts, ANicWithOnlyAnIpv6AddressIsRefused) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  ASSERT_TRUE(run_in_netns(f.hosts->host_netns_fd(1), [] {
                auto sock = open_route_socket();
                if (!sock) return;
                auto index = link_index(sock->get(), EmulatedHosts::kNic);
                rtnl_addr* a = rtnl_addr_alloc();
                nl_addr* local = nullptr;
                if (index && a && nl_addr_parse("2001:db8::7/64", AF_INET6, &local) == 0) {
                  rtnl_addr_set_ifindex(a, *index);
                  rtnl_addr_set_local(a, local);
                  rtnl_addr_set_flags(a, IFA_F_NODAD);
                  (void)rtnl_addr_add(sock->get(), a, 0);
                }
                if (local) nl_addr_put(local);
                if (a) rtnl_addr_put(a);
              }).ok());
  const std::string file = f.dir + "/two-hosts.toml";
  ASSERT_TRUE(write_file(file, topology(*f.hosts, "hostsnic6", "\"baseline\""), 0644).ok());
  CliOutcome o = run_controller(*f.hosts, {"run", file, "--out", f.dir + "/results"}, f.dir);
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_NE(o.err.find("host 'h2': nic 'wire0' has address 2001:db8::7/64"), std::string::npos) << o.err;
  EXPECT_TRUE(list_namespaces("vpnlab-hostsnic6-").empty());
  EXPECT_TRUE(has(links_in(f.hosts->host_netns_fd(1)), EmulatedHosts::kNic)) << "h2's nic was taken";
}

// Hosts that do not see this machine's run directory (as real ones): the products'
// configs and keys are copied there before their daemons start, and iperf3's output comes
// back; the rows are valid as on hosts that share the files.
TEST(Hosts, HostsThatDoNotShareTheRunDirectoryGetInputsAndReturnOutputs) {
  VPNLAB_REQUIRE_SSH();
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  const std::string dir = make_temp_dir("hosts");
  auto eh = EmulatedHosts::start(dir, 2, dir + "/results");
  ASSERT_TRUE(eh.ok()) << eh.error().format();
  const std::string file = dir + "/two-hosts.toml";
  ASSERT_TRUE(write_file(file, topology(**eh, "hostsfiles", "\"baseline\", \"wireguard-go\""), 0644).ok());
  CliOutcome o = run_controller(**eh, {"run", file, "--samples", "1", "--out", dir + "/results"}, dir);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  auto rows = read_results_csv(run_dir_in(dir + "/results") + "/results.csv");
  ASSERT_TRUE(rows.ok()) << o.err;
  ASSERT_EQ(rows->size(), 2u);
  for (const auto& r : *rows) {
    EXPECT_EQ(r.status, "ok") << r.product << ": " << r.reason;
    EXPECT_GT(r.gbps, 0.01) << r.product;
  }
  EXPECT_NE(o.err.find("host 'h2' does not see " + run_dir_in(dir + "/results") +
                       ": products' inputs are copied there, outputs back"),
            std::string::npos)
      << o.err;
  // The daemon's log came back from its host.
  std::error_code ec;
  bool logs = false;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(run_dir_in(dir + "/results") + "/logs/wireguard-go", ec))
    if (e.path().filename().string().find("wireguard-go.log") != std::string::npos) logs = true;
  EXPECT_TRUE(logs) << "no wireguard-go log fetched";
}

// A host's agent killed mid-sample (the host or its ssh gone): noticed from the channel at
// once, not after the sample's deadline (22 s); the row names the host, not the product;
// the other host is torn down; the lost host's namespaces are named for `cleanup FILE`.
TEST(Hosts, AKilledAgentIsNoticedAtOnceAndTheRowNamesItsHost) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  const std::string file = f.dir + "/two-hosts.toml";
  ASSERT_TRUE(write_file(file, topology(*f.hosts, "hostslost", "\"baseline\""), 0644).ok());
  auto child = start_run_until_mid_sample(f, file);
  ASSERT_TRUE(child);
  // h1's agent: the vpnlab-host-agent in h1's network namespace.
  struct stat h1_ns {};
  ASSERT_EQ(fstat(f.hosts->host_netns_fd(0), &h1_ns), 0);
  pid_t h1_agent = 0;
  for (pid_t p : pids_named("vpnlab-host-age")) {
    struct stat ns {};
    if (stat(("/proc/" + std::to_string(p) + "/ns/net").c_str(), &ns) == 0 && ns.st_ino == h1_ns.st_ino) h1_agent = p;
  }
  ASSERT_NE(h1_agent, 0);
  const std::string run = run_dir_in(f.dir + "/results");
  const auto killed = std::chrono::steady_clock::now();
  ::kill(h1_agent, SIGKILL);
  // The sample's row, failed and naming the host, within 2 s (samples are 30 s long).
  bool row = wait_until(
      [&] { return read_file(run + "/results.csv").find("host 'h1': agent lost") != std::string::npos; }, 30);
  const double noticed = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  std::printf("agent of h1 killed: its row written %.2f s later\n", noticed);
  EXPECT_TRUE(row) << read_file(run + "/results.csv");
  EXPECT_LT(noticed, 2.0);
  ::kill(child->pid(), SIGINT);  // the rest of the run is not this test's
  child->wait_exit(60000);
  auto rows = read_results_csv(run + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_FALSE(rows->empty());
  EXPECT_EQ(rows->front().reason.rfind("host 'h1': agent lost (", 0), 0u) << rows->front().reason;
  // h2 was torn down; what h1 keeps is named, and cleanup with the file removes it.
  const std::string err = read_file(f.dir + "/vpnlab.err");
  EXPECT_NE(err.find("host 'h1': teardown: agent lost"), std::string::npos) << err;
  EXPECT_NE(err.find("vpnlab-hostslost-"), std::string::npos) << err;
  EXPECT_TRUE(has(links_in(f.hosts->host_netns_fd(1)), EmulatedHosts::kNic)) << "h2's nic not given back";
  CliOutcome o = run_controller(*f.hosts, {"cleanup", file}, f.dir);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_TRUE(list_namespaces("vpnlab-hostslost-").empty());
  EXPECT_TRUE(has(links_in(f.hosts->host_netns_fd(0)), EmulatedHosts::kNic)) << "h1's nic not given back";
}

// The agents themselves killed with the controller (no dead-man teardown): the lab stays
// on the hosts with the NICs inside it, until `vpnlab cleanup FILE` reaches every host,
// lists it with --dry-run, and gives the NICs back under their own names.
TEST(Hosts, CleanupWithTheFileReachesEveryHostAndReturnsTheNics) {
  VPNLAB_REQUIRE_SSH();
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  // Each NIC with its own MTU and state, which cleanup must give back (it came back admin
  // DOWN at the lab's MTU).
  auto nic_state = [&](int host) {
    LinkInfo info;
    (void)run_in_netns(f.hosts->host_netns_fd(host), [&] {
      auto sock = open_route_socket();
      if (auto l = sock ? get_link(sock->get(), EmulatedHosts::kNic) : Result<LinkInfo>(make_error("no socket")))
        info = *l;
    });
    return info;
  };
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(run_in_netns(f.hosts->host_netns_fd(i), [i] {
                  auto sock = open_route_socket();
                  if (sock) (void)set_link(sock->get(), EmulatedHosts::kNic, i == 0 ? 1400 : 1450, true);
                }).ok());
  const std::string file = f.dir + "/two-hosts.toml";
  ASSERT_TRUE(write_file(file, topology(*f.hosts, "hostsclean", "\"wireguard-go\""), 0644).ok());
  auto child = start_run_until_mid_sample(f, file);
  ASSERT_TRUE(child);
  for (pid_t agent : pids_named("vpnlab-host-age")) ::kill(agent, SIGKILL);
  ::kill(child->pid(), SIGKILL);
  child->wait_exit(5000);
  ASSERT_FALSE(list_namespaces("vpnlab-hostsclean-").empty());
  ASSERT_FALSE(has(links_in(f.hosts->host_netns_fd(0)), EmulatedHosts::kNic)) << "the nic should still be in the node";

  CliOutcome dry = run_controller(*f.hosts, {"cleanup", file, "--dry-run"}, f.dir);
  EXPECT_EQ(dry.status, 0) << dry.out << dry.err;
  EXPECT_NE(dry.out.find("host 'h1': would return nic wire0 (wire in vpnlab-hostsclean-"), std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("host 'h2': would return nic wire0 (wire in vpnlab-hostsclean-"), std::string::npos)
      << dry.out;
  EXPECT_NE(dry.out.find("would remove namespace vpnlab-hostsclean-"), std::string::npos) << dry.out;
  EXPECT_FALSE(list_namespaces("vpnlab-hostsclean-").empty()) << "--dry-run removed something";

  CliOutcome o = run_controller(*f.hosts, {"cleanup", file}, f.dir);
  EXPECT_EQ(o.status, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("host 'h1': returned nic wire0 (MTU 1400, up)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("host 'h2': returned nic wire0 (MTU 1450, up)"), std::string::npos) << o.out;
  EXPECT_TRUE(list_namespaces("vpnlab-hostsclean-").empty());
  EXPECT_EQ(nic_state(0).mtu, 1400);
  EXPECT_TRUE(nic_state(0).up);
  EXPECT_EQ(nic_state(1).mtu, 1450);
  EXPECT_TRUE(nic_state(1).up);
  for (int i = 0; i < 2; ++i)
    EXPECT_TRUE(has(links_in(f.hosts->host_netns_fd(i)), EmulatedHosts::kNic)) << "host " << i + 1;
  EXPECT_TRUE(pids_named("wireguard-go").empty());
}
