#include "lab/base/exit_codes.h"
#include "lab/base/wrap_text.h"

namespace vpnlab {

const std::vector<ExitCodeDoc>& exit_code_docs() {
  static const std::vector<ExitCodeDoc> docs = {
      {kExitOk, "ok (`run`: every requested row is valid)"},
      {kExitError, "error: bad input, a lab failure, a full disk, the debris of a killed run (run `vpnlab cleanup`)"},
      {kExitUsage,
       "usage: an unknown option, a number out of bounds, an option that does not go with another (`--from` with one "
       "it "
       "would ignore, `--max-time` without `--precision`)"},
      {kExitGate,
       "`diff --threshold`: a product got slower or costlier beyond it; `history check`: the newest run regressed"},
      {kExitNoValidRow,
       "`run`: a requested product x test has no valid row (it never came up, every sample failed); "
       "`history check`: no comparable history to judge by (fewer than 4 earlier runs)"},
      {kExitSomeInvalid,
       "`run`: some rows failed or are invalid, but every product x test has valid ones; `scale`: some mesh "
       "sizes failed or are invalid (a row with its reason); `history check`: the history cannot see a change "
       "of the threshold's size (add runs or samples)"},
      {kExitInterrupted, "interrupted (SIGINT, SIGTERM, SIGHUP): the finished rows are kept and the lab is torn down"},
  };
  return docs;
}

namespace {

std::string without_backticks(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '`') out += c;
  return out;
}

// `x` -> \fBx\fR; '-' and '\' escaped as roff wants them.
std::string roff_text(const std::string& s) {
  std::string out;
  bool bold = false;
  for (char c : s) {
    if (c == '`') {
      out += bold ? "\\fR" : "\\fB";
      bold = !bold;
    } else if (c == '-' || c == '\\') {
      out += '\\';
      out += c;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string exit_codes_usage_text() {
  constexpr size_t kIndent = 7;
  std::string text = "exit codes:\n";
  for (const auto& d : exit_code_docs()) {
    std::string meaning = without_backticks(d.meaning);
    // The usage text gives the gist of the long ones: up to their first ':' or '('.
    if (d.code == kExitOk || d.code == kExitError || d.code == kExitUsage)
      meaning = meaning.substr(0, meaning.find_first_of(":("));
    while (!meaning.empty() && meaning.back() == ' ') meaning.pop_back();
    text += wrap_line(
        "  " + std::to_string(d.code) + std::string(kIndent - 2 - std::to_string(d.code).size(), ' ') + meaning,
        kIndent);
  }
  return text;
}

std::string exit_codes_roff() {
  std::string text = "[EXIT STATUS]\n";
  for (const auto& d : exit_code_docs())
    text += ".TP\n.B " + std::to_string(d.code) + "\n" + roff_text(d.meaning) + ".\n";
  return text;
}

std::string exit_codes_markdown() {
  std::string text = "| exit | meaning |\n|---|---|\n";
  for (const auto& d : exit_code_docs()) text += "| " + std::to_string(d.code) + " | " + d.meaning + " |\n";
  return text;
}

}  // namespace vpnlab
