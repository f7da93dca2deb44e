// The agent channel is input from another machine (a host's agent over ssh, a guest's over
// virtio): an answer nested a million deep, a line that never ends, and answers that are not
// the call's are each an error, never a crash, unbounded memory or a call that never ends.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "lab/agent/agent_client.h"
#include "lab/agent/json_lines.h"

namespace vpnlab {
namespace {

struct Pair {
  UniqueFd ours, theirs;
};

Pair socket_pair() {
  int fds[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;  // the reader gave up: that is the point
    done += static_cast<size_t>(n);
  }
}

TEST(AgentChannel, AnAnswerNestedAMillionDeepIsAnErrorNotACrash) {
  auto p = socket_pair();
  JsonLines ch(std::move(p.ours));
  std::thread sender([&] { write_all(p.theirs.get(), std::string(1000000, '[') + std::string(1000000, ']') + "\n"); });
  auto r = ch.receive(-1);
  sender.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error().message.rfind("malformed message on channel (nested deeper than 64 levels (at byte 65)): [[[[", 0), 0u)
      << r.error().message;
}

TEST(AgentChannel, ALineThatNeverEndsIsRefusedAtItsBound) {
  auto p = socket_pair();
  auto ch = std::make_unique<JsonLines>(std::move(p.ours));
  std::thread sender([&] { write_all(p.theirs.get(), std::string(kMaxJsonLineBytes + (1 << 20), 'x')); });
  auto r = ch->receive(-1);
  ch.reset();  // the sender's write fails once nobody reads
  sender.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "a line on the channel is longer than 16 MiB: not a message");
}

TEST(AgentChannel, AnswersThatAreNotTheCallsDoNotExtendItsDeadline) {
  auto p = socket_pair();
  auto client = AgentClient::over(std::move(p.ours), "host 'h'");
  std::atomic<bool> done{false};
  std::atomic<int> sent{0};
  // A fake agent that answers every 20 ms with another seq (or a seq of the wrong type),
  // 200 times at most: before, each such answer restarted the call's timeout.
  std::thread agent([&] {
    for (int i = 0; i < 200 && !done; ++i) {
      write_all(p.theirs.get(), i % 2 ? "{\"seq\": 999, \"ok\": true}\n" : "{\"seq\": \"1\", \"ok\": \"yes\"}\n");
      ++sent;
      usleep(20000);
    }
  });
  auto r = client->call({{"op", "kernel"}}, 300);
  done = true;
  agent.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "agent host 'h', kernel: no answer within 300 ms") << r.error().message;
  EXPECT_LT(sent.load(), 200) << "the call ended at its own deadline, not when the other side stopped talking";
}

// Ctrl-C while a host's agent waits for a link or a ping: the call ends at the interrupt, not
// after the operation's timeout and ten more seconds for the channel.
TEST(AgentChannel, ACallEndsAtTheInterruptNotItsDeadline) {
  auto p = socket_pair();
  auto client = AgentClient::over(std::move(p.ours), "host 'h'");
  int interrupt[2];
  ASSERT_EQ(pipe2(interrupt, O_CLOEXEC), 0);
  UniqueFd read_end(interrupt[0]), write_end(interrupt[1]);
  ASSERT_EQ(write(write_end.get(), "x", 1), 1);  // the run's interrupt, already raised
  auto r = client->call({{"op", "wait_link"}}, 10000, read_end.get());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "agent host 'h', wait_link: interrupted");
  // The agent still runs the interrupted call: the next answer comes after it, and the late
  // answer is the earlier call's, never the next one's.
  std::thread agent([&] {
    usleep(500000);
    write_all(p.theirs.get(), "{\"seq\": 1, \"ok\": true, \"late\": true}\n{\"seq\": 2, \"ok\": true}\n");
  });
  auto next = client->call({{"op", "teardown"}}, 100);
  agent.join();
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_FALSE(next->contains("late"));
}

}  // namespace
}  // namespace vpnlab
