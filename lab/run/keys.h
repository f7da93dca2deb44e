// Per-run key material: one X25519 key pair per node, generated once per run into
// RUN/secrets/ (0700 dir, 0600 files) and shared by every product that takes raw keys.
#pragma once
#include <array>
#include <map>
#include <string>
#include <vector>

#include "lab/base/encoding.h"
#include "lab/base/result.h"

namespace vpnlab {

struct X25519KeyPair {
  std::array<unsigned char, 32> secret{};
  std::array<unsigned char, 32> public_key{};
  std::string secret_base64() const;
  std::string public_base64() const;
};

X25519KeyPair generate_x25519();
// Derives the public key from a base64 secret (as `wg pubkey` does).
Result<X25519KeyPair> x25519_from_secret_base64(const std::string& b64);

// Makes `dir` (mode 0700) and writes <node>.key (0600) and <node>.pub for every node;
// with an existing dir whose keys are all present, reuses them.
Result<std::map<std::string, X25519KeyPair>> prepare_node_keys(const std::string& dir,
                                                               const std::vector<std::string>& nodes);

// `run --from`: the earlier run's <node>.key and psk (under `from`) copied into `to`, each
// read bounded, as a regular file, never through a link, and checked as a key. The earlier
// run's directory is data: nothing is ever written there.
Status copy_run_keys(const std::string& from, const std::string& to, const std::vector<std::string>& nodes);

// One pre-shared key for the run (hex, 32 random bytes) in `dir`/psk, reused if present.
Result<std::string> prepare_run_psk(const std::string& dir);

}  // namespace vpnlab
