// open_beneath: a name below a directory never leaves it, by openat2 where the kernel has it
// and by the component walk where it has not; both paths run here on every kernel.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "lab/base/beneath.h"

namespace vpnlab {
namespace {

class Beneath : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/vpnlab-beneath-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    ASSERT_EQ(mkdir((root_ + "/in").c_str(), 0700), 0);
    ASSERT_EQ(mkdir((root_ + "/in/net").c_str(), 0700), 0);
    write_text(root_ + "/in/net/key", "1");
    write_text(root_ + "/secret", "outside");
    ASSERT_EQ(symlink("../secret", (root_ + "/in/net/link").c_str()), 0);
    ASSERT_EQ(symlink("..", (root_ + "/in/up").c_str()), 0);
    dir_ = UniqueFd(open((root_ + "/in").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(dir_.valid());
  }
  void TearDown() override {
    for (const char* p : {"/in/net/link", "/in/net/key", "/in/up", "/secret"}) unlink((root_ + p).c_str());
    rmdir((root_ + "/in/net").c_str());
    rmdir((root_ + "/in").c_str());
    rmdir(root_.c_str());
  }
  static void write_text(const std::string& path, const std::string& text) {
    UniqueFd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    ASSERT_TRUE(fd.valid());
    ASSERT_EQ(write(fd.get(), text.data(), text.size()), static_cast<ssize_t>(text.size()));
  }
  // errno of the open, 0 when it opened.
  int open_errno(const std::string& rel, int flags = O_RDONLY) {
    errno = 0;
    UniqueFd fd = GetParam() ? open_beneath_walk(dir_.get(), rel, flags) : open_beneath(dir_.get(), rel, flags);
    return fd.valid() ? 0 : errno;
  }
  std::string root_;
  UniqueFd dir_;
};

TEST_P(Beneath, APlainNameBelowOpens) {
  EXPECT_EQ(open_errno("net/key"), 0);
  EXPECT_EQ(open_errno("net", O_PATH | O_DIRECTORY), 0);
}

TEST_P(Beneath, ALinkAtTheEndIsNotFollowed) { EXPECT_EQ(open_errno("net/link"), ELOOP); }

TEST_P(Beneath, ALinkOnTheWayIsNotFollowed) { EXPECT_EQ(open_errno("up/secret"), ELOOP); }

TEST_P(Beneath, NoClimbOutAndNoStartOverAtRoot) {
  EXPECT_EQ(open_errno("../secret"), EXDEV);
  EXPECT_EQ(open_errno("net/../../secret"), EXDEV);
  EXPECT_EQ(open_errno(root_ + "/secret"), EXDEV);
}

TEST_P(Beneath, AMissingNameIsENOENT) { EXPECT_EQ(open_errno("net/nothing"), ENOENT); }

INSTANTIATE_TEST_SUITE_P(BothPaths, Beneath, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? std::string("walk") : std::string("openat2"); });

}  // namespace
}  // namespace vpnlab
