// `vpnlab image build|list|clean`: guest images for the VM backend.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <tuple>

#include <spdlog/fmt/fmt.h>

#include "lab/backends/vm/image.h"
#include "lab/backends/vm/image_recipe.h"
#include "lab/cli/json_output.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {
namespace {

struct ImageOptions {
  bool rebuild = false;
};

const std::vector<Option<ImageOptions>> kImageOptions = {
    {"--rebuild", "", "build again even if the cache holds the image", set_flag<&ImageOptions::rebuild>},
};

int build_image(const Args& a, const ImageOptions& own, const std::string& cache) {
  if (geteuid() != 0 && !getenv("VPNLAB_CACHE")) {
    std::cerr << "vpnlab: error: 'image build' writes the cache " << cache
              << " and needs root\nhint: run it as root, or set VPNLAB_CACHE to a directory you own\n";
    return kExitError;
  }
  auto recipe = load_recipe(a.positional.size() > 1 ? a.positional[1] : default_image_recipe());
  if (!recipe) return fail(recipe.error());
  auto im = ensure_image(*recipe, cache, own.rebuild);
  if (!im) return fail(im.error());
  if (a.json) {
    std::cout
        << image_json("build", cache, {*im}, std::nullopt).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
    return kExitOk;
  }
  std::cout << fmt::format(
      "{}  kernel {} ({})\n  {}\n  {} {:.1f} s\n", im->name, im->kernel_release, im->kernel_package, im->dir,
      im->cached ? "in the cache (--rebuild to build it again); it was built in" : "built in", im->build_s);
  return kExitOk;
}

int list_cached(const Args& a, const std::string& cache) {
  auto images = list_images(cache);
  for (auto& im : images) im.cached = true;  // every one listed was found there
  // The directory's order is the file system's: listed by name, then folder, on every machine alike.
  std::sort(images.begin(), images.end(),
            [](const Image& x, const Image& y) { return std::tie(x.name, x.dir) < std::tie(y.name, y.dir); });
  if (a.json) {
    std::cout
        << image_json("list", cache, images, std::nullopt).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
    return kExitOk;
  }
  if (images.empty()) std::cout << "no images in " << cache << "/images ('vpnlab image build' makes one)\n";
  size_t name_width = 10;  // the columns stay aligned past a long name (debian12-rootfs)
  for (const auto& im : images) name_width = std::max(name_width, im.name.size());
  for (const auto& im : images)
    std::cout << fmt::format("{:<{}} {:<18} {}\n", im.name, name_width, im.kernel_release, im.dir);
  return kExitOk;
}

int clean_cache(const Args& a, const std::string& cache) {
  auto n = clean_images(cache);
  if (!n) return fail(n.error());
  if (a.json)
    std::cout << image_json("clean", cache, {}, *n).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
              << "\n";
  else
    std::cout << "removed " << *n << " image(s) from " << cache << "/images\n";
  return kExitOk;
}

int cmd_image(const Args& a) {
  ImageOptions own;
  if (auto code = parse_own("image", kImageOptions, a, &own)) return *code;
  const std::string what = a.positional.empty() ? "" : a.positional[0];
  if (what != "build" && a.positional.size() > 1)
    return usage_error("image", "'" + a.positional[1] + "': image " + what + " takes no recipe");
  if (own.rebuild && what != "build") return usage_error("image", "--rebuild belongs to 'image build'");
  const std::string cache = image_cache_root();
  if (what == "build") return build_image(a, own, cache);
  if (what == "list") return list_cached(a, cache);
  if (what == "clean") return clean_cache(a, cache);
  return usage_error("image", "'image' needs build, list or clean");
}

}  // namespace

extern const Verb kImageVerb = {
    "image",
    "image build [RECIPE] [--rebuild] [--json] | image list [--json] | image clean [--json]",
    "Guest images for the VM backend (default recipe images/debian12.toml), cached by content hash in $VPNLAB_CACHE "
    "or\n"
    "/var/cache/vpnlab: the kernel is fetched with apt-get download and unpacked there, never installed on this host.",
    {"--rebuild", "--json"},
    cmd_image,
    {},
    [](const std::vector<std::string>& p) {
      return first_word_of(p, {"build", "list", "clean"});
    },
    own_options(kImageOptions)};

}  // namespace vpnlab
