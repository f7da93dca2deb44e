#include "lab/model/suite.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "lab/base/bounds.h"
#include "lab/base/input_file.h"
#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"

namespace vpnlab {

namespace {

// Where a topology named in the suite is: as written when absolute, else beside the suite.
std::string beside(const std::string& suite_file, const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  const auto slash = suite_file.rfind('/');
  const std::string joined = slash == std::string::npos ? path : suite_file.substr(0, slash + 1) + path;
  return std::filesystem::path(joined).lexically_normal().string();
}

Status parse_header(const TomlReader& r, const toml::table& root, Suite* suite, std::vector<std::string>* products) {
  const toml::table* t = root["suite"].as_table();
  if (!t) return r.at(SourcePos{1, 1}, "missing table [suite]", "add [suite] with name = \"seeds\"");
  if (auto s = r.only_keys(*t, "suite", {"name", "budget", "precision", "products"}); !s) return s.error();
  if (auto s = get_string(r, *t, "name", "suite", &suite->name, true, pos_of(*t)); !s) return s.error();
  if (auto s = check_name(r, pos_of(*t), "suite", suite->name, kMaxScenarioName); !s) return s.error();
  if (const toml::node* b = t->get("budget")) {
    const auto v = b->is_string() ? parse_budget(b->as_string()->get()) : std::nullopt;
    if (!v || *v < 60 || *v > kMaxBudgetSeconds)
      return r.at(*b, "suite: 'budget' is not a duration from 1m to 168h", "write budget = \"20m\"");
    suite->budget_s = *v;
  }
  std::optional<double> precision;
  if (auto s = get_precision(r, *t, "precision", "suite", &precision); !s) return s.error();
  if (precision) suite->precision = *precision;
  SourcePos pos;
  return get_string_list(r, *t, "products", "suite", products, &pos);
}

Status parse_scenario(const TomlReader& r, const toml::table& t, const std::vector<std::string>& default_products,
                      std::set<std::string>* names, Suite* suite) {
  if (suite->scenarios.size() >= kMaxScenarios)
    return r.at(t, "more than " + std::to_string(kMaxScenarios) + " scenarios", "split the suite into two files");
  if (auto s = r.only_keys(t, "scenario", {"name", "topology", "products", "tests", "feature"}); !s) return s.error();
  SuiteScenario sc;
  sc.line = static_cast<int>(pos_of(t).line);
  if (auto s = get_string(r, t, "name", "scenario", &sc.name, true, pos_of(t)); !s) return s.error();
  if (auto s = check_name(r, pos_of(t), "scenario", sc.name, kMaxScenarioName); !s) return s.error();
  if (!names->insert(sc.name).second)
    return r.at(t, "scenario '" + sc.name + "' is listed twice",
                "give each scenario its own name: it is its directory in the output");
  if (auto s = get_string(r, t, "topology", "scenario '" + sc.name + "'", &sc.topology_as_written, true, pos_of(t)); !s)
    return s.error();
  sc.topology = beside(r.file(), sc.topology_as_written);
  SourcePos pos;
  if (auto s = get_string_list(r, t, "products", "scenario '" + sc.name + "'", &sc.products, &pos); !s)
    return s.error();
  if (sc.products.empty()) sc.products = default_products;
  if (auto s = get_string_list(r, t, "tests", "scenario '" + sc.name + "'", &sc.tests, &pos); !s) return s.error();
  if (auto s = get_string(r, t, "feature", "scenario '" + sc.name + "'", &sc.feature, false, pos_of(t)); !s)
    return s.error();
  if (!sc.feature.empty()) {
    std::vector<std::string> known(std::begin(kSuiteFeatures), std::end(kSuiteFeatures));
    if (std::find(known.begin(), known.end(), sc.feature) == known.end())
      return r.at(*t.get("feature"),
                  "scenario '" + sc.name + "': feature '" + sc.feature + "' is not a row of the feature matrix",
                  "one of: " + TomlReader::join(known));
  }
  suite->scenarios.push_back(std::move(sc));
  return ok_status();
}

}  // namespace

Result<Suite> parse_suite_text(const std::string& text, const std::string& file) {
  TomlReader r(file);
  auto parsed = parse_toml(r, text);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  if (auto s = r.only_keys(root, "top level", {"suite", "scenario"}); !s) return s.error();
  Suite suite;
  suite.file = file;
  std::vector<std::string> default_products;
  if (auto s = parse_header(r, root, &suite, &default_products); !s) return s.error();
  std::set<std::string> names;
  auto each = [&](const toml::table& t) { return parse_scenario(r, t, default_products, &names, &suite); };
  if (auto s = for_each_table(r, root, "scenario", each); !s) return s.error();
  if (suite.scenarios.empty())
    return r.at(SourcePos{1, 1}, "the suite has no scenario",
                "add [[scenario]] with name = \"bulk\" and topology = \"../topologies/quick.toml\"");
  return suite;
}

Result<Suite> load_suite(const std::string& path) {
  auto text = read_input_file(path, kMaxTopologyBytes);
  if (!text) return make_error(text.error().message, "check the path; suites/seeds.toml is an example");
  return parse_suite_text(*text, path);
}

}  // namespace vpnlab
