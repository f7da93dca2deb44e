// Guest images from a recipe in images/: the kernel fetched with apt-get download and
// unpacked into a cache (never installed on the host), an uncompressed vmlinux for a fast
// boot, and a busybox initramfs with just the modules the init needs. Cached by a hash of
// everything that goes in, so a changed recipe, init or kernel builds a new image.
#pragma once
#include <string>
#include <vector>

#include "lab/base/result.h"

namespace vpnlab {

struct ImageRecipe {
  std::string file;  // the recipe's path, for messages
  std::string dir;   // its directory (init is relative to it)
  std::string name;
  std::string root = "host-9p";
  std::string kernel_package;
  std::string busybox;
  std::string init;  // absolute path of the init script
  std::vector<std::string> modules;
  std::vector<std::string> module_dirs;  // kept in the cache's module tree
  // root = "mmdebstrap": a root tree of its own, built from this package list (the guest
  // then sees nothing of the host but the agent and the run directory).
  std::string suite, variant;
  std::vector<std::string> packages;
};

Result<ImageRecipe> parse_recipe_text(const std::string& text, const std::string& file);
Result<ImageRecipe> load_recipe(const std::string& path);

// The order to insmod `wanted` and their dependencies, from a modules.dep text (each line
// "path: dep dep ..."; dependencies load last-listed first). Paths relative to the tree.
Result<std::vector<std::string>> module_load_order(const std::string& modules_dep,
                                                   const std::vector<std::string>& wanted);

// The guest's /init as the initramfs holds it. A recipe's init without an interpreter line
// (the shipped images/init.sh: data in the package, never run on the host) gets busybox's,
// the initramfs's only shell; one with its own "#!" is kept as it is. Also what image_key
// hashes, so the key follows the bytes the guest runs.
std::string initramfs_init(const std::string& init_text);

// Hex SHA-256 over everything an image is made of (recipe, init script, the resolved
// kernel package file name, busybox binary).
std::string image_key(const std::string& recipe_text, const std::string& init_text, const std::string& kernel_deb,
                      const std::string& busybox_bytes);

struct Image {
  std::string name;
  std::string key;
  std::string dir;
  std::string vmlinux, initrd;
  std::string modules_root;    // contains lib/modules/<release>
  std::string rootfs;          // the guest's root tree; empty: the host's root ("host-9p")
  std::string kernel_release;  // "6.1.0-57-amd64"
  std::string kernel_package;  // "linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb"
  double build_s = 0;
  bool cached = false;  // found in the cache, not built now
};

// Default cache: $VPNLAB_CACHE or /var/cache/vpnlab; images live in CACHE/images/<key>.
std::string image_cache_root();

// The image for `recipe`, built if the cache does not hold it yet.
Result<Image> ensure_image(const ImageRecipe& recipe, const std::string& cache_root, bool rebuild = false);
std::vector<Image> list_images(const std::string& cache_root);
// Removes every cached image (only the directories vpnlab made: they hold image.json).
Result<int> clean_images(const std::string& cache_root);

}  // namespace vpnlab
