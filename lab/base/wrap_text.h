// Text laid out for an 100-column terminal: help, usage and the exit-code block.
#pragma once
#include <cstddef>
#include <string>

namespace vpnlab {

inline constexpr size_t kTextWidth = 100;

// Columns a UTF-8 string takes on a terminal: one per code point ("±" is one, not two).
size_t text_columns(const std::string& s);

// `line` (no newline) broken at spaces so that no piece is wider than `width` columns;
// pieces after the first start with `indent` spaces, spaces within a piece stay as they were
// (a padded column stays aligned). A word wider than the room stays whole on its own piece.
// Ends with a newline.
std::string wrap_line(const std::string& line, size_t indent, size_t width = kTextWidth);

// Every line of `text` wrapped by wrap_line, each continuing at its own leading spaces plus
// `extra` (an indented list item stays indented). With extra 0, what a line at column 0
// wraps over starts its next line when that line also starts at column 0: the paragraph
// reflows. The text's own last newline, or its absence, is kept.
std::string wrap_lines(const std::string& text, size_t extra = 0, size_t width = kTextWidth);

}  // namespace vpnlab
