// Where vpnlab finds what it ships, from where its binary is: installed (PREFIX/bin/vpnlab
// with PREFIX/share/vpnlab and PREFIX/libexec/vpnlab) or in the build tree (build/lab/vpnlab,
// the source tree it was built from, helpers beside the binary). Nothing is compiled in
// that an installed copy depends on.
#pragma once
#include <string>

namespace vpnlab {

// PREFIX/share/vpnlab when OWN_DIR/../share/vpnlab/products exists, else the source tree.
std::string shipped_dir(const std::string& own_dir);

// Where vpnlab-agent and vpnlab-vmhost are: PREFIX/libexec/vpnlab when installed, else
// beside the binary.
std::string helper_dir(const std::string& own_dir);

// Where products are looked up, in order: the shipped ones (shipped_dir()/products), then
// each directory of $VPNLAB_PRODUCTS (':'-separated), then ~/.config/vpnlab/products
// (private specs). Only directories that exist, joined by ':'; "products" when none does.
std::string products_path(const std::string& own_dir);

}  // namespace vpnlab
