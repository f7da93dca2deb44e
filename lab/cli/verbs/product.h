// `vpnlab product new NAME --from BASE --binary /path`: your own build as a product in one
// command. The new folder (BASE's templates and its spec, named NAME, running /path where
// BASE runs its main binary) goes to the user's products directory, ready to run.
#pragma once
#include <string>

#include "lab/base/result.h"
#include "lab/cli/args.h"

namespace vpnlab {

// The first directory of $VPNLAB_PRODUCTS, else ~/.config/vpnlab/products.
std::string user_products_dir();

// Writes INTO/NAME from BASE (found on products_path) with `binary` as its main binary;
// returns the folder. Refuses a taken name, a binary that is not an absolute path to an
// executable file, and a BASE that names no binary; leaves nothing behind on failure.
Result<std::string> new_product(const std::string& products_path, const std::string& into, const std::string& name,
                                const std::string& base, const std::string& binary);

int cmd_product(const Args& a);

}  // namespace vpnlab
