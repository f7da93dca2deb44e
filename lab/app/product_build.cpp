#include "lab/app/product_build.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/json_depth.h"
#include "lab/base/process.h"
#include "lab/base/trusted_dir.h"
#include "lab/base/utc_time.h"
#include "lab/model/names.h"
#include "lab/model/product_spec.h"

extern char** environ;

namespace vpnlab {

namespace fs = std::filesystem;

namespace {

constexpr double kBuildLimitS = 2 * 3600;  // one registry client's run, at most
constexpr int kTickMs = 60 * 1000;         // a "still building" line this often

// A record or log vpnlab's build wrote, or "" when it cannot be read.
std::string text_of(const std::string& path, uint64_t max_bytes = 8 << 20) {
  auto t = read_input_file(path, max_bytes);
  return t ? *t : "";
}

std::string home_dir() {
  const char* h = std::getenv("HOME");
  return h && *h ? h : "/root";
}

// Found without a login shell: rustup puts cargo in ~/.cargo/bin, Go's tarball sits in
// /usr/local/go/bin.
std::string build_path() {
  const char* p = std::getenv("PATH");
  return std::string(p && *p ? p : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin") +
         ":/usr/local/go/bin:" + home_dir() + "/.cargo/bin";
}

std::string find_in(const std::string& path, const std::string& program) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string candidate = path.substr(start, end - start) + "/" + program;
    if (end > start && access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// What of the caller's environment a registry client sees: its proxy, certificate, cache and
// toolchain settings, and nothing else (another tool's token never reaches a build script).
bool passes_to_build(const std::string& name) {
  static const std::set<std::string> exact = {
      "http_proxy", "https_proxy", "no_proxy",      "all_proxy",    "HTTP_PROXY", "HTTPS_PROXY",
      "NO_PROXY",   "ALL_PROXY",   "SSL_CERT_FILE", "SSL_CERT_DIR", "TMPDIR",     "LANG",
      "LC_ALL",     "CC",          "CXX",           "RUSTFLAGS",    "RUSTC",      "RUSTC_WRAPPER"};
  for (const char* prefix : {"GO", "CARGO", "RUSTUP_"})
    if (name.rfind(prefix, 0) == 0) return true;
  return exact.count(name) > 0;
}

}  // namespace

std::map<std::string, std::string> registry_client_env(const std::string& bindir) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    if (auto eq = kv.find('='); eq != std::string::npos && eq > 0 && passes_to_build(kv.substr(0, eq)))
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  env["PATH"] = build_path();
  env["HOME"] = home_dir();
  env["GOTOOLCHAIN"] = "local";
  if (env["GOFLAGS"].empty()) env["GOFLAGS"] = "-buildvcs=false";
  if (!bindir.empty()) env["GOBIN"] = bindir;
  return env;
}

namespace {

struct Step {
  std::vector<std::string> argv;
  std::string cwd;
};

// A registry client's start: its environment (LOG.cmd names the variables, not their values),
// and the parent-death signal, so a killed vpnlab leaves no client writing into the cache.
SpawnSpec client_spec(std::vector<std::string> argv, const std::string& bindir) {
  SpawnSpec spec;
  spec.argv = std::move(argv);
  spec.env = registry_client_env(bindir);
  spec.env_values_private = true;
  spec.die_with_parent = true;
  return spec;
}

// Runs one client command to its end, logging to `log`; a line a minute while it runs.
Result<int> run_step(const Step& step, const std::string& bindir, const std::string& log, const std::string& shown_log,
                     const RegistryBuild& b, std::chrono::steady_clock::time_point start, std::ostream& progress,
                     int interrupt_fd) {
  SpawnSpec spec = client_spec(step.argv, bindir);
  spec.cwd = step.cwd;
  spec.stdout_path = log;
  auto child = Child::spawn(spec);
  if (!child) return child.error();
  const auto limit = start + std::chrono::duration<double>(kBuildLimitS);
  const int expected = expected_build_seconds(b);
  for (;;) {
    bool interrupted = false;
    if ((*child)->wait_exit(kTickMs, interrupt_fd, &interrupted)) return (*child)->exit_status();
    if (interrupted) {
      (*child)->stop(2000);
      return make_error(b.label + ": interrupted while building; nothing was marked built",
                        "run 'vpnlab products build " + b.label + "' again");
    }
    const auto now = std::chrono::steady_clock::now();
    if (now > limit) {
      (*child)->stop(2000);
      return make_error(
          b.label + ": the build ran past " + std::to_string(static_cast<int>(kBuildLimitS)) + " s and was stopped",
          "its log is " + shown_log);
    }
    const int elapsed = static_cast<int>(std::chrono::duration_cast<std::chrono::seconds>(now - start).count());
    progress << "products: " << b.label << ": still building, " << elapsed << " s"
             << (expected > 0 ? " (" + build_time_text(expected) + " last time)" : "") << std::endl;
  }
}

// `go install PACKAGE@VERSION` asks the module proxy for the module's newest version (to warn
// of a deprecation); where that listing is refused (headscale here) the install fails although
// the version itself is served. Then the module is fetched at that version alone and the
// package built inside it, with the module's own go.mod and go.sum: the same pinned code.
std::optional<Step> build_in_module(const std::string& go, const std::string& package_at_version,
                                    const std::string& ldflags, const std::string& bindir, const std::string& log) {
  const std::string pkg = package_at_version.substr(0, package_at_version.find('@'));
  const std::string ver = package_at_version.substr(package_at_version.find('@') + 1);
  for (std::string mod = pkg; !mod.empty();) {
    SpawnSpec spec = client_spec({go, "mod", "download", "-json", mod + "@" + ver}, "");
    spec.cwd = "/";
    spec.stdout_path = log + ".json";
    spec.stderr_path = log + ".err";
    auto ran = run_command(spec, 600, -1);
    if (ran && ran->exit_status == 0) {
      auto text = read_input_file(log + ".json", 1 << 20);
      auto j = parse_json_bounded(text ? *text : "");
      if (j.is_object() && j.value("Dir", "") != "") {
        std::string rel = pkg.substr(mod.size());
        if (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
        Step step{{go, "build", "-trimpath", "-o", bindir + "/" + pkg.substr(pkg.rfind('/') + 1), "./" + rel},
                  j["Dir"].get<std::string>()};
        if (!ldflags.empty()) step.argv.insert(step.argv.begin() + 3, "-ldflags=" + ldflags);
        return step;
      }
    }
    if (mod.find('/') == std::string::npos) break;
    mod.resize(mod.rfind('/'));
  }
  return std::nullopt;
}

// The programs the build left, checked before it is marked built.
std::string missing_binary(const RegistryBuild& b, const std::string& bindir) {
  const auto expected = b.source.expected_binaries();
  for (const auto& name : expected)
    if (access((bindir + "/" + name).c_str(), X_OK) != 0) return name;
  if (expected.empty()) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(bindir, ec))
      if (e.is_regular_file() && access(e.path().c_str(), X_OK) == 0) return "";
    return "any program";
  }
  return "";
}

// What went wrong, for the "failed" record: the first lines that say so (a build script's
// panic sits above cargo's summary), then the last ones.
std::string failure_text(const std::string& log) {
  std::string first, line;
  int found = 0;
  std::istringstream in(text_of(log));
  while (found < 3 && std::getline(in, line))
    if (line.find("error") != std::string::npos || line.find("panicked") != std::string::npos ||
        line.find("not found") != std::string::npos) {
      first += line.substr(0, 400) + "\n";
      ++found;
    }
  return first + log_tail(log, 3);
}

Status record(const std::string& path, const std::string& text) { return write_file(path, text, 0644); }

}  // namespace

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string build_time_text(int seconds) {
  if (seconds <= 0) return "time not known";
  if (seconds < 120) return "about " + std::to_string(seconds) + " s";
  return "about " + std::to_string((seconds + 30) / 60) + " min";
}

int expected_build_seconds(const RegistryBuild& b) {
  const std::string dir = product_build_dir(b.product, b.source.version);
  static const std::regex took(R"( in (\d+) s on )"), failed_after(R"( after (\d+) s)");
  for (const auto& [file, re] : {std::pair{"/built", &took}, {"/failed", &failed_after}}) {
    auto text = read_input_file(dir + file, 64 * 1024);
    std::smatch m;
    if (text && std::regex_search(*text, m, *re) && m[1].length() < 7) return std::stoi(m[1]);
  }
  return b.source.build_s;
}

Result<std::vector<RegistryBuild>> registry_builds_named(const std::string& shipped_products,
                                                         const std::vector<std::string>& names) {
  std::vector<RegistryBuild> out;
  std::set<std::string> seen;  // owner@version
  auto add = [&](const std::string& product, const ProductSource& src, const std::string& label) {
    if (seen.insert(src.owner(product) + "@" + src.version).second) out.push_back({src.owner(product), label, src});
  };
  for (const auto& name : names) {
    const bool all = name == "all";
    if (!all && !is_product_label(name))
      return make_error("'" + name + "' is not a product name (NAME or NAME@VERSION, from [a-z0-9.-])",
                        "'vpnlab products' lists them");
    const std::string base = name.substr(0, name.find('@'));
    const std::string version = name.find('@') == std::string::npos ? "" : name.substr(name.find('@') + 1);
    for (const auto& product : all ? list_products(shipped_products) : std::vector<std::string>{base}) {
      auto spec = load_product(shipped_products, product);
      if (!spec) {
        if (!all && spec.error().file.empty())
          return make_error("'" + name + "': " + spec.error().message,
                            "vpnlab builds only the products it ships (a crate's build scripts run as it builds); "
                            "'vpnlab products' lists them");
        if (!all) return spec.error();
        continue;
      }
      size_t before = out.size();
      bool named = false;
      for (const auto& src : spec->sources) {
        if (!version.empty() && src.version != version) continue;
        named = true;
        add(product, src, src.is_default ? product : product + "@" + src.version);
      }
      if (all || named) continue;
      std::string builds;
      for (const auto& src : spec->sources) builds += (builds.empty() ? "" : ", ") + product + "@" + src.version;
      if (spec->sources.empty())
        return make_error("product '" + product + "' has no registry build: it runs " + spec->origin,
                          "scripts/install-deps.sh installs what it needs");
      if (out.size() == before)
        return make_error("product '" + product + "' has no build '" + version + "'", "its builds: " + builds);
    }
  }
  return out;
}

namespace {

// One build of a product version at a time: an flock on products/NAME/.VERSION.lock, held
// until the build is in place (a second `products build` waits, then finds it built).
Result<UniqueFd> lock_build(int pdir, const std::string& shown, const RegistryBuild& b, std::ostream& progress,
                            int interrupt_fd) {
  const std::string name = "." + b.source.version + ".lock";
  UniqueFd fd(openat(pdir, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
  struct stat st {};
  if (!fd.valid() || fstat(fd.get(), &st) < 0)
    return make_error("cannot open the build lock " + shown + "/" + name + ": " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) return make_error(shown + "/" + name + " is not a regular file", "remove it");
  bool said = false;
  for (;;) {
    if (flock(fd.get(), LOCK_EX | LOCK_NB) == 0) return fd;
    if (errno != EWOULDBLOCK && errno != EINTR)
      return make_error("cannot lock " + shown + "/" + name + ": " + errno_text(errno));
    if (!said)
      progress << "products: " << b.label << ": another vpnlab is building it; waiting for that build" << std::endl;
    said = true;
    // flock has no descriptor to wait on: look again each second, or sooner on Ctrl-C.
    pollfd p{interrupt_fd, POLLIN, 0};
    if (poll(&p, interrupt_fd >= 0 ? 1 : 0, 1000) > 0)
      return make_error(b.label + ": interrupted while waiting for another build of it",
                        "run 'vpnlab products build " + b.label + "' again");
  }
}

// Whole seconds since `start`.
int seconds_since(std::chrono::steady_clock::time_point start) {
  return static_cast<int>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count());
}

// The built programs renamed as the product runs them ("wireguard=wireguard-go"; one a
// build renamed before is there already): the first the build did not leave (its errno in
// *err), or "".
std::string unrenamed_program(const RegistryBuild& b, const std::string& bindir, int* err) {
  for (const auto& pair : b.source.renames) {
    const std::string built = pair.substr(0, pair.find('=')), to = bindir + "/" + pair.substr(pair.find('=') + 1);
    if (::rename((bindir + "/" + built).c_str(), to.c_str()) != 0 && access(to.c_str(), X_OK) != 0) {
      *err = errno;
      return built;
    }
  }
  return "";
}

// The registry client's installs into `work`, each with the module it names ("" for cargo's
// one): a go build is one install per command.
std::vector<std::pair<Step, std::string>> install_steps(const RegistryBuild& b, const std::string& client,
                                                        const std::string& work) {
  std::vector<std::pair<Step, std::string>> steps;
  if (b.source.registry == "cargo") {
    steps.push_back({{{client, "install", "--locked", "--quiet", "--version", b.source.version, "--root", work,
                       b.source.packages.front()},
                      "/"},
                     ""});
    return steps;
  }
  for (const auto& m : b.source.packages) {
    const std::string arg =
        m.find('@') != std::string::npos
            ? m
            : m + "@" + (b.source.module_version.empty() ? "v" + b.source.version : b.source.module_version);
    std::vector<std::string> argv = {client, "install"};
    if (!b.source.stamps.empty()) argv.push_back("-ldflags=" + b.source.ldflags());
    argv.push_back(arg);
    steps.push_back({Step{std::move(argv), "/"}, arg});
  }
  return steps;
}

}  // namespace

Status make_registry_build(const RegistryBuild& b, std::ostream& progress, int interrupt_fd) {
  const std::string dir = product_build_dir(b.product, b.source.version);
  if (auto s = make_dirs(product_cache_root(), 0755); !s)
    return make_error(s.error().message, "run as root, or set VPNLAB_CACHE to a directory you own");
  // The cache is trusted or nothing is built there (docs/trust.md): a planted build would run as root.
  auto pdir = open_product_dir(b.product, /*create=*/true);
  if (!pdir) return with_context(pdir.error(), b.label);
  const std::string shown = product_cache_root() + "/products/" + b.product;
  auto lock = lock_build(pdir->get(), shown, b, progress, interrupt_fd);
  if (!lock) return lock.error();
  if (build_is_there(b.product, b.source) && missing_binary(b, dir + "/bin").empty()) {
    progress << "products: " << b.label << ": built already (" << first_line(text_of(dir + "/built", 4096)) << ")"
             << std::endl;
    return ok_status();
  }
  // Built in a directory of its own and renamed into place when it ends: what stands at
  // VERSION is a whole build or a failed one's record, never half of one.
  const std::string work_name = "." + b.source.version + ".building", work = shown + "/" + work_name,
                    bindir = work + "/bin";
  if (auto s = remove_tree_at(pdir->get(), shown, work_name); !s) return s;
  if (auto d = open_dir_below(pdir->get(), shown, work_name + "/bin", /*create=*/true); !d) return d.error();
  auto publish = [&]() -> Status {
    if (auto s = remove_tree_at(pdir->get(), shown, b.source.version); !s) return s;
    if (renameat(pdir->get(), work_name.c_str(), pdir->get(), b.source.version.c_str()) < 0)
      return make_error("cannot move the build into " + dir + ": " + errno_text(errno));
    return ok_status();
  };
  auto failed = [&](const std::string& why, Error e) -> Status {
    (void)record(work + "/failed", why);
    if (auto s = publish(); !s) return s;
    return e;
  };
  const std::string client = find_in(build_path(), b.source.registry == "cargo" ? "cargo" : "go");
  const std::string command = b.source.command();
  if (client.empty()) {
    const std::string why =
        "no '" + b.source.registry + "' on this machine (looked in PATH, /usr/local/go/bin and ~/.cargo/bin)";
    return failed(why + "\n", make_error(b.label + ": not built: " + why,
                                         "install the " + b.source.registry +
                                             " toolchain, then 'vpnlab products build " + b.label + "'"));
  }
  const int expected = expected_build_seconds(b);
  progress << "products: building " << b.label << " (" << command << "), " << build_time_text(expected)
           << (expected > 0 ? " here" : "") << std::endl;
  const auto start = std::chrono::steady_clock::now();
  const auto steps = install_steps(b, client, work);
  auto elapsed = [&] { return seconds_since(start); };
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string log_name = "build-" + std::to_string(i + 1) + ".log", log = work + "/" + log_name,
                      shown_log = dir + "/" + log_name;
    auto rc = run_step(steps[i].first, bindir, log, shown_log, b, start, progress, interrupt_fd);
    if (rc && *rc != 0 && b.source.registry == "go" && text_of(log).find("loading deprecation") != std::string::npos)
      if (auto in_module = build_in_module(client, steps[i].second, b.source.ldflags(), bindir, log))
        rc = run_step(*in_module, bindir, log + ".module", shown_log + ".module", b, start, progress, interrupt_fd);
    if (!rc) return failed(rc.error().message + "\n", rc.error());
    if (*rc != 0) {
      const bool in_module = fs::exists(log + ".module");
      const std::string why = failure_text(in_module ? log + ".module" : log);
      return failed(
          command + " failed (exit " + std::to_string(*rc) + ") after " + std::to_string(elapsed()) + " s:\n" + why,
          make_error(b.label + ": not built: " + command + " exited " + std::to_string(*rc) + "; it said:\n" + why,
                     "the whole log is " + shown_log + (in_module ? ".module" : "")));
    }
  }
  int rename_errno = 0;
  if (std::string left = unrenamed_program(b, bindir, &rename_errno); !left.empty())
    return failed(
        "the build left no " + left + " to rename\n",
        make_error(b.label + ": the build left no " + bindir + "/" + left + " to rename: " + errno_text(rename_errno)));
  if (std::string missing = missing_binary(b, bindir); !missing.empty())
    return failed(command + " exited 0 but left no " + missing + " in bin/\n",
                  make_error(b.label + ": " + command + " exited 0 but left no " + missing + " in " + dir +
                                 "/bin: not marked built",
                             "its logs are in " + dir));
  if (auto s = record(work + "/built", command + " in " + std::to_string(elapsed()) + " s on " + utc_now() + "\n"); !s)
    return s;
  if (auto s = publish(); !s) return s;
  progress << "products: " << b.label << ": built in " << elapsed() << " s (" << dir << ")" << std::endl;
  return ok_status();
}

Result<int> build_products_for_run(const std::vector<std::string>& products, const std::string& products_path,
                                   const std::string& shipped_products, bool no_build, std::ostream& progress,
                                   int interrupt_fd) {
  int built = 0;
  for (const auto& name : products) {
    if (name.find('=') != std::string::npos) continue;  // NAME@TAG=/path: the user's own build
    auto spec = load_product(products_path, name);
    if (!spec || spec->not_built.empty()) continue;  // errors are the planner's to report
    // Only a shipped product's build is made by vpnlab (a user's folder may name one).
    auto builds = registry_builds_named(shipped_products, {name});
    if (!builds || builds->empty() || fs::path(spec->dir).parent_path() != fs::path(shipped_products))
      return make_error("product '" + name + "' is " + spec->not_built,
                        "build it as its product.toml says, or run another product");
    // The plain name runs its default build; NAME@VERSION names exactly one.
    auto chosen = std::find_if(builds->begin(), builds->end(), [&](const RegistryBuild& r) {
      return name.find('@') != std::string::npos || r.source.is_default;
    });
    const RegistryBuild& b = chosen != builds->end() ? *chosen : builds->front();
    if (no_build)
      return make_error("product '" + name + "' is not built yet (--no-build)",
                        "run 'vpnlab products build " + name + "' first (" +
                            build_time_text(expected_build_seconds(b)) + " on a 2-vCPU machine)");
    progress << "products: " << name << " is not built yet: building it first ("
             << build_time_text(expected_build_seconds(b)) << ")" << std::endl;
    if (auto s = make_registry_build(b, progress, interrupt_fd); !s) return s.error();
    ++built;
  }
  return built;
}

}  // namespace vpnlab
