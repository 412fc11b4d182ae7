#include "fit/suite_summaries.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/units.hpp"
#include "fit/hockney.hpp"

namespace sonde::fit {

namespace {

const std::vector<std::string>& overhead_counters() {
  static const std::vector<std::string> counters{"seconds_per_switch", "seconds_per_message",
                                                 "seconds_per_operation", "bytes_per_second"};
  return counters;
}

const std::vector<std::string>& contention_counters() {
  static const std::vector<std::string> counters{"seconds_per_access", "seconds_per_operation",
                                                 "seconds_per_load"};
  return counters;
}

const std::vector<std::string>& compute_counters() {
  static const std::vector<std::string> counters{"flops_per_second", "seconds_per_operation"};
  return counters;
}

std::string value_text(const std::string& counter, double value) {
  if (counter == "bytes_per_second") return format_bytes_per_second(value);
  if (counter == "flops_per_second") return fmt::format("{:.1f} Gflop/s", value / 1e9);
  return format_seconds(value);
}

// The registered name: the run name without Google Benchmark's suffixes (/repeats:, /real_time).
std::string registered_name(const std::string& run_name) {
  std::string name = run_name;
  for (const char* suffix : {"/manual_time", "/real_time"}) {
    if (const auto at = name.find(suffix); at != std::string::npos) name.erase(at);
  }
  for (const char* field : {"/repeats:", "/min_time:"}) {
    if (const auto at = name.find(field); at != std::string::npos) name.erase(at);
  }
  return name;
}

}  // namespace

bool has_suite(const std::vector<ResultFile>& files, const std::string& suite) {
  return std::any_of(files.begin(), files.end(), [&](const ResultFile& file) {
    if (!file.context.contains("sonde") || file.context["sonde"].value("suite", "") != suite)
      return false;
    // The latency probe that sized a run is the memory program's, but no memory-suite result.
    const nlohmann::json plan =
        file.context["sonde"].value(suite + "_suite", nlohmann::json::object());
    return plan.value("parts", nlohmann::json::array()) != nlohmann::json::array({"probe"});
  });
}

std::vector<SummaryRow> summary_rows(const std::vector<ResultFile>& files, const std::string& suite,
                                     const std::vector<std::string>& counters) {
  std::vector<SummaryRow> rows;
  std::map<std::string, std::size_t> index;
  for (const ResultFile& file : files) {
    if (file.sonde_context().value("suite", "") != suite) continue;
    for (const BenchmarkRecord& record : file.benchmarks) {
      if (record.run_type != "aggregate" || !record.error_message.empty()) continue;
      const auto found = std::find_if(counters.begin(), counters.end(), [&](const std::string& c) {
        return record.counter(c).has_value();
      });
      if (found == counters.end()) continue;
      auto [it, inserted] = index.try_emplace(record.run_name, rows.size());
      if (inserted) {
        rows.push_back({registered_name(record.run_name), record.params, *found, 0, 0, 0, 0, {}});
      }
      SummaryRow& row = rows[it->second];
      const double value = *record.counter(row.counter);
      if (record.aggregate_name == "median") {
        row.median = value;
        row.counters = record.counters;
      }
      if (record.aggregate_name == "min") row.min = value;
      if (record.aggregate_name == "max") row.max = value;
      if (record.aggregate_name == "cv") row.cv = value;
    }
  }
  return rows;
}

std::string format_contention_summary(const std::vector<ResultFile>& files) {
  const std::vector<SummaryRow> rows = summary_rows(files, "contention", contention_counters());
  // Amato et al.'s (1999) experiments as a table: one row per px.<level>.<access><sharing>, one
  // column per stride, nanoseconds per access seen by one thread.
  std::vector<unsigned> strides;
  std::map<std::string, std::map<unsigned, double>> table;
  std::vector<std::string> order;
  for (const SummaryRow& row : rows) {
    if (row.counter != "seconds_per_access") continue;
    const auto& p = row.params;
    const unsigned stride = p.value("stride_words", 0u);
    if (std::find(strides.begin(), strides.end(), stride) == strides.end())
      strides.push_back(stride);
    const std::string key =
        fmt::format("p{}.{}.{}{}", p.value("threads", 0u), p.value("level_target", ""),
                    p.value("access", "") == "store" ? 'S' : 'L',
                    p.value("sharing", "") == "concurrent" ? 'C' : 'E');
    if (!table.count(key)) order.push_back(key);
    table[key][stride] = row.median;
  }
  std::sort(strides.begin(), strides.end());
  std::string text =
      "\nContention (Amato et al. (1999), Table 1): ns per access seen by one thread, by stride in "
      "words\n";
  text += fmt::format("{:<16}", "experiment");
  for (unsigned stride : strides) text += fmt::format(" {:>7}", fmt::format("s{}", stride));
  text += "\n";
  for (const std::string& key : order) {
    text += fmt::format("{:<16}", key);
    for (unsigned stride : strides) {
      const auto it = table[key].find(stride);
      text += it == table[key].end() ? fmt::format(" {:>7}", "-")
                                     : fmt::format(" {:>7.2f}", it->second * 1e9);
    }
    text += "\n";
  }
  for (const SummaryRow& row : rows) {
    if (row.counter == "seconds_per_access") continue;
    text += fmt::format("{:<44} {:>12}  [{} - {}]\n", row.name, value_text(row.counter, row.median),
                        value_text(row.counter, row.min), value_text(row.counter, row.max));
  }
  return text;
}

std::string format_overhead_summary(const std::vector<ResultFile>& files) {
  std::string text =
      "\nOverheads (Xu and Hwang (1995), Tables 2 and 3): median over repetitions [min - max]\n";
  text += fmt::format("{:<44} {:>12}  {}\n", "benchmark", "median", "spread");
  for (const SummaryRow& row : summary_rows(files, "overhead", overhead_counters())) {
    std::string what =
        row.counter == "bytes_per_second" ? "" : row.counter.substr(row.counter.find('_') + 1);
    std::replace(what.begin(), what.end(), '_', ' ');
    text +=
        fmt::format("{:<44} {:>12}  [{} - {}] {}\n", row.name, value_text(row.counter, row.median),
                    value_text(row.counter, row.min), value_text(row.counter, row.max), what);
  }
  return text;
}

std::string format_compute_summary(const std::vector<ResultFile>& files) {
  const std::vector<SummaryRow> rows = summary_rows(files, "compute", compute_counters());
  std::string text = "\nPeak floating-point rate (fused multiply-add, independent accumulators)\n";
  text += fmt::format("{:<12} {:>8} {:>16} {:>16}\n", "unit", "threads", "median", "[min - max]");
  for (const SummaryRow& row : rows) {
    if (row.counter != "flops_per_second") continue;
    text += fmt::format("{:<12} {:>8} {:>16} [{:.1f} - {:.1f}]\n", row.params.value("unit", ""),
                        row.params.value("threads", 0), value_text(row.counter, row.median),
                        row.min / 1e9, row.max / 1e9);
  }
  // Fahringer and Pozgaj's (2000) kernel library; the add's throughput is the unit of Xu and
  // Hwang's (1995) flop count.
  std::map<std::string, std::map<std::string, double>> seconds;  // operation -> mode -> s
  std::map<std::string, unsigned> rule;
  for (const SummaryRow& row : rows) {
    if (row.counter != "seconds_per_operation") continue;
    const std::string operation = row.params.value("operation", "");
    seconds[operation][row.params.value("mode", "")] = row.median;
    rule[operation] = row.params.value("counted_flops", 0u);
  }
  if (seconds.empty()) return text;
  const double add = seconds.count("add") ? seconds["add"]["throughput"] : 0;
  text +=
      "\nKernel library (one thread; latency: one dependent chain; throughput: 8 independent)\n";
  text += fmt::format("{:<15} {:>12} {:>12} {:>16} {:>16}\n", "operation", "latency", "throughput",
                      "adds (measured)", "flops (Xu and Hwang (1995))");
  for (const auto& [operation, modes] : seconds) {
    const double throughput = modes.count("throughput") ? modes.at("throughput") : 0;
    const std::string in_adds =
        add > 0 && throughput > 0 ? fmt::format("{:.1f}", throughput / add) : std::string("-");
    text += fmt::format("{:<15} {:>12} {:>12} {:>16} {:>16}\n", operation,
                        modes.count("latency") ? format_seconds(modes.at("latency")) : "-",
                        throughput > 0 ? format_seconds(throughput) : "-", in_adds,
                        rule[operation] > 0 ? std::to_string(rule[operation]) : "-");
  }
  return text;
}

std::string format_mpi_summary(const std::vector<ResultFile>& files) {
  // Ping-pong (Xu and Hwang (1995), section 4): half the round trip, and the rate it implies.
  std::map<std::uint64_t, std::pair<const SummaryRow*, const SummaryRow*>> pingpong;
  const std::vector<SummaryRow> times = summary_rows(files, "mpi", {"seconds_per_message"});
  const std::vector<SummaryRow> rates = summary_rows(files, "mpi", {"bytes_per_second"});
  for (const SummaryRow& row : times) {
    if (row.params.value("part", "") == "pingpong") {
      pingpong[row.params.value("message_bytes", std::uint64_t{0})].first = &row;
    }
  }
  for (const SummaryRow& row : rates) {
    if (row.params.value("part", "") == "pingpong") {
      pingpong[row.params.value("message_bytes", std::uint64_t{0})].second = &row;
    }
  }
  std::string text =
      "\nMPI ping-pong, first and last rank (half a round trip): median [min - max]\n";
  text += fmt::format("{:>10} {:>12} {:>24} {:>14}\n", "bytes", "time", "[min - max]", "rate");
  for (const auto& [bytes, rows] : pingpong) {
    if (rows.first == nullptr) continue;
    text += fmt::format(
        "{:>10} {:>12} {:>24} {:>14}\n", bytes, format_seconds(rows.first->median),
        fmt::format("[{} - {}]", format_seconds(rows.first->min), format_seconds(rows.first->max)),
        rows.second && bytes > 0 ? format_bytes_per_second(rows.second->median) : "");
  }
  // Hockney's t = t0 + m / r_inf (Xu and Hwang (1995), Eq. 5), piecewise where the protocols
  // switch.
  std::vector<double> sizes_bytes, medians;
  for (const auto& [bytes, rows] : pingpong) {
    if (rows.first != nullptr)
      sizes_bytes.push_back(static_cast<double>(bytes)), medians.push_back(rows.first->median);
  }
  if (sizes_bytes.size() >= 6) {
    const HockneyFit fit = fit_hockney(sizes_bytes, medians, "ping-pong medians");
    text += fmt::format(
        "Hockney fit of the medians, {} segment{} (mean relative error {:.1f}%, largest "
        "{:.1f}%):\n",
        fit.segments.size(), fit.segments.size() == 1 ? "" : "s", 100 * fit.mean_relative_error,
        100 * fit.max_relative_error);
    for (const HockneySegment& segment : fit.segments) {
      text += fmt::format(
          "  {:>10} to {:>10} B: t0 {:>9}, r_inf {:>12}, m_1/2 {}\n", segment.from_bytes,
          segment.to_bytes, format_seconds(segment.t0_seconds),
          std::isfinite(segment.r_inf()) ? format_bytes_per_second(segment.r_inf()) : "unbounded",
          std::isfinite(segment.m_half()) ? format_bytes(segment.m_half()) : "-");
    }
  }
  // Collectives: seconds per operation by communicator size, at the smallest and largest size.
  std::map<std::string, std::map<int, std::map<std::uint64_t, double>>> collectives;
  std::set<int> sizes;
  for (const SummaryRow& row : summary_rows(files, "mpi", {"seconds_per_operation"})) {
    const int k = row.params.value("communicator_ranks", 0);
    collectives[row.params.value("operation", "")][k]
               [row.params.value("message_bytes", std::uint64_t{0})] = row.median;
    sizes.insert(k);
  }
  if (!collectives.empty()) {
    text += "\nMPI collectives: median seconds per operation at the smallest / largest message\n";
    text += fmt::format("{:<10}", "operation");
    for (int k : sizes) text += fmt::format(" {:>24}", fmt::format("{} ranks", k));
    text += "\n";
    for (const auto& [op, by_size] : collectives) {
      text += fmt::format("{:<10}", op);
      for (int k : sizes) {
        const auto it = by_size.find(k);
        std::string cell;
        if (it != by_size.end() && !it->second.empty()) {
          cell = format_seconds(it->second.begin()->second);
          if (it->second.size() > 1) cell += " / " + format_seconds(it->second.rbegin()->second);
        }
        text += fmt::format(" {:>24}", cell);
      }
      text += "\n";
    }
  }
  return text;
}

nlohmann::json suite_summary_json(const std::vector<ResultFile>& files, const std::string& suite) {
  nlohmann::json rows = nlohmann::json::array();
  static const std::vector<std::string> mpi = {"seconds_per_message", "seconds_per_operation",
                                               "bytes_per_second"};
  const auto& counters = suite == "compute"      ? compute_counters()
                         : suite == "contention" ? contention_counters()
                         : suite == "mpi"        ? mpi
                                                 : overhead_counters();
  for (const SummaryRow& row : summary_rows(files, suite, counters)) {
    rows.push_back({{"name", row.name},
                    {"params", row.params},
                    {"counter", row.counter},
                    {"median", row.median},
                    {"min", row.min},
                    {"max", row.max},
                    {"cv", row.cv}});
  }
  return rows;
}

}  // namespace sonde::fit
