// Profile files: YAML through yaml-cpp. Reading validates everything it reads and names the file,
// the line, the key path and what was expected; writing emits every key it knows, numbers in
// their shortest exact form (so that a written profile reads back equal), and a comment with the
// formula in the papers' notation beside each form.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "profile/profile.hpp"

namespace sonde::profile {

namespace {

const std::vector<std::string> kOrigins = {"measured", "fitted", "derived", "transcribed"};
const std::vector<std::string> kUnits = {"s", "B", "B/s", "flop/s", "Hz", "s/B", "1"};

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& path,
                         const std::string& problem) const {
    std::string where = file_;
    if (node.IsDefined() && !node.Mark().is_null()) {
      where += fmt::format(":{}", node.Mark().line + 1);
    }
    throw input_error(where, path.empty() ? problem : path + ": " + problem);
  }

  // A map with only `allowed` keys (each at most once) and all of `required`.
  void map(const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed,
           const std::vector<std::string>& required = {}) const {
    if (!node.IsMap()) fail(node, path, "expected a mapping of keys to values");
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail(it->first, join(path, key),
             fmt::format("unknown key; expected one of {}", fmt::join(allowed, ", ")));
      }
      if (!seen.insert(key).second) fail(it->first, join(path, key), "appears twice");
    }
    for (const std::string& key : required) {
      if (!node[key].IsDefined()) fail(node, join(path, key), "missing");
    }
  }

  std::string text(const YAML::Node& node, const std::string& path) const {
    if (!node.IsScalar()) fail(node, path, "expected text");
    return node.Scalar();
  }

  double number(const YAML::Node& node, const std::string& path) const {
    if (!node.IsScalar()) fail(node, path, "expected a number");
    double value = 0;
    try {
      value = node.as<double>();
    } catch (const YAML::Exception&) {
      fail(node, path, fmt::format("expected a number, found '{}'", node.Scalar()));
    }
    if (!std::isfinite(value)) fail(node, path, "expected a finite number, found " + node.Scalar());
    return value;
  }

  double non_negative(const YAML::Node& node, const std::string& path) const {
    const double value = number(node, path);
    if (value < 0) fail(node, path, fmt::format("expected a value >= 0, found {}", value));
    return value;
  }

  std::uint64_t count(const YAML::Node& node, const std::string& path) const {
    const double value = non_negative(node, path);
    if (value != std::floor(value) || value > 9007199254740992.0) {
      fail(node, path, fmt::format("expected a whole number, found {}", node.Scalar()));
    }
    return static_cast<std::uint64_t>(value);
  }

  std::vector<std::string> texts(const YAML::Node& node, const std::string& path) const {
    if (!node.IsSequence()) fail(node, path, "expected a list of text");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < node.size(); ++i) {
      out.push_back(text(node[i], fmt::format("{}[{}]", path, i)));
    }
    return out;
  }

  Origin origin(const YAML::Node& node, const std::string& path) const {
    const std::string value = text(node, path);
    const auto it = std::find(kOrigins.begin(), kOrigins.end(), value);
    if (it == kOrigins.end()) {
      fail(
          node, path,
          fmt::format("unknown origin '{}'; expected one of {}", value, fmt::join(kOrigins, ", ")));
    }
    return static_cast<Origin>(it - kOrigins.begin());
  }

  Interval interval(const YAML::Node& node, const std::string& path, bool signed_values) const {
    map(node, path, {"low", "high", "level"}, {"low", "high"});
    Interval out;
    out.low = signed_values ? number(node["low"], path + ".low")
                            : non_negative(node["low"], path + ".low");
    out.high = number(node["high"], path + ".high");
    if (out.high < out.low) fail(node, path, "high is below low");
    if (node["level"]) {
      out.level = number(node["level"], path + ".level");
      if (out.level <= 0 || out.level > 1) fail(node["level"], path + ".level", "expected (0, 1]");
    }
    return out;
  }

  FitQuality quality(const YAML::Node& node, const std::string& path) const {
    map(node, path, {"mean_relative_error", "max_relative_error", "points"},
        {"mean_relative_error", "max_relative_error", "points"});
    return {non_negative(node["mean_relative_error"], path + ".mean_relative_error"),
            non_negative(node["max_relative_error"], path + ".max_relative_error"),
            count(node["points"], path + ".points")};
  }

  Quantity quantity(const YAML::Node& node, const std::string& path,
                    const std::vector<std::string>& units) const {
    map(node, path, {"value", "unit", "origin", "interval", "quality", "sources", "note"},
        {"value", "unit", "origin"});
    Quantity q;
    q.value = non_negative(node["value"], path + ".value");
    q.unit = text(node["unit"], path + ".unit");
    if (std::find(kUnits.begin(), kUnits.end(), q.unit) == kUnits.end()) {
      fail(node["unit"], path + ".unit",
           fmt::format("unknown unit '{}'; files use SI units: {}", q.unit,
                       fmt::join(kUnits, ", ")));
    }
    if (std::find(units.begin(), units.end(), q.unit) == units.end()) {
      fail(node["unit"], path + ".unit",
           fmt::format("unit '{}' does not fit here; expected {}", q.unit,
                       fmt::join(units, " or ")));
    }
    q.origin = origin(node["origin"], path + ".origin");
    if (node["interval"]) q.interval = interval(node["interval"], path + ".interval", false);
    if (node["quality"]) q.quality = quality(node["quality"], path + ".quality");
    if (node["sources"]) q.sources = texts(node["sources"], path + ".sources");
    if (node["note"]) q.note = text(node["note"], path + ".note");
    return q;
  }

  Formula formula(const YAML::Node& node, const std::string& path, const std::string& unit) const {
    map(node, path, {"unit", "terms", "origin", "quality", "sources", "note"},
        {"unit", "terms", "origin"});
    Formula f;
    f.unit = text(node["unit"], path + ".unit");
    if (f.unit != unit) {
      fail(node["unit"], path + ".unit", fmt::format("expected '{}', found '{}'", unit, f.unit));
    }
    const YAML::Node& terms = node["terms"];
    if (!terms.IsSequence() || terms.size() == 0) {
      fail(terms, path + ".terms", "expected a list of one or more terms");
    }
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const std::string at = fmt::format("{}.terms[{}]", path, i);
      map(terms[i], at, {"basis", "coefficient", "exponent", "interval"}, {"basis", "coefficient"});
      Term term;
      term.basis = text(terms[i]["basis"], at + ".basis");
      const auto& bases = known_bases();
      if (std::find(bases.begin(), bases.end(), term.basis) == bases.end()) {
        fail(terms[i]["basis"], at + ".basis",
             fmt::format("unknown basis '{}'; expected one of {}", term.basis,
                         fmt::join(bases, ", ")));
      }
      term.coefficient = number(terms[i]["coefficient"], at + ".coefficient");
      if (term.basis == "n^c") {
        if (!terms[i]["exponent"]) fail(terms[i], at + ".exponent", "missing (basis n^c)");
        term.exponent = number(terms[i]["exponent"], at + ".exponent");
      } else if (terms[i]["exponent"]) {
        fail(terms[i]["exponent"], at + ".exponent", "only a term n^c has an exponent");
      }
      if (terms[i]["interval"])
        term.interval = interval(terms[i]["interval"], at + ".interval", true);
      f.terms.push_back(term);
    }
    // A form may have a negative coefficient (Xu and Hwang 1995: scan is 60 log n - 25) but must
    // not predict a negative time or a negative time per byte where it is used.
    for (double n = 2; n <= 1048576; n *= 2) {
      if (f(n) < 0) {
        fail(node, path, fmt::format("the form {} is negative at n = {}", f.text(), n));
      }
    }
    f.origin = origin(node["origin"], path + ".origin");
    if (node["quality"]) f.quality = quality(node["quality"], path + ".quality");
    if (node["sources"]) f.sources = texts(node["sources"], path + ".sources");
    if (node["note"]) f.note = text(node["note"], path + ".note");
    return f;
  }

  template <typename T, typename Read>
  std::map<std::string, T> named(const YAML::Node& node, const std::string& path, Read read) const {
    if (!node.IsMap()) fail(node, path, "expected a mapping of names to values");
    std::map<std::string, T> out;
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (out.count(key)) fail(it->first, join(path, key), "appears twice");
      out.emplace(key, read(it->second, join(path, key)));
    }
    return out;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

 private:
  std::string file_;
};

Machine read_machine(const Reader& r, const YAML::Node& node) {
  r.map(node, "machine", {"name", "description", "nodes", "cores_per_node", "clock"}, {"name"});
  Machine m;
  m.name = r.text(node["name"], "machine.name");
  if (m.name.empty()) r.fail(node["name"], "machine.name", "is empty");
  if (node["description"]) m.description = r.text(node["description"], "machine.description");
  if (node["nodes"]) m.nodes = r.count(node["nodes"], "machine.nodes");
  if (node["cores_per_node"]) {
    m.cores_per_node = r.count(node["cores_per_node"], "machine.cores_per_node");
  }
  if (node["clock"]) m.clock = r.quantity(node["clock"], "machine.clock", {"Hz"});
  return m;
}

Provenance read_provenance(const Reader& r, const YAML::Node& node) {
  r.map(node, "provenance",
        {"origin", "citation", "host", "cpu_model", "topology", "compiler", "mpi_library",
         "mpi_version", "date", "sonde_version", "results", "results_digest", "unfinished_parts"},
        {"origin"});
  Provenance p;
  p.origin = r.origin(node["origin"], "provenance.origin");
  const auto field = [&](const char* key, std::string& out) {
    if (node[key]) out = r.text(node[key], std::string("provenance.") + key);
  };
  field("citation", p.citation);
  field("host", p.host);
  field("cpu_model", p.cpu_model);
  field("topology", p.topology);
  field("compiler", p.compiler);
  field("mpi_library", p.mpi_library);
  field("mpi_version", p.mpi_version);
  field("date", p.date);
  field("sonde_version", p.sonde_version);
  field("results", p.results);
  field("results_digest", p.results_digest);
  if (node["unfinished_parts"]) {
    p.unfinished_parts = r.texts(node["unfinished_parts"], "provenance.unfinished_parts");
  }
  if (p.origin == Origin::transcribed && p.citation.empty()) {
    r.fail(node, "provenance.citation", "a transcribed profile must cite its source");
  }
  return p;
}

Compute read_compute(const Reader& r, const YAML::Node& node) {
  r.map(node, "compute",
        {"peak_flops_per_core", "peak_flops_per_node", "kernels", "shared_ports_exponent"});
  Compute c;
  if (node["peak_flops_per_core"]) {
    c.peak_flops_per_core =
        r.quantity(node["peak_flops_per_core"], "compute.peak_flops_per_core", {"flop/s"});
  }
  if (node["peak_flops_per_node"]) {
    c.peak_flops_per_node =
        r.quantity(node["peak_flops_per_node"], "compute.peak_flops_per_node", {"flop/s"});
  }
  if (node["kernels"]) {
    c.kernels = r.named<Quantity>(
        node["kernels"], "compute.kernels",
        [&](const YAML::Node& n, const std::string& path) { return r.quantity(n, path, {"s"}); });
  }
  if (node["shared_ports_exponent"]) {
    c.shared_ports_exponent =
        r.quantity(node["shared_ports_exponent"], "compute.shared_ports_exponent", {"1"});
    // An overlap exponent lies between 1 (no overlap) and infinity (the max), its range too.
    constexpr std::string_view kExponentRange =
        "an overlap exponent lies between 1 (no overlap) and infinity (the max)";
    const Quantity& p = *c.shared_ports_exponent;
    if (p.value < 1) {
      r.fail(node["shared_ports_exponent"]["value"], "compute.shared_ports_exponent.value",
             fmt::format("{} is below 1; {}", p.value, kExponentRange));
    }
    if (p.interval && p.interval->low < 1) {
      r.fail(node["shared_ports_exponent"]["interval"], "compute.shared_ports_exponent.interval",
             fmt::format("low {} is below 1; {}", p.interval->low, kExponentRange));
    }
  }
  return c;
}

std::vector<MemoryLevel> read_memory(const Reader& r, const YAML::Node& node) {
  if (!node.IsSequence()) r.fail(node, "memory", "expected a list of levels");
  std::vector<MemoryLevel> levels;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("memory[{}]", i);
    const YAML::Node& n = node[i];
    r.map(n, path,
          {"name", "capacity_bytes", "line_bytes", "ways", "detected_capacity", "latency",
           "bandwidth"},
          {"name"});
    MemoryLevel level;
    level.name = r.text(n["name"], path + ".name");
    if (n["capacity_bytes"])
      level.capacity_bytes = r.count(n["capacity_bytes"], path + ".capacity_bytes");
    if (n["line_bytes"]) level.line_bytes = r.count(n["line_bytes"], path + ".line_bytes");
    if (n["ways"]) {
      level.ways = r.count(n["ways"], path + ".ways");
      if (*level.ways == 0) r.fail(n["ways"], path + ".ways", "expected at least 1 way");
    }
    if (n["detected_capacity"]) {
      level.detected_capacity =
          r.quantity(n["detected_capacity"], path + ".detected_capacity", {"B"});
    }
    if (n["latency"]) level.latency = r.quantity(n["latency"], path + ".latency", {"s"});
    if (n["bandwidth"]) {
      level.bandwidth = r.named<Quantity>(
          n["bandwidth"], path + ".bandwidth",
          [&](const YAML::Node& b, const std::string& at) { return r.quantity(b, at, {"B/s"}); });
    }
    levels.push_back(level);
  }
  return levels;
}

// A whole number of 1 or more at `key` of a curve's point.
std::uint64_t positive_count(const Reader& r, const YAML::Node& point, const std::string& path,
                             const char* key) {
  const std::uint64_t value = r.count(point[key], path + "." + key);
  if (value == 0) r.fail(point[key], path + "." + key, "expected 1 or more");
  return value;
}

// A curve's point `key` in `unit`, above 0 with its interval: a curve is interpolated log-log, so
// 0 has no logarithm. `what` names it in the error ("a time", "a rate").
Quantity positive_quantity(const Reader& r, const YAML::Node& point, const std::string& path,
                           const std::string& key, const std::string& unit,
                           const std::string& what) {
  Quantity q = r.quantity(point[key], path + "." + key, {unit});
  if (!(q.value > 0) || (q.interval && !(q.interval->low > 0))) {
    r.fail(point[key], path + "." + key,
           fmt::format("expected {} > 0 (and an interval above 0)", what));
  }
  return q;
}

Quantity positive_seconds(const Reader& r, const YAML::Node& point, const std::string& path) {
  return positive_quantity(r, point, path, "seconds", "s", "a time");
}

std::vector<ColumnWalkPoint> read_column_walk(const Reader& r, const YAML::Node& node) {
  if (!node.IsSequence()) r.fail(node, "column_walk", "expected a list of measured walks");
  std::vector<ColumnWalkPoint> points;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("column_walk[{}]", i);
    const std::vector<std::string> keys = {"threads", "working_set_bytes", "row_bytes", "seconds"};
    r.map(node[i], path, keys, keys);
    points.push_back({positive_count(r, node[i], path, "threads"),
                      positive_count(r, node[i], path, "working_set_bytes"),
                      positive_count(r, node[i], path, "row_bytes"),
                      positive_seconds(r, node[i], path)});
  }
  return points;
}

std::vector<LineGatherPoint> read_line_gather(const Reader& r, const YAML::Node& node) {
  if (!node.IsSequence()) r.fail(node, "line_gather", "expected a list of measured gathers");
  std::vector<LineGatherPoint> points;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("line_gather[{}]", i);
    r.map(node[i], path, {"shape", "threads", "working_set_bytes", "span_bytes", "seconds"},
          {"threads", "working_set_bytes", "span_bytes", "seconds"});
    // A profile made before the copy was measured has the sum alone, and no shape.
    std::string shape = result_format::gather_shape::sum;
    if (node[i]["shape"]) {
      shape = r.text(node[i]["shape"], path + ".shape");
      if (!result_format::gather_shape::known(shape))
        r.fail(node[i]["shape"], path + ".shape", "'" + shape + "'; expected sum or copy");
    }
    points.push_back({shape, positive_count(r, node[i], path, "threads"),
                      positive_count(r, node[i], path, "working_set_bytes"),
                      positive_count(r, node[i], path, "span_bytes"),
                      positive_seconds(r, node[i], path)});
  }
  return points;
}

std::vector<RandomChasePoint> read_random_chase(const Reader& r, const YAML::Node& node) {
  if (!node.IsSequence()) r.fail(node, "random_chase", "expected a list of measured chases");
  std::vector<RandomChasePoint> points;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("random_chase[{}]", i);
    const std::vector<std::string> keys = {"threads", "working_set_bytes", "seconds"};
    r.map(node[i], path, keys, keys);
    points.push_back({positive_count(r, node[i], path, "threads"),
                      positive_count(r, node[i], path, "working_set_bytes"),
                      positive_seconds(r, node[i], path)});
  }
  return points;
}

// A curve point's `kernel`: one of the memory suite's streaming kernels.
std::string streaming_kernel_at(const Reader& r, const YAML::Node& point, const std::string& path) {
  std::string kernel = r.text(point["kernel"], path + ".kernel");
  if (!streaming_kernel(kernel)) {
    r.fail(point["kernel"], path + ".kernel",
           fmt::format("'{}' is not a streaming kernel; expected {}", kernel,
                       streaming_kernel_names()));
  }
  return kernel;
}

std::vector<DramBandwidthPoint> read_dram_bandwidth(const Reader& r, const YAML::Node& node) {
  if (!node.IsSequence()) r.fail(node, "dram_bandwidth", "expected a list of measured rates");
  std::vector<DramBandwidthPoint> points;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("dram_bandwidth[{}]", i);
    const std::vector<std::string> keys = {"kernel", "threads", "working_set_bytes",
                                           "bytes_per_second"};
    r.map(node[i], path, keys, keys);
    DramBandwidthPoint point;
    point.kernel = streaming_kernel_at(r, node[i], path);
    point.threads = positive_count(r, node[i], path, "threads");
    point.working_set_bytes = positive_count(r, node[i], path, "working_set_bytes");
    point.bytes_per_second =
        positive_quantity(r, node[i], path, "bytes_per_second", "B/s", "a rate");
    points.push_back(point);
  }
  return points;
}

std::vector<CacheEdgePoint> read_cache_edges(const Reader& r, const YAML::Node& node) {
  if (!node.IsSequence()) r.fail(node, "cache_edges", "expected a list of measured rates");
  std::vector<CacheEdgePoint> points;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("cache_edges[{}]", i);
    const std::vector<std::string> keys = {"level",
                                           "next",
                                           "kernel",
                                           "threads",
                                           "from_bytes",
                                           "to_bytes",
                                           "working_set_bytes",
                                           "bytes_per_second"};
    r.map(node[i], path, keys, keys);
    CacheEdgePoint point;
    point.level = r.text(node[i]["level"], path + ".level");
    point.next = r.text(node[i]["next"], path + ".next");
    point.kernel = streaming_kernel_at(r, node[i], path);
    point.threads = positive_count(r, node[i], path, "threads");
    point.from_bytes = positive_count(r, node[i], path, "from_bytes");
    point.to_bytes = positive_count(r, node[i], path, "to_bytes");
    point.working_set_bytes = positive_count(r, node[i], path, "working_set_bytes");
    if (!(point.from_bytes < point.working_set_bytes && point.working_set_bytes < point.to_bytes)) {
      r.fail(node[i]["working_set_bytes"], path + ".working_set_bytes",
             fmt::format("{} lies outside the edge; expected between from_bytes ({}) and to_bytes "
                         "({})",
                         point.working_set_bytes, point.from_bytes, point.to_bytes));
    }
    point.bytes_per_second =
        positive_quantity(r, node[i], path, "bytes_per_second", "B/s", "a rate");
    // One edge per level, kernel and thread count, and the edges of one kernel and thread count
    // apart: the predictor interpolates over the points of the edge a working set lies in.
    for (std::size_t j = 0; j < points.size(); ++j) {
      const CacheEdgePoint& other = points[j];
      if (other.kernel != point.kernel || other.threads != point.threads) continue;
      const bool same_edge = other.level == point.level;
      if (same_edge && (other.next != point.next || other.from_bytes != point.from_bytes ||
                        other.to_bytes != point.to_bytes)) {
        r.fail(node[i], path,
               fmt::format("next, from_bytes and to_bytes ({}, {}, {}) differ from cache_edges[{}] "
                           "of the same level, kernel and threads ({}, {}, {})",
                           point.next, point.from_bytes, point.to_bytes, j, other.next,
                           other.from_bytes, other.to_bytes));
      }
      if (!same_edge && point.from_bytes < other.to_bytes && other.from_bytes < point.to_bytes) {
        r.fail(
            node[i], path,
            fmt::format("its edge {} .. {} overlaps cache_edges[{}]'s ({} .. {}, from {}) of the "
                        "same kernel and threads",
                        point.from_bytes, point.to_bytes, j, other.from_bytes, other.to_bytes,
                        other.level));
      }
    }
    points.push_back(point);
  }
  return points;
}

std::vector<UsualState> read_usual_state(const Reader& r, const YAML::Node& node) {
  if (!node.IsSequence()) r.fail(node, "usual_state", "expected a list of probed states");
  std::vector<UsualState> states;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string path = fmt::format("usual_state[{}]", i);
    const std::vector<std::string> keys = {"threads", "triad_bytes", "dram_triad"};
    r.map(node[i], path, keys, keys);
    UsualState state;
    state.threads = positive_count(r, node[i], path, "threads");
    state.triad_bytes = positive_count(r, node[i], path, "triad_bytes");
    state.dram_triad = positive_quantity(r, node[i], path, "dram_triad", "B/s", "a rate");
    for (std::size_t j = 0; j < i; ++j) {
      if (states[j].threads == state.threads) {
        r.fail(node[i]["threads"], path + ".threads",
               fmt::format("{} threads again (usual_state[{}]); expected one state a thread count",
                           state.threads, j));
      }
    }
    states.push_back(state);
  }
  return states;
}

BspParameters read_bsp(const Reader& r, const YAML::Node& node, const std::string& path) {
  r.map(node, path, {"g1_min", "g1_max", "g2_min", "g2_max"},
        {"g1_min", "g1_max", "g2_min", "g2_max"});
  BspParameters b;
  b.g1_min = r.quantity(node["g1_min"], path + ".g1_min", {"s"});
  b.g1_max = r.quantity(node["g1_max"], path + ".g1_max", {"s"});
  b.g2_min = r.quantity(node["g2_min"], path + ".g2_min", {"s"});
  b.g2_max = r.quantity(node["g2_max"], path + ".g2_max", {"s"});
  if (b.g1_max.value < b.g1_min.value) r.fail(node, path, "g1_max is below g1_min");
  if (b.g2_max.value < b.g2_min.value) r.fail(node, path, "g2_max is below g2_min");
  return b;
}

CounterWeights read_weights(const Reader& r, const YAML::Node& node, const std::string& path) {
  r.map(node, path, known_count_terms());
  return r.named<Quantity>(node, path, [&](const YAML::Node& n, const std::string& at) {
    return r.quantity(n, at, {"s"});
  });
}

Contention read_contention(const Reader& r, const YAML::Node& node) {
  r.map(node, "contention", {"counts", "banks", "qsm", "ebsp", "dxbsp", "f1", "f2", "f3"});
  Contention c;
  if (node["counts"]) {
    c.counts = r.text(node["counts"], "contention.counts");
    if (c.counts != "papi" && c.counts != "derived" && c.counts != "transcribed") {
      r.fail(node["counts"], "contention.counts",
             "expected papi (measured counters), derived or transcribed, found '" + c.counts + "'");
    }
  }
  if (node["banks"]) {
    c.banks = r.count(node["banks"], "contention.banks");
    if (*c.banks == 0) r.fail(node["banks"], "contention.banks", "expected at least 1 bank");
  }
  if (node["qsm"]) c.qsm = read_bsp(r, node["qsm"], "contention.qsm");
  if (node["ebsp"]) c.ebsp = read_bsp(r, node["ebsp"], "contention.ebsp");
  if (node["dxbsp"]) c.dxbsp = read_bsp(r, node["dxbsp"], "contention.dxbsp");
  if (node["f1"]) c.f1 = read_weights(r, node["f1"], "contention.f1");
  if (node["f2"]) c.f2 = read_weights(r, node["f2"], "contention.f2");
  if (node["f3"]) c.f3 = read_weights(r, node["f3"], "contention.f3");
  if ((c.f1 || c.f2 || c.f3) && c.counts.empty()) {
    r.fail(node, "contention.counts",
           "missing: the F weights must say where their counts came from");
  }
  return c;
}

Overheads read_overheads(const Reader& r, const YAML::Node& node) {
  r.map(node, "overheads", {"operations", "forms"});
  Overheads o;
  if (node["operations"]) {
    o.operations = r.named<Quantity>(node["operations"], "overheads.operations",
                                     [&](const YAML::Node& n, const std::string& at) {
                                       return r.quantity(n, at, {"s", "B/s"});
                                     });
  }
  if (node["forms"]) {
    o.forms = r.named<Formula>(
        node["forms"], "overheads.forms",
        [&](const YAML::Node& n, const std::string& at) { return r.formula(n, at, "s"); });
  }
  return o;
}

PointToPoint read_point_to_point(const Reader& r, const YAML::Node& node) {
  r.map(node, "point_to_point",
        {"segments", "quality", "measurements", "streaming", "pair_classes"}, {"segments"});
  PointToPoint p;
  const YAML::Node& segments = node["segments"];
  if (!segments.IsSequence() || segments.size() == 0) {
    r.fail(segments, "point_to_point.segments", "expected a list of one or more segments");
  }
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const std::string path = fmt::format("point_to_point.segments[{}]", i);
    const YAML::Node& n = segments[i];
    r.map(n, path, {"from_bytes", "to_bytes", "t0", "r_inf"}, {"from_bytes", "t0", "r_inf"});
    HockneySegment s;
    s.from_bytes = r.non_negative(n["from_bytes"], path + ".from_bytes");
    // Without to_bytes the segment holds for every larger message (the source gave no range).
    s.to_bytes = n["to_bytes"] ? r.non_negative(n["to_bytes"], path + ".to_bytes")
                               : std::numeric_limits<double>::infinity();
    if (s.to_bytes < s.from_bytes) r.fail(n, path, "to_bytes is below from_bytes");
    if (!p.segments.empty() && s.from_bytes < p.segments.back().to_bytes) {
      r.fail(n, path, "overlaps the segment before it (segments go in order of message size)");
    }
    s.t0 = r.quantity(n["t0"], path + ".t0", {"s"});
    s.r_inf = r.quantity(n["r_inf"], path + ".r_inf", {"B/s"});
    if (s.r_inf.value <= 0) r.fail(n["r_inf"], path + ".r_inf.value", "expected a bandwidth > 0");
    p.segments.push_back(s);
  }
  if (node["quality"]) p.quality = r.quality(node["quality"], "point_to_point.quality");
  if (node["measurements"]) {
    const YAML::Node& list = node["measurements"];
    if (!list.IsSequence()) r.fail(list, "point_to_point.measurements", "expected a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("point_to_point.measurements[{}]", i);
      r.map(list[i], path, {"bytes", "ranks", "time"}, {"bytes", "time"});
      PointToPointMeasurement m;
      m.bytes = r.non_negative(list[i]["bytes"], path + ".bytes");
      if (list[i]["ranks"]) m.ranks = r.count(list[i]["ranks"], path + ".ranks");
      m.time = r.quantity(list[i]["time"], path + ".time", {"s"});
      p.measurements.push_back(m);
    }
  }
  if (node["streaming"]) {
    const YAML::Node& list = node["streaming"];
    if (!list.IsSequence()) r.fail(list, "point_to_point.streaming", "expected a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("point_to_point.streaming[{}]", i);
      r.map(list[i], path, {"direction", "bytes", "seconds_per_message"},
            {"direction", "bytes", "seconds_per_message"});
      StreamingMeasurement m;
      m.direction = r.text(list[i]["direction"], path + ".direction");
      if (m.direction != "unidirectional" && m.direction != "bidirectional") {
        r.fail(list[i]["direction"], path + ".direction",
               "expected unidirectional or bidirectional, found '" + m.direction + "'");
      }
      m.bytes = r.non_negative(list[i]["bytes"], path + ".bytes");
      m.seconds_per_message =
          r.quantity(list[i]["seconds_per_message"], path + ".seconds_per_message", {"s"});
      p.streaming.push_back(m);
    }
  }
  if (node["pair_classes"]) {
    const YAML::Node& list = node["pair_classes"];
    if (!list.IsSequence()) r.fail(list, "point_to_point.pair_classes", "expected a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = fmt::format("point_to_point.pair_classes[{}]", i);
      const std::vector<std::string> keys = {"placement",       "pairs",   "latency_bytes",
                                             "bandwidth_bytes", "latency", "bandwidth"};
      r.map(list[i], path, keys, keys);
      PairClass c;
      c.placement = r.text(list[i]["placement"], path + ".placement");
      if (std::find(kPairPlacements.begin(), kPairPlacements.end(), c.placement) ==
          kPairPlacements.end()) {
        std::string known;  // "same-core, ..., same-node or other-node"
        for (std::size_t k = 0; k < kPairPlacements.size(); ++k) {
          known += k == 0 ? "" : k + 1 == kPairPlacements.size() ? " or " : ", ";
          known += kPairPlacements[k];
        }
        r.fail(list[i]["placement"], path + ".placement",
               "expected " + known + ", found '" + c.placement + "'");
      }
      c.pairs = r.count(list[i]["pairs"], path + ".pairs");
      c.latency_bytes = r.non_negative(list[i]["latency_bytes"], path + ".latency_bytes");
      c.bandwidth_bytes = r.non_negative(list[i]["bandwidth_bytes"], path + ".bandwidth_bytes");
      c.latency = r.quantity(list[i]["latency"], path + ".latency", {"s"});
      c.bandwidth = r.quantity(list[i]["bandwidth"], path + ".bandwidth", {"B/s"});
      p.pair_classes.push_back(c);
    }
  }
  return p;
}

// A term's shape in one parameter: [exponent, power of the logarithm], e.g. [1, 1] for n log n.
void read_shape(const Reader& r, const YAML::Node& node, const std::string& path, double& exponent,
                int& log_power) {
  if (!node.IsSequence() || node.size() != 2) {
    r.fail(node, path, "expected [exponent, power of log2], e.g. [0, 1] for log n");
  }
  exponent = r.number(node[0], path + "[0]");
  const double log = r.number(node[1], path + "[1]");
  if (log < 0 || log > 3 || log != static_cast<double>(static_cast<int>(log))) {
    r.fail(node[1], path + "[1]", "expected a whole power of log2 from 0 to 3");
  }
  log_power = static_cast<int>(log);
  if (exponent < -2 || exponent > 4) r.fail(node[0], path + "[0]", "expected an exponent -2 to 4");
}

TwoParameterFormula read_two_parameter(const Reader& r, const YAML::Node& node,
                                       const std::string& path) {
  r.map(node, path, {"unit", "terms", "origin", "quality", "sources", "note"},
        {"unit", "terms", "origin"});
  TwoParameterFormula f;
  f.unit = r.text(node["unit"], path + ".unit");
  if (f.unit != "s") r.fail(node["unit"], path + ".unit", "expected 's', found '" + f.unit + "'");
  const YAML::Node& terms = node["terms"];
  if (!terms.IsSequence() || terms.size() == 0) {
    r.fail(terms, path + ".terms", "expected a list of one or more terms");
  }
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::string at = fmt::format("{}.terms[{}]", path, i);
    r.map(terms[i], at, {"ranks", "bytes", "coefficient", "interval"}, {"coefficient"});
    TwoParameterTerm t;
    t.coefficient = r.number(terms[i]["coefficient"], at + ".coefficient");
    if (terms[i]["ranks"])
      read_shape(r, terms[i]["ranks"], at + ".ranks", t.ranks_exponent, t.ranks_log);
    if (terms[i]["bytes"])
      read_shape(r, terms[i]["bytes"], at + ".bytes", t.bytes_exponent, t.bytes_log);
    if (terms[i]["interval"]) t.interval = r.interval(terms[i]["interval"], at + ".interval", true);
    f.terms.push_back(t);
  }
  f.origin = r.origin(node["origin"], path + ".origin");
  if (node["quality"]) f.quality = r.quality(node["quality"], path + ".quality");
  if (node["sources"]) f.sources = r.texts(node["sources"], path + ".sources");
  if (node["note"]) f.note = r.text(node["note"], path + ".note");
  return f;
}

Collective read_collective(const Reader& r, const YAML::Node& node, const std::string& path) {
  r.map(node, path,
        {"t0", "seconds_per_byte", "message_bytes", "ranks", "measurements", "ranks_and_bytes"});
  Collective c;
  // Without t0 no form in n was fitted: the collective is its measured points alone.
  if (node["t0"]) {
    c.t0 = r.formula(node["t0"], path + ".t0", "s");
  } else if (!node["measurements"]) {
    r.fail(node, path + ".t0", "missing: a collective has a form t0 in n, measurements or both");
  }
  if (node["seconds_per_byte"]) {
    if (!node["t0"]) {
      r.fail(node["seconds_per_byte"], path + ".seconds_per_byte",
             "a form per byte needs its t0 (there is none)");
    }
    c.seconds_per_byte = r.formula(node["seconds_per_byte"], path + ".seconds_per_byte", "s/B");
  }
  if (node["message_bytes"])
    c.message_bytes = r.non_negative(node["message_bytes"], path + ".message_bytes");
  if (node["ranks"]) {
    const YAML::Node& list = node["ranks"];
    if (!list.IsSequence()) r.fail(list, path + ".ranks", "expected a list of communicator sizes");
    for (std::size_t i = 0; i < list.size(); ++i) {
      c.ranks.push_back(r.count(list[i], fmt::format("{}.ranks[{}]", path, i)));
    }
  }
  if (node["measurements"]) {
    const YAML::Node& list = node["measurements"];
    const std::string at = path + ".measurements";
    if (!list.IsSequence() || list.size() == 0) {
      r.fail(list, at, "expected a list of one or more measured points");
    }
    std::set<std::pair<std::uint64_t, double>> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string item = fmt::format("{}[{}]", at, i);
      const YAML::Node& n = list[i];
      r.map(n, item, {"ranks", "bytes", "time"}, {"ranks", "bytes", "time"});
      CollectiveMeasurement m;
      m.ranks = r.count(n["ranks"], item + ".ranks");
      if (m.ranks == 0) r.fail(n["ranks"], item + ".ranks", "expected at least 1 rank");
      m.bytes = r.non_negative(n["bytes"], item + ".bytes");
      m.time = r.quantity(n["time"], item + ".time", {"s"});
      if (!seen.emplace(m.ranks, m.bytes).second) {
        r.fail(n, item,
               fmt::format("a second point at ranks {} and bytes {}; each is measured once",
                           m.ranks, m.bytes));
      }
      c.measurements.push_back(m);
    }
  }
  if (node["ranks_and_bytes"]) {
    c.ranks_and_bytes = read_two_parameter(r, node["ranks_and_bytes"], path + ".ranks_and_bytes");
  }
  return c;
}

// --- writing ---

std::string number_text(double value) { return fmt::format("{}", value); }

void emit_interval(YAML::Emitter& out, const Interval& interval) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "low" << YAML::Value
      << number_text(interval.low) << YAML::Key << "high" << YAML::Value
      << number_text(interval.high) << YAML::Key << "level" << YAML::Value
      << number_text(interval.level) << YAML::EndMap;
}

void emit_quality(YAML::Emitter& out, const FitQuality& q) {
  out << YAML::Flow << YAML::BeginMap << YAML::Key << "mean_relative_error" << YAML::Value
      << number_text(q.mean_relative_error) << YAML::Key << "max_relative_error" << YAML::Value
      << number_text(q.max_relative_error) << YAML::Key << "points" << YAML::Value << q.points
      << YAML::EndMap;
}

void emit_sources_note(YAML::Emitter& out, const std::vector<std::string>& sources,
                       const std::string& note) {
  if (!sources.empty()) {
    out << YAML::Key << "sources" << YAML::Value << YAML::Flow << sources;
  }
  if (!note.empty()) out << YAML::Key << "note" << YAML::Value << note;
}

void emit_quantity(YAML::Emitter& out, const Quantity& q) {
  out << YAML::BeginMap << YAML::Key << "value" << YAML::Value << number_text(q.value) << YAML::Key
      << "unit" << YAML::Value << q.unit << YAML::Key << "origin" << YAML::Value
      << to_string(q.origin);
  if (q.interval) {
    out << YAML::Key << "interval" << YAML::Value;
    emit_interval(out, *q.interval);
  }
  if (q.quality) {
    out << YAML::Key << "quality" << YAML::Value;
    emit_quality(out, *q.quality);
  }
  emit_sources_note(out, q.sources, q.note);
  out << YAML::EndMap;
}

// What a fitted form ends with: its origin, quality, sources and note, and the end of its map.
void emit_fit_tail(YAML::Emitter& out, Origin origin, const std::optional<FitQuality>& quality,
                   const std::vector<std::string>& sources, const std::string& note) {
  out << YAML::Key << "origin" << YAML::Value << to_string(origin);
  if (quality) {
    out << YAML::Key << "quality" << YAML::Value;
    emit_quality(out, *quality);
  }
  emit_sources_note(out, sources, note);
  out << YAML::EndMap;
}

void emit_formula(YAML::Emitter& out, const Formula& f) {
  const bool per_byte = f.unit == "s/B";
  out << YAML::BeginMap << YAML::Key << "unit" << YAML::Value << f.unit;
  out << YAML::Comment(fmt::format("{} ({})", f.text(1e6), per_byte ? "us per byte" : "us"));
  out << YAML::Key << "terms" << YAML::Value << YAML::BeginSeq;
  for (const Term& term : f.terms) {
    out << YAML::Flow << YAML::BeginMap << YAML::Key << "basis" << YAML::Value << term.basis
        << YAML::Key << "coefficient" << YAML::Value << number_text(term.coefficient);
    if (term.basis == "n^c") {
      out << YAML::Key << "exponent" << YAML::Value << number_text(term.exponent);
    }
    if (term.interval) {
      out << YAML::Key << "interval" << YAML::Value;
      emit_interval(out, *term.interval);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  emit_fit_tail(out, f.origin, f.quality, f.sources, f.note);
}

void emit_two_parameter(YAML::Emitter& out, const TwoParameterFormula& f) {
  out << YAML::BeginMap << YAML::Key << "unit" << YAML::Value << f.unit;
  out << YAML::Comment(fmt::format("t(n, m) = {} (us; m in bytes)", f.text(1e6)));
  out << YAML::Key << "terms" << YAML::Value << YAML::BeginSeq;
  for (const TwoParameterTerm& t : f.terms) {
    out << YAML::Flow << YAML::BeginMap;
    if (t.ranks_exponent != 0 || t.ranks_log != 0) {
      out << YAML::Key << "ranks" << YAML::Value << YAML::Flow << YAML::BeginSeq
          << number_text(t.ranks_exponent) << t.ranks_log << YAML::EndSeq;
    }
    if (t.bytes_exponent != 0 || t.bytes_log != 0) {
      out << YAML::Key << "bytes" << YAML::Value << YAML::Flow << YAML::BeginSeq
          << number_text(t.bytes_exponent) << t.bytes_log << YAML::EndSeq;
    }
    out << YAML::Key << "coefficient" << YAML::Value << number_text(t.coefficient);
    if (t.interval) {
      out << YAML::Key << "interval" << YAML::Value;
      emit_interval(out, *t.interval);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  emit_fit_tail(out, f.origin, f.quality, f.sources, f.note);
}

template <typename T, typename Emit>
void emit_named(YAML::Emitter& out, const std::map<std::string, T>& values, Emit emit) {
  out << YAML::BeginMap;
  for (const auto& [name, value] : values) {
    out << YAML::Key << name << YAML::Value;
    emit(out, value);
  }
  out << YAML::EndMap;
}

void emit_text(YAML::Emitter& out, const char* key, const std::string& value) {
  if (!value.empty()) out << YAML::Key << key << YAML::Value << value;
}

}  // namespace

Profile parse_profile(const std::string& text, const std::string& where) {
  const Reader r(where);
  // YAML is Unicode text: a byte that is not UTF-8 would not be read back as it was.
  if (const std::size_t bad = invalid_utf8_at(text); bad != std::string::npos) {
    const auto line =
        1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n');
    throw input_error(fmt::format("{}:{}", where, line),
                      fmt::format("byte 0x{:02X} is not UTF-8; a profile is UTF-8 text",
                                  static_cast<unsigned char>(text[bad])));
  }
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw input_error(fmt::format("{}:{}", where, e.mark.line + 1), "not valid YAML: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull()) r.fail(root, "", "empty file; expected a sonde profile");
  r.map(root, "",
        {"schema", "version", "machine", "provenance", "compute", "memory", "column_walk",
         "line_gather", "random_chase", "dram_bandwidth", "cache_edges", "usual_state",
         "contention", "overheads", "point_to_point", "collectives", "not_fitted"},
        {"schema", "version", "machine", "provenance"});
  const std::string schema = r.text(root["schema"], "schema");
  if (schema != kSchemaName) {
    r.fail(root["schema"], "schema", fmt::format("expected '{}', found '{}'", kSchemaName, schema));
  }
  Profile p;
  const double version = r.number(root["version"], "version");
  if (version != kSchemaVersion) {
    r.fail(root["version"], "version",
           fmt::format("this is a version {} profile; this sonde reads version {}",
                       root["version"].Scalar(), kSchemaVersion));
  }
  p.machine = read_machine(r, root["machine"]);
  p.provenance = read_provenance(r, root["provenance"]);
  if (root["compute"]) p.compute = read_compute(r, root["compute"]);
  if (root["memory"]) p.memory = read_memory(r, root["memory"]);
  if (root["column_walk"]) p.column_walk = read_column_walk(r, root["column_walk"]);
  if (root["line_gather"]) p.line_gather = read_line_gather(r, root["line_gather"]);
  if (root["random_chase"]) p.random_chase = read_random_chase(r, root["random_chase"]);
  if (root["dram_bandwidth"]) p.dram_bandwidth = read_dram_bandwidth(r, root["dram_bandwidth"]);
  if (root["cache_edges"]) p.cache_edges = read_cache_edges(r, root["cache_edges"]);
  if (root["usual_state"]) p.usual_state = read_usual_state(r, root["usual_state"]);
  if (root["contention"]) p.contention = read_contention(r, root["contention"]);
  if (root["overheads"]) p.overheads = read_overheads(r, root["overheads"]);
  if (root["point_to_point"]) p.point_to_point = read_point_to_point(r, root["point_to_point"]);
  if (root["collectives"]) {
    p.collectives = r.named<Collective>(
        root["collectives"], "collectives",
        [&](const YAML::Node& n, const std::string& path) { return read_collective(r, n, path); });
  }
  if (root["not_fitted"]) p.not_fitted = r.texts(root["not_fitted"], "not_fitted");
  return p;
}

Profile read_profile(const std::filesystem::path& path) {
  return parse_profile(read_file(path), path.string());
}

std::map<std::string, Profile> reference_profiles(const std::vector<std::string>& given,
                                                  const std::vector<std::string>& named,
                                                  const std::filesystem::path& target) {
  std::map<std::string, Profile> profiles;
  for (const std::string& path : given) {
    Profile profile = read_profile(path);
    profiles[profile.machine.name] = std::move(profile);
  }
  for (const std::string& machine : named) {
    const auto beside = target.parent_path() / (machine + ".yaml");
    if (!machine.empty() && !profiles.count(machine) && std::filesystem::exists(beside)) {
      profiles[machine] = read_profile(beside);
    }
  }
  return profiles;
}

std::string to_yaml(const Profile& p) {
  YAML::Emitter out;
  out << YAML::Comment(fmt::format("sonde machine profile: {}", p.machine.name));
  out << YAML::BeginMap;
  out << YAML::Key << "schema" << YAML::Value << kSchemaName;
  out << YAML::Key << "version" << YAML::Value << p.version;

  out << YAML::Key << "machine" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << p.machine.name;
  emit_text(out, "description", p.machine.description);
  if (p.machine.nodes) out << YAML::Key << "nodes" << YAML::Value << *p.machine.nodes;
  if (p.machine.cores_per_node) {
    out << YAML::Key << "cores_per_node" << YAML::Value << *p.machine.cores_per_node;
  }
  if (p.machine.clock) {
    out << YAML::Key << "clock" << YAML::Value;
    emit_quantity(out, *p.machine.clock);
  }
  out << YAML::EndMap;

  const Provenance& v = p.provenance;
  out << YAML::Key << "provenance" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "origin" << YAML::Value << to_string(v.origin);
  emit_text(out, "citation", v.citation);
  emit_text(out, "host", v.host);
  emit_text(out, "cpu_model", v.cpu_model);
  emit_text(out, "topology", v.topology);
  emit_text(out, "compiler", v.compiler);
  emit_text(out, "mpi_library", v.mpi_library);
  emit_text(out, "mpi_version", v.mpi_version);
  emit_text(out, "date", v.date);
  emit_text(out, "sonde_version", v.sonde_version);
  emit_text(out, "results", v.results);
  emit_text(out, "results_digest", v.results_digest);
  if (!v.unfinished_parts.empty()) {
    out << YAML::Key << "unfinished_parts" << YAML::Value << YAML::BeginSeq;
    for (const std::string& part : v.unfinished_parts) out << part;
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;

  const Compute& c = p.compute;
  if (c.peak_flops_per_core || c.peak_flops_per_node || !c.kernels.empty() ||
      c.shared_ports_exponent) {
    out << YAML::Key << "compute" << YAML::Value << YAML::BeginMap;
    if (c.peak_flops_per_core) {
      out << YAML::Key << "peak_flops_per_core" << YAML::Value;
      emit_quantity(out, *c.peak_flops_per_core);
    }
    if (c.peak_flops_per_node) {
      out << YAML::Key << "peak_flops_per_node" << YAML::Value;
      emit_quantity(out, *c.peak_flops_per_node);
    }
    if (!c.kernels.empty()) {
      out << YAML::Key << "kernels" << YAML::Value;
      emit_named(out, c.kernels, emit_quantity);
    }
    if (c.shared_ports_exponent) {
      out << YAML::Key << "shared_ports_exponent" << YAML::Value;
      emit_quantity(out, *c.shared_ports_exponent);
    }
    out << YAML::EndMap;
  }

  if (!p.memory.empty()) {
    out << YAML::Key << "memory" << YAML::Value << YAML::BeginSeq;
    for (const MemoryLevel& level : p.memory) {
      out << YAML::BeginMap << YAML::Key << "name" << YAML::Value << level.name;
      if (level.capacity_bytes) {
        out << YAML::Key << "capacity_bytes" << YAML::Value << *level.capacity_bytes;
      }
      if (level.line_bytes) out << YAML::Key << "line_bytes" << YAML::Value << *level.line_bytes;
      if (level.ways) out << YAML::Key << "ways" << YAML::Value << *level.ways;
      if (level.detected_capacity) {
        out << YAML::Key << "detected_capacity" << YAML::Value;
        emit_quantity(out, *level.detected_capacity);
      }
      if (level.latency) {
        out << YAML::Key << "latency" << YAML::Value;
        emit_quantity(out, *level.latency);
      }
      if (!level.bandwidth.empty()) {
        out << YAML::Key << "bandwidth" << YAML::Value;
        emit_named(out, level.bandwidth, emit_quantity);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!p.column_walk.empty()) {
    out << YAML::Key << "column_walk" << YAML::Value << YAML::BeginSeq;
    for (const ColumnWalkPoint& point : p.column_walk) {
      out << YAML::BeginMap << YAML::Key << "threads" << YAML::Value << point.threads << YAML::Key
          << "working_set_bytes" << YAML::Value << point.working_set_bytes << YAML::Key
          << "row_bytes" << YAML::Value << point.row_bytes << YAML::Key << "seconds" << YAML::Value;
      emit_quantity(out, point.seconds);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!p.line_gather.empty()) {
    out << YAML::Key << "line_gather" << YAML::Value << YAML::BeginSeq;
    for (const LineGatherPoint& point : p.line_gather) {
      out << YAML::BeginMap << YAML::Key << "shape" << YAML::Value << point.shape << YAML::Key
          << "threads" << YAML::Value << point.threads << YAML::Key << "working_set_bytes"
          << YAML::Value << point.working_set_bytes << YAML::Key << "span_bytes" << YAML::Value
          << point.span_bytes << YAML::Key << "seconds" << YAML::Value;
      emit_quantity(out, point.seconds);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!p.random_chase.empty()) {
    out << YAML::Key << "random_chase" << YAML::Value << YAML::BeginSeq;
    for (const RandomChasePoint& point : p.random_chase) {
      out << YAML::BeginMap << YAML::Key << "threads" << YAML::Value << point.threads << YAML::Key
          << "working_set_bytes" << YAML::Value << point.working_set_bytes << YAML::Key << "seconds"
          << YAML::Value;
      emit_quantity(out, point.seconds);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }

  if (!p.dram_bandwidth.empty()) {
    out << YAML::Key << "dram_bandwidth" << YAML::Value << YAML::BeginSeq;
    for (const DramBandwidthPoint& point : p.dram_bandwidth) {
      out << YAML::BeginMap << YAML::Key << "kernel" << YAML::Value << point.kernel << YAML::Key
          << "threads" << YAML::Value << point.threads << YAML::Key << "working_set_bytes"
          << YAML::Value << point.working_set_bytes << YAML::Key << "bytes_per_second"
          << YAML::Value;
      emit_quantity(out, point.bytes_per_second);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!p.cache_edges.empty()) {
    out << YAML::Key << "cache_edges" << YAML::Value << YAML::BeginSeq;
    for (const CacheEdgePoint& point : p.cache_edges) {
      out << YAML::BeginMap << YAML::Key << "level" << YAML::Value << point.level << YAML::Key
          << "next" << YAML::Value << point.next << YAML::Key << "kernel" << YAML::Value
          << point.kernel << YAML::Key << "threads" << YAML::Value << point.threads << YAML::Key
          << "from_bytes" << YAML::Value << point.from_bytes << YAML::Key << "to_bytes"
          << YAML::Value << point.to_bytes << YAML::Key << "working_set_bytes" << YAML::Value
          << point.working_set_bytes << YAML::Key << "bytes_per_second" << YAML::Value;
      emit_quantity(out, point.bytes_per_second);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!p.usual_state.empty()) {
    out << YAML::Key << "usual_state" << YAML::Value << YAML::BeginSeq;
    for (const UsualState& state : p.usual_state) {
      out << YAML::BeginMap << YAML::Key << "threads" << YAML::Value << state.threads << YAML::Key
          << "triad_bytes" << YAML::Value << state.triad_bytes << YAML::Key << "dram_triad"
          << YAML::Value;
      emit_quantity(out, state.dram_triad);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }

  if (p.contention) {
    const Contention& k = *p.contention;
    out << YAML::Key << "contention" << YAML::Value << YAML::BeginMap;
    emit_text(out, "counts", k.counts);
    if (k.banks) out << YAML::Key << "banks" << YAML::Value << *k.banks;
    const auto bsp = [&](const char* key, const std::optional<BspParameters>& b) {
      if (!b) return;
      out << YAML::Key << key << YAML::Value << YAML::BeginMap;
      for (const auto& [name, q] : {std::pair{"g1_min", &b->g1_min},
                                    {"g1_max", &b->g1_max},
                                    {"g2_min", &b->g2_min},
                                    {"g2_max", &b->g2_max}}) {
        out << YAML::Key << name << YAML::Value;
        emit_quantity(out, *q);
      }
      out << YAML::EndMap;
    };
    bsp("qsm", k.qsm);
    bsp("ebsp", k.ebsp);
    bsp("dxbsp", k.dxbsp);
    for (const auto& [key, weights] : {std::pair{"f1", &k.f1}, {"f2", &k.f2}, {"f3", &k.f3}}) {
      if (!*weights) continue;
      out << YAML::Key << key << YAML::Value;
      emit_named(out, **weights, emit_quantity);
    }
    out << YAML::EndMap;
  }

  if (!p.overheads.operations.empty() || !p.overheads.forms.empty()) {
    out << YAML::Key << "overheads" << YAML::Value << YAML::BeginMap;
    if (!p.overheads.operations.empty()) {
      out << YAML::Key << "operations" << YAML::Value;
      emit_named(out, p.overheads.operations, emit_quantity);
    }
    if (!p.overheads.forms.empty()) {
      out << YAML::Key << "forms" << YAML::Value;
      emit_named(out, p.overheads.forms, emit_formula);
    }
    out << YAML::EndMap;
  }

  if (p.point_to_point) {
    const PointToPoint& pp = *p.point_to_point;
    out << YAML::Key << "point_to_point" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "segments" << YAML::Value << YAML::BeginSeq;
    for (const HockneySegment& s : pp.segments) {
      out << YAML::BeginMap << YAML::Key << "from_bytes" << YAML::Value
          << number_text(s.from_bytes);
      if (std::isfinite(s.to_bytes)) {
        out << YAML::Key << "to_bytes" << YAML::Value << number_text(s.to_bytes);
      }
      out << YAML::Key << "t0" << YAML::Value;
      emit_quantity(out, s.t0);
      out << YAML::Key << "r_inf" << YAML::Value;
      emit_quantity(out, s.r_inf);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
    if (pp.quality) {
      out << YAML::Key << "quality" << YAML::Value;
      emit_quality(out, *pp.quality);
    }
    if (!pp.measurements.empty()) {
      out << YAML::Key << "measurements" << YAML::Value << YAML::BeginSeq;
      for (const PointToPointMeasurement& m : pp.measurements) {
        out << YAML::BeginMap << YAML::Key << "bytes" << YAML::Value << number_text(m.bytes);
        if (m.ranks) out << YAML::Key << "ranks" << YAML::Value << *m.ranks;
        out << YAML::Key << "time" << YAML::Value;
        emit_quantity(out, m.time);
        out << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    if (!pp.streaming.empty()) {
      out << YAML::Key << "streaming" << YAML::Value << YAML::BeginSeq;
      for (const StreamingMeasurement& m : pp.streaming) {
        out << YAML::BeginMap << YAML::Key << "direction" << YAML::Value << m.direction << YAML::Key
            << "bytes" << YAML::Value << number_text(m.bytes) << YAML::Key << "seconds_per_message"
            << YAML::Value;
        emit_quantity(out, m.seconds_per_message);
        out << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    if (!pp.pair_classes.empty()) {
      out << YAML::Key << "pair_classes" << YAML::Value << YAML::BeginSeq;
      for (const PairClass& c : pp.pair_classes) {
        out << YAML::BeginMap << YAML::Key << "placement" << YAML::Value << c.placement << YAML::Key
            << "pairs" << YAML::Value << c.pairs << YAML::Key << "latency_bytes" << YAML::Value
            << number_text(c.latency_bytes) << YAML::Key << "bandwidth_bytes" << YAML::Value
            << number_text(c.bandwidth_bytes) << YAML::Key << "latency" << YAML::Value;
        emit_quantity(out, c.latency);
        out << YAML::Key << "bandwidth" << YAML::Value;
        emit_quantity(out, c.bandwidth);
        out << YAML::EndMap;
      }
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }

  if (!p.collectives.empty()) {
    out << YAML::Key << "collectives" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, collective] : p.collectives) {
      out << YAML::Key << name << YAML::Value << YAML::BeginMap;
      if (collective.has_forms()) {
        out << YAML::Key << "t0" << YAML::Value;
        emit_formula(out, collective.t0);
      }
      if (collective.seconds_per_byte) {
        out << YAML::Key << "seconds_per_byte" << YAML::Value;
        emit_formula(out, *collective.seconds_per_byte);
      }
      if (collective.message_bytes) {
        out << YAML::Key << "message_bytes" << YAML::Value
            << number_text(*collective.message_bytes);
      }
      if (!collective.ranks.empty()) {
        out << YAML::Key << "ranks" << YAML::Value << YAML::Flow << collective.ranks;
      }
      if (collective.ranks_and_bytes) {
        out << YAML::Key << "ranks_and_bytes" << YAML::Value;
        emit_two_parameter(out, *collective.ranks_and_bytes);
      }
      if (!collective.measurements.empty()) {
        out << YAML::Key << "measurements" << YAML::Value << YAML::BeginSeq;
        for (const CollectiveMeasurement& m : collective.measurements) {
          out << YAML::BeginMap << YAML::Key << "ranks" << YAML::Value << m.ranks << YAML::Key
              << "bytes" << YAML::Value << number_text(m.bytes) << YAML::Key << "time"
              << YAML::Value;
          emit_quantity(out, m.time);
          out << YAML::EndMap;
        }
        out << YAML::EndSeq;
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
  }
  if (!p.not_fitted.empty()) {
    out << YAML::Key << "not_fitted" << YAML::Value << YAML::BeginSeq;
    for (const std::string& line : p.not_fitted) out << line;
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  if (!out.good()) throw Error(ExitCode::failure, "profile", "YAML emitter: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

void write_profile(const Profile& profile, const std::filesystem::path& path) {
  // What is written must read back: a profile that breaks the schema is refused, and the file
  // already there stays as it was.
  const std::string text = to_yaml(profile);
  parse_profile(text, path.string() + " (not written)");
  write_file_atomically(path, text);
}

}  // namespace sonde::profile
