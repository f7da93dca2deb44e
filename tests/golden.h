// Golden files of the --json documents (tests/data/json/): a document is compared with its
// file as dumped (indent 2). VPNLAB_UPDATE_GOLDEN=1 rewrites the file instead (and skips):
// review the difference, keys are only ever added.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "lab/base/fs_util.h"

namespace vpnlab {

inline void expect_golden(const std::string& name, const nlohmann::json& got) {
  std::filesystem::path golden = std::filesystem::path(VPNLAB_TEST_DATA) / "json" / name;
  std::string text = got.dump(2) + "\n";
  if (getenv("VPNLAB_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(golden.parent_path());
    std::ofstream(golden) << text;
    GTEST_SKIP() << "golden file rewritten: " << golden;
  }
  EXPECT_EQ(text, read_file_text(golden.string())) << name << " differs from " << golden;
}

}  // namespace vpnlab
