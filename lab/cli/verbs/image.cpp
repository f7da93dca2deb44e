// `vpnlab image build|list|clean`: guest images for the VM backend.
#include "lab/backends/vm/image_command.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {
namespace {

struct ImageOptions {
  bool rebuild = false;
};

const std::vector<Option<ImageOptions>> kImageOptions = {
    {"--rebuild", "", "build again even if the cache holds the image", set_flag<&ImageOptions::rebuild>},
};

int cmd_image(const Args& a) {
  ImageOptions own;
  if (auto code = parse_own("image", kImageOptions, a, &own)) return *code;
  return image_command(a.positional, own.rebuild);
}

}  // namespace

extern const Verb kImageVerb = {
    "image",
    "image build [RECIPE] [--rebuild] | image list | image clean",
    "Guest images for the VM backend (default recipe images/debian12.toml), cached by content hash in $VPNLAB_CACHE "
    "or\n"
    "/var/cache/vpnlab: the kernel is fetched with apt-get download and unpacked there, never installed on this host.",
    {"--rebuild"},
    cmd_image,
    {},
    [](const std::vector<std::string>& p) {
      return first_word_of(p, {"build", "list", "clean"});
    },
    own_options(kImageOptions)};

}  // namespace vpnlab
