#include "lab/base/terminal_door.h"

#include "lab/base/terminal_text.h"

#include <iostream>
#include <memory>

namespace vpnlab {

namespace {

// How many bytes a UTF-8 sequence starting with `lead` has (0: not a lead byte).
int sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

void escape_code(unsigned code, std::string* out) {
  static const char* hex = "0123456789abcdef";
  *out += "\\u00";
  *out += hex[(code >> 4) & 15];
  *out += hex[code & 15];
}

// The filter's state between writes: an incomplete UTF-8 sequence waits for its rest.
class Escaper {
 public:
  void feed(std::string_view in, std::string* out) {
    for (char ch : in) {
      const unsigned char c = static_cast<unsigned char>(ch);
      if (!pending_.empty()) {
        if ((c & 0xc0) == 0x80) {
          pending_ += static_cast<char>(c);
          if (static_cast<int>(pending_.size()) == sequence_length(static_cast<unsigned char>(pending_[0])))
            complete(out);
          continue;
        }
        invalid_pending(out);  // cut short by a byte that is not a continuation
      }
      const int len = sequence_length(c);
      if (len == 1) {
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
          escape_code(c, out);
        else
          *out += static_cast<char>(c);
      } else if (len == 0) {
        *out += "\\ufffd";
      } else {
        pending_ = static_cast<char>(c);
      }
    }
  }
  // At the end: what is still waiting is not valid UTF-8.
  void finish(std::string* out) {
    if (!pending_.empty()) invalid_pending(out);
  }

 private:
  void complete(std::string* out) {
    const unsigned char b0 = static_cast<unsigned char>(pending_[0]), b1 = static_cast<unsigned char>(pending_[1]);
    char32_t code = 0;
    if (utf8_sequence(pending_, 0, &code) != pending_.size())
      *out += "\\ufffd";
    else if (b0 == 0xc2 && b1 <= 0x9f)
      escape_code(b1, out);  // U+0080..U+009F: the C1 controls (CSI is U+009B)
    else
      *out += pending_;
    pending_.clear();
  }
  void invalid_pending(std::string* out) {
    *out += "\\ufffd";
    pending_.clear();
  }
  std::string pending_;
};

// A streambuf that escapes on the way to the one it replaced. Unbuffered on its own side:
// what is written reaches the stream below at once (but for an incomplete UTF-8 sequence), so
// the order with other writers of the same descriptor stays as it was.
class DoorBuf : public std::streambuf {
 public:
  explicit DoorBuf(std::streambuf* below) : below_(below) {}
  ~DoorBuf() override { sync(); }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof()))
      return sync() == 0 ? traits_type::not_eof(c) : traits_type::eof();
    const char ch = traits_type::to_char_type(c);
    return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::string out;
    escaper_.feed(std::string_view(s, static_cast<size_t>(n)), &out);
    const auto size = static_cast<std::streamsize>(out.size());
    return below_->sputn(out.data(), size) == size ? n : 0;
  }
  int sync() override { return below_->pubsync(); }

 private:
  std::streambuf* below_;
  Escaper escaper_;
};

}  // namespace

std::string through_terminal_door(std::string_view text) {
  Escaper e;
  std::string out;
  e.feed(text, &out);
  e.finish(&out);
  return out;
}

std::unique_ptr<std::streambuf> terminal_door_over(std::streambuf* below) { return std::make_unique<DoorBuf>(below); }

void install_terminal_door() {
  // Never destroyed: the streams may be written to until the process ends.
  static std::streambuf* const out = terminal_door_over(std::cout.rdbuf()).release();
  static std::streambuf* const err = terminal_door_over(std::cerr.rdbuf()).release();
  std::cout.rdbuf(out);
  std::cerr.rdbuf(err);
}

}  // namespace vpnlab
