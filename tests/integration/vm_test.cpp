// The VM backend for real (root): an image built from images/, guests booted through the
// embedded libvirt driver (TCG here; KVM where a boot probe says it works), commands run by
// the guest agent, and a teardown that leaves no domain, QEMU, namespace or socket behind.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "lab/agent/node_ops.h"
#include "lab/backends/vm/accel.h"
#include "lab/backends/vm/guest_lab.h"
#include "lab/backends/vm/guest_runtime.h"
#include "lab/backends/vm/image.h"
#include "lab/record/results_csv.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

#define VPNLAB_REQUIRE_VM()                                                                                     \
  do {                                                                                                          \
    VPNLAB_REQUIRE_ROOT();                                                                                      \
    VPNLAB_REQUIRE_PROGRAM("qemu-system-x86_64");                                                               \
    if (!std::filesystem::exists("/usr/lib/x86_64-linux-gnu/libvirt/connection-driver/libvirt_driver_qemu.so")) \
      GTEST_SKIP() << "libvirt's QEMU driver is not installed (libvirt-daemon-driver-qemu): skipped";           \
  } while (0)

Image test_image(const std::string& recipe = "debian12") {
  auto rc = load_recipe(VPNLAB_IMAGES "/" + recipe + ".toml");
  EXPECT_TRUE(rc.ok()) << (rc.ok() ? "" : rc.error().format());
  auto im = ensure_image(*rc, image_cache_root());
  EXPECT_TRUE(im.ok()) << (im.ok() ? "" : im.error().format());
  return im.ok() ? *im : Image{};
}

GuestLabOptions options(const std::string& run_dir, const Image& im) {
  GuestLabOptions o;
  o.run_dir = run_dir;
  o.accel = choose_accel(im, image_cache_root()).accel;
  o.agent_path = VPNLAB_BIN_DIR "/vpnlab-agent";
  o.vmhost_path = VPNLAB_BIN_DIR "/vpnlab-vmhost";
  return o;
}

// Runs argv in a guest and returns its exit status; output into `out`.
int run_in_guest(AgentClient& agent, const std::vector<std::string>& argv, const std::string& out) {
  auto id = agent.spawn({argv, {}, {}, out, "", ""});
  EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.error().format());
  if (!id) return -1;
  auto st = agent.wait(*id, 30);
  EXPECT_TRUE(st.ok() && st->has_value());
  return st.ok() && st->has_value() ? **st : -1;
}

}  // namespace

TEST(Vm, TwoGuestsBootRunCommandsPingAndLeaveNothing) {
  VPNLAB_REQUIRE_VM();
  Image im = test_image();
  ASSERT_FALSE(im.vmlinux.empty());
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/quick-vm.toml");
  std::string run_dir = make_temp_dir("vm");
  std::vector<uint64_t> inodes;
  {
    auto lab = GuestLab::start(plan, im, options(run_dir, im));
    ASSERT_TRUE(lab.ok()) << lab.error().format();
    inodes = (*lab)->inodes();
    ASSERT_EQ((*lab)->guests().size(), 2u);
    for (const auto& g : (*lab)->guests()) {
      EXPECT_EQ(g.kernel, im.kernel_release) << g.node << " runs the image's kernel, not the host's";
      EXPECT_GT(g.boot_s, 0.5);
      std::printf("guest %s: ready %.2f s after start, kernel %s\n", g.node.c_str(), g.boot_s, g.kernel.c_str());
    }
    AgentClient& a = (*lab)->agent("a");
    // The run directory is shared read-write at the same path: output lands on the host.
    EXPECT_EQ(run_in_guest(a, {"uname", "-r"}, run_dir + "/uname.txt"), 0);
    EXPECT_EQ(read_file(run_dir + "/uname.txt"), im.kernel_release + "\n");
    // Guests reach each other over the lab's bridge, at the plan's underlay addresses.
    std::string b_addr = plan.underlay_address("b", "lan").str();
    EXPECT_EQ(run_in_guest(a, {"ping", "-c", "2", "-W", "5", b_addr}, run_dir + "/ping.txt"), 0)
        << read_file(run_dir + "/ping.txt");
    // The interface carries the plan's name and MTU inside the guest.
    EXPECT_EQ(run_in_guest(a, {"cat", "/sys/class/net/lan/mtu"}, run_dir + "/mtu.txt"), 0);
    EXPECT_EQ(read_file(run_dir + "/mtu.txt"), "1500\n");
    // The guest kernel loads modules on demand from the image's tree: a WireGuard link
    // (this host may have no module at all) and sock_diag for readiness checks.
    NodeOpsClient ops(a, "a");
    ASSERT_TRUE(ops.create_link("wg0", "wireguard", {}).ok());
    auto wg = ops.get_link("wg0");
    ASSERT_TRUE(wg.ok()) << wg.error().format();
    EXPECT_EQ(wg->kind, "wireguard");
    auto listen = ops.wait_tcp_listening(5999, 0.3, -1);
    ASSERT_FALSE(listen.ok());
    EXPECT_EQ(listen.error().message.find("sock_diag"), std::string::npos)
        << "sock_diag works in guests: " << listen.error().message;
    // A failing command reports its status (the agent does not pretend).
    EXPECT_NE(run_in_guest(a, {"false"}, run_dir + "/false.txt"), 0);
    ASSERT_TRUE((*lab)->teardown().ok());
  }
  expect_nothing_left(plan, inodes);
  EXPECT_FALSE(std::filesystem::exists("/run/" + plan.ns_prefix + "vm")) << "VM sockets and libvirt state removed";
  std::filesystem::remove_all(run_dir);
}

// The reproducible root (mmdebstrap): the guests run the image's own tree, not the host's,
// each with a writable overlay; the agent and the run directory still come in.
TEST(Vm, ReproducibleRootIsTheImagesOwnTree) {
  VPNLAB_REQUIRE_VM();
  VPNLAB_REQUIRE_PROGRAM("mmdebstrap");
  Image im = test_image("debian12-rootfs");
  ASSERT_FALSE(im.rootfs.empty());
  Plan plan = plan_for(VPNLAB_TOPOLOGIES "/quick-vm.toml");
  std::string run_dir = make_temp_dir("vmroot");
  std::vector<uint64_t> inodes;
  {
    auto lab = GuestLab::start(plan, im, options(run_dir, im));
    ASSERT_TRUE(lab.ok()) << lab.error().format();
    inodes = (*lab)->inodes();
    AgentClient& a = (*lab)->agent("a");
    EXPECT_EQ(run_in_guest(a, {"iperf3", "--version"}, run_dir + "/iperf3.txt"), 0) << "iperf3 comes from the image";
    EXPECT_NE(run_in_guest(a, {"test", "-e", VPNLAB_TOPOLOGIES "/quick.toml"}, run_dir + "/host.txt"), 0)
        << "the host's files are not in the guest";
    EXPECT_EQ(run_in_guest(a, {"sh", "-c", "echo x > /etc/vpnlab-written"}, run_dir + "/write.txt"), 0)
        << "the overlay is writable";
    EXPECT_FALSE(std::filesystem::exists(im.rootfs + "/etc/vpnlab-written")) << "writes stay in the guest";
    auto ping = NodeOpsClient(a, "a").ping(plan.underlay_address("b", "lan"), 5, -1, 56, false);
    EXPECT_TRUE(ping.ok()) << ping.error().format();
    ASSERT_TRUE((*lab)->teardown().ok());
  }
  expect_nothing_left(plan, inodes);
  std::filesystem::remove_all(run_dir);
}

// Kernel products between two guests through the runner (this host may have neither
// WireGuard nor ESP): the tunnel up, its overlay ping answered, a sample whose bytes
// crossed it by the interface (and the product's counters), then nothing left.
void kernel_product_in_guests(const std::string& product) {
  Image im = test_image();
  ASSERT_FALSE(im.vmlinux.empty());
  VmBackend vm;
  vm.image = im;
  vm.accel = choose_accel(im, image_cache_root());
  vm.agent_path = VPNLAB_BIN_DIR "/vpnlab-agent";
  vm.vmhost_path = VPNLAB_BIN_DIR "/vpnlab-vmhost";
  auto factory = [&vm](const Plan& p, const std::string& run_dir, int interrupt_fd) {
    return build_guest_runtime(vm, p, run_dir, interrupt_fd);
  };
  ShortRun run = short_run({product}, VPNLAB_PRODUCTS_DIR, 1, VPNLAB_TOPOLOGIES "/quick-vm.toml", true, factory);
  ASSERT_TRUE(run.report.ok()) << run.report.error().format();
  ASSERT_EQ(run.report->rows.size(), 1u);
  const SampleRow& row = run.report->rows[0];
  EXPECT_EQ(row.status, "ok") << row.reason;
  EXPECT_TRUE(row.valid) << row.reason;
  EXPECT_GT(row.gbps, 0.001);
  ASSERT_EQ(run.report->products.size(), 1u);
  EXPECT_TRUE(run.report->products[0].failure.empty()) << run.report->products[0].failure;
  auto env = nlohmann::json::parse(read_file(run.run_dir + "/environment.json"), nullptr, false);
  ASSERT_FALSE(env.is_discarded());
  EXPECT_EQ(env.value("backend", ""), "vm");
  EXPECT_EQ(env["guests"].size(), 2u) << "boot times recorded";
  EXPECT_EQ(env.value("accel", "").substr(0, 3), accel_name(vm.accel.accel));
  EXPECT_TRUE(list_namespaces(run.plan.ns_prefix).empty());
  EXPECT_FALSE(std::filesystem::exists("/run/" + run.plan.ns_prefix + "vm"));
}

TEST(Vm, KernelWireguardBetweenTwoGuestsCarriesAValidSample) {
  VPNLAB_REQUIRE_VM();
  VPNLAB_REQUIRE_PROGRAM("wg");
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  kernel_product_in_guests("wireguard-kernel");
}

TEST(Vm, KernelIpsecOnAnXfrmInterfaceBetweenTwoGuestsCarriesAValidSample) {
  VPNLAB_REQUIRE_VM();
  VPNLAB_REQUIRE_PROGRAM("swanctl");
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  kernel_product_in_guests("strongswan-kernel");
}

// netem in the guests' kernel: a 10 ms delay on each end's egress is a 20 ms round trip,
// a 1 % loss loses about 1 % of the datagrams, and the plaintext check runs in the guest.
TEST(Vm, NetemDelayAndLossInGuestsAreMeasured) {
  VPNLAB_REQUIRE_VM();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  std::string dir = make_temp_dir("netem");
  std::string topo = dir + "/wan.toml";
  std::ofstream(topo) << two_pinned_nodes("netem", "backend = \"vm\"\n") + R"(delay = "10ms"
loss = "1%"
[bench]
products = ["baseline", "wireguard-go"]
samples = 1
duration = "4s"
warmup = "0s"
[[bench.test]]
name = "idle"
kind = "latency"
client = "a"
server = "b"
[[bench.test]]
name = "udp"
client = "a"
server = "b"
udp = true
bitrate = "4M"
length = 500
)";
  // Under 1 % loss each way a UDP client in a TCG guest now and then never finishes (seen
  // once in a full suite, the baseline's: "the test's clients did not finish within 24 s";
  // alone it passed). The row says so and the run exits 4 or 5, which is right; this test
  // is about netem, so such a run, and only such a run, is tried once more.
  auto run = vpnlab_cli({"run", topo, "--out", dir + "/out"});
  std::string run_dir = run_dir_in(dir + "/out");
  auto rows = read_results_csv(run_dir + "/results.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().format();
  const bool udp_stalled = std::any_of(rows->begin(), rows->end(), [](const SampleRow& r) {
    return r.test == "udp" && r.reason.find("clients did not finish") != std::string::npos;
  });
  if (run.status != 0 && udp_stalled) {
    std::printf("[ note ] a UDP client did not finish under loss: the run is tried once more\n");
    std::filesystem::remove_all(dir + "/out");
    run = vpnlab_cli({"run", topo, "--out", dir + "/out"});
    run_dir = run_dir_in(dir + "/out");
    rows = read_results_csv(run_dir + "/results.csv");
    ASSERT_TRUE(rows.ok()) << rows.error().format();
  }
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  ASSERT_EQ(rows->size(), 4u);
  for (const auto& r : *rows) {
    EXPECT_TRUE(r.valid) << r.product << "/" << r.test << ": " << r.reason;
    if (r.test == "idle") {
      // The network's round trip is the fastest echo's: netem's delay is a floor, and
      // emulation only adds to it (TCG put the baseline's median at 22-23 ms in runs
      // here, a userspace product's ~8 ms more). The raw round trips have the minimum.
      std::ifstream raw(run_dir + "/raw/" + r.product + "/idle/sample-1-rtt.txt");
      double ms = 0, fastest = 1e9;
      while (raw >> ms) fastest = std::min(fastest, ms);
      ASSERT_LT(fastest, 1e9) << r.product << ": no round trip recorded";
      EXPECT_GE(fastest, 19.9) << r.product << ": 10 ms each way, under the tunnel too";
      if (r.product == "baseline") {
        EXPECT_NEAR(fastest, 20, 3) << "10 ms each way";
      }
    }
    // 1 % on the sender's egress, 4000 datagrams: 40 +- 6 lost; TCG itself may drop a few
    // more when a guest's vCPU is busy emulating (1.6 % seen once at 8 Mbit/s).
    if (r.test == "udp" && r.product == "baseline") {
      EXPECT_GE(r.loss_pct, 0.6) << "1 % on the sender's egress";
      EXPECT_LE(r.loss_pct, 2.0) << "1 % on the sender's egress";
    }
    if (r.test == "udp") {
      EXPECT_GT(r.latency_probes, 0) << r.product << ": latency under load is taken in guests";
    }
  }
  std::string out = run.out + run.err;
  EXPECT_NE(out.find("plaintext check: no payload in clear on the underlay"), std::string::npos) << out;
  EXPECT_NE(out.find("plaintext check: payload seen in clear, as it must be without a tunnel"), std::string::npos)
      << out;
  // What the link was asked for and what it achieved, measured in the guests before any
  // product, are recorded side by side and both stated (issue 50.3).
  const auto env = nlohmann::json::parse(read_file(run_dir + "/environment.json"));
  ASSERT_TRUE(env.contains("/achieved_paths/lan"_json_pointer)) << env.dump(2);
  const auto& achieved = env["achieved_paths"]["lan"];
  std::printf("[ figure ] lan asked 20 ms, 1.99 %% a round trip; achieved %s\n", achieved.dump().c_str());
  EXPECT_EQ(achieved["sent"], 500);
  EXPECT_GE(achieved["rtt_min_ms"].get<double>(), 19.9) << "netem's delay is a floor";
  EXPECT_NEAR(achieved["rtt_p50_ms"].get<double>(), 20, 2 + 1) << "within 10 % and the guests' own millisecond";
  // 1 % each way is 1.99 % of 500 round trips: 10 +- 3 lost. Not the interval's own check,
  // which by design calls 1 run in 100 departing: 1 to 25 lost.
  EXPECT_GE(achieved["loss_pct"].get<double>(), 0.2) << "1 % each way";
  EXPECT_LE(achieved["loss_pct"].get<double>(), 5.0) << "1 % each way";
  EXPECT_EQ(achieved["reordered"], 0);
  const std::string report = read_file(run_dir + "/report.md");
  EXPECT_NE(
      report.find(
          "Impaired link lan: delay 10.0 ms, loss 1.00 % each way, on the egress of every end (netem); achieved on the "
          "baseline's path (a to b, before any product): round trip "),
      std::string::npos)
      << report.substr(report.find("Impaired") == std::string::npos ? 0 : report.find("Impaired"), 400);
  EXPECT_TRUE(list_namespaces("vpnlab-netem-").empty());
  std::filesystem::remove_all(dir);
}

// A jittered profile keeps packets in order unless the link asks for reordering, and the
// run measures both (issue 50.3): two links between the same guests, `mobile` (25 +- 10 ms
// each way) in order and reordering. Echoes 4 ms apart overtake each other under that
// jitter unless netem holds each behind the one before it (a pfifo child did not: 246 of
// 491 overtaken, measured here before).
TEST(Vm, AJitteredProfileKeepsOrderUnlessAskedAndTheRunMeasuresIt) {
  VPNLAB_REQUIRE_VM();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  std::string dir = make_temp_dir("jitter");
  std::string topo = dir + "/mobile.toml";
  std::ofstream(topo) << two_pinned_nodes("jitter", "backend = \"vm\"\n") + R"(profile = "mobile"
[[link]]
name = "wild"
nodes = ["a", "b"]
subnet = "192.168.78.0/24"
profile = "mobile"
reorder = true
[bench]
products = ["baseline"]
samples = 1
duration = "2s"
warmup = "0s"
[[bench.test]]
name = "idle"
kind = "latency"
client = "a"
server = "b"
)";
  auto run = vpnlab_cli({"run", topo, "--out", dir + "/out"});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  const std::string run_dir = run_dir_in(dir + "/out");
  const auto env = nlohmann::json::parse(read_file(run_dir + "/environment.json"));
  ASSERT_TRUE(env.contains("achieved_paths")) << env.dump(2);
  const auto& in_order = env["achieved_paths"]["lan"];
  const auto& wild = env["achieved_paths"]["wild"];
  std::printf("[ figure ] mobile in order: %s\n[ figure ] mobile reordering: %s\n", in_order.dump().c_str(),
              wild.dump().c_str());
  EXPECT_EQ(in_order["reordered"], 0) << "the in-order link let echoes overtake each other";
  EXPECT_GT(wild["reordered"].get<int>(), 25) << "reorder = true: netem sends each packet at its own time";
  for (const auto* l : {&in_order, &wild}) {
    EXPECT_EQ((*l)["sent"], 500);
    EXPECT_GE((*l)["rtt_min_ms"].get<double>(), 29.9) << "25 - 10 ms each way at least";
  }
  const std::string report = read_file(run_dir + "/report.md");
  EXPECT_NE(report.find("Impaired link wild (profile mobile): delay 25.0 ms +- 10.0 ms (may reorder)"),
            std::string::npos)
      << report;
  EXPECT_TRUE(list_namespaces("vpnlab-jitter-").empty());
  std::filesystem::remove_all(dir);
}

// `vpnlab up` with guests: they outlive the command (the helper keeps them), `exec` runs
// commands in them over their agents (their own kernel, the link's shaping in place),
// another `up` or `run` of the lab is refused, and `down` leaves no QEMU, helper,
// namespace or state behind.
TEST(Vm, UpKeepsGuestsUntilDownAndExecRunsInThem) {
  VPNLAB_REQUIRE_VM();
  std::string dir = make_temp_dir("upvm");
  std::string topo = dir + "/upvm.toml";
  std::ofstream(topo) << two_pinned_nodes("upvm", "backend = \"vm\"\n") + R"(profile = "wan-20ms"
[bench]
products = ["baseline"]
[[bench.test]]
name = "t"
client = "a"
server = "b"
)";
  auto up = vpnlab_cli({"up", topo});
  ASSERT_EQ(up.status, 0) << up.out << up.err;
  EXPECT_NE(up.out.find("node a: vpnlab exec " + topo + " a -- CMD"), std::string::npos) << up.out;
  EXPECT_EQ(list_namespaces("vpnlab-upvm-").size(), 1u) << "the VM-host namespace stays";
  EXPECT_EQ(pids_named("vpnlab-vmhost").size(), 1u) << "the helper outlives 'up'";

  // The guests are there after 'up' ended: a's kernel is the image's, b answers a's
  // echoes over the shaped link (the profile's 10 ms on each egress: at least 18 ms a round trip).
  auto uname = vpnlab_cli({"exec", topo, "a", "--", "uname", "-r"});
  EXPECT_EQ(uname.status, 0) << uname.err;
  EXPECT_EQ(uname.out, test_image().kernel_release + "\n");
  auto ping = vpnlab_cli({"exec", topo, "a", "--", "ping", "-c", "3", "-i", "0.2", "-W", "5", "192.168.77.2"});
  EXPECT_EQ(ping.status, 0) << ping.out << ping.err;
  auto rtt = ping.out.find("rtt min/avg/max/mdev = ");
  ASSERT_NE(rtt, std::string::npos) << ping.out;
  EXPECT_GE(std::stod(ping.out.substr(rtt + 23)), 17.9)
      << "the profile's 10 +- 1 ms each way, shaped in the guests: " << ping.out;
  // Its jitter keeps packets in order: netem's rate extension far above the link (issue
  // 50.3; tc prints handles in hex). A pfifo child did not: see lab/kernel/shaping.cpp.
  auto qdiscs = vpnlab_cli({"exec", topo, "a", "--", "tc", "qdisc", "show", "dev", "lan"});
  EXPECT_EQ(qdiscs.status, 0) << qdiscs.err;
  EXPECT_NE(qdiscs.out.find("qdisc netem a: root"), std::string::npos) << qdiscs.out;
  EXPECT_NE(qdiscs.out.find("delay 10ms  1ms rate 100Gbit"), std::string::npos) << qdiscs.out;
  EXPECT_EQ(qdiscs.out.find("pfifo"), std::string::npos) << qdiscs.out;
  // The command's status and both streams come back; a bad node or program is named.
  auto failing = vpnlab_cli({"exec", topo, "b", "--", "sh", "-c", "echo out; echo err >&2; exit 7"});
  EXPECT_EQ(failing.status, 7);
  EXPECT_EQ(failing.out, "out\n");
  EXPECT_EQ(failing.err, "err\n");
  auto no_node = vpnlab_cli({"exec", topo, "c", "--", "true"});
  EXPECT_EQ(no_node.status, 1);
  EXPECT_EQ(no_node.err, "vpnlab: error: lab 'upvm' has no node 'c'\nhint: its nodes: a, b\n");
  auto again = vpnlab_cli({"up", topo});
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.err.find("lab 'upvm' is up (made by 'vpnlab up', run "), std::string::npos) << again.err;
  auto run = vpnlab_cli({"run", topo, "--out", dir + "/out"});
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("hint: run 'vpnlab down " + topo + "' first"), std::string::npos) << run.err;

  auto down = vpnlab_cli({"down", topo});
  EXPECT_EQ(down.status, 0) << down.err;
  EXPECT_TRUE(list_namespaces("vpnlab-upvm-").empty());
  EXPECT_TRUE(pids_named("vpnlab-vmhost").empty());
  EXPECT_TRUE(pids_named("qemu-system-x86").empty());
  for (const auto& e : std::filesystem::directory_iterator("/run"))
    EXPECT_EQ(e.path().filename().string().rfind("vpnlab-upvm-", 0), std::string::npos) << e.path() << " left";
  auto after = vpnlab_cli({"exec", topo, "a", "--", "true"});
  EXPECT_EQ(after.err, "vpnlab: error: lab 'upvm' is not up\nhint: run 'vpnlab up " + topo + "' first\n");
  std::filesystem::remove_all(dir);
}
