#include "lab/model/sweep.h"

#include <algorithm>

#include "lab/model/names.h"
#include "lab/model/test_kinds.h"

namespace vpnlab {

namespace {

// A value as a message quotes it: 0, "100M", or its type for anything else.
std::string value_text(const toml::node& v) {
  if (auto n = v.value<int64_t>(); n && v.is_integer()) return std::to_string(*n);
  if (v.is_string()) return "\"" + v.as_string()->get() + "\"";
  return std::string("(") + type_name(v) + ")";
}

// "streams 0 is not a whole number from 1 to 128" ("" when it is one; *out set).
std::string integer_in(const toml::node& v, const char* what, int lo, int hi, int* out) {
  std::optional<int64_t> n = v.is_integer() ? v.value<int64_t>() : std::nullopt;
  if (!n || *n < lo || *n > hi)
    return std::string(what) + " " + value_text(v) + " is not a whole number from " + std::to_string(lo) + " to " +
           std::to_string(hi);
  *out = static_cast<int>(*n);
  return "";
}

// The name's character set is [a-z0-9-]: a rate of 100M is "100m".
std::string rate_label(double bps) {
  char buf[32];
  const auto b = static_cast<long long>(bps);
  if (b >= 1000000000 && b % 1000000000 == 0)
    snprintf(buf, sizeof buf, "%lldg", b / 1000000000);
  else if (b >= 1000000 && b % 1000000 == 0)
    snprintf(buf, sizeof buf, "%lldm", b / 1000000);
  else if (b >= 1000 && b % 1000 == 0)
    snprintf(buf, sizeof buf, "%lldk", b / 1000);
  else
    snprintf(buf, sizeof buf, "%lld", b);
  return buf;
}

// A rate as a sweep value: "100M"; what is wrong with it, or "".
std::string rate_in(const toml::node& v, const char* what, double* out) {
  std::optional<double> rate = v.is_string() ? parse_rate(v.as_string()->get()) : std::nullopt;
  if (!rate || *rate <= 0) return std::string(what) + " " + value_text(v) + " is not a rate";
  *out = *rate;
  return "";
}

const std::vector<SweepAxis> kAxes = {
    {"streams", "streams = [1, 8]", "streams count all servers together",
     [](const TestSpec& t) -> std::string {
       return t.udp || is_transaction_test(t.kind) ? "streams are a TCP bulk test's (kind = \"throughput\")" : "";
     },
     [](const toml::node& v, const Topology&, TestSpec* p) -> std::string {
       if (auto e = integer_in(v, "streams", 1, 128, &p->streams); !e.empty()) return e;
       if (p->streams < static_cast<int>(p->servers.size()))
         return std::to_string(p->streams) + " stream(s) cannot reach " + std::to_string(p->servers.size()) +
                " servers";
       return "";
     },
     [](const TestSpec& p) { return std::to_string(p.streams); }},
    {"length", "length = [64, 512, 0]", "0 stands for the largest that fits the overlay MTU",
     [](const TestSpec& t) -> std::string {
       return t.udp ? "" : "length is a UDP payload size: the test needs udp = true";
     },
     [](const toml::node& v, const Topology& topo, TestSpec* p) -> std::string {
       const int max = topo.overlay_mtu > 0 ? max_udp_payload(topo.overlay_mtu) : 65507;
       std::optional<int64_t> n = v.is_integer() ? v.value<int64_t>() : std::nullopt;
       if (!n || (*n != 0 && (*n < 16 || *n > max)))
         return "payload size " + value_text(v) + " is not between 16 and " + std::to_string(max);
       p->length = static_cast<int>(*n);
       p->length_pos = pos_of(v);
       return "";
     },
     [](const TestSpec& p) { return p.length ? std::to_string(p.length) : std::string("mtu"); }},
    {"size", "size = [64, 1024]", "request and response bytes each",
     [](const TestSpec& t) -> std::string {
       return test_kind(t.kind).takes_size ? "" : "size is a request/response size: kind = \"rr\" takes it";
     },
     [](const toml::node& v, const Topology&, TestSpec* p) {
       return integer_in(v, "size", kMinTransactionBytes, kMaxTransactionBytes, &p->size);
     },
     [](const TestSpec& p) { return std::to_string(p.size); }},
    {"bitrate", "bitrate = [\"100M\", \"1G\"]", "bits/s: k, M, G",
     [](const TestSpec& t) -> std::string {
       return is_transaction_test(t.kind) ? "bitrate is an iperf3 setting: a throughput test's" : "";
     },
     [](const toml::node& v, const Topology&, TestSpec* p) { return rate_in(v, "bitrate", &p->bitrate_bps); },
     [](const TestSpec& p) { return rate_label(p.bitrate_bps); }},
};

// Axes of the [bench] sweep: what changes the lab, for every test alike.
struct LabAxis {
  const char* name;
  const char* example;
  const char* bounds;
  // Sets the value on a point; what is wrong with it, or "".
  std::string (*apply)(const toml::node& value, const Topology& topo, LabPoint* point);
  // The value as test names and results.csv's `point` column write it.
  std::string (*label)(const LabPoint& point);
};

const std::vector<LabAxis> kLabAxes = {
    {"underlay_mtu", "underlay_mtu = [1500, 9000]",
     "every link of the lab gets this MTU (68 to 9000; jumbo frames: 9000)",
     [](const toml::node& v, const Topology& topo, LabPoint* p) -> std::string {
       if (auto e = integer_in(v, "underlay_mtu", 68, 9000, &p->underlay_mtu); !e.empty()) return e;
       if (topo.overlay_mtu > 0 && topo.overlay_mtu > p->underlay_mtu)
         return "underlay_mtu " + std::to_string(p->underlay_mtu) + " is below the overlay MTU " +
                std::to_string(topo.overlay_mtu) + " (no tunnel carries that over it)";
       return "";
     },
     [](const LabPoint& p) { return std::to_string(p.underlay_mtu); }},
    {"rate", "rate = [\"100M\", \"1G\"]",
     "every shaped link ([[link]] rate = ...) gets this rate: bits/s with k, M or G",
     [](const toml::node& v, const Topology& topo, LabPoint* p) -> std::string {
       // A rate sweep on a lab with nothing shaped would measure one point many times.
       if (std::none_of(topo.links.begin(), topo.links.end(), [](const LinkSpec& l) { return l.rate_bps > 0; }))
         return "rate sweeps a shaped link's rate, and no [[link]] has a rate";
       return rate_in(v, "rate", &p->rate_bps);
     },
     [](const LabPoint& p) { return rate_label(p.rate_bps); }},
    {"threads", "threads = [1, 2]", "data-plane threads of every product (1 to 64), as [bench] threads sets them",
     [](const toml::node& v, const Topology&, LabPoint* p) -> std::string {
       int n = 0;
       if (auto e = integer_in(v, "threads", 1, 64, &n); !e.empty()) return e;
       p->threads = n;
       return "";
     },
     [](const LabPoint& p) { return std::to_string(p.threads.value_or(0)); }},
    {"variant", "variant = [\"none\", \"conntrack\"]", "\"none\" or the name of a [[variant]]",
     [](const toml::node& v, const Topology& topo, LabPoint* p) -> std::string {
       if (!v.is_string()) return "variant " + value_text(v) + " is not a variant's name";
       const std::string name = v.as_string()->get();
       std::vector<std::string> names{"none"};
       for (const auto& variant : topo.variants) names.push_back(variant.name);
       if (std::find(names.begin(), names.end(), name) == names.end())
         return "variant '" + name + "' is not defined (variants: " + TomlReader::join(names) + ")";
       p->variant = name;
       return "";
     },
     [](const LabPoint& p) { return p.variant; }},
};

// Whether x stands before y in the file: a sweep's axes keep the order they were written in.
bool before_in_file(const toml::node& x, const toml::node& y) {
  const SourcePos a = pos_of(x), b = pos_of(y);
  return a.line != b.line ? a.line < b.line : a.column < b.column;
}

// "streams, length, size, bitrate": the names of a table of axes, for messages.
template <typename Axes>
std::string names_of(const Axes& axes) {
  std::string out;
  for (const auto& a : axes) out += (out.empty() ? "" : ", ") + std::string(a.name);
  return out;
}

const SweepAxis* find_axis(const std::string& name) {
  for (const auto& a : kAxes)
    if (name == a.name) return &a;
  return nullptr;
}

struct AxisValues {
  const SweepAxis* axis;
  const toml::array* values;
};

// The sweep's axes in file order, each checked against the test; `zip` read off.
Status read_axes(const TomlReader& r, const toml::table& sweep, const std::string& what, const TestSpec& base,
                 std::vector<AxisValues>* axes, bool* zip) {
  for (const auto& [key, node] : sweep) {
    const std::string name(key.str());
    if (name == "zip") {
      std::optional<bool> z = node.value<bool>();
      if (!z)
        return r.at(node, what + ": sweep 'zip' is true or false", "zip = true pairs the lists position by position");
      *zip = *z;
      continue;
    }
    const SweepAxis* axis = find_axis(name);
    if (!axis)
      return r.at(node, what + ": sweep has no axis '" + name + "'",
                  "axes: " + sweep_axis_names() + " (and zip = true)");
    if (std::string why = axis->refuses(base); !why.empty())
      return r.at(node, what + ": cannot sweep '" + name + "': " + why, std::string("e.g. ") + axis->example);
    if (!node.is_array() || node.as_array()->empty())
      return r.at(node, what + ": sweep '" + name + "' is a non-empty list of values",
                  std::string("write ") + axis->example);
    axes->push_back({axis, node.as_array()});
  }
  // A TOML table iterates its keys sorted: the file's order is the values' positions.
  std::sort(axes->begin(), axes->end(),
            [](const AxisValues& x, const AxisValues& y) { return before_in_file(*x.values, *y.values); });
  if (axes->empty())
    return r.at(pos_of(sweep), what + ": 'sweep' names no axis",
                "e.g. sweep = { streams = [1, 8] }; axes: " + sweep_axis_names());
  return ok_status();
}

// Every combination of one index per list (the first list turns slowest); empty when
// there are more than kMaxSweepPoints.
std::vector<std::vector<size_t>> combinations(const std::vector<size_t>& sizes) {
  size_t count = 1;
  for (size_t n : sizes) {
    count *= n;
    if (count > kMaxSweepPoints) return {};
  }
  std::vector<std::vector<size_t>> out;
  std::vector<size_t> at(sizes.size(), 0);
  for (size_t n = 0; n < count; ++n) {
    out.push_back(at);
    for (size_t k = sizes.size(); k-- > 0;) {  // the last list turns fastest
      if (++at[k] < sizes[k]) break;
      at[k] = 0;
    }
  }
  return out;
}

// Each point's index into every axis: all combinations (first axis slowest), or with zip
// the i-th of every list.
Status point_indices(const TomlReader& r, const toml::table& sweep, const std::string& what,
                     const std::vector<AxisValues>& axes, bool zip, std::vector<std::vector<size_t>>* out) {
  if (zip) {
    for (const auto& a : axes)
      if (a.values->size() != axes.front().values->size())
        return r.at(*a.values,
                    what + ": zip pairs lists of one length: '" + a.axis->name + "' has " +
                        std::to_string(a.values->size()) + ", '" + axes.front().axis->name + "' " +
                        std::to_string(axes.front().values->size()),
                    "give every axis as many values, or drop zip for every combination");
    for (size_t i = 0; i < axes.front().values->size(); ++i) out->push_back(std::vector<size_t>(axes.size(), i));
    return ok_status();
  }
  std::vector<size_t> sizes;
  for (const auto& a : axes) sizes.push_back(a.values->size());
  *out = combinations(sizes);
  if (out->empty())
    return r.at(pos_of(sweep), what + ": the sweep has more than " + std::to_string(kMaxSweepPoints) + " points",
                "sweep fewer values, or pair them with zip = true");
  return ok_status();
}

// The [bench] sweep's axes in file order, each a non-empty list of values listed once.
Status read_lab_axes(const TomlReader& r, const toml::table& sweep, const std::string& what,
                     std::vector<std::pair<const LabAxis*, const toml::array*>>* axes) {
  for (const auto& [key, node] : sweep) {
    const std::string name(key.str());
    const LabAxis* axis = nullptr;
    for (const auto& a : kLabAxes)
      if (name == a.name) axis = &a;
    if (!axis)
      return r.at(node, what + ": sweep has no axis '" + name + "'",
                  "[bench] sweep axes change the lab: " + lab_axis_names() + "; a test's own (" + sweep_axis_names() +
                      ") go in its [[bench.test]]");
    if (!node.is_array() || node.as_array()->empty())
      return r.at(node, what + ": sweep '" + name + "' is a non-empty list of values",
                  std::string("write ") + axis->example);
    const toml::array& values = *node.as_array();
    for (size_t i = 0; i < values.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (value_text(*values.get(i)) == value_text(*values.get(j)))
          return r.at(*values.get(i), what + ": " + name + " " + value_text(*values.get(i)) + " is listed twice",
                      "list each value once");
    axes->emplace_back(axis, &values);
  }
  // As a test's axes: in the file's order, not the table's sorted keys.
  std::sort(axes->begin(), axes->end(),
            [](const auto& x, const auto& y) { return before_in_file(*x.second, *y.second); });
  return ok_status();
}

}  // namespace

const std::vector<SweepAxis>& sweep_axes() { return kAxes; }

std::string lab_axis_names() { return names_of(kLabAxes); }

Status parse_lab_sweep(const TomlReader& r, const toml::table& bench, Topology* topo) {
  const toml::node* sweep = bench.get("sweep");
  if (!sweep) return ok_status();
  const std::string what = "bench";
  if (!sweep->is_table())
    return r.at(*sweep, what + ": 'sweep' is a table of axes", "write sweep = { underlay_mtu = [1500, 9000] }");
  if (!backend_traits(topo->backend).lab_sweeps)
    return r.at(*sweep,
                what + ": a [bench] sweep rebuilds the lab between points; the " + topo->backend +
                    " backend's links are the hosts' own",
                "sweep on the " + backends_with(&BackendTraits::lab_sweeps) + " backend");
  const toml::table& t = *sweep->as_table();
  if (t.empty())
    return r.at(*sweep, what + ": 'sweep' names no axis",
                "e.g. sweep = { underlay_mtu = [1500, 9000] }; axes: " + lab_axis_names());
  std::vector<std::pair<const LabAxis*, const toml::array*>> axes;
  if (auto s = read_lab_axes(r, t, what, &axes); !s) return s;
  std::vector<size_t> sizes;
  for (const auto& a : axes) sizes.push_back(a.second->size());
  const auto points = combinations(sizes);  // the lab's axes multiply
  if (points.empty())
    return r.at(*sweep, what + ": the sweep has more than " + std::to_string(kMaxSweepPoints) + " points",
                "sweep fewer values");
  for (const auto& at : points) {
    LabPoint p;
    for (size_t k = 0; k < axes.size(); ++k) {
      const LabAxis& axis = *axes[k].first;
      const toml::node& value = *axes[k].second->get(at[k]);
      if (std::string e = axis.apply(value, *topo, &p); !e.empty()) return r.at(value, what + ": " + e, axis.bounds);
      p.values.emplace_back(axis.name, axis.label(p));
    }
    // Values written differently can be one ("100M" and "100m"): one point, measured once.
    for (const auto& other : topo->bench.lab_points)
      if (other.values == p.values)
        return r.at(*axes.back().second->get(at.back()), what + ": point " + point_text(p.values) + " is listed twice",
                    "list each value once (\"100M\" and \"100m\" are one rate)");
    topo->bench.lab_points.push_back(std::move(p));
  }
  topo->bench.lab_sweep_pos = pos_of(*sweep);
  return ok_status();
}

std::vector<TestSpec> tests_at_lab_points(const std::vector<TestSpec>& tests, const std::vector<LabPoint>& points) {
  if (points.empty()) return tests;
  std::vector<TestSpec> out;
  for (const auto& t : tests)
    for (size_t i = 0; i < points.size(); ++i) {
      TestSpec p = t;
      if (p.sweep_of.empty()) p.sweep_of = t.name;
      for (const auto& [axis, value] : points[i].values) {
        p.name += "-" + value;
        p.point.emplace_back(axis, value);
      }
      p.lab_point = static_cast<int>(i);
      out.push_back(std::move(p));
    }
  return out;
}

std::string point_text(const std::vector<std::pair<std::string, std::string>>& point) {
  std::string out;
  for (const auto& [axis, value] : point) out += (out.empty() ? "" : ";") + axis + "=" + value;
  return out;
}

std::string sweep_axis_names() { return names_of(kAxes); }

Status expand_sweep(const TomlReader& r, const toml::table& t, const std::string& what, const Topology& topo,
                    const TestSpec& base, std::vector<TestSpec>* points) {
  const toml::node* sweep = t.get("sweep");
  const toml::node* sizes = t.get("sizes");
  if (!sweep && !sizes) return points->push_back(base), ok_status();
  if (sweep && sizes)
    return r.at(*sizes, what + ": 'sizes' and 'sweep' together", "write sweep = { length = [...] } alone");
  std::vector<AxisValues> axes;
  bool zip = false;
  const toml::table* table = nullptr;  // the sweep's; sizes = [...] is the length axis alone
  if (sizes) {
    if (t.get("length"))
      return r.at(*sizes, what + ": 'sizes' and 'length' together", "drop length: sizes lists every payload size");
    if (!base.udp) return r.at(*sizes, what + ": 'sizes' sweeps UDP payload sizes", "add udp = true");
    if (!sizes->is_array() || sizes->as_array()->empty())
      return r.at(*sizes, what + ": 'sizes' is a list of payload sizes",
                  "write sizes = [64, 256, 512, 0] (0: the largest that fits the MTU)");
    axes.push_back({find_axis("length"), sizes->as_array()});
  } else {
    if (!sweep->is_table())
      return r.at(*sweep, what + ": 'sweep' is a table of axes", "write sweep = { streams = [1, 8] }");
    table = sweep->as_table();
    if (auto s = read_axes(r, *table, what, base, &axes, &zip); !s) return s;
    for (const auto& a : axes)
      if (t.get(a.axis->name))
        return r.at(*t.get(a.axis->name), what + ": '" + a.axis->name + "' is given and swept",
                    "drop " + std::string(a.axis->name) + ": the sweep sets it");
  }
  std::vector<std::vector<size_t>> indices;
  if (auto s = point_indices(r, sizes ? t : *table, what, axes, zip, &indices); !s) return s;
  for (const auto& at : indices) {
    TestSpec p = base;
    p.sweep_of = base.name;
    for (size_t k = 0; k < axes.size(); ++k) {
      const toml::node& value = *axes[k].values->get(at[k]);
      if (std::string e = axes[k].axis->apply(value, topo, &p); !e.empty())
        return r.at(value, what + ": " + e, axes[k].axis->bounds);
      const std::string label = axes[k].axis->label(p);
      p.name += "-" + label;
      p.point.emplace_back(axes[k].axis->name, label);
    }
    if (!is_lab_name(p.name, kMaxGeneratedTestName))
      return r.at(sweep ? *sweep : *sizes,
                  what + ": point '" + p.name + "' is not a test name of at most " +
                      std::to_string(kMaxGeneratedTestName) + " characters",
                  "shorten the test's name");
    points->push_back(std::move(p));
  }
  return ok_status();
}

}  // namespace vpnlab
