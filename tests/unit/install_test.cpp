// Install layout (where an installed or built vpnlab finds products, images and helpers)
// and the --json documents, against golden files in tests/data/json/ (regenerate with
// VPNLAB_UPDATE_GOLDEN=1 and review the difference: keys are only ever added).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../golden.h"
#include "../temp_paths.h"
#include "lab/app/backends.h"
#include "lab/app/product_build.h"
#include "lab/base/fs_util.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/product.h"
#include "lab/cli/verbs/schema.h"
#include "lab/model/install_layout.h"
#include "lab/model/plan.h"
#include "lab/model/product_spec.h"
#include "lab/model/topology.h"
#include "lab/record/column_docs.h"
#include "lab/record/results_csv.h"

namespace vpnlab {
namespace {

namespace fs = std::filesystem;

void make_product(const std::string& dir, const std::string& name, const std::string& description) {
  fs::create_directories(dir + "/" + name);
  std::ofstream(dir + "/" + name + "/product.toml")
      << "name = \"" << name << "\"\ndescription = \"" << description
      << "\"\ncipher = \"none\"\ntunnel = false\npackages = [\"iperf3\"]\n";
}

// Sets an environment variable for one test and restores it afterwards.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(const std::string& n, const std::optional<std::string>& value) : name(n) {
    if (const char* v = getenv(n.c_str())) old = v;
    if (value)
      setenv(n.c_str(), value->c_str(), 1);
    else
      unsetenv(n.c_str());
  }
  ~ScopedEnv() {
    if (old)
      setenv(name.c_str(), old->c_str(), 1);
    else
      unsetenv(name.c_str());
  }
};

TEST(Install, ProductsAreLookedUpShippedFirstThenTheEnvironmentThenTheUsersDirectory) {
  std::string root = make_temp_dir("install");
  make_product(root + "/usr/share/vpnlab/products", "baseline", "shipped");
  make_product(root + "/extra", "baseline", "a copy in VPNLAB_PRODUCTS");
  make_product(root + "/extra", "mine", "from VPNLAB_PRODUCTS");
  make_product(root + "/home/.config/vpnlab/products", "private", "the user's own");
  fs::create_directories(root + "/usr/bin");
  ScopedEnv env("VPNLAB_PRODUCTS", root + "/extra:" + root + "/missing");
  ScopedEnv home("HOME", root + "/home");
  std::string path = products_path(root + "/usr/bin");
  EXPECT_EQ(path, root + "/usr/share/vpnlab/products:" + root + "/extra:" + root + "/home/.config/vpnlab/products");
  EXPECT_EQ(list_products(path), (std::vector<std::string>{"baseline", "mine", "private"}));
  auto shipped = load_product(path, "baseline");
  ASSERT_TRUE(shipped.ok()) << shipped.error().format();
  EXPECT_EQ(shipped->description, "shipped") << "the first directory holding a name wins";
  auto mine = load_product(path, "private");
  ASSERT_TRUE(mine.ok()) << mine.error().format();
  EXPECT_EQ(mine->dir, root + "/home/.config/vpnlab/products/private");
  auto unknown = load_product(path, "privat");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "unknown product 'privat' (in none of " + path + ")");
  EXPECT_EQ(unknown.error().hint.substr(0, 23), "did you mean 'private'?") << unknown.error().hint;
  EXPECT_FALSE(load_product(path, "../extra/mine").ok()) << "a name is a name, not a path";
}

TEST(Install, ABinaryOutsideAnInstallUsesTheSourceTreeAndItsOwnDirectoryForHelpers) {
  std::string root = make_temp_dir("build-tree");
  ScopedEnv env("VPNLAB_PRODUCTS", std::nullopt);
  ScopedEnv home("HOME", root);
  EXPECT_EQ(shipped_dir(root), fs::path(VPNLAB_PRODUCTS_DIR).parent_path().string());
  EXPECT_EQ(products_path(root), VPNLAB_PRODUCTS_DIR);
  EXPECT_EQ(helper_dir(root), root);
  // Installed: PREFIX/libexec/vpnlab holds the helpers.
  fs::create_directories(root + "/prefix/bin");
  fs::create_directories(root + "/prefix/libexec/vpnlab");
  std::ofstream(root + "/prefix/libexec/vpnlab/vpnlab-agent") << "#!/bin/sh\n";
  fs::permissions(root + "/prefix/libexec/vpnlab/vpnlab-agent", fs::perms::owner_all);
  EXPECT_EQ(helper_dir(root + "/prefix/bin"), root + "/prefix/libexec/vpnlab");
}

TEST(Json, PlanOfTheQuickTopologyMatchesTheGoldenFile) {
  auto topo = load_topology(VPNLAB_TOPOLOGIES "/quick.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  PlanOptions po;
  po.run_id = "20261201-000000-json";
  po.tag = "json";
  po.cpu_count = 2;
  auto plan = make_plan(*topo, po);
  ASSERT_TRUE(plan.ok()) << plan.error().format();
  plan->topology_file = "topologies/quick.toml";
  expect_golden("plan-quick.json", plan_json(*plan));
  expect_golden("validate-quick.json", validate_json("topologies/quick.toml", *plan));
}

TEST(Json, CleanupListsEachSideItsLines) {
  expect_golden("cleanup.json",
                cleanup_json(true, {"h1: would remove namespace vpnlab-x-a"}, {"would remove namespace vpnlab-y-b"}));
}

TEST(Json, ImageListingNamesEachImageItsKernelAndItsFolder) {
  Image im;
  im.name = "debian12";
  im.key = "53ee667d";
  im.dir = "/var/cache/vpnlab/images/debian12-53ee667d";
  im.kernel_release = "6.1.0-57-amd64";
  im.kernel_package = "linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb";
  im.build_s = 5.5;
  im.cached = true;
  expect_golden("image.json", image_json("list", "/var/cache/vpnlab", {im}, std::nullopt));
  const nlohmann::json cleaned = image_json("clean", "/tmp/cache", {}, 2);
  EXPECT_EQ(cleaned["removed"], 2);
  EXPECT_TRUE(cleaned["images"].empty());
  EXPECT_FALSE(image_json("list", "/tmp/cache", {}, std::nullopt).contains("removed"));
}

TEST(Json, ProductsListingMatchesTheGoldenFile) {
  setenv("VPNLAB_CACHE", "/nonexistent/vpnlab-cache", 1);  // the same listing on every machine: nothing built
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  spec->dir = "products/wireguard-go";
  Availability av{true, "", "wireguard-go v0.0.20220316"};
  Result<ProductSpec> broken = make_error("products/x/product.toml:3:1: not valid TOML");
  Availability missing{false, "'nebula' is not installed (apt-get install --no-install-recommends nebula)", ""};
  nlohmann::json doc = products_listing_json(
      "products", {product_json("wireguard-go", spec, av), product_json("x", broken, std::nullopt)});
  expect_golden("products.json", doc);
  EXPECT_EQ(product_json("nebula", spec, missing)["reason"], missing.reason);
}

TEST(Json, DiffMatchesTheGoldenFile) {
  DiffOutcome d;
  Comparison slower;
  slower.product = "nebula";
  slower.test = "a-to-b";
  slower.n_a = slower.n_b = 10;
  slower.ratio = 0.8;
  slower.ci_low = 0.75;
  slower.ci_high = 0.85;
  slower.coverage = 0.96;
  slower.p_value = slower.p_adjusted = 0.0002;
  slower.verdict = "slower";
  d.comparisons = {slower};
  Comparison costlier = slower;
  costlier.metric = "daemon_rss_kb";
  costlier.higher_is_better = false;
  costlier.ratio = 1.5;
  costlier.ci_low = 1.3;
  costlier.ci_high = 1.7;
  costlier.verdict = "larger";
  d.costs = {costlier};
  d.gate_failed = true;
  Thresholds t;
  t.gbps = 0.1;
  t.rss = 0.2;
  expect_golden("diff.json", diff_json(d, t));
}

// The backend table (lab/app/backends.h) has one whole entry per name a file may give.
TEST(Backends, EveryBackendNameHasOneWholeEntry) {
  EXPECT_EQ(backend_table().size(), backend_names().size());
  for (const auto& name : backend_names()) EXPECT_EQ(backend_entry(name).name, name);
  for (const auto& b : backend_table()) {
    EXPECT_TRUE(b.prepare_run) << b.name;
    EXPECT_EQ(b.keep_up == nullptr, std::string(b.no_keep_up) != "")
        << b.name << ": a backend that keeps no lab says why";
    if (b.keep_up) {
      EXPECT_TRUE(b.kept_namespaces && b.node_hint && b.exec) << b.name;
    }
  }
  EXPECT_TRUE(backend_traits("vm").guests);
  EXPECT_FALSE(backend_traits("netns").guests || backend_traits("netns").remote_hosts)
      << "netns keeps the run directory as given";
}

// A product's registry builds ([[source]]): NAME@VERSION runs the cached build with the
// product's own spec; the plain name runs its default build; a build not made yet leaves the
// product unavailable with the reason; an unknown version names the builds there are.
TEST(Builds, ATaggedBuildRunsFromTheCacheAndAMissingOneSaysWhy) {
  const std::string cache = make_temp_dir("cache");
  setenv("VPNLAB_CACHE", cache.c_str(), 1);
  const std::string dir = cache + "/products/nebula/1.9.5";
  std::filesystem::create_directories(dir + "/bin");
  for (const char* bin : {"nebula", "nebula-cert"}) {
    std::ofstream(dir + "/bin/" + bin) << "#!/bin/sh\n";
    std::filesystem::permissions(dir + "/bin/" + bin, std::filesystem::perms::owner_all);
  }
  auto before = load_product(VPNLAB_PRODUCTS_DIR, "nebula@1.9.5");
  ASSERT_TRUE(before.ok()) << before.error().format();
  EXPECT_EQ(before->binaries.front(), "nebula") << "no 'built' file: the build is not there";
  EXPECT_NE(before->not_built.find("not built: 'vpnlab products build nebula@1.9.5' makes it (go install "
                                   "github.com/slackhq/nebula/cmd/nebula@v1.9.5"),
            std::string::npos)
      << before->not_built;
  // A record of another recipe (an older spec's command) is no build of this one.
  std::ofstream(dir + "/built") << "go install github.com/slackhq/nebula/cmd/nebula@v1.9.4 in 10 s\n";
  auto stale = load_product(VPNLAB_PRODUCTS_DIR, "nebula@1.9.5");
  ASSERT_TRUE(stale.ok()) << stale.error().format();
  EXPECT_EQ(stale->not_built.rfind("not built: built by another recipe than this spec's; 'vpnlab products build "
                                   "nebula@1.9.5' makes it again (go install ",
                                   0),
            0u)
      << stale->not_built;
  std::ofstream(dir + "/built")
      << registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula@1.9.5"})->front().source.command() << " in 10 s\n";
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "nebula@1.9.5");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  EXPECT_EQ(spec->name, "nebula@1.9.5");
  EXPECT_TRUE(spec->not_built.empty()) << spec->not_built;
  EXPECT_EQ(spec->binaries, (std::vector<std::string>{dir + "/bin/nebula", dir + "/bin/nebula-cert"}));
  EXPECT_EQ(spec->version_argv.front(), dir + "/bin/nebula");
  EXPECT_EQ(spec->prepare.front().argv.front(), dir + "/bin/nebula-cert")
      << "the CA is made with the build's own nebula-cert";
  EXPECT_NE(spec->origin.find("(" + dir + ")"), std::string::npos) << spec->origin;
  auto plain = load_product(VPNLAB_PRODUCTS_DIR, "nebula");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->binaries.front(), "nebula") << "the plain name is Debian's";
  EXPECT_EQ(plain->origin, "Debian: nebula");

  auto unknown = load_product(VPNLAB_PRODUCTS_DIR, "nebula@9.9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "product 'nebula' has no build '9.9'");
  EXPECT_NE(unknown.error().hint.find("nebula@1.7.2, nebula@1.8.2, nebula@1.9.5"), std::string::npos)
      << unknown.error().hint;

  std::filesystem::create_directories(cache + "/products/boringtun/0.7.1");
  std::ofstream(cache + "/products/boringtun/0.7.1/failed")
      << "cargo install --locked --version 0.7.1 boringtun-cli failed (exit 101) after 3 s:\n...\n";
  auto boringtun = load_product(VPNLAB_PRODUCTS_DIR, "boringtun");
  ASSERT_TRUE(boringtun.ok()) << boringtun.error().format();
  EXPECT_EQ(boringtun->not_built,
            "not built: cargo install --locked --version 0.7.1 boringtun-cli failed (exit 101) after 3 s:");
  unsetenv("VPNLAB_CACHE");
}

TEST(Builds, ABadSourceTableIsALocatedError) {
  const std::string root = make_temp_dir("products");
  std::filesystem::create_directories(root + "/p");
  std::ofstream(root + "/p/product.toml")
      << "name = \"p\"\ncipher = \"x\"\ninterface = \"p0\"\n\n[[source]]\nversion = \"1.0\"\nnpm = \"p\"\n";
  auto spec = load_product(root, "p");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().format().find("product.toml:7:7: source: unknown key 'npm'"), std::string::npos)
      << spec.error().format();
  std::ofstream(root + "/p/product.toml")
      << "name = \"p\"\ncipher = \"x\"\ninterface = \"p0\"\n\n[[source]]\nversion = \"1.0\"\ncargo = \"--config=x\"\n";
  spec = load_product(root, "p");
  ASSERT_FALSE(spec.ok()) << "an option smuggled in as a crate";
  EXPECT_NE(spec.error().format().find("product.toml:7:9: source: '--config=x' is not a module path or crate name"),
            std::string::npos)
      << spec.error().format();
  std::ofstream(root + "/p/product.toml")
      << "name = \"p\"\ncipher = \"x\"\ninterface = \"p0\"\n\n[[source]]\nversion = \"1.0\"\n";
  spec = load_product(root, "p");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().format().find("product.toml:5:1: source: where does the build come from?"), std::string::npos)
      << spec.error().format();
  // A stamp is one linker argument: a space would smuggle in another flag.
  std::ofstream(root + "/p/product.toml")
      << "name = \"p\"\ncipher = \"x\"\ninterface = \"p0\"\n\n[[source]]\nversion = \"1.0\"\ngo = \"example.com/p\"\n"
         "stamps = [\"example.com/v.stamp=1.0 -extldflags=-static\"]\n";
  spec = load_product(root, "p");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().format().find("product.toml:8:10: source: stamp 'example.com/v.stamp=1.0 -extldflags=-static' "
                                       "is not SYMBOL=VERSION of a go build"),
            std::string::npos)
      << spec.error().format();
}

// `product new`: your build as a product in one command, from a shipped one's spec and
// templates; it loads and runs your binary wherever the base ran its own.
// `products build` names builds as the user does: NAME (all of NAME's), NAME@VERSION, all;
// one build serving two products is listed once; a name that is no shipped product, a path
// or a Debian-only product is refused with what to do.
TEST(Builds, NamesSelectTheShippedBuildsOnly) {
  auto all = registry_builds_named(VPNLAB_PRODUCTS_DIR, {"all"});
  ASSERT_TRUE(all.ok()) << all.error().format();
  std::vector<std::string> labels;
  for (const auto& b : *all) labels.push_back(b.label);
  EXPECT_NE(std::find(labels.begin(), labels.end(), "easytier"), labels.end());
  EXPECT_EQ(std::count_if(all->begin(), all->end(), [](const RegistryBuild& b) { return b.product == "easytier"; }), 1)
      << "easytier-plain's is easytier's";
  EXPECT_NE(std::find(labels.begin(), labels.end(), "nebula@1.9.5"), labels.end());
  auto nebula = registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula"});
  ASSERT_TRUE(nebula.ok());
  EXPECT_EQ(nebula->size(), 4u) << "every build nebula lists";
  auto one = registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula@1.10.3"});
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ(one->front().source.expected_binaries(), (std::vector<std::string>{"nebula", "nebula-cert"}));
  auto wg = registry_builds_named(VPNLAB_PRODUCTS_DIR, {"wireguard-go"});
  ASSERT_TRUE(wg.ok());
  EXPECT_EQ(wg->front().source.expected_binaries(), (std::vector<std::string>{"wireguard-go"}))
      << "renamed as the spec runs it";
  EXPECT_EQ(registry_builds_named(VPNLAB_PRODUCTS_DIR, {"../../etc"}).error().message,
            "'../../etc' is not a product name (NAME or NAME@VERSION, from [a-z0-9.-])");
  EXPECT_EQ(registry_builds_named(VPNLAB_PRODUCTS_DIR, {"openvpn"}).error().message,
            "product 'openvpn' has no registry build: it runs Debian: openvpn");
  EXPECT_EQ(registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula@9.9"}).error().hint,
            "its builds: nebula@1.7.2, nebula@1.8.2, nebula@1.9.5, nebula@1.10.3");
  EXPECT_EQ(build_time_text(0), "time not known");
  EXPECT_EQ(build_time_text(52), "about 52 s");
  EXPECT_EQ(build_time_text(617), "about 10 min");
}

// The hostile review: a build whose client exited 0 without its binaries was marked built,
// and a run then measured PATH's binary under the pinned version's name. Here `go` is a
// stand-in that succeeds and builds nothing: nothing is marked built, the error names the
// missing program; a stand-in that builds it makes a build with its record.
TEST(Builds, ABuildIsMarkedBuiltOnlyWithItsBinaries) {
  const std::string dir = make_temp_dir("fake-go");
  setenv("VPNLAB_CACHE", (dir + "/cache").c_str(), 1);
  const std::string old_path = getenv("PATH");
  setenv("PATH", (dir + ":" + old_path).c_str(), 1);
  auto builds = registry_builds_named(VPNLAB_PRODUCTS_DIR, {"nebula@1.10.3"});
  ASSERT_TRUE(builds.ok());
  ASSERT_TRUE(write_file(dir + "/go", "#!/bin/sh\nexit 0\n", 0755).ok());
  std::ostringstream progress;
  Status s = make_registry_build(builds->front(), progress, -1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("exited 0 but left no nebula in " + dir +
                                   "/cache/products/nebula/1.10.3/bin: not marked built"),
            std::string::npos)
      << s.error().message;
  EXPECT_FALSE(fs::exists(dir + "/cache/products/nebula/1.10.3/built"));
  EXPECT_TRUE(fs::exists(dir + "/cache/products/nebula/1.10.3/failed"));
  // go install PKG@V with GOBIN: the stand-in leaves the command named after the package.
  ASSERT_TRUE(write_file(dir + "/go",
                         "#!/bin/sh\n[ \"$1\" = install ] || exit 2\npkg=${2%@*}\nprintf '#!/bin/sh\\n' > "
                         "\"$GOBIN/${pkg##*/}\"\nchmod 755 \"$GOBIN/${pkg##*/}\"\n",
                         0755)
                  .ok());
  s = make_registry_build(builds->front(), progress, -1);
  EXPECT_TRUE(s.ok()) << s.error().format();
  EXPECT_NE(read_file_text(dir + "/cache/products/nebula/1.10.3/built")
                .find("go install github.com/slackhq/nebula/cmd/nebula@v1.10.3"),
            std::string::npos);
  EXPECT_NE(progress.str().find("products: nebula@1.10.3: built in "), std::string::npos) << progress.str();
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "nebula@1.10.3");
  ASSERT_TRUE(spec.ok());
  EXPECT_TRUE(spec->not_built.empty()) << spec->not_built;
  // A second call builds nothing.
  ASSERT_TRUE(write_file(dir + "/go", "#!/bin/sh\nexit 1\n", 0755).ok());
  EXPECT_TRUE(make_registry_build(builds->front(), progress, -1).ok());
  EXPECT_NE(progress.str().find("products: nebula@1.10.3: built already (go install"), std::string::npos)
      << progress.str();
  setenv("PATH", old_path.c_str(), 1);
  unsetenv("VPNLAB_CACHE");
}

// Issue 49.8: Tailscale built from the module cache said "1.102.5-ERR-BuildInfo". A build's
// stamps reach go as one -ldflags argument, and a build recorded with the older command
// (no stamps) is made again rather than reused.
TEST(Builds, StampsReachTheLinkerAndAChangedRecipeIsBuiltAgain) {
  const std::string dir = make_temp_dir("fake-go-stamps");
  setenv("VPNLAB_CACHE", (dir + "/cache").c_str(), 1);
  const std::string old_path = getenv("PATH");
  setenv("PATH", (dir + ":" + old_path).c_str(), 1);
  auto builds = registry_builds_named(VPNLAB_PRODUCTS_DIR, {"tailscale"});
  ASSERT_TRUE(builds.ok());
  const RegistryBuild& b = builds->front();
  EXPECT_EQ(b.source.ldflags(),
            "-X tailscale.com/version.longStamp=1.102.5 -X tailscale.com/version.shortStamp=1.102.5");
  // The stand-in records its arguments and leaves the package's command.
  ASSERT_TRUE(
      write_file(
          dir + "/go",
          "#!/bin/sh\necho \"$@\" >> \"$GOBIN/../args\"\npkg=${3%@*}\nprintf '#!/bin/sh\\n' > \"$GOBIN/${pkg##*/}\"\n"
          "chmod 755 \"$GOBIN/${pkg##*/}\"\n",
          0755)
          .ok());
  const std::string build = dir + "/cache/products/tailscale/1.102.5";
  fs::create_directories(build + "/bin");
  for (const char* name : {"tailscaled", "tailscale", "derper", "headscale"})
    ASSERT_TRUE(write_file(build + "/bin/" + name, "#!/bin/sh\n", 0755).ok());
  ASSERT_TRUE(write_file(build + "/built",
                         "go install tailscale.com/cmd/tailscaled@v1.102.5 tailscale.com/cmd/tailscale@v1.102.5 "
                         "github.com/juanfont/headscale/cmd/headscale@v0.26.1 in 456 s on 2026-12-04T14:12:59Z\n",
                         0644)
                  .ok());
  std::ostringstream progress;
  Status s = make_registry_build(b, progress, -1);
  ASSERT_TRUE(s.ok()) << s.error().format();
  EXPECT_EQ(progress.str().find("built already"), std::string::npos) << progress.str();
  EXPECT_EQ(read_file_text(build + "/args"),
            "install -ldflags=-X tailscale.com/version.longStamp=1.102.5 -X tailscale.com/version.shortStamp=1.102.5 "
            "tailscale.com/cmd/tailscaled@v1.102.5\n"
            "install -ldflags=-X tailscale.com/version.longStamp=1.102.5 -X tailscale.com/version.shortStamp=1.102.5 "
            "tailscale.com/cmd/tailscale@v1.102.5\n"
            "install -ldflags=-X tailscale.com/version.longStamp=1.102.5 -X tailscale.com/version.shortStamp=1.102.5 "
            "tailscale.com/cmd/derper@v1.102.5\n"
            "install -ldflags=-X tailscale.com/version.longStamp=1.102.5 -X tailscale.com/version.shortStamp=1.102.5 "
            "github.com/juanfont/headscale/cmd/headscale@v0.26.1\n");
  EXPECT_EQ(read_file_text(build + "/built").rfind(b.source.command() + " in ", 0), 0u);
  EXPECT_TRUE(make_registry_build(b, progress, -1).ok());
  EXPECT_NE(progress.str().find("products: tailscale: built already"), std::string::npos) << progress.str();
  setenv("PATH", old_path.c_str(), 1);
  unsetenv("VPNLAB_CACHE");
}

// The hostile review: `product new --from tailscale` wrote a product that could not run: its
// CLI and headscale are names only the tailscale build's cache has. The new product runs
// them from there, by path (in its steps and its service's steps too); with the build not
// made yet it is refused, naming the command.
TEST(ProductNew, ABaseFromARegistryBuildLendsItsOtherProgramsByPath) {
  const std::string cache = make_temp_dir("cache");
  setenv("VPNLAB_CACHE", cache.c_str(), 1);
  const std::string into = make_temp_dir("mine");
  const std::string mine = into + "/tailscaled";
  ASSERT_TRUE(write_file(mine, "#!/bin/sh\n", 0755).ok());
  auto refused = new_product(VPNLAB_PRODUCTS_DIR, into, "my-ts", "tailscale", mine);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().hint, "run 'vpnlab products build tailscale' first");
  const std::string bin = cache + "/products/tailscale/1.102.5/bin";
  fs::create_directories(bin);
  for (const char* b : {"tailscaled", "tailscale", "headscale", "derper"})
    ASSERT_TRUE(write_file(bin + "/" + b, "#!/bin/sh\n", 0755).ok());
  const std::string command = registry_builds_named(VPNLAB_PRODUCTS_DIR, {"tailscale"})->front().source.command();
  ASSERT_TRUE(
      write_file(cache + "/products/tailscale/1.102.5/built", command + " in 1 s on 2026-12-03T00:00:00Z\n", 0644)
          .ok());
  auto made = new_product(VPNLAB_PRODUCTS_DIR, into, "my-ts", "tailscale", mine);
  ASSERT_TRUE(made.ok()) << made.error().format();
  const std::string text = read_file_text(*made + "/product.toml");
  EXPECT_EQ(text.find("source"), std::string::npos);
  size_t uses = 0;
  for (size_t at = 0; (at = text.find("'" + bin + "/headscale'", at)) != std::string::npos; ++at) ++uses;
  EXPECT_GE(uses, 3u) << "binaries and the service's steps run the build's headscale:\n" << text;
  auto spec = load_product(into, "my-ts");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  EXPECT_EQ(spec->binaries, (std::vector<std::string>{mine, bin + "/tailscale", bin + "/headscale", bin + "/derper"}));
  unsetenv("VPNLAB_CACHE");
}

TEST(ProductNew, YourBuildBecomesAProductThatRunsItWhereTheBaseRanItsOwn) {
  const std::string into = make_temp_dir("user-products");
  const std::string path = std::string(VPNLAB_PRODUCTS_DIR) + ":" + into;
  auto dest = new_product(path, into, "my-wg", "wireguard-go", "/bin/true");
  ASSERT_TRUE(dest.ok()) << dest.error().format();
  EXPECT_EQ(*dest, into + "/my-wg");
  EXPECT_TRUE(fs::exists(into + "/my-wg/wg.conf.tmpl")) << "the templates are copied";
  auto spec = load_product(path, "my-wg");
  ASSERT_TRUE(spec.ok()) << spec.error().format();
  EXPECT_EQ(spec->binaries, (std::vector<std::string>{"/bin/true", "wg"}));
  EXPECT_EQ(spec->steps.front().argv.front(), "/bin/true");
  EXPECT_EQ(spec->version_argv.front(), "/bin/true");
  EXPECT_TRUE(spec->sources.empty()) << "the base's registry builds are not yours";
  EXPECT_NE(spec->description.find("(your build: /bin/true)"), std::string::npos);
  EXPECT_EQ(spec->origin, "your build: /bin/true");

  auto again = new_product(path, into, "my-wg", "wireguard-go", "/bin/true");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "a product 'my-wg' exists already (" + into + "/my-wg)");
  auto relative = new_product(path, into, "my-wg2", "wireguard-go", "true");
  ASSERT_FALSE(relative.ok());
  EXPECT_EQ(relative.error().message, "--binary 'true' is not an absolute path");
  auto dir = new_product(path, into, "my-wg2", "wireguard-go", "/tmp");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.error().message.find("is not a program file"), std::string::npos) << dir.error().message;
  auto no_base = new_product(path, into, "my-wg2", "wireguard-gone", "/bin/true");
  ASSERT_FALSE(no_base.ok());
  EXPECT_NE(no_base.error().message.find("unknown product 'wireguard-gone'"), std::string::npos)
      << no_base.error().message;
  EXPECT_FALSE(fs::exists(into + "/my-wg2")) << "a refused product leaves nothing";
}

// A row as `run --rows-jsonl` streams it: every results.csv column by name, typed as the
// CSV text reads (numbers, true/false, a number not measured null), strings as they are.
TEST(Json, ARowIsItsCsvColumnsTyped) {
  SampleRow r;
  r.run_id = "20261203-000000-abcd";
  r.product = "wireguard-go";
  r.test = "a-to-b";
  r.sample = 3;
  r.gbps = 0.5125;
  r.valid = true;
  r.status = "ok";
  r.reason = "two\nlines";
  r.retransmits = -1;  // not measured (UDP): empty in the CSV
  nlohmann::json j = row_json(r);
  EXPECT_EQ(j.size(), results_csv_header().size());
  for (const auto& name : results_csv_header()) EXPECT_TRUE(j.contains(name)) << name;
  EXPECT_EQ(j["sample"], 3);
  EXPECT_EQ(j["gbps"], 0.5125);
  EXPECT_EQ(j["valid"], true);
  EXPECT_EQ(j["reason"], "two | lines");
  EXPECT_TRUE(j["retransmits"].is_null());
  EXPECT_TRUE(j["mss"].is_null());
  EXPECT_EQ(j["product"], "wireguard-go");
  EXPECT_EQ(results_csv_columns().size(), results_csv_header().size());
}

// The data contract: every results.csv column has its description, in file order (a column
// added without one fails here), `schema results.csv --json` is pinned by a golden file,
// and docs/output.md's column table is the generated one.
TEST(Json, EveryResultsCsvColumnIsDocumented) {
  const auto columns = results_csv_columns();
  const auto& docs = column_docs();
  ASSERT_EQ(docs.size(), columns.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    EXPECT_EQ(docs[i].name, columns[i].first) << "column " << i + 1;
    EXPECT_GT(std::string(docs[i].about).size(), 5u) << columns[i].first;
    EXPECT_FALSE(std::string(docs[i].filled_by).empty()) << columns[i].first;
  }
  auto json = schema_text("results.csv", SchemaFormat::json);
  ASSERT_TRUE(json.ok());
  expect_golden("schema-results-csv.json", nlohmann::json::parse(*json));
  // docs/output.md's table is what `vpnlab schema results.csv --markdown` prints, word for word.
  const std::string doc = read_file_text(VPNLAB_SOURCE_ROOT "/docs/output.md");
  auto markdown = schema_text("results.csv", SchemaFormat::markdown);
  ASSERT_TRUE(markdown.ok());
  EXPECT_NE(doc.find(*markdown), std::string::npos) << "docs/output.md should hold, under 'results.csv columns':\n"
                                                    << *markdown;
  auto unknown = schema_text("summary.jsn", SchemaFormat::text);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "no schema named 'summary.jsn'");
  EXPECT_EQ(unknown.error().hint.substr(0, 38), "known: results.csv, rows.jsonl, cleanu");
}

// rows.jsonl's JSON Schema is made from the column table; the file shipped in schemas/ is
// that output (regenerate with VPNLAB_UPDATE_GOLDEN=1), so a column added to results.csv
// without a new schema file fails here. Every compiled-in schema is the repository's file,
// is draft 2020-12 and carries its own name in its $id.
TEST(Json, TheShippedSchemasAreTheOnesVpnlabPrints) {
  const fs::path dir = fs::path(VPNLAB_SOURCE_ROOT) / "schemas";
  const fs::path rows = dir / "rows.jsonl.schema.json";
  const std::string made = rows_jsonl_schema().dump(2) + "\n";
  if (getenv("VPNLAB_UPDATE_GOLDEN")) {
    ASSERT_TRUE(write_file(rows.string(), made, 0644).ok());
  }
  EXPECT_EQ(read_file_text(rows.string()), made)
      << "schemas/rows.jsonl.schema.json differs from `vpnlab schema rows.jsonl`";
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.path().string().ends_with(".schema.json");
  EXPECT_EQ(embedded_schemas().size() + 1, files) << "a schema file is not compiled in (re-run cmake)";
  for (const auto& [name, text] : embedded_schemas()) {
    const std::string n(name);
    EXPECT_EQ(read_file_text((dir / (n + ".schema.json")).string()), std::string(text)) << n;
    auto j = nlohmann::json::parse(text, nullptr, false);
    ASSERT_TRUE(j.is_object()) << n << ": not JSON";
    EXPECT_EQ(j.value("$schema", ""), "https://json-schema.org/draft/2020-12/schema") << n;
    EXPECT_EQ(j.value("$id", ""), "https://vpnlab.invalid/schemas/" + n) << n;
    auto printed = schema_text(n, SchemaFormat::json);
    ASSERT_TRUE(printed.ok()) << n;
    EXPECT_EQ(*printed, std::string(text));
  }
  auto names = schema_text("", SchemaFormat::text);
  ASSERT_TRUE(names.ok());
  EXPECT_NE(names->find("summary.json      JSON Schema: vpnlab summary.json\n"), std::string::npos) << *names;
  auto markdown = schema_text("run", SchemaFormat::markdown);
  ASSERT_FALSE(markdown.ok());
  EXPECT_EQ(markdown.error().message, "only results.csv has a Markdown form: 'run' is a JSON Schema");
}

}  // namespace
}  // namespace vpnlab
