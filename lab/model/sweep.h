// Sweeps: a [[bench.test]] with `sweep = { AXIS = [values], ... }` is measured at every
// point, each an ordinary test of its own (its rows, its interleaved rounds, its paired
// ratios) named after the test and the point's values ("bulk-8", "udp-64-100m"). Axes
// multiply (every combination) unless the table says `zip = true` (the lists pair up,
// position by position). An axis is one entry of the table in sweep.cpp: its name, the
// tests it applies to, its bounds and how it sets a point's test.
// `sizes = [...]` (the UDP payload sweep) is the length axis under its older name.
#pragma once
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "lab/model/toml_reader.h"
#include "lab/model/topology.h"

namespace vpnlab {

inline constexpr size_t kMaxSweepPoints = 1000;  // of one test: more is refused at validate
// Tests of a file after every sweep, times the [bench] sweep's lab points: counted before
// they are made, refused at validate beyond this.
inline constexpr size_t kMaxPlannedTests = 1000;

struct SweepAxis {
  const char* name;
  const char* example;  // the hint's "streams = [1, 8, 32]"
  const char* bounds;   // the hint to a value out of bounds
  // Why a test cannot take this axis ("" = it can): a UDP length on a TCP test, ...
  std::string (*refuses)(const TestSpec& test);
  // Sets one value on a point's test; what is wrong with it ("payload size 1400 is not
  // between 16 and 1372"), or "" when it is fine.
  std::string (*apply)(const toml::node& value, const Topology& topo, TestSpec* point);
  // The value as the point's name and the results.csv `point` column write it.
  std::string (*label)(const TestSpec& point);
};

const std::vector<SweepAxis>& sweep_axes();
// "streams=8;length=64": a point as results.csv's `point` column holds it.
std::string point_text(const std::vector<std::pair<std::string, std::string>>& point);
std::string sweep_axis_names();  // "streams, length, size, bitrate"

// [bench] sweep = { underlay_mtu = [1500, 9000] }: axes that change the lab itself, so
// every test is measured at every point on a lab rebuilt for it (LabPoint). Their table is
// beside the tests' one; reads the points into topo->bench.lab_points.
Status parse_lab_sweep(const TomlReader& r, const toml::table& bench, Topology* topo);
std::string lab_axis_names();  // "underlay_mtu"

// Every test of `tests` once per lab point: named with the point's values appended
// ("stream-1-9000"), its point extended, sweep_of set, lab_point the point's index.
std::vector<TestSpec> tests_at_lab_points(const std::vector<TestSpec>& tests, const std::vector<LabPoint>& points);

// The points of `base` that `t` asks for: its `sweep` table (or `sizes`), or `base` alone.
// Every error is located at the offending key or value, with a hint.
Status expand_sweep(const TomlReader& r, const toml::table& t, const std::string& what, const Topology& topo,
                    const TestSpec& base, std::vector<TestSpec>* points);

}  // namespace vpnlab
