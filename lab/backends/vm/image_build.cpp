// Building and caching images (see image.h): external tools through argv only
// (apt-cache, apt-get download, dpkg-deb, depmod, xz), the initramfs written with libarchive.
#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lab/backends/vm/image.h"
#include "lab/base/fs_util.h"
#include "lab/base/json_depth.h"
#include "lab/base/process.h"
#include "lab/base/trusted_dir.h"

namespace fs = std::filesystem;

namespace vpnlab {
namespace {

// Runs a tool to completion; its output goes to `log`, whose tail is the error's hint.
Status run_tool(const std::vector<std::string>& argv, const std::string& cwd, const std::string& log,
                double timeout_s = 300) {
  SpawnSpec spec;
  spec.argv = argv;
  spec.cwd = cwd;
  spec.stdout_path = log;
  auto r = run_command(spec, timeout_s);
  if (!r) return r.error();
  if (r->exit_status != 0 || r->timed_out)
    return make_error(argv[0] + " " + (argv.size() > 1 ? argv[1] : "") + " failed (exit " +
                          std::to_string(r->exit_status) + (r->timed_out ? ", timed out" : "") + ")",
                      log_tail(log, 4));
  return ok_status();
}

// "linux-image-amd64" -> "linux-image-6.1.0-57-amd64" (a metapackage's one dependency on an
// image), and that package's candidate version. Both from apt's local lists: no network.
Result<std::pair<std::string, std::string>> resolve_kernel(const std::string& package, const std::string& tmp) {
  std::string log = tmp + "/apt-cache.log";
  if (auto s = run_tool({"apt-cache", "depends", package}, tmp, log); !s) return s.error();
  std::string name = package;
  std::istringstream in(read_file_text(log));
  for (std::string line; std::getline(in, line);) {
    auto p = line.find("Depends: linux-image-");
    if (p != std::string::npos) name = line.substr(p + 9);
  }
  if (auto s = run_tool({"apt-cache", "show", "--no-all-versions", name}, tmp, log); !s) return s.error();
  std::istringstream show(read_file_text(log));
  for (std::string line; std::getline(show, line);)
    if (line.rfind("Version: ", 0) == 0) return std::make_pair(name, line.substr(9));
  return make_error("apt knows no version of " + name,
                    "run apt-get update, or name an available kernel package in the recipe");
}

// "pkg=candidate-version" for every package of a root tree, from apt's local lists: part of
// the image key, so a changed package (a point release) builds a new root.
Result<std::string> resolve_packages(const std::vector<std::string>& packages, const std::string& tmp) {
  if (packages.empty()) return std::string();
  std::string log = tmp + "/apt-policy.log";
  std::vector<std::string> argv = {"apt-cache", "policy"};
  argv.insert(argv.end(), packages.begin(), packages.end());
  if (auto s = run_tool(argv, tmp, log); !s) return s.error();
  std::string out, current;
  std::istringstream in(read_file_text(log));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != ' ' && line.back() == ':') current = line.substr(0, line.size() - 1);
    auto c = line.find("Candidate: ");
    if (c == std::string::npos) continue;
    std::string version = line.substr(c + 11);
    if (version == "(none)")
      return make_error("package '" + current + "' of the root tree is unknown to apt",
                        "run apt-get update, or fix the recipe's [rootfs] packages");
    out += current + "=" + version + "\n";
  }
  return out;
}

// The bzImage carries the kernel as an xz stream; the uncompressed ELF boots ~2x faster
// under TCG (PVH entry, no decompression in the guest).
Status extract_vmlinux(const std::string& bzimage, const std::string& out, const std::string& tmp) {
  std::string data = read_file_text(bzimage);
  static const std::string xz_magic(
      "\xfd"
      "7zXZ\0",
      6);
  auto at = data.find(xz_magic);
  if (at == std::string::npos)
    return make_error(bzimage + ": no xz payload found",
                      "this recipe supports kernels built with CONFIG_KERNEL_XZ (Debian's)");
  std::string payload = tmp + "/payload.xz";
  if (auto s = write_file(payload, data.substr(at), 0600); !s) return s;
  if (auto s = run_tool({"xz", "-dc", "--single-stream", payload}, tmp, out); !s) return s;
  std::ifstream f(out, std::ios::binary);
  char magic[4] = {};
  f.read(magic, 4);
  if (std::string(magic, 4) !=
      "\x7f"
      "ELF")
    return make_error(out + ": the xz payload is not an ELF kernel");
  fs::remove(payload);
  return ok_status();
}

// libarchive is loaded when an initramfs is written, not linked: it pulls in libxml2 and
// ICU, whose loading added ~2.5 ms to every start of the vpnlab binary (`up` and `down`
// included) on this VM. The header still types every call.
struct LibArchive {
  std::unique_ptr<void, int (*)(void*)> handle{nullptr, dlclose};
  decltype(&archive_write_new) write_new = nullptr;
  decltype(&archive_write_free) write_free = nullptr;
  decltype(&archive_write_set_format_cpio_newc) set_format_cpio_newc = nullptr;
  decltype(&archive_write_open_filename) open_filename = nullptr;
  decltype(&archive_write_header) write_header = nullptr;
  decltype(&archive_write_data) write_data = nullptr;
  decltype(&archive_write_close) write_close = nullptr;
  decltype(&archive_error_string) error_string = nullptr;
  decltype(&archive_entry_new) entry_new = nullptr;
  decltype(&archive_entry_free) entry_free = nullptr;
  decltype(&archive_entry_set_pathname) entry_set_pathname = nullptr;
  decltype(&archive_entry_set_filetype) entry_set_filetype = nullptr;
  decltype(&archive_entry_set_perm) entry_set_perm = nullptr;
  decltype(&archive_entry_set_size) entry_set_size = nullptr;
  decltype(&archive_entry_set_rdev) entry_set_rdev = nullptr;

  static Result<LibArchive> load() {
    const char* soname = "libarchive.so.13";
    LibArchive l;
    l.handle.reset(dlopen(soname, RTLD_NOW | RTLD_LOCAL));
    if (!l.handle)
      return make_error(std::string("cannot load ") + soname + ": " + dlerror(),
                        "install libarchive13 (scripts/install-deps.sh does)");
    std::string missing;
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(l.handle.get(), name));
      if (!fn) missing += std::string(" ") + name;
    };
    sym(l.write_new, "archive_write_new");
    sym(l.write_free, "archive_write_free");
    sym(l.set_format_cpio_newc, "archive_write_set_format_cpio_newc");
    sym(l.open_filename, "archive_write_open_filename");
    sym(l.write_header, "archive_write_header");
    sym(l.write_data, "archive_write_data");
    sym(l.write_close, "archive_write_close");
    sym(l.error_string, "archive_error_string");
    sym(l.entry_new, "archive_entry_new");
    sym(l.entry_free, "archive_entry_free");
    sym(l.entry_set_pathname, "archive_entry_set_pathname");
    sym(l.entry_set_filetype, "archive_entry_set_filetype");
    sym(l.entry_set_perm, "archive_entry_set_perm");
    sym(l.entry_set_size, "archive_entry_set_size");
    sym(l.entry_set_rdev, "archive_entry_set_rdev");
    if (!missing.empty()) return make_error(std::string(soname) + " lacks" + missing);
    return l;
  }
};

struct ArchiveWriter {
  const LibArchive& lib;
  archive* a = lib.write_new();
  explicit ArchiveWriter(const LibArchive& l) : lib(l) {}
  ~ArchiveWriter() { lib.write_free(a); }
  std::string error() const { return lib.error_string(a) ? lib.error_string(a) : "unknown libarchive error"; }
  Status add(const std::string& path, mode_t type, int perm, const std::string& content = {}, dev_t rdev = 0) {
    std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(lib.entry_new(), lib.entry_free);
    lib.entry_set_pathname(e.get(), path.c_str());
    lib.entry_set_filetype(e.get(), type);
    lib.entry_set_perm(e.get(), perm);
    lib.entry_set_size(e.get(), static_cast<la_int64_t>(content.size()));
    if (rdev) lib.entry_set_rdev(e.get(), rdev);
    if (lib.write_header(a, e.get()) != ARCHIVE_OK) return make_error("initramfs: " + error());
    if (!content.empty() && lib.write_data(a, content.data(), content.size()) < 0)
      return make_error("initramfs: " + error());
    return ok_status();
  }
};

Status write_initramfs(const ImageRecipe& rc, const std::string& modules_dir, const std::vector<std::string>& order,
                       const std::string& out) {
  auto lib = LibArchive::load();
  if (!lib) return lib.error();
  ArchiveWriter w(lib.value());
  lib->set_format_cpio_newc(w.a);
  if (lib->open_filename(w.a, out.c_str()) != ARCHIVE_OK) return make_error("cannot write " + out + ": " + w.error());
  for (const char* d : {"bin", "dev", "proc", "sys", "tmp", "host", "modules"})
    if (auto s = w.add(d, AE_IFDIR, 0755); !s) return s;
  if (auto s = w.add("dev/console", AE_IFCHR, 0600, {}, makedev(5, 1)); !s) return s;
  std::string busybox = read_file_text(rc.busybox);
  if (busybox.empty())
    return make_error("cannot read " + rc.busybox, "install busybox-static (scripts/install-deps.sh does)");
  std::string init = initramfs_init(read_file_text(rc.init));
  if (init.empty()) return make_error("cannot read the init script " + rc.init);
  if (auto s = w.add("bin/busybox", AE_IFREG, 0755, busybox); !s) return s;
  if (auto s = w.add("init", AE_IFREG, 0755, init); !s) return s;
  std::string list;
  for (const auto& rel : order) {
    std::string base = fs::path(rel).filename().string();
    std::string ko = read_file_text(modules_dir + "/" + rel);
    if (ko.empty()) return make_error("cannot read module " + rel);
    if (auto s = w.add("modules/" + base, AE_IFREG, 0644, ko); !s) return s;
    list += base + "\n";
  }
  if (auto s = w.add("modules.order", AE_IFREG, 0644, list); !s) return s;
  if (lib->write_close(w.a) != ARCHIVE_OK) return make_error("initramfs: " + w.error());
  return ok_status();
}

Result<Image> read_image_json(const std::string& dir) {
  auto j = parse_json_bounded(read_file_text(dir + "/image.json"));
  if (j.is_discarded()) return make_error(dir + "/image.json is unreadable");
  Image im;
  im.dir = dir;
  im.name = j.value("name", "");
  im.key = j.value("key", "");
  im.kernel_release = j.value("kernel_release", "");
  im.kernel_package = j.value("kernel_package", "");
  im.build_s = j.value("build_s", 0.0);
  im.vmlinux = dir + "/vmlinux";
  im.initrd = dir + "/initrd.img";
  im.modules_root = dir + "/tree";
  if (fs::exists(dir + "/rootfs")) im.rootfs = dir + "/rootfs";
  return im;
}

Status build_into(const ImageRecipe& rc, const std::string& pkg, const std::string& tmp, Image* im) {
  std::string log = tmp + "/build.log";
  if (auto s = run_tool({"apt-get", "download", pkg}, tmp, log); !s) return s;
  std::string deb;
  for (auto& e : fs::directory_iterator(tmp))
    if (e.path().extension() == ".deb") deb = e.path().string();
  if (deb.empty()) return make_error("apt-get download " + pkg + " left no .deb", log_tail(log, 4));
  im->kernel_package = fs::path(deb).filename().string();
  if (auto s = run_tool({"dpkg-deb", "-x", deb, tmp + "/tree"}, tmp, log); !s) return s;
  fs::remove(deb);
  std::string mods = tmp + "/tree/lib/modules";
  for (auto& e : fs::directory_iterator(mods)) im->kernel_release = e.path().filename().string();
  std::string kdir = mods + "/" + im->kernel_release;
  // Keep only what guests load; depmod then indexes what is left.
  std::vector<fs::path> drop;
  for (auto it = fs::recursive_directory_iterator(kdir + "/kernel"); it != fs::recursive_directory_iterator(); ++it) {
    const auto& e = *it;
    if (!e.is_directory()) continue;
    std::string rel = fs::relative(e.path(), kdir).string();
    bool keep = false, under_kept = false;
    for (const auto& d : rc.module_dirs) {
      if (rel == d || rel.rfind(d + "/", 0) == 0) under_kept = true;
      if (d.rfind(rel + "/", 0) == 0) keep = true;  // an ancestor of a kept directory
    }
    if (!keep && !under_kept) {
      drop.push_back(e.path());
      it.disable_recursion_pending();
    }
  }
  for (const auto& p : drop) (void)remove_tree(p.string());
  if (auto s = run_tool({"depmod", "-b", tmp + "/tree", im->kernel_release}, tmp, log); !s) return s;
  auto order = module_load_order(read_file_text(kdir + "/modules.dep"), rc.modules);
  if (!order) return order.error();
  std::string bz;
  for (auto& e : fs::directory_iterator(tmp + "/tree/boot"))
    if (e.path().filename().string().rfind("vmlinuz-", 0) == 0) bz = e.path().string();
  if (auto s = extract_vmlinux(bz, tmp + "/vmlinux", tmp); !s) return s;
  (void)remove_tree(tmp + "/tree/boot");
  if (auto s = write_initramfs(rc, kdir, *order, tmp + "/initrd.img"); !s) return s;
  if (rc.root != "mmdebstrap") return ok_status();
  // The reproducible root: Debian's own packages, installed by mmdebstrap into a tree that
  // guests mount read-only (each with a tmpfs overlay of its own).
  std::string include;
  for (const auto& p : rc.packages) include += (include.empty() ? "" : ",") + p;
  return run_tool(
      {"mmdebstrap", "--variant=" + rc.variant, "--mode=root", "--include=" + include, rc.suite, tmp + "/rootfs"}, tmp,
      log, 900);
}

}  // namespace

Result<Image> ensure_image(const ImageRecipe& rc, const std::string& cache_root, bool rebuild) {
  auto t0 = std::chrono::steady_clock::now();
  std::string images = cache_root + "/images";
  if (auto s = make_dirs(images, 0755); !s) return s.error();
  // Guests boot what is here, as root: only from a cache nobody else can change (docs/trust.md).
  if (auto trusted = open_trusted_dir(images); !trusted) return with_context(trusted.error(), "the image cache");
  std::string scratch = images + "/.resolve";
  fs::create_directories(scratch);
  auto kernel = resolve_kernel(rc.kernel_package, scratch);
  (void)remove_tree(scratch);
  if (!kernel) return kernel.error();
  fs::create_directories(scratch);
  auto packages = resolve_packages(rc.packages, scratch);
  (void)remove_tree(scratch);
  if (!packages) return packages.error();
  std::string key = image_key(read_file_text(rc.file), initramfs_init(read_file_text(rc.init)),
                              kernel->first + "=" + kernel->second + "\n" + *packages, read_file_text(rc.busybox));
  std::string dir = images + "/" + rc.name + "-" + key.substr(0, 16);
  if (!rebuild && fs::exists(dir + "/image.json")) {
    auto im = read_image_json(dir);
    if (im) im->cached = true;
    return im;
  }
  std::string tmp = dir + ".partial";
  (void)remove_tree(tmp);
  fs::create_directories(tmp);
  Image im;
  if (auto s = build_into(rc, kernel->first, tmp, &im); !s) {
    (void)remove_tree(tmp);  // nothing half-built is ever taken for an image
    return with_context(s.error(), "image '" + rc.name + "'");
  }
  im.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json j{{"name", rc.name},
                   {"key", key},
                   {"recipe", rc.file},
                   {"kernel_release", im.kernel_release},
                   {"kernel_package", im.kernel_package},
                   {"build_s", im.build_s},
                   {"root", rc.root}};
  if (auto s = write_file(tmp + "/image.json", j.dump(2) + "\n", 0644); !s) return s.error();
  for (const char* f : {"/build.log", "/build.log.cmd", "/vmlinux.cmd"}) fs::remove(tmp + f);
  (void)remove_tree(dir);
  fs::rename(tmp, dir);
  return read_image_json(dir);
}

std::vector<Image> list_images(const std::string& cache_root) {
  std::vector<Image> out;
  std::error_code ec;
  for (auto& e : fs::directory_iterator(cache_root + "/images", ec))
    if (fs::exists(e.path() / "image.json"))
      if (auto im = read_image_json(e.path().string())) out.push_back(*im);
  return out;
}

Result<int> clean_images(const std::string& cache_root) {
  int n = 0;
  std::error_code ec;
  if (!fs::exists(cache_root + "/images")) return 0;
  if (auto trusted = open_trusted_dir(cache_root + "/images"); !trusted)
    return with_context(trusted.error(), "the image cache");
  for (auto& e : fs::directory_iterator(cache_root + "/images", ec)) {
    std::string name = e.path().filename().string();
    bool ours = fs::exists(e.path() / "image.json") || (name.size() > 8 && name.substr(name.size() - 8) == ".partial");
    if (!ours) continue;
    if (auto s = remove_tree(e.path().string()); !s) return s.error();
    ++n;
  }
  return n;
}

}  // namespace vpnlab
