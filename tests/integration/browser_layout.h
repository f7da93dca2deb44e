// A page as a reader sees it: laid out by a real browser (headless Chromium), which measures
// every text of every chart: none may overlap another or leave its chart; and no table may
// need a horizontal scroll at 1400 px.
#pragma once
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "root_test_support.h"

namespace vpnlab::testing {

inline const std::vector<std::string> kBrowser = {"chromium-headless-shell", "--no-sandbox", "--disable-gpu",
                                                  "--hide-scrollbars",
                                                  "--window-size=1400,9000"};  // the width the pages are made to fit

// Measures every chart's texts after layout and appends the verdict to the page.
inline const char* kLayoutCheck = R"(<script>
const problems = [];
const svgs = document.querySelectorAll('svg');
svgs.forEach((svg, n) => {
  const name = (svg.querySelector('title') || {}).textContent || ('chart ' + n);
  const box = svg.getBoundingClientRect();
  const texts = [...svg.querySelectorAll('text')].map(t => ({s: t.textContent, r: t.getBoundingClientRect()})).filter(t => t.r.width > 0);
  texts.forEach((a, i) => {
    if (a.r.left < box.left - 1 || a.r.right > box.right + 1 || a.r.top < box.top - 1 || a.r.bottom > box.bottom + 1)
      problems.push(name + ': "' + a.s + '" leaves the chart');
    texts.slice(i + 1).forEach(b => {
      const dx = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left), dy = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
      if (dx > 1 && dy > 1) problems.push(name + ': "' + a.s + '" overlaps "' + b.s + '"');
    });
  });
});
// Every table fits the window: none needs its horizontal scroll bar.
document.querySelectorAll('.wide').forEach((w, n) => {
  if (w.scrollWidth > w.clientWidth + 1)
    problems.push('table ' + (n + 1) + ' (' + ((w.querySelector('caption') || {}).textContent || 'no caption') + ') needs a horizontal scroll: ' +
                  w.scrollWidth + ' px in ' + w.clientWidth + ' px');
});
const pre = document.createElement('pre');
pre.id = 'vpnlab-layout';
pre.textContent = 'LAYOUT ' + JSON.stringify({charts: svgs.length, problems: problems}) + ' END';
document.body.appendChild(pre);
</script>)";

// `html` with the check appended, written to `page` and laid out: {"charts": N, "problems": [...]},
// or null (with a test failure) when the browser or the check did not run.
inline nlohmann::json browser_layout(const std::string& html, const std::string& page) {
  std::string checked = html;
  checked.insert(checked.rfind("</body>"), kLayoutCheck);
  std::ofstream(page) << checked;
  std::vector<std::string> dump = kBrowser;
  dump.insert(dump.end(), {"--dump-dom", "file://" + page});
  CliOutcome dom = run_program(dump, {}, 120);
  EXPECT_EQ(dom.status, 0) << dom.err;
  const std::string mark = "<pre id=\"vpnlab-layout\">LAYOUT ";
  const size_t at = dom.out.find(mark), end = dom.out.find(" END</pre>", at);
  if (at == std::string::npos || end == std::string::npos) {
    ADD_FAILURE() << "the check did not run: " << dom.out.substr(0, 400) << dom.err;
    return nullptr;
  }
  std::string json = dom.out.substr(at + mark.size(), end - at - mark.size());
  // The DOM dump escapes what HTML text must: back to JSON.
  for (auto [from, to] :
       {std::pair<std::string, std::string>{"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}})
    for (size_t k = json.find(from); k != std::string::npos; k = json.find(from, k + to.size()))
      json.replace(k, from.size(), to);
  return nlohmann::json::parse(json);
}

}  // namespace vpnlab::testing
