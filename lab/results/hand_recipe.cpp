#include "lab/results/hand_recipe.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "lab/base/input_file.h"

namespace vpnlab {

namespace {

constexpr uint64_t kMaxCmdBytes = 64 << 10;  // a LOG.cmd: an argv, an environment, the CPUs
constexpr size_t kMaxRoundFiles = 10000;     // files looked at in one round's log directory

// A word as a POSIX shell reads it back unchanged.
std::string shell_word(const std::string& w) {
  static const std::regex plain("[A-Za-z0-9_./:=,@%+-]+");
  if (!w.empty() && std::regex_match(w, plain)) return w;
  std::string out = "'";
  for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Recorded {
  std::vector<std::string> argv, env;
  std::string cpus;
  bool in_node = false;
  bool daemon = false;
};

// LOG.cmd's sections: "argv:" and "env (...):" with one item per indented line, then
// "cpus: 0 1" (or "not pinned") and "network namespace: the node's" (or the host's).
bool parse_recorded(const std::string& text, Recorded* r) {
  std::istringstream in(text);
  std::vector<std::string>* list = nullptr;
  bool saw_argv = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  ", 0) == 0 && list) {
      list->push_back(line.substr(2));
      continue;
    }
    list = nullptr;
    if (line == "argv:")
      list = &r->argv, saw_argv = true;
    else if (line.rfind("env (", 0) == 0)
      list = &r->env;
    else if (line.rfind("cpus:", 0) == 0)
      r->cpus = line == "cpus: not pinned" ? "" : line.substr(6);
    else if (line.rfind("network namespace:", 0) == 0)
      r->in_node = line.find("the node's") != std::string::npos;
    else if (line == "runs until stopped: yes")
      r->daemon = true;
  }
  return saw_argv && !r->argv.empty();
}

std::string file_text(const std::string& path) {
  auto t = read_input_file(path, kMaxCmdBytes);
  return t ? *t : "";
}

// The recorded commands under `dir` ("NODE-N-LABEL.log.cmd", N the order they ran in, and
// "prepare-N-WHO.out.cmd" run on the host), in the order they ran.
std::vector<std::pair<std::string, std::string>> round_commands(const std::string& dir) {
  // At most 9 digits: a tampered name's number never overflows the conversion.
  static const std::regex step("(.+)-([0-9]{1,9})-[^/]*\\.log\\.cmd");
  static const std::regex prepare("prepare-([0-9]{1,9})-[^/]*\\.out\\.cmd");
  std::multimap<std::pair<int, int>, std::pair<std::string, std::string>>
      ordered;  // (prepare first, N) -> (node, path)
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  // A round's commands are a few dozen; a directory of more is not a run's (and not read whole).
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator() && files.size() < kMaxRoundFiles; it.increment(ec))
    if (it->is_regular_file(ec) && !it->is_symlink(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    const std::string name = p.filename().string();
    std::smatch m;
    if (std::regex_match(name, m, prepare))
      ordered.insert({{0, std::stoi(m[1].str())}, {"", p.string()}});
    else if (std::regex_match(name, m, step))
      ordered.insert({{1, std::stoi(m[2].str())}, {m[1].str(), p.string()}});
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [order, cmd] : ordered) out.push_back(cmd);
  return out;
}

const SampleRow* first_row_of(const std::vector<SampleRow>& rows, const std::string& product, const std::string& test) {
  for (const auto& r : rows)
    if (r.product == product && r.test == test) return &r;
  return nullptr;
}

// Test `test`'s first sample: its servers (logs/.../sample-1*-server.log.cmd), then its
// clients (raw/.../sample-1*.cmd).
std::string sample_lines(const std::string& run_dir, const std::string& product, const SampleRow& row) {
  std::string out;
  std::error_code ec;
  auto listed = [&](const std::string& dir, bool servers) {
    std::vector<std::string> found;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      const std::string name = e.path().filename().string();
      const bool server = name.find("-server.log.cmd") != std::string::npos;
      if (name.rfind("sample-1", 0) == 0 && (name.size() == 8 || !std::isdigit(static_cast<unsigned char>(name[8]))) &&
          server == servers && name.size() > 4 && name.substr(name.size() - 4) == ".cmd" && !e.is_symlink(ec))
        found.push_back(e.path().string());
    }
    std::sort(found.begin(), found.end());
    return found;
  };
  // One server node: its name; several: the process's file says which port, the row the nodes.
  std::string server = row.server;
  if (server.find(',') != std::string::npos) {
    std::replace(server.begin(), server.end(), ',', '|');
    server = "<" + server + ">";  // the reader picks: the recipe does not know which process serves where
  }
  for (const auto& f : listed(run_dir + "/logs/" + product + "/" + row.test, true)) {
    const std::string line = recipe_line(file_text(f), server);
    if (!line.empty()) out += line + (line.size() > 2 && line.compare(line.size() - 2, 2, " &") == 0 ? "\n" : " &\n");
  }
  for (const auto& f : listed(run_dir + "/raw/" + product + "/" + row.test, false)) {
    const std::string line = recipe_line(file_text(f), row.client);
    if (!line.empty()) out += line + "\n";
  }
  return out;
}

}  // namespace

std::string recipe_line(const std::string& cmd_text, const std::string& node) {
  Recorded r;
  if (!parse_recorded(cmd_text, &r)) return "";
  std::string line = (r.in_node ? node : std::string("host")) + "$";
  if (!r.cpus.empty()) {
    std::string list = r.cpus;
    std::replace(list.begin(), list.end(), ' ', ',');
    line += " taskset -c " + list;
  }
  bool env = false;
  for (const auto& kv : r.env) {
    if (kv.find(" (value not recorded)") != std::string::npos) continue;  // a proxy's credentials
    if (!env) line += " env", env = true;
    line += " " + shell_word(kv);
  }
  for (const auto& a : r.argv) line += " " + shell_word(a);
  return r.daemon ? line + " &" : line;
}

std::string hand_recipe(const std::string& run_dir, const std::string& topology, const std::string& product,
                        const std::vector<SampleRow>& rows) {
  std::string steps;
  for (const auto& [node, path] : round_commands(run_dir + "/logs/" + product + "/round-1")) {
    const std::string line = recipe_line(file_text(path), node);
    if (!line.empty()) steps += line + "\n";
  }
  std::vector<std::string> tests;
  for (const auto& r : rows)
    if (r.product == product && std::find(tests.begin(), tests.end(), r.test) == tests.end()) tests.push_back(r.test);
  std::string samples;
  for (const auto& t : tests)
    if (const SampleRow* row = first_row_of(rows, product, t)) {
      const std::string lines = sample_lines(run_dir, product, *row);
      if (!lines.empty()) samples += "# test " + t + ", sample 1: its server(s), then its client(s)\n" + lines;
    }
  if (steps.empty() && samples.empty()) return "";
  // The nodes the lines name, for the shells to open.
  std::vector<std::string> nodes;
  std::istringstream lines(steps + samples);
  for (std::string l; std::getline(lines, l);)
    if (const size_t d = l.find("$ "); d != std::string::npos && l[0] != '#' && l.compare(0, d, "host") != 0 &&
                                       std::find(nodes.begin(), nodes.end(), l.substr(0, d)) == nodes.end())
      nodes.push_back(l.substr(0, d));
  const std::string t = shell_word(topology);
  std::string out = "# " + product + " by hand, as this run ran it, on the lab 'vpnlab up " + topology +
                    "' builds. Open a shell in each node,\n"
                    "# each with its own /run as a run gives the products in a node:\n";
  for (const auto& n : nodes)
    out += "#   vpnlab exec " + t + " " + shell_word(n) +
           " -- unshare -m sh -c 'mount -t tmpfs tmpfs /run && exec bash'\n";
  out +=
      "# then type each line in its node's shell ('host$': on the host), in this order ('&': it runs until stopped).\n"
      "vpnlab up " +
      t + "\n";
  return out + steps + samples + "vpnlab down " + t + "\n";
}

}  // namespace vpnlab
