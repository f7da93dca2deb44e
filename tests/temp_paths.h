// Scratch directories of the tests under /tmp, removed when the test program ends: a test
// run leaves nothing behind. They stay (and are named on stderr) when a test failed, or
// when VPNLAB_KEEP_TEST_FILES is set, so that a failure can be looked at.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace vpnlab {

inline std::vector<std::string>& test_scratch_dirs() {
  static std::vector<std::string> dirs;
  return dirs;
}

// A new directory /tmp/vpnlab-WHAT-XXXXXX, removed at the end of the test program.
inline std::string make_temp_dir(const std::string& what) {
  std::string tmpl = "/tmp/vpnlab-" + what + "-XXXXXX";
  if (!mkdtemp(tmpl.data())) {
    ADD_FAILURE() << "mkdtemp " << tmpl << " failed";
    return "/nonexistent";
  }
  test_scratch_dirs().push_back(tmpl);
  return tmpl;
}

class RemoveTestScratchDirs : public ::testing::Environment {
 public:
  void TearDown() override {
    bool keep =
        getenv("VPNLAB_KEEP_TEST_FILES") != nullptr || ::testing::UnitTest::GetInstance()->failed_test_count() > 0;
    for (const auto& d : test_scratch_dirs()) {
      if (keep) {
        fprintf(stderr, "test files kept in %s\n", d.c_str());
        continue;
      }
      std::error_code ec;
      std::filesystem::remove_all(d, ec);
    }
  }
};

// Registered once per test program (an inline variable is initialised once), before main.
inline ::testing::Environment* const kRemoveTestScratchDirs =
    ::testing::AddGlobalTestEnvironment(new RemoveTestScratchDirs);

}  // namespace vpnlab
