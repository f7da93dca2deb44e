#include "lab/results/provenance.h"

#include <fmt/format.h>
#include <cstdio>

#include "lab/base/json_number.h"
#include "lab/record/achieved_text.h"

namespace vpnlab {

namespace {

std::string text_at(const nlohmann::json& j, const nlohmann::json::json_pointer& p) {
  if (!j.contains(p)) return "";
  const auto& v = j.at(p);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// "a 0, b 1 (load 1)": each node's data-plane CPUs (and load CPUs where they differ).
std::string pinning_text(const nlohmann::json& pinning) {
  if (!pinning.is_object()) return pinning.dump();
  std::string o;
  for (const auto& [node, p] : pinning.items()) {
    if (!p.is_object()) {  // edited by hand: shown as it is
      o += (o.empty() ? "" : ", ") + node + " " + p.dump();
      continue;
    }
    auto list = [](const nlohmann::json& cpus) {
      std::string l;
      if (cpus.is_array())
        for (const auto& c : cpus) l += (l.empty() ? "" : ",") + c.dump();
      return l.empty() ? std::string("any") : l;
    };
    std::string cpus = list(p.value("cpus", nlohmann::json::array())),
                load = list(p.value("load_cpus", nlohmann::json::array()));
    o += (o.empty() ? "" : ", ") + node + " " + cpus + (load != cpus ? " (load " + load + ")" : "");
  }
  return o;
}

// "lan 20.7 ms, loss 2.20 % (0.87-4.50), 0 reordered; wan not measured": each impaired
// link as the run measured it (environment.json achieved_paths).
std::string achieved_paths_text(const nlohmann::json& paths) {
  if (!paths.is_object()) return paths.dump();
  std::string o;
  for (const auto& [link, p] : paths.items()) {
    o += (o.empty() ? "" : "; ") + link + " ";
    if (!p.is_object() || p.contains("not_measured")) {
      o += "not measured";
      continue;
    }
    std::string buf =
        fmt::format(" ms, loss {:.2f} % ({:.2f}-{:.2f}), {} reordered", p.value("loss_pct", 0.0),
                    p.value("loss_low_pct", 0.0), p.value("loss_high_pct", 0.0), whole_number_or(p, "reordered", 0));
    o += round_trip_text(p.value("rtt_p50_ms", 0.0)) + buf;
  }
  return o;
}

// Two runs' paths are alike when every link is alike in both (achieved_alike).
bool achieved_paths_alike(const nlohmann::json& a, const nlohmann::json& b) {
  if (!a.is_object() || !b.is_object() || a.size() != b.size()) return false;
  for (const auto& [link, x] : a.items())
    if (!b.contains(link) || !achieved_alike(x, b.at(link))) return false;
  return true;
}

struct ProvenanceKey {
  const char* pointer;
  const char* what;
  bool refuses;                                          // `diff` refuses runs that differ in it (without --force)
  bool comparable;                                       // part of the comparability key
  std::string (*show)(const nlohmann::json&) = nullptr;  // how a value reads (default: as recorded)
  bool (*alike)(const nlohmann::json&, const nlohmann::json&) = nullptr;  // default: recorded alike
};
const std::vector<ProvenanceKey>& provenance_keys() {
  static const std::vector<ProvenanceKey> keys = {
      {"/topology_sha256", "topology (sha256 of the file)", true, true},
      {"/pinning", "pinning (each node's cpus and load_cpus)", true, true, pinning_text},
      {"/bench/pinned", "pinning on/off", true, true},
      {"/topology_file", "topology file", false, false},
      {"/bench/rps", "receive packet steering", false, true},
      {"/bench/interleaved", "order (interleaved)", false, true},
      {"/bench/threads", "data-plane threads", false, true},
      {"/overlay/mtu", "overlay MTU", false, true},
      {"/shaped_links", "shaped links", false, true},
      {"/impaired_links", "impaired links (delay, jitter, loss)", false, true},
      // Measured, so not part of the key: said where the paths really differed.
      {"/achieved_paths", "impaired links as achieved (median round trip, loss with its 99 % interval)", false, false,
       achieved_paths_text, achieved_paths_alike},
      {"/cpu/model", "CPU model", false, true},
      {"/cpu/count", "CPU count", false, true},
      {"/kernel/release", "kernel", false, true},
      {"/vpnlab_version", "vpnlab version", false, false},
      {"/backend", "backend", false, true},
      {"/accel", "accelerator", false, true},
      {"/machine_id", "machine", false, true},
      {"/bench/duration_s", "sample length (s)", false, true},
  };
  return keys;
}

}  // namespace

std::vector<ProvenanceDifference> provenance_differences(const nlohmann::json& a, const nlohmann::json& b) {
  std::vector<ProvenanceDifference> out;
  for (const ProvenanceKey& k : provenance_keys()) {
    const std::string pointer = k.pointer;
    if (pointer == "/backend" || pointer == "/accel") continue;  // `diff` refuses another machine before this
    nlohmann::json::json_pointer p(k.pointer);
    // Recorded on one side only (a run of an older version): said, never refused.
    bool both = a.contains(p) && b.contains(p);
    auto shown = [&](const nlohmann::json& j) -> std::string {
      if (!j.contains(p)) return "not recorded";
      return k.show ? k.show(j.at(p)) : text_at(j, p);
    };
    if (a.contains(p) == b.contains(p) && text_at(a, p) == text_at(b, p)) continue;
    if (both && k.alike && k.alike(a.at(p), b.at(p))) continue;
    out.push_back({k.what, shown(a), shown(b), both && k.refuses});
  }
  return out;
}

std::string provenance_text(const std::vector<ProvenanceDifference>& differences) {
  if (differences.empty())
    return "provenance: same topology, pinning, MTU, order, CPU, kernel and vpnlab version in both runs\n";
  std::string o = "provenance: the runs differ in\n";
  for (const auto& d : differences)
    o += "  " + d.what + ": A '" + d.a + "', B '" + d.b + "'" + (d.refuses ? " (refused without --force)" : "") + "\n";
  return o;
}

std::string comparability_key(const nlohmann::json& environment) {
  nlohmann::json key = nlohmann::json::object();
  for (const ProvenanceKey& k : provenance_keys()) {
    if (!k.comparable) continue;
    nlohmann::json::json_pointer p(k.pointer);
    key[k.pointer] = environment.contains(p) ? environment.at(p) : nlohmann::json("not recorded");
  }
  return key.dump();
}

std::string comparability_text(const nlohmann::json& e) {
  auto at = [&](const char* pointer) { return text_at(e, nlohmann::json::json_pointer(pointer)); };
  std::string o = "topology " + at("/topology_sha256").substr(0, 8) + ", " + at("/backend") + ", " + at("/cpu/model") +
                  " x" + at("/cpu/count") + ", kernel " + at("/kernel/release") + ", MTU " + at("/overlay/mtu") + ", " +
                  at("/bench/duration_s") + " s samples, " + (at("/bench/pinned") == "true" ? "pinned" : "not pinned");
  const std::string machine = at("/machine_id");
  return o + ", machine " + (machine.empty() ? "not recorded" : machine.substr(0, 8));
}

}  // namespace vpnlab
