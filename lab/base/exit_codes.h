// Every exit code vpnlab gives, once: the constants the verbs return and the table the
// usage text, the man page's EXIT STATUS and the README's table are made from (a unit test
// holds the README to it).
#pragma once
#include <string>
#include <vector>

namespace vpnlab {

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
// `diff --threshold` fired; `history check` found a regression.
inline constexpr int kExitGate = 3;
// `run`: a requested product x test has no valid row; `history check`: nothing to judge by.
inline constexpr int kExitNoValidRow = 4;
inline constexpr int kExitSomeInvalid = 5;  // `run`/`scale`: some rows failed or are invalid
inline constexpr int kExitInterrupted = 130;

struct ExitCodeDoc {
  int code;
  const char* meaning;  // plain text; `code` spans become bold in the man page
};

const std::vector<ExitCodeDoc>& exit_code_docs();

// "exit codes: 0 ok; 1 error; ..." wrapped for the terminal (vpnlab --help).
std::string exit_codes_usage_text();
// The man page's [EXIT STATUS] section, for help2man's include file.
std::string exit_codes_roff();
// The README's table (| code | meaning |).
std::string exit_codes_markdown();

}  // namespace vpnlab
