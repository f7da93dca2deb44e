#include "lab/run/keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <optional>

#include <sodium.h>

#include "lab/base/encoding.h"
#include "lab/base/fs_util.h"
#include "lab/base/input_file.h"
#include "lab/base/out_dir.h"

namespace vpnlab {

namespace {

constexpr uint64_t kMaxKeyFileBytes = 4096;  // a base64 or hex key and a newline

// The first line of an optional key file below a keys directory: bounded, a regular file
// (a FIFO is refused, never waited on), never through a link.
Result<std::optional<std::string>> read_key_line(const std::string& path) {
  auto text = read_optional_input_file(path, kMaxKeyFileBytes, /*follow_link=*/false);
  if (!text || !text->has_value()) return text;
  std::string line = **text;
  line.resize(std::min(line.find('\n'), line.size()));
  return std::optional<std::string>(line);
}

bool is_psk(const std::string& line) {
  return line.size() == 64 && line.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The keys directory, made 0700 if missing (a directory the user named with --keys may be a
// link they chose); what is written below it is written by name, never through a link.
Result<OutDir> open_keys_dir(const std::string& dir) {
  if (mkdir(dir.c_str(), 0700) < 0 && errno != EEXIST)
    return make_error("cannot create " + dir + ": " + errno_text(errno));
  auto out = OutDir::open(dir);
  if (!out) return out.error();
  struct stat st {};
  if (fstat(out->fd(), &st) == 0 && (st.st_mode & 077) != 0 && st.st_uid == geteuid()) fchmod(out->fd(), 0700);
  return out;
}

// A node's key (0600) and its public half (0640), each written whole by name.
Status write_key_pair(const OutDir& out, const std::string& node, const X25519KeyPair& kp) {
  if (auto s = out.write(node + ".key", kp.secret_base64() + "\n", 0600); !s) return s;
  return out.write(node + ".pub", kp.public_base64() + "\n", 0640);
}

}  // namespace

Result<std::string> prepare_run_psk(const std::string& dir) {
  ensure_sodium();
  auto out = open_keys_dir(dir);
  if (!out) return out.error();
  auto existing = read_key_line(dir + "/psk");
  if (!existing) return existing.error();
  if (existing->has_value() && is_psk(**existing)) return **existing;
  unsigned char raw[32];
  randombytes_buf(raw, sizeof raw);
  const std::string psk = to_hex(raw, sizeof raw);
  if (auto s = out->write("psk", psk + "\n", 0600); !s) return s.error();
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
                        sodium_base64_VARIANT_ORIGINAL) != 0 ||
      len != 32)
    return make_error("not a base64 X25519 private key (32 bytes)");
  crypto_scalarmult_base(kp.public_key.data(), kp.secret.data());
  return kp;
}

Result<std::map<std::string, X25519KeyPair>> prepare_node_keys(const std::string& dir,
                                                               const std::vector<std::string>& nodes) {
  auto out = open_keys_dir(dir);
  if (!out) return out.error();
  std::map<std::string, X25519KeyPair> keys;
  for (const auto& node : nodes) {
    if (auto s = check_plain_name(node); !s) return s.error();
    const std::string key_path = dir + "/" + node + ".key";
    auto existing = read_key_line(key_path);
    if (!existing) return existing.error();
    if (existing->has_value()) {
      auto kp = x25519_from_secret_base64(**existing);
      if (!kp) return with_context(kp.error(), key_path);
      keys[node] = kp.value();
      continue;
    }
    X25519KeyPair kp = generate_x25519();
    if (auto s = write_key_pair(*out, node, kp); !s) return s.error();
    keys[node] = kp;
  }
  return keys;
}

Status copy_run_keys(const std::string& from, const std::string& to, const std::vector<std::string>& nodes) {
  auto out = open_keys_dir(to);
  if (!out) return out.error();
  const char* hint =
      "an earlier run's keys are read as they are, never repaired: restore them, or measure anew with 'vpnlab run "
      "FILE'";
  for (const auto& node : nodes) {
    if (auto s = check_plain_name(node); !s) return s.error();
    auto line = read_key_line(from + "/" + node + ".key");
    if (!line) return make_error(line.error().message, hint);
    if (!line->has_value()) continue;  // a node the earlier run did not have: a new key
    auto kp = x25519_from_secret_base64(**line);
    if (!kp) return make_error(from + "/" + node + ".key: " + kp.error().message, hint);
    if (auto s = write_key_pair(*out, node, *kp); !s) return s;
  }
  auto psk = read_key_line(from + "/psk");
  if (!psk) return make_error(psk.error().message, hint);
  if (psk->has_value()) {
    if (!is_psk(**psk)) return make_error(from + "/psk: not a pre-shared key (64 hex digits)", hint);
    if (auto s = out->write("psk", **psk + "\n", 0600); !s) return s;
  }
  return ok_status();
}

}  // namespace vpnlab
