// The VM backend's pure parts: domain XML (golden files; regenerate with
// VPNLAB_UPDATE_GOLDEN=1 and review the difference), image recipes, module order, hashing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "lab/backends/vm/domain_xml.h"
#include "lab/backends/vm/guest_lab.h"
#include "lab/backends/vm/image.h"
#include "lab/base/fs_util.h"
#include "lab/model/plan.h"
#include "lab/model/topology.h"

using namespace vpnlab;

namespace {

Plan quick_vm_plan() {
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/quick-vm.toml");
  EXPECT_TRUE(topo.ok()) << (topo.ok() ? "" : topo.error().format());
  PlanOptions o;
  o.run_id = "golden";
  o.tag = "g1";
  o.cpu_count = 2;
  auto plan = make_plan(*topo, o);
  EXPECT_TRUE(plan.ok()) << (plan.ok() ? "" : plan.error().format());
  return *plan;
}

}  // namespace

TEST(DomainXml, QuickVmGuestsMatchGoldenFiles) {
  Image im;
  im.vmlinux = "/cache/images/debian12-x/vmlinux";
  im.initrd = "/cache/images/debian12-x/initrd.img";
  im.modules_root = "/cache/images/debian12-x/tree";
  GuestLabOptions o;
  o.run_dir = "/results/golden";
  o.agent_path = "/build/lab/vpnlab-agent";
  auto specs = guest_specs(quick_vm_plan(), im, o);
  ASSERT_EQ(specs.size(), 2u);
  std::string dir = VPNLAB_TEST_DATA "/vm";
  for (const auto& g : specs) {
    std::string file = dir + "/" + g.name + ".xml";
    if (getenv("VPNLAB_UPDATE_GOLDEN")) {
      std::filesystem::create_directories(dir);
      std::ofstream(file) << domain_xml(g);
      continue;
    }
    EXPECT_EQ(domain_xml(g), read_file_text(file)) << file;
  }
  // Node b: its own CPU, its NIC on the link's bridge with the MAC the guest looks for.
  EXPECT_EQ(specs[1].vcpu_pins, std::vector<int>{1});
  EXPECT_EQ(specs[1].nics.at(0).bridge, "br0");
  EXPECT_EQ(specs[1].nics.at(0).mac, "52:54:00:6c:01:00");
  EXPECT_NE(specs[1].cmdline.find("vpnlab.node=b"), std::string::npos);
}

TEST(DomainXml, KvmUsesTheHostCpuAndEscapesText) {
  GuestSpec g;
  g.name = "vpnlab-x-<a&b>";
  g.accel = Accel::kvm;
  std::string x = domain_xml(g);
  EXPECT_NE(x.find("<domain type='kvm'>"), std::string::npos);
  EXPECT_NE(x.find("<cpu mode='host-passthrough'/>"), std::string::npos);
  EXPECT_NE(x.find("vpnlab-x-&lt;a&amp;b&gt;"), std::string::npos);
  g.accel = Accel::tcg;
  x = domain_xml(g);
  EXPECT_NE(x.find("<domain type='qemu'>"), std::string::npos);
  EXPECT_EQ(x.find("<cpu"), std::string::npos) << "TCG keeps QEMU's default CPU model (-cpu max was ~3x slower)";
  EXPECT_EQ(x.find("<cputune>"), std::string::npos) << "nothing pinned when no CPU is given";
}

TEST(ImageRecipe, ShippedRecipeParses) {
  auto rc = load_recipe(VPNLAB_IMAGES "/debian12.toml");
  ASSERT_TRUE(rc.ok()) << rc.error().format();
  EXPECT_EQ(rc->name, "debian12");
  EXPECT_EQ(rc->kernel_package, "linux-image-amd64");
  EXPECT_TRUE(std::filesystem::exists(rc->init)) << rc->init;
  EXPECT_NE(std::find(rc->modules.begin(), rc->modules.end(), "9p"), rc->modules.end());
}

TEST(ImageRecipe, ReproducibleRootRecipeListsWhatGuestsRun) {
  auto rc = load_recipe(VPNLAB_IMAGES "/debian12-rootfs.toml");
  ASSERT_TRUE(rc.ok()) << rc.error().format();
  EXPECT_EQ(rc->root, "mmdebstrap");
  EXPECT_EQ(rc->suite, "bookworm");
  for (const char* p : {"iperf3", "libnl-route-3-200", "wireguard-tools", "strongswan-swanctl"})
    EXPECT_NE(std::find(rc->packages.begin(), rc->packages.end(), p), rc->packages.end()) << p;
  EXPECT_NE(std::find(rc->modules.begin(), rc->modules.end(), "overlay"), rc->modules.end())
      << "each guest's writable layer";
}

TEST(ImageRecipe, ErrorsNameFileLineAndFix) {
  auto missing =
      parse_recipe_text("[image]\nname = \"x\"\nroot = \"host-9p\"\n[kernel]\n[initramfs]\n", "images/x.toml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().where_and_what(), "images/x.toml:4:1: [kernel] needs package (a string)");
  auto root = parse_recipe_text(
      "[image]\nname = \"x\"\nroot = \"mmdebstrap\"\n[kernel]\npackage = \"k\"\n[initramfs]\nbusybox = \"b\"\ninit = "
      "\"i\"\n"
      "modules = []\nmodule_dirs = []\n",
      "images/x.toml");
  ASSERT_FALSE(root.ok());
  EXPECT_EQ(root.error().where_and_what(), "images/x.toml:1:1: [rootfs] needs suite (a string)")
      << "mmdebstrap needs its package list";
  auto unknown = parse_recipe_text(
      "[image]\nname = \"x\"\nroot = \"squashfs\"\n[kernel]\npackage = \"k\"\n[initramfs]\nbusybox = \"b\"\ninit = "
      "\"i\"\n"
      "modules = []\nmodule_dirs = []\n",
      "images/x.toml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().where_and_what(), "images/x.toml:3:8: image: unknown root 'squashfs'");
  auto typo = parse_recipe_text("[image]\nnmae = \"x\"\n", "images/x.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().hint, "did you mean 'name'?");
}

TEST(ImageRecipe, ModulesLoadDependenciesFirstOnce) {
  std::string dep =
      "kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko kernel/fs/fscache/fscache.ko kernel/fs/netfs/netfs.ko\n"
      "kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko kernel/drivers/virtio/virtio.ko "
      "kernel/drivers/virtio/virtio_ring.ko\n"
      "kernel/net/9p/9pnet.ko:\n"
      "kernel/drivers/virtio/virtio.ko:\nkernel/drivers/virtio/virtio_ring.ko:\n"
      "kernel/fs/fscache/fscache.ko: kernel/fs/netfs/netfs.ko\nkernel/fs/netfs/netfs.ko:\n";
  auto order = module_load_order(dep, {"9pnet_virtio", "9p"});
  ASSERT_TRUE(order.ok()) << order.error().format();
  std::vector<std::string> want = {"kernel/drivers/virtio/virtio_ring.ko",
                                   "kernel/drivers/virtio/virtio.ko",
                                   "kernel/net/9p/9pnet.ko",
                                   "kernel/net/9p/9pnet_virtio.ko",
                                   "kernel/fs/netfs/netfs.ko",
                                   "kernel/fs/fscache/fscache.ko",
                                   "kernel/fs/9p/9p.ko"};
  EXPECT_EQ(*order, want);
  auto hyphen = module_load_order("kernel/drivers/char/hw_random/virtio-rng.ko:\n", {"virtio_rng"});
  ASSERT_TRUE(hyphen.ok()) << "'-' and '_' are one in module names, as for modprobe";
  EXPECT_EQ(hyphen->front(), "kernel/drivers/char/hw_random/virtio-rng.ko");
  auto unknown = module_load_order(dep, {"virtio_blk"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "module 'virtio_blk' is not in the kernel's modules.dep");
}

TEST(ImageRecipe, KeyChangesWithEveryInput) {
  std::string k = image_key("recipe", "init", "linux-image-6.1.0-57-amd64=6.1.192-3", "busybox");
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k, image_key("recipe", "init", "linux-image-6.1.0-57-amd64=6.1.192-3", "busybox"));
  EXPECT_NE(k, image_key("recipe2", "init", "linux-image-6.1.0-57-amd64=6.1.192-3", "busybox"));
  EXPECT_NE(k, image_key("recipe", "init", "linux-image-6.1.0-58-amd64=6.1.193-1", "busybox"));
  EXPECT_NE(image_key("ab", "c", "", ""), image_key("a", "bc", "", "")) << "parts are length-prefixed";
  // The shipped init has no interpreter line (lintian: a package's scripts are executable
  // with a usual interpreter); the initramfs's /init gets busybox's, a recipe's own is kept.
  const std::string shipped = read_file_text(VPNLAB_IMAGES "/init.sh");
  EXPECT_NE(shipped.rfind("# ", 0), std::string::npos);
  EXPECT_EQ(initramfs_init(shipped), "#!/bin/busybox sh\n" + shipped);
  EXPECT_EQ(initramfs_init("#!/bin/sh\necho hi\n"), "#!/bin/sh\necho hi\n");
}
