// Every fault point x {SIGINT, SIGHUP, SIGKILL + cleanup}: a real `vpnlab run` is hit at a named
// point; afterwards no lab namespace, no lab process and no half-written row remains.
#include <dirent.h>

#include <filesystem>
#include <fstream>

#include "lab/record/results_csv.h"
#include "root_test_support.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

struct Fault {
  const char* point;
  int pass;
};

// Processes vpnlab starts in these runs; nothing else on a test machine runs them.
std::vector<std::string> lab_programs_running() {
  std::vector<std::string> found;
  for (const char* comm : {"wireguard-go", "iperf3"})
    for (pid_t pid : pids_named(comm)) found.push_back(std::string(comm) + " pid " + std::to_string(pid));
  return found;
}

// Every line of results.csv (if any) is whole: the header's field count and a newline.
void expect_whole_rows(const std::string& out_dir) {
  DIR* d = opendir(out_dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string csv = out_dir + "/" + e->d_name + "/results.csv";
    std::string text = read_file(csv);
    if (text.empty()) continue;
    EXPECT_EQ(text.back(), '\n') << csv;
    std::ifstream in(csv);
    for (std::string line; std::getline(in, line);) {
      size_t fields = 1;
      bool quoted = false;
      for (char c : line) {
        if (c == '"') quoted = !quoted;
        if (c == ',' && !quoted) ++fields;
      }
      EXPECT_EQ(fields, results_csv_header().size()) << csv << ": " << line;
    }
  }
  closedir(d);
}

class FaultPoints : public ::testing::TestWithParam<std::tuple<Fault, std::string>> {};

TEST_P(FaultPoints, LeaveNothingBehindAndNoHalfRow) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  auto [fault, signal] = GetParam();
  std::string out = make_temp_dir("fault");
  SpawnSpec s;
  s.argv = {VPNLAB_BINARY,
            "run",
            VPNLAB_TOPOLOGIES "/quick.toml",
            "--product",
            "baseline",
            "--product",
            "wireguard-go",
            "--samples",
            "1",
            "--duration",
            "1s",
            "--out",
            out};
  with_test_history(&s);
  s.env["VPNLAB_FAULT"] = std::string(fault.point) + ":" + std::to_string(fault.pass) + ":" + signal;
  s.stdout_path = out + "/vpnlab.log";
  auto r = run_command(s, 120);
  ASSERT_TRUE(r.ok()) << r.error().format();
  std::string log = read_file(s.stdout_path);
  if (signal == "int" || signal == "hup") {  // Ctrl-C, or a closed terminal
    EXPECT_EQ(r->exit_status, 130) << log;
  } else {
    EXPECT_EQ(r->exit_status, 128 + 9) << log;
    SpawnSpec c;
    c.argv = {VPNLAB_BINARY, "cleanup"};
    c.stdout_path = out + "/cleanup.log";
    auto cleaned = run_command(c, 60);
    ASSERT_TRUE(cleaned.ok());
    EXPECT_EQ(cleaned->exit_status, 0) << read_file(c.stdout_path);
  }
  EXPECT_TRUE(list_namespaces("vpnlab-quick-").empty()) << log;
  auto running = lab_programs_running();
  EXPECT_TRUE(running.empty()) << running.front() << "\n" << log;
  expect_whole_rows(out);
  // No version probe output of a killed vpnlab (/tmp/vpnlab-version-<pid>-XXXXXX) outlives
  // the cleanup.
  for (const auto& e : std::filesystem::directory_iterator("/tmp")) {
    const std::string prefix = "vpnlab-version-";
    std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    std::string pid = name.substr(prefix.size(), name.find('-', prefix.size()) - prefix.size());
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;  // not vpnlab's naming
    EXPECT_TRUE(std::filesystem::exists("/proc/" + pid)) << e.path() << " left by a process that is gone\n" << log;
  }
}

INSTANTIATE_TEST_SUITE_P(Every, FaultPoints,
                         ::testing::Combine(::testing::Values(Fault{"netns-create", 1}, Fault{"link-create", 1},
                                                              Fault{"fork-exec", 2}, Fault{"readiness", 1},
                                                              Fault{"mid-sample", 1}, Fault{"mid-sample", 3},
                                                              Fault{"csv-row", 1}, Fault{"teardown", 2}),
                                            ::testing::Values("int", "hup", "kill")),
                         [](const ::testing::TestParamInfo<std::tuple<Fault, std::string>>& i) {
                           std::string n = std::string(std::get<0>(i.param).point) + "_" +
                                           std::to_string(std::get<0>(i.param).pass) + "_" + std::get<1>(i.param);
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
