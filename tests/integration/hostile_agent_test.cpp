// A remote host whose agent answers with hostile lines, reached through the emulated hosts'
// real sshd as a user reaches one: an answer nested two million levels deep (it crashed
// `doctor` with rc 139 before answers were parsed under the depth bound), a line that never
// ends (it grew the controller by 8 MB/s), and answers to another call, forever (they
// restarted the call's timeout). Each must end as an error naming the host, from a
// controller that is still alive to say it, with nothing of the lab left. The unit tier
// (agent_channel_test) holds the same bounds on a socketpair; this holds them through ssh.
#include <string>

#include "hosts_fixture.h"
#include "lab/base/fs_util.h"
#include "lab/base/version.h"
#include "root_test_support.h"
#include "tests/support/emulated_hosts.h"

using namespace vpnlab;
using namespace vpnlab::testing;

namespace {

struct HostileAgent {
  const char* name;
  std::string script;    // the agent: it reads the hello and answers so
  std::string expected;  // in the error, after "host 'hN' (ssh root@ADDR): agent on host 'hN', hello: "
};

// calls: sh head tr yes sleep
std::vector<HostileAgent> hostile_agents() {
  return {
      {"nested", "#!/bin/sh\nread line\nhead -c 2000000 /dev/zero | tr '\\0' '['\necho\nread line\n",
       "malformed message on channel (nested deeper than 64 levels (at byte 65))"},
      {"endless", "#!/bin/sh\nread line\nyes | tr -d '\\n'\n",
       "a line on the channel is longer than 16 MiB: not a message"},
      {"other-calls",
       "#!/bin/sh\nread line\nwhile :; do echo '{\"ok\":true,\"seq\":7,\"version\":\"" + vpnlab_version() +
           "\"}' || exit 0; sleep 0.05; done\n",
       "no answer within 20000 ms"},
  };
}

}  // namespace

TEST(HostileAgent, EachAnswerEndsAsAnErrorNamingTheHostAndNothingIsLeft) {
  VPNLAB_REQUIRE_SSH();
  Fixture f = start_hosts();
  ASSERT_TRUE(f.hosts);
  for (const auto& agent : hostile_agents()) {
    SCOPED_TRACE(agent.name);
    const std::string dir = f.dir + "/" + agent.name;
    ASSERT_TRUE(make_dirs(dir, 0755).ok());
    const std::string path = dir + "/vpnlab-host-agent";
    ASSERT_TRUE(write_file(path, agent.script, 0755).ok());
    const std::string lab = std::string("hostile") + agent.name[0];
    const std::string file = dir + "/two-hosts.toml";
    ASSERT_TRUE(write_file(file, topology(*f.hosts, lab, "\"baseline\"", path), 0644).ok());
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", file, "--out", dir + "/results"}, std::vector<std::string>{"doctor", file}}) {
      SCOPED_TRACE(args[0]);
      CliOutcome o = run_controller(*f.hosts, args, dir);
      EXPECT_EQ(o.status, 1) << o.out << o.err;
      // run says it as its error; doctor in its list of hosts, a line per host.
      const std::string& said = args[0] == "run" ? o.err : o.out;
      if (args[0] == "run") {
        EXPECT_NE(said.find("vpnlab: error: host 'h"), std::string::npos) << said;
      }
      EXPECT_NE(said.find("): agent on host 'h"), std::string::npos) << said;
      EXPECT_NE(said.find(", hello: " + agent.expected), std::string::npos) << said;
      EXPECT_TRUE(list_namespaces("vpnlab-" + lab + "-").empty());
    }
  }
}
