// `vpnlab image build|list|clean`: guest images for the VM backend.
#include "lab/backends/vm/image_command.h"
#include "lab/cli/verbs/verb.h"

namespace vpnlab {

extern const Verb kImageVerb = {
    "image",
    "image build [RECIPE] [--rebuild] | image list | image clean",
    "Guest images for the VM backend (default recipe images/debian12.toml), cached by content hash in $VPNLAB_CACHE "
    "or\n"
    "/var/cache/vpnlab: the kernel is fetched with apt-get download and unpacked there, never installed on this host.",
    {"--rebuild"},
    [](const Args& a) { return image_command(a.positional, a.rebuild); },
    {},
    [](const std::vector<std::string>& p) {
      return first_word_of(p, {"build", "list", "clean"});
    }};

}  // namespace vpnlab
