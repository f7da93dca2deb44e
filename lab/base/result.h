// Result<T>: the error type that crosses module boundaries (no exceptions between modules).
#pragma once
#include <string>
#include <utility>
#include <variant>

namespace vpnlab {

// Where something stands in a file the user wrote.
struct SourcePos {
  int line = 0;
  int column = 0;
};

// An error a user can act on: what went wrong, where (optional file:line:col), and a hint.
struct Error {
  std::string message;
  std::string hint;
  std::string file;
  int line = 0;
  int column = 0;

  // "topologies/x.toml:12:9: link 'lan': node 'c' is not defined"
  std::string where_and_what() const;
  // Full user-facing text: "vpnlab: error: ...\nhint: ..." (no trailing newline).
  std::string format() const;
};

Error make_error(std::string message, std::string hint = {});
// Prefixes a context ("namespace 'x': ") to an existing error's message.
Error with_context(Error e, const std::string& context);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

// errno text, e.g. "File exists (EEXIST)".
std::string errno_text(int err);

}  // namespace vpnlab
