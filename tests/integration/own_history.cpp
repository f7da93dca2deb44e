// The root tests' runs never reach the machine's history (/var/lib/vpnlab/history.sqlite):
// ctest sets VPNLAB_HISTORY for them (tests/CMakeLists.txt); run by hand, without it, this
// gives them one of their own for the process (inherited by every vpnlab they start),
// removed at exit.
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace {

std::string own_history_dir;

[[maybe_unused]] const bool kOwnHistory = [] {
  if (getenv("VPNLAB_HISTORY")) return false;
  char tmpl[] = "/tmp/vpnlab-root-tests-history-XXXXXX";
  if (!mkdtemp(tmpl)) return false;
  own_history_dir = tmpl;
  setenv("VPNLAB_HISTORY", (own_history_dir + "/history.sqlite").c_str(), 1);
  atexit([] {
    std::error_code ec;
    std::filesystem::remove_all(own_history_dir, ec);
  });
  return true;
}();

}  // namespace
