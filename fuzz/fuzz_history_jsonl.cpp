// `history import FILE.jsonl`, a line at a time: each line is a run or an error naming the
// file and line. A line taken is written back by `history export --jsonl` as a line that
// reads back as the same run (its id, source, environment and every row).
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/history/history_jsonl.h"
#include "lab/record/results_csv.h"

namespace {

std::string rows_text(const vpnlab::RunRecord& r) {
  std::string text;
  for (const auto& row : r.rows) text += vpnlab::format_row(row);
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  size_t start = 0, line_no = 1;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string where = "fuzz.jsonl:" + std::to_string(line_no);
    auto run = vpnlab::parse_export_line(text.substr(start, end - start), where);
    if (!run) {
      vpnlab::fuzz_check(run.error().message.rfind(where, 0) == 0, "a refused line is named by file and line");
    } else {
      const std::string again = vpnlab::export_line(*run);
      vpnlab::fuzz_check(again.find('\n') == std::string::npos, "an exported run is one line");
      auto back = vpnlab::parse_export_line(again, "again");
      vpnlab::fuzz_check(back.ok(), "an exported line reads back: " + (back ? std::string() : back.error().message));
      vpnlab::fuzz_check(back->run_id == run->run_id && back->source == run->source, "the same run id and source");
      vpnlab::fuzz_check(back->environment == run->environment, "the same environment");
      vpnlab::fuzz_check(rows_text(*back) == rows_text(*run), "the same rows");
    }
    start = end + 1;
    ++line_no;
  }
  return 0;
}
