#include "lab/run/keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <mutex>
#include <sstream>

#include <sodium.h>

#include "lab/base/encoding.h"
#include "lab/base/fs_util.h"

namespace vpnlab {



Result<std::string> prepare_run_psk(const std::string& dir) {
  ensure_sodium();
  std::string path = dir + "/psk";
  std::ifstream existing(path);
  std::string psk;
  if (existing && std::getline(existing, psk) && psk.size() == 64) return psk;
  unsigned char raw[32];
  randombytes_buf(raw, sizeof raw);
  psk = to_hex(raw, sizeof raw);
  if (auto s = write_file(path, psk + "\n", 0600); !s) return s.error();
  return psk;
}

std::string X25519KeyPair::secret_base64() const { return to_base64(secret.data(), secret.size()); }
std::string X25519KeyPair::public_base64() const { return to_base64(public_key.data(), public_key.size()); }

X25519KeyPair generate_x25519() {
  ensure_sodium();
  X25519KeyPair kp;
  randombytes_buf(kp.secret.data(), kp.secret.size());
  // Clamp as WireGuard does, so the stored secret is exactly what `wg genkey` would give.
  kp.secret[0] &= 248;
  kp.secret[31] = (kp.secret[31] & 127) | 64;
  crypto_scalarmult_base(kp.public_key.data(), kp.secret.data());
  return kp;
}

Result<X25519KeyPair> x25519_from_secret_base64(const std::string& b64) {
  ensure_sodium();
  X25519KeyPair kp;
  size_t len = 0;
  if (sodium_base642bin(kp.secret.data(), kp.secret.size(), b64.data(), b64.size(), " \n", &len, nullptr,
                        sodium_base64_VARIANT_ORIGINAL) != 0 || len != 32)
    return make_error("not a base64 X25519 private key (32 bytes)");
  crypto_scalarmult_base(kp.public_key.data(), kp.secret.data());
  return kp;
}

Result<std::map<std::string, X25519KeyPair>> prepare_node_keys(const std::string& dir, const std::vector<std::string>& nodes) {
  if (mkdir(dir.c_str(), 0700) < 0 && errno != EEXIST) return make_error("cannot create " + dir + ": " + errno_text(errno));
  chmod(dir.c_str(), 0700);
  std::map<std::string, X25519KeyPair> keys;
  for (const auto& node : nodes) {
    std::string key_path = dir + "/" + node + ".key";
    if (auto existing = read_whole_file(key_path)) {
      auto kp = x25519_from_secret_base64(*existing);
      if (!kp) return with_context(kp.error(), key_path);
      keys[node] = kp.value();
      continue;
    }
    X25519KeyPair kp = generate_x25519();
    if (auto s = write_file(key_path, kp.secret_base64() + "\n", 0600); !s) return s.error();
    std::ofstream(dir + "/" + node + ".pub") << kp.public_base64() << "\n";
    keys[node] = kp;
  }
  return keys;
}


}  // namespace vpnlab
