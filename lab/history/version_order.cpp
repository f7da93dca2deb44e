#include "lab/history/version_order.h"

#include <cctype>
#include <sstream>

namespace vpnlab {

namespace {

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::string version_token(const std::string& printed) {
  std::istringstream words(printed);
  std::string w;
  while (words >> w) {
    size_t first = 0;
    while (first < w.size() && !is_digit(w[first])) ++first;
    if (first == w.size()) continue;
    // "v1.2.3" and "@1.2.3" lose their prefix; "go1.22" keeps what follows "go".
    return w.substr(first);
  }
  return printed;
}

int compare_versions(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t ie = i, je = j;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (je < b.size() && is_digit(b[je])) ++je;
      // Numbers by value: leading zeros dropped, then the longer is larger, then by digits.
      std::string x = a.substr(i, ie - i), y = b.substr(j, je - j);
      x.erase(0, std::min(x.find_first_not_of('0'), x.size()));
      y.erase(0, std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (int c = x.compare(y); c != 0) return c < 0 ? -1 : 1;
      i = ie, j = je;
      continue;
    }
    if (a[i] != b[j]) {
      // A pre-release ("-rc1", "~beta") sorts before the release it leads to, which ends here.
      return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    }
    ++i, ++j;
  }
  if (i == a.size() && j == b.size()) return 0;
  // One is a prefix of the other: "1.2.0" vs "1.2.0-rc1": a suffix after '-' or '~' is a
  // pre-release (before); any other suffix ("1.2.0.1", "1.2.0+deb12u1") comes after.
  const std::string& longer = i < a.size() ? a : b;
  const size_t at = i < a.size() ? i : j;
  const bool pre = longer[at] == '-' || longer[at] == '~';
  const int longer_after = pre ? -1 : 1;
  return i < a.size() ? longer_after : -longer_after;
}

}  // namespace vpnlab
