// A shipped topology runs as shipped: the site-to-site file once failed on every tunnel
// ("receive packet steering: interface 'wg0': no receive queues") because steering was set on
// the tunnel interface of the site clients, which run no VPN. Only the sample count and length
// are shortened here; pinning and steering stay as the file has them.
#include "root_test_support.h"

namespace vpnlab::testing {
namespace {

TEST(ShippedTopology, SiteToSiteRunsWithPinningAndSteering) {
  VPNLAB_REQUIRE_ROOT();
  VPNLAB_REQUIRE_PROGRAM("iperf3");
  VPNLAB_REQUIRE_PROGRAM("wireguard-go");
  const std::string out = make_temp_dir("s2s");
  CliOutcome r = vpnlab_cli({"run", VPNLAB_TOPOLOGIES "/site-to-site.toml", "--product", "baseline", "--product",
                             "wireguard-go", "--samples", "1", "--duration", "1s", "--out", out, "--no-history"});
  EXPECT_TRUE(r.status == 0 || r.status == 5) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("no receive queues"), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("never came up"), std::string::npos) << r.out << r.err;
  EXPECT_TRUE(list_namespaces("vpnlab-s2s-").empty());
}

}  // namespace
}  // namespace vpnlab::testing
