// The CLI's texts that do not need the binary: one option's help line, laid out so that a
// long option never runs into its own text.
#include <gtest/gtest.h>

#include "lab/cli/args.h"

using namespace vpnlab;

TEST(CliText, AnOptionLongerThanItsFieldHasItsTextOnTheNextLine) {
  EXPECT_EQ(help_line("--out DIR", "parent of the run directory"), "--out DIR        parent of the run directory\n");
  EXPECT_EQ(help_line("--threshold-cpu X", "exit 3 when"), "--threshold-cpu X\n                   exit 3 when\n");
  // Every option of every verb: its text starts at column 19, on its line or the next.
  for (const auto& o : option_defs()) {
    const std::string head = std::string(o.name) + (*o.value ? std::string(" ") + o.value : "");
    const std::string line = "  " + help_line(head, o.help);
    const size_t text = line.find(o.help);
    ASSERT_NE(text, std::string::npos);
    const size_t line_start = line.rfind('\n', text) == std::string::npos ? 0 : line.rfind('\n', text) + 1;
    EXPECT_EQ(text - line_start, 19u) << o.name;
  }
}
