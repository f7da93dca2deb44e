// Bytes as text (base64, hex) and SHA-256, through libsodium.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace vpnlab {

// libsodium initialised once per process (aborts when it has no usable randomness).
void ensure_sodium();

std::string to_base64(const unsigned char* data, size_t len);
// nullopt when `text` is not base64 (the original alphabet, padded).
std::optional<std::string> from_base64(const std::string& text);
std::string to_hex(const unsigned char* data, size_t len);
// SHA-256 of `data`, in hex.
std::string sha256_hex(const std::string& data);

}  // namespace vpnlab
