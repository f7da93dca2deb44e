// Under TCG emulation a tunnel is bound by the emulated CPU, not the link it is meant to
// test (a 30 ms / 1 % loss WAN gave every tunnel 4-5 Mbit/s): the summary table and the
// report's answer say so beside such figures, and say nothing for KVM guests or namespaces.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lab/app/run_outputs.h"
#include "lab/base/fs_util.h"
#include "lab/record/results_csv.h"
#include "lab/results/emulation_note.h"
#include "lab/results/report.h"

namespace vpnlab {
namespace {

// The golden run directory with its environment's "accel" set to `accel` ("" = none).
std::string golden_run_with_accel(const std::string& accel) {
  char tmpl[] = "/tmp/vpnlab-emulation-XXXXXX";
  const std::filesystem::path run = mkdtemp(tmpl);
  const std::filesystem::path golden = std::filesystem::path(VPNLAB_TEST_DATA) / "run-golden";
  for (const char* f : {"results.csv", "environment.json", "audit.json"})
    std::filesystem::copy_file(golden / f, run / f);
  std::filesystem::copy(golden / "raw", run / "raw", std::filesystem::copy_options::recursive);
  auto env = nlohmann::json::parse(read_file_text((run / "environment.json").string()));
  if (!accel.empty()) env["accel"] = accel;
  EXPECT_TRUE(write_file((run / "environment.json").string(), env.dump(2), 0640).ok());
  return run.string();
}

TEST(EmulationNote, TheTableAndTheAnswerSayTcgAndNothingElseDoes) {
  const std::string note =
      "these guests ran under TCG emulation (no usable KVM): every figure is bound by the emulated CPU";
  for (const std::string accel : {"tcg", "kvm", ""}) {
    const std::string run = golden_run_with_accel(accel);
    auto rows = read_results_csv(run + "/results.csv");
    ASSERT_TRUE(rows.ok()) << rows.error().format();
    const std::string table = run_table(run, rows.value(), ResultView{});
    ASSERT_TRUE(write_report(run).ok());
    const std::string report = read_file_text(run + "/report.md");
    const bool said = accel == "tcg";
    EXPECT_EQ(table.find("! " + note) != std::string::npos, said) << accel << "\n" << table;
    const size_t answer = report.find("Under emulation: " + note);
    EXPECT_EQ(answer != std::string::npos, said) << accel << "\n" << report.substr(0, 1500);
    if (said) {
      EXPECT_LT(answer, report.find("## ")) << "in the answer, before the first section";
    }
    std::filesystem::remove_all(run);
  }
}

}  // namespace
}  // namespace vpnlab
