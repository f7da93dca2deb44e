// results.csv as a run directory holds it: rows that parse are written again and read back
// the same (write, reparse, compare).
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "lab/record/results_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto rows = vpnlab::parse_results_csv(text, "fuzz.csv");
  if (!rows) return 0;
  std::string again = vpnlab::results_csv_header_line() + "\n";
  for (const auto& r : *rows) again += vpnlab::format_row(r);  // a whole line, its newline included
  auto back = vpnlab::parse_results_csv(again, "again.csv");
  vpnlab::fuzz_check(back.ok(), "rows vpnlab wrote read back: " +
                                    (back ? std::string() : back.error().message + "\n" + again.substr(0, 4000)));
  vpnlab::fuzz_check(back->size() == rows->size(), "as many rows read back as written");
  for (size_t i = 0; i < rows->size(); ++i) {
    const std::string written = vpnlab::format_row((*rows)[i]), read_back = vpnlab::format_row((*back)[i]);
    vpnlab::fuzz_check(read_back == written,
                       "row " + std::to_string(i + 1) + " reads back the same:\n" + written + read_back);
  }
  return 0;
}
