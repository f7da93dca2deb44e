#include "lab/base/wrap_text.h"

#include <vector>

namespace vpnlab {

namespace {

// `line` broken into pieces no wider than `width` (a word wider than the room alone on its
// piece). Spaces inside a piece are kept as they were (an option's padded column stays); a
// break drops the spaces it falls on, and pieces after the first start with `indent` spaces.
std::vector<std::string> pieces_of(const std::string& line, size_t indent, size_t width) {
  if (text_columns(line) <= width) return {line};
  std::vector<std::string> out;
  std::string piece;
  bool has_word = false;
  for (size_t at = 0; at < line.size();) {
    const size_t word_at = line.find_first_not_of(' ', at);
    if (word_at == std::string::npos) break;  // trailing spaces: nothing to show
    size_t end = line.find(' ', word_at);
    if (end == std::string::npos) end = line.size();
    const std::string spaces = line.substr(at, word_at - at), word = line.substr(word_at, end - word_at);
    if (has_word && text_columns(piece) + text_columns(spaces) + text_columns(word) > width) {
      out.push_back(piece);
      piece = std::string(indent, ' ') + word;
    } else {
      piece += spaces + word;
    }
    has_word = true;
    at = end;
  }
  out.push_back(piece);
  return out;
}

std::string joined(const std::vector<std::string>& pieces) {
  std::string s;
  for (const auto& p : pieces) s += p + "\n";
  return s;
}

// A line that goes on the paragraph above: text at column 0 (an indented line is a list item
// or an example, kept on its own line).
bool continues_paragraph(const std::string& line) { return !line.empty() && line[0] != ' '; }

}  // namespace

size_t text_columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;  // count lead bytes, not continuation bytes
  return n;
}

std::string wrap_line(const std::string& line, size_t indent, size_t width) {
  return joined(pieces_of(line, indent, width));
}

std::string wrap_lines(const std::string& text, size_t extra, size_t width) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  std::string out, carry;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    // What a wrapped line left over starts the next line of its paragraph, so the text
    // reflows instead of leaving a short line after every long one.
    if (!carry.empty()) line = carry + " " + line;
    carry.clear();
    const size_t lead = line.find_first_not_of(' ');
    std::vector<std::string> pieces = pieces_of(line, (lead == std::string::npos ? 0 : lead) + extra, width);
    if (pieces.size() > 1 && lead == 0 && extra == 0 && i + 1 < lines.size() && continues_paragraph(lines[i + 1])) {
      carry = pieces.back();
      pieces.pop_back();
    }
    out += joined(pieces);
  }
  if (!carry.empty()) out += carry + "\n";
  if (!text.empty() && text.back() != '\n') out.pop_back();  // the text's own last newline, or none
  return out;
}

}  // namespace vpnlab
