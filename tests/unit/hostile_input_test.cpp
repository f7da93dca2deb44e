// Files and values from outside are input (issue 29): an ssh option that would run a
// command, names in a run file that would make paths, figures and sizes no run writes,
// links where vpnlab writes, and a resume that would mix two runs' settings. Each is
// refused with its place named; nothing is written outside the run directory.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../temp_paths.h"
#include "lab/app/run_request.h"
#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/json_depth.h"
#include "lab/base/out_dir.h"
#include "lab/base/terminal_door.h"
#include "lab/base/terminal_text.h"
#include "lab/base/text_table.h"
#include "lab/base/xml_escape.h"
#include "lab/model/product_spec.h"
#include "lab/model/ssh_policy.h"
#include "lab/model/topology.h"
#include "lab/record/results_csv.h"
#include "lab/record/run_layout.h"
#include "lab/results/report.h"
#include "lab/results/run_files.h"

using namespace vpnlab;

namespace {

std::string error_of(const Error& e) { return e.where_and_what(); }

SampleRow good_row(const std::string& product, const std::string& test, int sample) {
  SampleRow r;
  r.run_id = "20261201-120000-abcd";
  r.product = product;
  r.test = test;
  r.sample = sample;
  r.valid = true;
  r.status = "ok";
  r.gbps = 1.5;
  r.duration_s = 3;
  r.cpu_s = 1;
  return r;
}

std::string header_line() { return results_csv_header_line() + "\n"; }

std::string write_csv(const std::string& dir, const std::vector<SampleRow>& rows) {
  std::string text = header_line();
  for (const auto& r : rows) text += format_row(r);
  std::ofstream(dir + "/results.csv") << text;
  return dir + "/results.csv";
}

std::string read_error(const std::string& path) {
  auto rows = read_results_csv(path);
  return rows ? "" : rows.error().message;
}

std::string host_topology_error(const std::string& options, const std::string& extra = "") {
  std::string text = read_file_text(VPNLAB_TEST_DATA "/hostile/one-host.toml");
  text.replace(text.find("OPTIONS"), 7, options + extra);
  auto topo = parse_topology_text(text, "topologies/x.toml");
  return topo ? "" : topo.error().where_and_what();
}

}  // namespace

// The hostile review's file: ssh would run ProxyCommand through a shell. It is refused at
// parse (validate) naming the item, so nothing ever reaches ssh.
TEST(HostileInput, SshOptionsThatRunCommandsAreRefusedWithTheirItem) {
  EXPECT_EQ(
      host_topology_error(R"(["-oProxyCommand=sh -c \"touch MARKER\"", "-p", "22"])"),
      "topologies/x.toml:10:16: host 'h1': ssh_options: -o ProxyCommand is not an option a topology may set (some ssh "
      "options run "
      "commands or load code); allowed: IdentityFile, IdentitiesOnly, Port, User, ConnectTimeout, ConnectionAttempts, "
      "ServerAliveInterval, ServerAliveCountMax, AddressFamily, Compression, HostKeyAlgorithms, "
      "PubkeyAcceptedAlgorithms, Ciphers, "
      "MACs, KexAlgorithms, LogLevel");
  // The same key in every spelling ssh reads: separate item, space form, other case.
  for (const char* o : {R"(["-p", "22", "-o", "proxycommand nc %h %p"])", R"(["-o", "LocalCommand=id"])",
                        R"(["-oKnownHostsCommand=/bin/id"])", R"(["-o", "PKCS11Provider=/tmp/x.so"])",
                        R"(["-o", "PermitLocalCommand=yes"])", R"(["-J", "jump"])", R"(["-F", "/tmp/evil_config"])",
                        R"(["-o", "Include=/tmp/x"])", R"(["-o", "Match=exec true"])"})
    EXPECT_NE(host_topology_error(o), "") << o;
  EXPECT_EQ(host_topology_error(R"(["-p"])"),
            "topologies/x.toml:10:16: host 'h1': ssh_options: -p needs a value after it");
  // What a lab needs passes: a key, a port, a user, no config at all.
  EXPECT_EQ(
      host_topology_error(
          R"(["-F", "none", "-i", "/root/.ssh/lab_key", "-p", "2222", "-o", "IdentitiesOnly=yes", "-l", "root", "-4"])"),
      "");
}

// The hostile review: -o UserKnownHostsFile=/root/.ssh/authorized_keys with accept-new made
// root's ssh append "ALIAS keytype KEY" to that file, and HostKeyAlias chose ALIAS. Every
// option that names or changes the file ssh writes host keys to is vpnlab's own.
TEST(HostileInput, SshOptionsThatMakeSshWriteAFileAreRefusedWithWhatToWriteInstead) {
  EXPECT_EQ(host_topology_error(R"(["-o", "UserKnownHostsFile=/root/.ssh/authorized_keys"])"),
            "topologies/x.toml:10:22: host 'h1': ssh_options: -o UserKnownHostsFile is vpnlab's to set: with it ssh "
            "writes host keys to a "
            "file as root; name a known-hosts file with known_hosts = \"FILE\" (vpnlab reads it, never writes it)");
  EXPECT_EQ(host_topology_error(R"(["-oHostKeyAlias=command=\"id\" ssh-ed25519"])"),
            "topologies/x.toml:10:16: host 'h1': ssh_options: -o HostKeyAlias is vpnlab's to set: with it ssh writes "
            "host keys to a file "
            "as root; pin the host's key with host_key = \"ssh-ed25519 AAAA...\"");
  EXPECT_EQ(
      host_topology_error(R"(["-o", "StrictHostKeyChecking", "accept-new"])")
          .rfind("topologies/x.toml:10:22: host 'h1': ssh_options: -o StrictHostKeyChecking is vpnlab's to set: ", 0),
      0u);
  for (const char* o : {R"(["-o", "stricthostkeychecking=yes"])", R"(["-o", "GlobalKnownHostsFile=/etc/cron.d/x"])",
                        R"(["-oCheckHostIP=yes"])", R"(["-o", "UpdateHostKeys=yes"])", R"(["-F", "/root/.ssh/config"])",
                        R"(["-E", "/etc/passwd"])", R"(["-o", "Port=-1"])"})
    EXPECT_NE(host_topology_error(o), "") << o;
}

// Host keys: pinned in the topology, or a known-hosts file it names (read, never written).
TEST(HostileInput, AHostKeyIsPinnedOrNamedAndChecked) {
  EXPECT_EQ(host_topology_error(
                R"([])", "\nhost_key = \"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG5ldyBrZXkgZm9yIHRoZSBsYWIgdGVzdA==\""),
            "");
  EXPECT_EQ(host_topology_error(R"([])", "\nhost_key = \"accept-new\""), "");
  EXPECT_EQ(host_topology_error(R"([])", "\nhost_key = \"ssh-ed25519 AAAA\\nbad\""),
            "topologies/x.toml:11:12: host 'h1': host_key the key after 'ssh-ed25519' is not base64 (the second field "
            "of the host's .pub file, "
            "nothing after it)");
  EXPECT_EQ(host_topology_error(R"([])", "\nhost_key = \"no\""),
            "topologies/x.toml:11:12: host 'h1': host_key 'no' is not TYPE KEY (ssh-ed25519, "
            "ecdsa-sha2-nistp256/384/521, ssh-rsa) or \"accept-new\"");
  EXPECT_EQ(host_topology_error(R"([])", "\nhost_key = \"accept-new\"\nknown_hosts = \"kh\""),
            "topologies/x.toml:12:15: host 'h1': both host_key and known_hosts");
  auto topo = parse_topology_text(
      [] {
        std::string text = read_file_text(VPNLAB_TEST_DATA "/hostile/one-host.toml");
        return text.replace(text.find("OPTIONS"), 7,
                            R"(["-i", "keys/lab", "-oIdentityFile=other", "-i/abs/key"])"
                            "\nknown_hosts = \"lab_hosts\"");
      }(),
      "topologies/x.toml");
  ASSERT_TRUE(topo.ok()) << topo.error().format();
  EXPECT_EQ(topo->hosts[0].ssh_options,
            (std::vector<std::string>{"-i", "topologies/keys/lab", "-oIdentityFile=topologies/other", "-i/abs/key"}))
      << "relative key paths are to the topology's folder";
  EXPECT_EQ(topo->hosts[0].known_hosts, "topologies/lab_hosts");
}

TEST(HostileInput, TheAgentPathAndTheDestinationArePlain) {
  EXPECT_EQ(host_topology_error(R"([])", "\nagent = \"/bin/sh\""),
            "topologies/x.toml:11:9: host 'h1': agent '/bin/sh' does not name vpnlab-host-agent (a topology says where "
            "the agent is installed, "
            "not which program runs as root)");
  EXPECT_NE(host_topology_error(R"([])", "\nagent = \"/opt/x/../../bin/vpnlab-host-agent\""), "");
  EXPECT_EQ(host_topology_error(R"([])", "\nagent = \"/opt/vpnlab/libexec/vpnlab-host-agent\""), "");
  EXPECT_EQ(ssh_destination_problem("root@192.0.2.10"), "");
  EXPECT_EQ(ssh_destination_problem("lab-h2"), "");
  EXPECT_EQ(ssh_destination_problem("root@[2001:db8::1]"), "");
  EXPECT_NE(ssh_destination_problem("root@h1;touch x"), "");
  EXPECT_NE(ssh_destination_problem("$(id)@h1"), "");
}

// `report` on a run whose test is named ../../../ESCAPED wrote SVGs three levels up.
TEST(HostileInput, NamesThatWouldMakePathsAreRefusedOnReadBack) {
  std::string dir = make_temp_dir("hostile");
  std::string path = write_csv(dir, {good_row("baseline", "a-to-b", 1), good_row("baseline", "../../../ESCAPED", 1)});
  EXPECT_EQ(read_error(path), path + ":3: test '../../../ESCAPED' is not a test name ([a-z0-9-], at most 64)");
  path = write_csv(dir, {good_row("../x", "a-to-b", 1)});
  EXPECT_EQ(read_error(path),
            path + ":2: product '../x' is not a product name ([a-z0-9-], optionally @TAG of [a-z0-9.-])");
  path = write_csv(dir, {good_row("nebula@1.9.5", "a-to-b", 1), good_row("nebula@..", "a-to-b", 1)});
  EXPECT_EQ(read_error(path),
            path + ":3: product 'nebula@..' is not a product name ([a-z0-9-], optionally @TAG of [a-z0-9.-])");
  auto refused = write_report(dir);
  ASSERT_FALSE(refused.ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/report.html"));
}

// The same rules from the start: a product folder named outside them is refused when it is
// loaded, so a run never writes rows that its own report would refuse.
TEST(HostileInput, AProductIsNamedByTheRulesItsRowsAreReadWith) {
  auto spec = load_product(VPNLAB_PRODUCTS_DIR, "My_VPN");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message, "product name 'My_VPN' is invalid: a product is named by its folder, from [a-z0-9-]");
  EXPECT_TRUE(load_product(VPNLAB_PRODUCTS_DIR, "wireguard-go").ok());
}

TEST(HostileInput, FiguresAndCountsNoRunWritesAreRefused) {
  std::string dir = make_temp_dir("hostile");
  // As the hostile review wrote it: 1e308 in the gbps column.
  std::string line = format_row(good_row("baseline", "a-to-b", 1));
  line.replace(line.find(",1.500000,"), 10, ",1e308,");
  std::ofstream(dir + "/results.csv") << header_line() << line;
  std::string path = dir + "/results.csv";
  EXPECT_EQ(read_error(path),
            path + ":2: column 'gbps': 1e+308 is not a figure (negative, not finite, or above 10000)");
  SampleRow rss = good_row("baseline", "a-to-b", 1);
  rss.daemon_rss_kb = -1;
  rss.daemon_threads = 4;  // a daemon ran: the column is written, not left empty as unmeasured
  path = write_csv(dir, {rss});
  EXPECT_EQ(read_error(path), path + ":2: column 'daemon_rss_kb': -1 is outside 0..1099511627776");
  path = write_csv(dir, {good_row("baseline", "a-to-b", 1001)});
  EXPECT_EQ(read_error(path), path + ":2: sample 1001 is not a sample number (1 to 1000)");
  // A duplicated row was counted (11/11 samples of a 10-sample run).
  path = write_csv(
      dir, {good_row("baseline", "a-to-b", 1), good_row("baseline", "a-to-b", 2), good_row("baseline", "a-to-b", 1)});
  EXPECT_EQ(read_error(path),
            path + ":4: product 'baseline', test 'a-to-b', sample 1 is there twice (first on line 2)");
}

// A deleted latency_p99_ms column made the p99 metric silently disappear.
TEST(HostileInput, AColumnDeletedOrMovedIsRefusedNamingIt) {
  std::string dir = make_temp_dir("hostile");
  std::string header = header_line();
  std::string row = format_row(good_row("baseline", "a-to-b", 1));
  auto drop_column = [](const std::string& line, size_t index) {
    std::vector<std::string> fields;
    std::stringstream in(line.substr(0, line.size() - 1));
    for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
    if (line[line.size() - 2] == ',') fields.push_back("");
    fields.erase(fields.begin() + static_cast<long>(index));
    std::string out;
    for (const auto& f : fields) out += (out.empty() ? "" : ",") + f;
    return out + "\n";
  };
  const auto& cols = results_csv_header();
  const size_t p99 = static_cast<size_t>(std::find(cols.begin(), cols.end(), "latency_p99_ms") - cols.begin());
  std::ofstream(dir + "/results.csv") << drop_column(header, p99) << drop_column(row, p99);
  EXPECT_EQ(
      read_error(dir + "/results.csv"),
      dir + "/results.csv:1: column 35 is 'latency_probes' where results.csv has 'latency_p99_ms' (columns moved)");
  // Cut after the first version's 27 columns is an older run, and reads; fewer is refused.
  std::string cut = header.substr(0, header.find(",processes")) + "\n";
  std::ofstream(dir + "/results.csv") << cut.substr(0, cut.find(",cpu_s_per_gbit")) + "\n";
  EXPECT_EQ(
      read_error(dir + "/results.csv"),
      dir + "/results.csv:1: the header ends after 'steal_s': column 'cpu_s_per_gbit' and those after it are missing");
}

// A 50 MB results.csv made diff reach 18.6 GB; a FIFO or /dev/zero never ended. Each is
// refused by its size or type before a byte is read (a read would hang on the FIFO: ctest's
// timeout for the unit tests ends that).
TEST(HostileInput, HugeEndlessAndSpecialFilesAreRefusedBeforeReading) {
  std::string dir = make_temp_dir("hostile");
  std::string big = dir + "/big.csv";
  { std::ofstream(big) << header_line(); }
  ASSERT_EQ(truncate(big.c_str(), 50 << 20), 0);
  EXPECT_EQ(read_error(big), big + ": 50 MiB, larger than vpnlab reads for such a file (32 MiB)");
  std::string fifo = dir + "/fifo.csv";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(read_error(fifo), fifo + ": a FIFO, not a file vpnlab wrote");
  std::string zero = dir + "/zero.csv";
  std::filesystem::create_symlink("/dev/zero", zero);
  EXPECT_EQ(read_error(zero), zero + ": a character device, not a file vpnlab wrote");
  // A topology is input too.
  auto topo = load_topology(fifo);
  ASSERT_FALSE(topo.ok());
  EXPECT_NE(error_of(topo.error()).find("a FIFO"), std::string::npos) << error_of(topo.error());
}

// RUN/report.html linked to any file was overwritten with HTML; RUN/plots linked to a
// directory got the SVGs.
TEST(HostileInput, LinksInARunDirectoryAreRefusedAndNothingIsWrittenOutside) {
  std::string run = make_temp_dir("hostile-run");
  std::string outside = make_temp_dir("hostile-outside");
  std::filesystem::copy(VPNLAB_TEST_DATA "/run-golden", run,
                        std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  std::filesystem::remove_all(run + "/plots");
  std::ofstream(outside + "/victim") << "precious\n";
  std::filesystem::remove(run + "/report.html");
  std::filesystem::create_symlink(outside + "/victim", run + "/report.html");
  auto s = write_report(run);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, run + "/report.html is a symbolic link: vpnlab writes nothing through a link");
  EXPECT_EQ(read_file_text(outside + "/victim"), "precious\n");

  std::filesystem::remove(run + "/report.html");
  std::filesystem::remove_all(run + "/plots");
  std::filesystem::create_directory_symlink(outside, run + "/plots");
  s = write_report(run);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, run + "/plots is a symbolic link: vpnlab writes nothing through a link");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(outside), {}), 1);  // the victim only

  // Without links the same run reports, and a resumed run may hold none anywhere.
  std::filesystem::remove(run + "/plots");
  EXPECT_TRUE(write_report(run).ok());
  EXPECT_TRUE(check_no_links_below(run).ok());
  std::filesystem::create_directory_symlink("/etc", run + "/raw-link");
  EXPECT_EQ(check_no_links_below(run).error().message,
            run + "/raw-link is a symbolic link: vpnlab writes nothing through a link");
}

TEST(HostileInput, OutDirWritesOnlyPlainNamesBelowItself) {
  std::string dir = make_temp_dir("hostile");
  auto out = OutDir::open(dir);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->write("a.txt", "x").ok());
  EXPECT_EQ(read_file_text(dir + "/a.txt"), "x");
  EXPECT_FALSE(out->write("../escaped.txt", "x").ok());
  EXPECT_FALSE(out->write("..", "x").ok());
  EXPECT_FALSE(out->subdir("../up").ok());
  EXPECT_FALSE(std::filesystem::exists(dir + "/../escaped.txt"));
  // No temporary is left beside the file.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
}

// Resumed with --samples 10 a run made with --samples 2 appended 10 s samples to 2 s ones.
TEST(HostileInput, ResumeRepeatsTheRunItResumes) {
  std::string run = make_temp_dir("hostile-resume");
  std::ofstream(run + "/environment.json") << R"({"schema": 1, "requested_products": ["baseline", "wireguard-go"],
    "bench": {"samples": 2, "duration_s": 2.0, "warmup_s": 1.0, "pinned": true, "interleaved": true}})";
  RunRequest given;
  given.samples = 10;
  auto s = resume_request(run, &given);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "cannot resume " + run + ": --samples 10 here, but the run was made with 2 samples (" +
                                   run + "/environment.json)");
  given = RunRequest{};
  given.duration_s = 10;
  s = resume_request(run, &given);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "cannot resume " + run +
                                   ": --duration 10 s here, but the run was made with 2 s samples (" + run +
                                   "/environment.json)");
  // Left out, the run's own values are taken.
  RunRequest plain;
  ASSERT_TRUE(resume_request(run, &plain).ok());
  EXPECT_EQ(*plain.samples, 2);
  EXPECT_DOUBLE_EQ(*plain.duration_s, 2.0);
  EXPECT_EQ(plain.products, (std::vector<std::string>{"baseline", "wireguard-go"}));
  // The same topology file, another product order, another warm-up.
  std::ofstream(run + "/topology.toml") << "[lab]\nname = \"r\"\n";
  std::ofstream(run + "/same.toml") << "[lab]\nname = \"r\"\n";
  std::ofstream(run + "/other.toml") << "[lab]\nname = \"other\"\n";
  Plan plan;
  plan.topology_file = run + "/other.toml";
  EXPECT_EQ(check_resume_plan(run, plan).error().message,
            run + " was measured with a different topology than " + run + "/other.toml");
  plan.topology_file = run + "/same.toml";
  plan.warmup_s = 1;
  plan.products = {"wireguard-go", "baseline"};
  EXPECT_EQ(check_resume_plan(run, plan).error().message,
            "cannot resume " + run +
                ": the products (in order) are [wireguard-go, baseline] here, but the run was made with [baseline, "
                "wireguard-go] (" +
                run + "/environment.json)");
  plan.products = {"baseline", "wireguard-go"};
  plan.warmup_s = 3;
  EXPECT_EQ(check_resume_plan(run, plan).error().message,
            "cannot resume " + run + ": the warm-up is 3 s here, but the run was made with 1 s (" + run +
                "/environment.json)");
  // The record read once into one type: a field it cannot do without, or a value out of
  // vpnlab's bounds, is refused naming the file and the field.
  std::ofstream(run + "/environment.json") << R"({"schema": 1, "requested_products": ["baseline"],
    "bench": {"samples": 2, "duration_s": 2.0, "pinned": true, "interleaved": true}})";
  RunRequest again;
  EXPECT_EQ(resume_request(run, &again).error().message, run +
                                                             "/environment.json: no bench.warmup_s: the resumed rows "
                                                             "could not be shown to measure what the first ones did");
  std::ofstream(run + "/environment.json") << R"({"schema": 1, "requested_products": ["baseline"],
    "bench": {"samples": 2, "duration_s": 2.0, "warmup_s": 1.0, "pinned": true, "interleaved": true, "precision": 7}})";
  EXPECT_EQ(resume_request(run, &again).error().message,
            run + "/environment.json: bench.precision or bench.max_time_s is out of range");
  std::ofstream(run + "/environment.json") << R"({"schema": 1, "requested_products": ["baseline"],
    "bench": {"samples": 2, "duration_s": 2.0, "warmup_s": 1.0, "pinned": true, "interleaved": true, "precision": 0.05,
    "max_time_s": 300, "tests": ["a-to-b"]}})";
  ASSERT_TRUE(resume_request(run, &again).ok());
  EXPECT_DOUBLE_EQ(*again.precision, 0.05);
  EXPECT_DOUBLE_EQ(again.max_time_s, 300);
  EXPECT_EQ(again.tests, std::vector<std::string>{"a-to-b"});
}

// The hostile review: an environment.json of 2 MB nested a million levels deep crashed
// report, diff and history import. It is refused by its depth before it is parsed.
TEST(HostileInput, JsonNestedAMillionDeepIsRefusedBeforeItIsParsed) {
  EXPECT_EQ(json_nesting_problem(R"({"a": [1, {"b": "[[[[ in a string ]]"}]})", 3), "");
  EXPECT_EQ(json_nesting_problem("[[[", 2), "nested deeper than 2 levels (at byte 3)");
  EXPECT_EQ(json_nesting_problem(R"({"x": "\"[[", "y": [[[]]]})", 3), "nested deeper than 3 levels (at byte 22)");
  const std::string dir = make_temp_dir("deep-json");
  std::ofstream(dir + "/environment.json") << std::string(1000000, '[') << std::string(1000000, ']');
  auto env = read_environment(dir, /*required=*/true);
  ASSERT_FALSE(env.ok());
  EXPECT_EQ(env.error().message,
            dir + "/environment.json: nested deeper than 64 levels (at byte 65), not a file vpnlab wrote");
}

// The hostile review: a run id with terminal escape sequences (from a tampered history)
// reached the terminal through `vpnlab history`. Every table cell and error message shows
// control characters escaped; a message keeps its own lines.
TEST(HostileInput, ControlCharactersNeverReachTheTerminalRaw) {
  EXPECT_EQ(terminal_safe("run\x1b]0;pwned\x07-1"), "run\\x1b]0;pwned\\x07-1");
  EXPECT_EQ(terminal_safe("a\nb\tc\x7f"), "a\\x0ab\\x09c\\x7f");
  EXPECT_EQ(terminal_safe("a\nb\tc", /*keep_newlines=*/true), "a\nb\tc");
  EXPECT_EQ(terminal_safe("line\r\nover\rwritten", true), "line\nover\\x0dwritten");
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "31m caf\xc3\xa9 \xe2\x80\x94"),
            "\\xc2\\x9b"
            "31m caf\xc3\xa9 \xe2\x80\x94")
      << "C1 escaped, other UTF-8 kept";
  EXPECT_EQ(TextTable({-6, 3}).line({"\x1b[2J", "1"}), "\\x1b[2J   1\n");
  Error e = make_error("run '\x1b[31mred' is bad\nsecond line", "hint \x07");
  EXPECT_EQ(e.format(), "vpnlab: error: run '\\x1b[31mred' is bad\nsecond line\nhint: hint \\x07");
}

// Bytes that are not UTF-8 (a product's version, a host's CPU name) are escaped as the
// controls are: a terminal would guess at them and a page would show U+FFFD. A page's text is
// the terminal's, with its markup escaped: one rule for both.
TEST(HostileInput, BytesThatAreNotUtf8AreEscapedOnTheTerminalAndOnPages) {
  EXPECT_EQ(terminal_safe("v\xff"
                          "1.\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82"),
            "v\\xff1.\\xc0\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 \\xe2\\x82");
  EXPECT_EQ(terminal_safe("\xf0\x9f\x94\x92 ok"), "\xf0\x9f\x94\x92 ok") << "a four-byte sequence is kept";
  EXPECT_EQ(xml_escape("<b a='1'>\x1b[31m\xff</b>\n"), "&lt;b a=&apos;1&apos;&gt;\\x1b[31m\\xff&lt;/b&gt;\n");
}

// The hostile review: a `--rows-jsonl` reader that stopped reading froze the run with the lab
// up (and Ctrl-C did nothing until it died). Appends never wait for it: past a pipe's worth
// and a 1 MiB backlog the stream is dropped; results.csv has every row.
TEST(HostileInput, AStalledRowsReaderNeverHoldsTheRun) {
  const std::string dir = make_temp_dir("rows-stall");
  auto csv = ResultsCsv::create(dir + "/results.csv");
  ASSERT_TRUE(csv.ok()) << csv.error().format();
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  csv->mirror_to(p[1], "a pipe nobody reads");
  SampleRow r;
  r.run_id = "20261203-000000-stal";
  r.timestamp = "2026-12-03T00:00:00Z";
  r.product = "baseline";
  r.test = "t";
  r.client = "a";
  r.server = "b";
  r.status = "ok";
  r.reason = std::string(2000, 'x');  // a long row: fewer of them fill the backlog
  const int rows = 1000;
  for (int i = 1; i <= rows; ++i) {
    r.sample = i;
    ASSERT_TRUE(csv->append(r).ok()) << i;
  }
  auto back = read_results_csv(dir + "/results.csv");
  ASSERT_TRUE(back.ok()) << back.error().format();
  EXPECT_EQ(back->size(), static_cast<size_t>(rows)) << "results.csv has every row";
  fcntl(p[0], F_SETFL, O_NONBLOCK);
  std::string got;
  char buf[65536];
  for (ssize_t n; (n = read(p[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  EXPECT_GT(got.size(), 0u);
  EXPECT_LT(std::count(got.begin(), got.end(), '\n'), rows) << "the stream was dropped once its reader fell behind";
  close(p[0]);
  close(p[1]);
}

namespace vpnlab {
namespace {

// The one terminal door under the vpnlab binary's std::cout and std::cerr: controls, DEL, C1
// and broken UTF-8 from outside are shown escaped, in a form that is also a JSON escape.
TEST(TerminalDoor, ControlsAndBrokenUtf8AreShownEscapedValidUtf8Passes) {
  EXPECT_EQ(through_terminal_door("kernel 6.1\x1b]0;pwned\x07\x1b[2J\n"),
            "kernel 6.1\\u001b]0;pwned\\u0007\\u001b[2J\n");
  EXPECT_EQ(through_terminal_door("a\tb\rc\x7f"), "a\tb\\u000dc\\u007f");
  EXPECT_EQ(through_terminal_door("\xc2\x9b"
                                  "31m caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x94\x92"),
            "\\u009b31m caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x94\x92");
  EXPECT_EQ(through_terminal_door("x\xff"
                                  "y\xc3"
                                  "z\xe2\x80"),
            "x\\ufffdy\\ufffdz\\ufffd")
      << "a stray byte, a cut sequence, a sequence cut at the end";
  EXPECT_EQ(through_terminal_door("\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80"), "\\ufffd\\ufffd \\ufffd \\ufffd")
      << "overlong, surrogate, above U+10FFFF";
  // What passes the door inside a JSON string is still JSON, and means the same text.
  const std::string json = nlohmann::json("v\x7f\xc2\x85").dump();
  const auto back = nlohmann::json::parse(through_terminal_door(json));
  EXPECT_EQ(back.get<std::string>(), "v\x7f\xc2\x85");
}

TEST(TerminalDoor, UnderTheStreamsASequenceSplitAcrossWritesStaysWhole) {
  std::ostringstream below;
  auto door = terminal_door_over(below.rdbuf());
  std::ostream out(door.get());
  out << "caf" << '\xc3' << '\xa9' << " \x1b[31m" << std::flush;
  EXPECT_EQ(below.str(), "caf\xc3\xa9 \\u001b[31m");
}

}  // namespace
}  // namespace vpnlab

namespace vpnlab {
namespace {

// The hostile review: a 4 MB raw iperf3 sample with intervals[0].sum nested 2·10^6 deep
// crashed `report` (raw samples skipped the nesting check). It now loses its plot only.
TEST(Hostile, ARawSampleNestedMillionsDeepLosesItsPlotOnly) {
  const std::string run = make_temp_dir("deep-raw") + "/run";
  std::filesystem::copy(VPNLAB_TEST_DATA "/run-golden", run, std::filesystem::copy_options::recursive);
  const std::string file = raw_sample_file(run, "baseline", "a-to-b", 1, kIperfSuffix);
  const size_t depth = 2000000;
  std::ofstream(file, std::ios::trunc) << "{\"intervals\":[{\"sum\":" << std::string(depth, '[')
                                       << std::string(depth, ']') << "}]}";
  EXPECT_TRUE(throughput_over_time(run, "baseline", "a-to-b", 1).empty());
  EXPECT_FALSE(throughput_over_time(run, "baseline", "a-to-b", 2).empty()) << "the other sample keeps its plot";
  EXPECT_TRUE(write_report(run).ok());
}

}  // namespace
}  // namespace vpnlab
