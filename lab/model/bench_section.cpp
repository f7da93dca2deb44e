// [bench] and its [[bench.test]] patterns: which traffic a run measures.
#include <algorithm>
#include <set>

#include "lab/model/names.h"
#include "lab/model/sweep.h"
#include "lab/model/topology_parse.h"

namespace vpnlab {

namespace {

using Reader = TomlReader;

// A test's endpoint must be reachable over the overlay: a VPN node, or behind one.
Status check_endpoint(const Reader& r, const toml::node& at, const std::string& what, const std::string& node,
                      const Topology& topo) {
  if (!has_node(topo, node)) return unknown_node(r, pos_of(at), what, node, topo);
  if (runs_vpn(topo, node)) return ok_status();
  for (const auto& n : topo.nodes)
    if (n.name == node && n.gateway) return ok_status();
  return r.at(at, what + ": node '" + node + "' neither runs the VPN nor has a gateway",
              "add it to [overlay] nodes, or give it gateway = \"<a VPN node>\"");
}

Status parse_servers(const Reader& r, const toml::table& t, const std::string& what, const Topology& topo,
                     TestSpec* ts) {
  const toml::node* server = t.get("server");
  if (!server)
    return r.at(ts->pos, what + ": missing key 'server'", "add server = \"b\", or a list: server = [\"b\", \"c\"]");
  if (server->is_string()) {
    ts->servers = {server->as_string()->get()};
    if (auto s = check_endpoint(r, *server, what, ts->servers[0], topo); !s) return s;
  } else if (server->is_array()) {
    const toml::array& arr = *server->as_array();
    if (arr.empty()) return r.at(*server, what + ": 'server' is an empty list", "write server = [\"b\", \"c\"]");
    std::set<std::string> seen;
    for (const auto& item : arr) {
      if (!item.is_string())
        return r.at(item, what + ": 'server' lists node names, not " + std::string(type_name(item)),
                    "write server = [\"b\", \"c\"]");
      std::string name = item.as_string()->get();
      if (auto s = check_endpoint(r, item, what, name, topo); !s) return s;
      if (!seen.insert(name).second)
        return r.at(item, what + ": server '" + name + "' is listed twice", "list each server once");
      ts->servers.push_back(name);
    }
  } else {
    return r.at(*server, what + ": 'server' must be a node name or a list of them", "write server = \"b\"");
  }
  for (const auto& s : ts->servers)
    if (s == ts->client) return r.at(*server, what + ": '" + s + "' is both client and server", "use different nodes");
  return ok_status();
}

Status parse_traffic_options(const Reader& r, const toml::table& t, const std::string& what, const Topology& topo,
                             TestSpec* ts) {
  // Left out, one stream per server (a 1-to-N test must reach every server).
  if (!t.get("streams")) ts->streams = std::max(1, static_cast<int>(ts->servers.size()));
  if (auto s = get_int(r, t, "streams", what, &ts->streams, 1, 128); !s) return s;
  if (ts->streams < static_cast<int>(ts->servers.size()))
    return r.at(
        t.get("streams") ? pos_of(*t.get("streams")) : ts->pos,
        what + ": " + std::to_string(ts->streams) + " stream(s) cannot reach " + std::to_string(ts->servers.size()) +
            " servers",
        "set streams = " + std::to_string(ts->servers.size()) + " or more (streams counts all servers together)");
  if (auto s = get_bool(r, t, "reverse", what, &ts->reverse); !s) return s;
  if (auto s = get_bool(r, t, "bidirectional", what, &ts->bidirectional); !s) return s;
  if (ts->reverse && ts->bidirectional)
    return r.at(*t.get("bidirectional"), what + ": 'reverse' and 'bidirectional' together",
                "bidirectional already runs both directions: drop reverse");
  if (auto s = get_bool(r, t, "udp", what, &ts->udp); !s) return s;
  int mss = 0;
  if (auto s = get_int(r, t, "mss", what, &mss, 88, 9000); !s) return s;
  if (mss) {
    if (ts->udp)
      return r.at(*t.get("mss"), what + ": 'mss' is a TCP setting and this test is UDP",
                  "use length = ... for UDP payload size");
    if (topo.overlay_mtu > 0 && mss > max_tcp_mss(topo.overlay_mtu))
      return r.at(
          *t.get("mss"),
          what + ": mss " + std::to_string(mss) + " does not fit the overlay MTU " + std::to_string(topo.overlay_mtu),
          "use at most " + std::to_string(max_tcp_mss(topo.overlay_mtu)) + " (MTU - 40)");
    ts->mss = mss;
  }
  if (const toml::node* b = t.get("bitrate")) {
    std::optional<double> rate = b->is_string() ? parse_rate(b->as_string()->get()) : std::nullopt;
    if (!rate) return r.at(*b, what + ": 'bitrate' is not a rate", "write bitrate = \"500M\" (bits/s; k, M, G)");
    ts->bitrate_bps = *rate;
  }
  const toml::table* sweep = t.get("sweep") ? t.get("sweep")->as_table() : nullptr;
  if (ts->udp && ts->bitrate_bps == 0 && !(sweep && sweep->get("bitrate")))
    return r.at(t.get("udp") ? pos_of(*t.get("udp")) : ts->pos,
                what + ": a UDP test needs 'bitrate' (iperf3 would send 1 Mbit/s)",
                "add bitrate = \"500M\": the total offered load, spread over the streams");
  if (const toml::node* l = t.get("length")) {
    if (!ts->udp)
      return r.at(*l, what + ": 'length' is the UDP payload size and this test is TCP",
                  "set udp = true, or use mss for TCP");
    if (auto s = get_int(r, t, "length", what, &ts->length, 16, 65507); !s) return s;
    ts->length_pos = pos_of(*l);
    if (topo.overlay_mtu > 0 && ts->length > max_udp_payload(topo.overlay_mtu))
      return r.at(
          *l,
          what + ": length " + std::to_string(ts->length) + " does not fit the overlay MTU " +
              std::to_string(topo.overlay_mtu),
          "use at most " + std::to_string(max_udp_payload(topo.overlay_mtu)) + " (MTU - 28: IPv4 and UDP headers)");
  }
  return ok_status();
}

// A UDP test's search for its zero-loss rate; `sizes` (parse_tests) sweeps payload sizes.
// `bench` gives the sample length the trials share; vpnlab's default length (the file set
// none) grows to the trials' whole seconds instead of refusing them.
Status parse_zero_loss(const Reader& r, const toml::table& t, const std::string& what, BenchSpec* bench, TestSpec* ts) {
  if (auto s = get_bool(r, t, "zero_loss", what, &ts->zero_loss); !s) return s;
  const toml::node* loss = t.get("max_loss");
  const toml::node* steps = t.get("steps");
  if (!ts->zero_loss) {
    if (loss || steps)
      return r.at(loss ? *loss : *steps, what + ": 'max_loss' and 'steps' belong to a zero-loss search",
                  "add zero_loss = true");
    return ok_status();
  }
  if (!ts->udp)
    return r.at(*t.get("zero_loss"), what + ": a zero-loss search offers UDP rates",
                "add udp = true and bitrate = \"<the highest rate to try>\"");
  if (loss) {
    std::optional<double> pct = loss->value<double>();
    if (!pct || *pct < 0 || *pct > 50)
      return r.at(*loss, what + ": 'max_loss' is a percentage between 0 and 50",
                  "write max_loss = 0.1 (percent of datagrams)");
    ts->max_loss_pct = *pct;
  }
  if (auto s = get_int(r, t, "steps", what, &ts->steps, 2, 16); !s) return s;
  if (bench->adaptive_by_default) bench->duration_s = std::max<double>(bench->duration_s, ts->steps);
  if (bench->duration_s / ts->steps < 1)
    return r.at(steps ? pos_of(*steps) : ts->pos,
                what + ": " + std::to_string(ts->steps) + " trials do not fit a " +
                    std::to_string(static_cast<int>(bench->duration_s)) + " s sample",
                "each trial runs at least 1 s (iperf3's whole seconds): set [bench] duration >= " +
                    std::to_string(ts->steps) + "s or fewer steps");
  return ok_status();
}

// Its kind (lab/model/test_kinds.h). A transaction kind has one client, one server, one TCP
// connection at a time: iperf3's shape keys are refused by name rather than ignored.
Status parse_kind(const Reader& r, const toml::table& t, const std::string& what, TestSpec* ts) {
  if (const toml::node* k = t.get("kind")) {
    std::string kind = k->is_string() ? k->as_string()->get() : "";
    if (!find_test_kind(kind))
      return r.at(*k, what + ": unknown kind" + (kind.empty() ? std::string() : " '" + kind + "'"),
                  "write kind = " + test_kind_choices());
    ts->kind = kind;
  }
  const TestKindTraits& kind = test_kind(ts->kind);
  if (!kind.transactions) {
    if (const toml::node* size = t.get("size"))
      return r.at(*size, what + ": " + kind.no_size, "set kind = \"rr\", or drop size");
    return ok_status();
  }
  for (const char* key : {"streams", "reverse", "bidirectional", "udp", "bitrate", "length", "mss"})
    if (const toml::node* n = t.get(key))
      return r.at(*n, what + ": '" + key + "' is an iperf3 setting and this test is kind = \"" + kind.name + "\"",
                  kind.no_iperf_keys);
  if (!kind.takes_size) {
    if (const toml::node* size = t.get("size"))
      return r.at(*size, what + ": " + kind.no_size, "drop size, or use kind = \"rr\" for other sizes");
  } else if (auto s = get_int(r, t, "size", what, &ts->size, kMinTransactionBytes, kMaxTransactionBytes); !s) {
    return s;
  }
  if (ts->servers.size() != 1) {
    const char* article =
        std::string("aeiou").find(kind.name[0]) != std::string::npos || kind.name == "rr" ? "an " : "a ";
    return r.at(*t.get("server"), what + ": " + article + kind.name + " test has one server",
                "write server = \"" + ts->servers[0] + "\"");
  }
  return ok_status();
}

Status parse_tests(const Reader& r, const toml::table& bench, Topology* topo) {
  const toml::node* tests = bench.get("test");
  if (!tests)
    return r.at(pos_of(bench), "bench: no [[bench.test]] defined", "add [[bench.test]] with name, client and server");
  std::set<std::string> seen;
  if (auto s = for_each_table(
          r, bench, "test",
          [&](const toml::table& t) -> Status {
            TestSpec ts;
            ts.pos = pos_of(t);
            if (auto s = r.only_keys(
                    t, "test",
                    {"name", "kind", "size", "client", "server", "streams", "reverse", "mss", "bidirectional", "udp",
                     "bitrate", "length", "sizes", "sweep", "zero_loss", "max_loss", "steps"});
                !s)
              return s;
            if (auto s = get_string(r, t, "name", "test", &ts.name, true, ts.pos); !s) return s;
            std::string what = "test '" + ts.name + "'";
            if (auto s = check_name(r, pos_of(*t.get("name")), "test", ts.name, kMaxTestName); !s) return s;
            if (!seen.insert(ts.name).second)
              return r.at(*t.get("name"), what + " is defined twice", "give every test a unique name");
            if (auto s = get_string(r, t, "client", what, &ts.client, true, ts.pos); !s) return s;
            if (auto s = check_endpoint(r, *t.get("client"), what, ts.client, *topo); !s) return s;
            if (auto s = parse_servers(r, t, what, *topo, &ts); !s) return s;
            if (auto s = parse_kind(r, t, what, &ts); !s) return s;
            if (auto s = parse_traffic_options(r, t, what, *topo, &ts); !s) return s;
            if (auto s = parse_zero_loss(r, t, what, &topo->bench, &ts); !s) return s;
            // A sweep's points (or the test alone), each an ordinary test from here on.
            std::vector<TestSpec> expanded;
            if (auto s = expand_sweep(r, t, what, *topo, ts, &expanded); !s) return s;
            // Every test is measured at every [bench] sweep point: the product is counted before any
            // is made (10 x 10 x 10 lab points and a 1000-point test made validate grow past 2 GB).
            const size_t lab_points = std::max<size_t>(1, topo->bench.lab_points.size());
            if ((topo->bench.tests.size() + expanded.size()) * lab_points > kMaxPlannedTests)
              return r.at(t.get("sweep") ? *t.get("sweep") : *t.get("name"),
                          what + ": " + std::to_string(topo->bench.tests.size() + expanded.size()) + " tests at " +
                              std::to_string(lab_points) + " [bench] sweep point(s) make more than " +
                              std::to_string(kMaxPlannedTests) + " tests to measure",
                          "sweep fewer values (every test is measured at every point of the [bench] sweep)");
            for (auto& one : expanded) {
              if (one.name != ts.name && !seen.insert(one.name).second)
                return r.at(*t.get("name"), "test '" + one.name + "' is defined twice",
                            "give every test a unique name");
              topo->bench.tests.push_back(std::move(one));
            }
            return ok_status();
          },
          "bench: ", "write [[bench.test]]");
      !s)
    return s;
  return ok_status();
}

}  // namespace

Status parse_bench(const Reader& r, const toml::table& root, Topology* topo) {
  const toml::node* b = root.get("bench");
  if (!b || !b->is_table())
    return r.at(SourcePos{1, 1}, "missing [bench] table", "add [bench] with products and [[bench.test]]");
  const toml::table& t = *b->as_table();
  if (auto s = r.only_keys(t, "bench",
                           {"products", "samples", "duration", "warmup", "precision", "max_time", "test", "threads",
                            "interleave", "rps", "sweep"});
      !s)
    return s;
  if (auto s = get_string_list(r, t, "products", "bench", &topo->bench.products, &topo->bench.products_pos); !s)
    return s;
  if (topo->bench.products.empty())
    return r.at(topo->bench.products_pos, "bench: 'products' is empty",
                "write products = [\"baseline\", \"wireguard-go\"]");
  if (auto s = get_int(r, t, "samples", "bench", &topo->bench.samples, kMinSamples, kMaxSamples); !s) return s;
  if (auto s = get_duration(r, t, "duration", "bench", &topo->bench.duration_s, kMinSampleSeconds, kMaxSampleSeconds);
      !s)
    return s;
  if (auto s = get_duration(r, t, "warmup", "bench", &topo->bench.warmup_s, 0, kMaxWarmupSeconds); !s) return s;
  if (auto s = get_precision(r, t, "precision", "bench", &topo->bench.precision); !s) return s;
  if (const toml::node* m = t.get("max_time")) {
    std::optional<double> budget;
    if (m->is_string()) budget = parse_budget(m->as_string()->get());
    if (!budget || *budget < 1 || *budget > kMaxBudgetSeconds)
      return r.at(*m, "bench: 'max_time' is not a duration from 1s to 168h",
                  "write max_time = \"5m\" (units: s, m, h)");
    if (!topo->bench.precision)
      return r.at(*m, "bench: 'max_time' belongs to adaptive sampling", "add precision = \"5%\", or leave it out");
    topo->bench.max_time_s = *budget;
  }
  if (!t.get("samples") && !t.get("duration") && !t.get("precision")) {
    topo->bench.adaptive_by_default = true;
    topo->bench.precision = kDefaultPrecision;
    topo->bench.max_time_s = kDefaultMaxTimeS;
    topo->bench.duration_s = kDefaultDurationS;
    if (!t.get("warmup")) topo->bench.warmup_s = kDefaultWarmupS;
  }
  if (t.get("threads")) {
    int threads = 0;
    if (auto s = get_int(r, t, "threads", "bench", &threads, 1, 64); !s) return s;
    topo->bench.threads = threads;
  }
  if (auto s = get_bool(r, t, "interleave", "bench", &topo->bench.interleave); !s) return s;
  if (auto s = get_bool(r, t, "rps", "bench", &topo->bench.rps); !s) return s;
  if (auto s = parse_lab_sweep(r, t, topo); !s) return s;
  if (auto s = parse_tests(r, t, topo); !s) return s;
  // The [bench] sweep: every test at every point of the lab.
  topo->bench.tests = tests_at_lab_points(topo->bench.tests, topo->bench.lab_points);
  for (const auto& test : topo->bench.tests)
    if (!is_lab_name(test.name, kMaxGeneratedTestName))
      return r.at(topo->bench.lab_sweep_pos,
                  "bench: point '" + test.name + "' is not a test name of at most " +
                      std::to_string(kMaxGeneratedTestName) + " characters",
                  "shorten the test's name");
  return ok_status();
}

}  // namespace vpnlab
