// Real namespaces, links and processes (root). No mocks: what is checked is the kernel's.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>

#include "lab/app/cleanup.h"
#include "lab/kernel/latency_probe.h"
#include "lab/kernel/offloads.h"
#include "lab/kernel/probes.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

TEST(Netns, TwoNodesOnAVethPairPingAndLeaveNothing) {
  VPNLAB_REQUIRE_ROOT();
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/quick.toml");
  std::vector<uint64_t> inodes;
  {
    auto topo = LiveTopology::build(plan);
    ASSERT_TRUE(topo.ok()) << topo.error().format();
    inodes = (*topo)->inodes();
    ASSERT_EQ(inodes.size(), 2u);
    Netns& a = (*topo)->ns_of_node("a");
    EXPECT_TRUE(ping_until_answered(a.fd.get(), plan.underlay_address("b", "lan"), 2, -1).ok());
    auto lan = get_link(a.sock.get(), "lan");
    ASSERT_TRUE(lan.ok());
    EXPECT_EQ(lan->kind, "veth");
    EXPECT_EQ(lan->mtu, 1500);
    EXPECT_TRUE(lan->up);
    EXPECT_EQ(a.sysctls.at("net/ipv4/tcp_no_metrics_save"), "1");
    auto offloads = read_offloads(a.fd.get(), "lan");
    ASSERT_TRUE(offloads.ok()) << offloads.error().format();
    EXPECT_TRUE(offloads->count("tso") && offloads->at("tso")) << "veth segments with TSO by default";
    EXPECT_FALSE(read_offloads(a.fd.get(), "no-such-link").ok());
    EXPECT_TRUE((*topo)->audit().leftovers.empty());
    ASSERT_TRUE((*topo)->teardown().ok());
  }
  expect_nothing_left(plan, inodes);
}

// An impaired link's measurement sends a fixed number of echoes and then only listens, so
// an echo still in flight when the window ends is not counted lost (issue 50.3). On a bare
// veth every echo is answered, in order.
TEST(Netns, ACountedEchoProbeSendsItsCountAndThenOnlyListens) {
  VPNLAB_REQUIRE_ROOT();
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/quick.toml");
  auto topo = LiveTopology::build(plan);
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  auto probe = IcmpLatencyProbe::start((*topo)->ns_of_node("a").fd.get(), plan.underlay_address("b", "lan"), 2, 50);
  ASSERT_TRUE(probe.ok()) << probe.error().format();
  // A window of 250 echo intervals: unbounded, the probe would send 250.
  poll(nullptr, 0, 500);
  const LatencyProbe::Summary s = (*probe)->stop();
  EXPECT_EQ(s.sent, 50);
  EXPECT_EQ(s.answered, 50);
  EXPECT_EQ(s.reordered, 0);
  EXPECT_EQ(s.rtts_ms.size(), 50u);
  ASSERT_TRUE((*topo)->teardown().ok());
}

TEST(Netns, ThreeNodesOnABridgeInItsOwnNamespace) {
  VPNLAB_REQUIRE_ROOT();
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/bridge3.toml");
  std::vector<uint64_t> inodes;
  {
    auto topo = LiveTopology::build(plan);
    ASSERT_TRUE(topo.ok()) << topo.error().format();
    inodes = (*topo)->inodes();
    ASSERT_EQ(inodes.size(), 4u);
    Netns& a = (*topo)->ns_of_node("a");
    Netns& c = (*topo)->ns_of_node("c");
    EXPECT_TRUE(ping_until_answered(a.fd.get(), plan.underlay_address("c", "lan"), 2, -1).ok());
    EXPECT_TRUE(ping_until_answered(c.fd.get(), plan.underlay_address("b", "lan"), 2, -1).ok());
    auto links = list_links((*topo)->ns(plan.bridges[0].ns).sock.get());
    ASSERT_TRUE(links.ok());
    int bridges = 0, ports = 0;
    for (const auto& l : *links) {
      bridges += l.kind == "bridge";
      ports += l.kind == "veth";
    }
    EXPECT_EQ(bridges, 1);
    EXPECT_EQ(ports, 3);
    ASSERT_TRUE((*topo)->teardown().ok());
  }
  expect_nothing_left(plan, inodes);
}

TEST(Netns, ProcessJoinsNodeNamespacesIsPinnedAndHasAPrivateRun) {
  VPNLAB_REQUIRE_ROOT();
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/quick.toml");
  auto topo = LiveTopology::build(plan);
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  Netns& b = (*topo)->ns_of_node("b");
  auto mnt = (*topo)->mount_ns_of_node("b");
  ASSERT_TRUE(mnt.ok()) << mnt.error().format();
  std::string out = make_temp_dir("probe") + "/probe.out";
  SpawnSpec s;
  s.argv = {"sh", "-c",
            "grep Cpus_allowed_list /proc/self/status; stat -L -c %i /proc/self/ns/net; ls -A /run | wc -l; ls "
            "/sys/class/net"};
  s.netns_fd = b.fd.get();
  s.mntns_fd = *mnt;
  s.cpus = {0};
  s.stdout_path = out;
  auto r = run_command(s, 5);
  ASSERT_TRUE(r.ok()) << r.error().format();
  EXPECT_EQ(r->exit_status, 0);
  std::string text = read_file(out);
  EXPECT_NE(text.find("Cpus_allowed_list:\t0\n"), std::string::npos) << text;
  EXPECT_NE(text.find(std::to_string(b.inode) + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n0\n"), std::string::npos) << "the node's /run should start empty: " << text;
  EXPECT_NE(text.find("lan"), std::string::npos) << "sysfs should show the node's links: " << text;
  unlink(out.c_str());

  // A daemon that ignores TERM needs KILL; its forked child escapes pid tracking and is
  // still found (by namespace) and ended at teardown.
  s.argv = {"sh", "-c", "trap '' TERM; sleep 60 & wait"};
  s.stdout_path = "/dev/null";
  auto d = Child::spawn(s);
  ASSERT_TRUE(d.ok()) << d.error().format();
  for (int i = 0; i < 200 && processes_in_namespaces({b.inode}).size() < 2; ++i) usleep(5000);
  EXPECT_EQ(processes_in_namespaces({b.inode}).size(), 2u);
  EXPECT_TRUE((*d)->stop(300)) << "TERM is ignored, so KILL must have been needed";
  auto left = (*topo)->audit().leftovers;
  ASSERT_EQ(left.size(), 1u);
  EXPECT_NE(left[0].find("(sleep)"), std::string::npos) << left[0];
  auto inodes = (*topo)->inodes();
  ASSERT_TRUE((*topo)->teardown().ok());
  expect_nothing_left(plan, inodes);
}

TEST(Netns, SpawnFailureInTheChildIsReportedToTheCaller) {
  VPNLAB_REQUIRE_ROOT();
  SpawnSpec s;
  s.argv = {"true"};
  s.cpus = {4095};  // no such CPU: sched_setaffinity fails between fork and exec
  s.stdout_path = make_temp_dir("spawn-failure") + "/true.log";
  auto c = Child::spawn(s);
  unlink(s.stdout_path.c_str());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("Invalid argument"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("cannot pin to the node's CPUs"), std::string::npos) << c.error().message;
  EXPECT_FALSE(Child::spawn(SpawnSpec{{"no-such-program-vpnlab"}, {}, -1, -1, {}, "/dev/null"}).ok());
}

TEST(Process, OutputFilesStartEmpty) {
  std::string path = make_temp_dir("output") + "/out.txt";
  std::ofstream(path) << "a much longer previous content\nthat must not survive\n";
  SpawnSpec s;
  s.argv = {"echo", "short"};
  s.stdout_path = path;
  auto r = run_command(s, 5);
  ASSERT_TRUE(r.ok()) << r.error().format();
  EXPECT_EQ(read_file(path), "short\n");
  unlink(path.c_str());
}

TEST(Netns, CleanupRemovesWhatACrashedRunLeft) {
  VPNLAB_REQUIRE_ROOT();
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/bridge3.toml");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The "run": builds, starts a daemon, then dies without any teardown.
    auto topo = LiveTopology::build(plan);
    if (!topo) _exit(3);
    SpawnSpec s;
    s.argv = {"sleep", "60"};
    s.netns_fd = (*topo)->ns_of_node("a").fd.get();
    s.stdout_path = "/dev/null";
    auto d = Child::spawn(s);
    if (!d) _exit(4);
    d->release();  // no stop: a crash stops nothing
    kill(getpid(), SIGKILL);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  auto names = plan.namespaces();
  ASSERT_EQ(list_namespaces(plan.ns_prefix).size(), names.size());
  std::vector<uint64_t> inodes;
  for (const auto& n : names) {
    auto ns = open_namespace(n);
    ASSERT_TRUE(ns.ok());
    inodes.push_back(ns->inode);
  }
  ASSERT_EQ(processes_in_namespaces(inodes).size(), 1u);

  auto dry = cleanup_lab_objects(true, names);
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->actions.size(), 1 + names.size());
  EXPECT_EQ(list_namespaces(plan.ns_prefix).size(), names.size()) << "--dry-run must not remove anything";

  auto done = cleanup_lab_objects(false, names);
  ASSERT_TRUE(done.ok()) << done.error().format();
  expect_nothing_left(plan, inodes);
}

// `vpnlab up` keeps the namespaces after it ended; `exec` becomes the command inside a
// node (its status is the command's); `down` removes them.
TEST(Netns, UpKeepsTheNamespacesAndExecRunsInANode) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("ping");
  std::string dir = make_temp_dir("upns");
  std::string topo = dir + "/upns.toml";
  std::ofstream(topo)
      << two_pinned_nodes("upns") +
             "[bench]\nproducts = [\"baseline\"]\n[[bench.test]]\nname = \"t\"\nclient = \"a\"\nserver = \"b\"\n";
  auto up = vpnlab_cli({"up", topo});
  ASSERT_EQ(up.status, 0) << up.err;
  EXPECT_EQ(list_namespaces("vpnlab-upns-").size(), 2u);
  auto ping = vpnlab_cli({"exec", topo, "a", "--", "ping", "-c", "1", "-W", "2", "192.168.77.2"});
  EXPECT_EQ(ping.status, 0) << ping.out << ping.err;
  EXPECT_NE(ping.out.find("1 received"), std::string::npos) << ping.out;
  // In b's namespace: its own address, not the host's interfaces.
  auto addr = vpnlab_cli({"exec", topo, "b", "--", "cat", "/proc/net/fib_trie"});
  EXPECT_NE(addr.out.find("192.168.77.2"), std::string::npos) << addr.out;
  EXPECT_EQ(vpnlab_cli({"exec", topo, "b", "--", "sh", "-c", "exit 3"}).status, 3);
  auto missing = vpnlab_cli({"exec", topo, "a", "--", "no-such-program"});
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err.rfind("vpnlab: error: cannot run 'no-such-program' in node 'a': ", 0), 0u) << missing.err;
  auto down = vpnlab_cli({"down", topo});
  EXPECT_EQ(down.status, 0) << down.err;
  EXPECT_TRUE(list_namespaces("vpnlab-upns-").empty());
  std::filesystem::remove_all(dir);
}
