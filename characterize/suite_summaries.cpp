#include "characterize/suite_summaries.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/units.hpp"
#include "fit/hockney.hpp"
#include "fit/profile_builder.hpp"
#include "profile/profile.hpp"

namespace sonde::characterize {

namespace {

std::string value_text(const std::string& counter, double value) {
  if (counter == "bytes_per_second") return format_bytes_per_second(value);
  if (counter == "flops_per_second") return fmt::format("{:.1f} Gflop/s", value / 1e9);
  return format_seconds(value);
}

}  // namespace

std::string format_contention_summary(const RunRecords& run) {
  // Amato et al.'s (1999) experiments as a table: one row per px.<level>.<access><sharing>, one
  // column per stride, nanoseconds per access seen by one thread.
  std::vector<unsigned> strides;
  std::map<std::string, std::map<unsigned, double>> table;
  std::vector<std::string> order;
  for (const ContentionAccessRecord& row : run.contention_access) {
    if (row.counter != "seconds_per_access") continue;
    const unsigned stride = row.stride_words;
    if (std::find(strides.begin(), strides.end(), stride) == strides.end())
      strides.push_back(stride);
    const std::string key = fmt::format("p{}.{}.{}{}", row.threads, row.level_target,
                                        row.store ? 'S' : 'L', row.concurrent ? 'C' : 'E');
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
  for (const Measurement* row_pointer : run.measurements("contention")) {
    const Measurement& row = *row_pointer;
    if (row.counter == "seconds_per_access") continue;
    text += fmt::format("{:<44} {:>12}  [{} - {}]\n", row.name, value_text(row.counter, row.median),
                        value_text(row.counter, row.min), value_text(row.counter, row.max));
  }
  return text;
}

std::string format_overhead_summary(const RunRecords& run) {
  std::string text =
      "\nOverheads (Xu and Hwang (1995), Tables 2 and 3): median over repetitions [min - max]\n";
  text += fmt::format("{:<44} {:>12}  {}\n", "benchmark", "median", "spread");
  for (const OverheadRecord& row : run.overheads) {
    std::string what =
        row.counter == "bytes_per_second" ? "" : row.counter.substr(row.counter.find('_') + 1);
    std::replace(what.begin(), what.end(), '_', ' ');
    text +=
        fmt::format("{:<44} {:>12}  [{} - {}] {}\n", row.name, value_text(row.counter, row.median),
                    value_text(row.counter, row.min), value_text(row.counter, row.max), what);
  }
  return text;
}

namespace {

// The shared-ports kernel: the chains through memory alone (C), the loop's loads and stores alone
// (M) and the two together, each iteration's set against its own M; the profile fits p to them.
std::string format_shared_ports(const RunRecords& run) {
  if (run.shared_ports.empty()) return "";
  std::string text =
      "\nA chain through memory beside its loop's L1 loads and stores (rows of 32 steps; times "
      "over the loads and stores alone, medians)\n";
  text += fmt::format("{:>8} {:>10} {:>10} {:>12} {:>18}\n", "width", "C / M", "both / M",
                      "both / max", "both, per step");
  for (const SharedPortsRecord& row : run.shared_ports) {
    text += fmt::format("{:>8} {:>10.2f} {:>10.2f} {:>12.3f} {:>18}\n", row.width_doubles,
                        row.chain_over_stream, row.both_over_stream,
                        row.both_over_stream / std::max(row.chain_over_stream, 1.0),
                        format_seconds(row.median));
  }
  return text;
}

}  // namespace

std::string format_compute_summary(const RunRecords& run) {
  std::string text = "\nPeak floating-point rate (fused multiply-add, independent accumulators)\n";
  text += fmt::format("{:<12} {:>8} {:>16} {:>16}\n", "unit", "threads", "median", "[min - max]");
  for (const PeakRecord& row : run.peaks) {
    text += fmt::format("{:<12} {:>8} {:>16} [{:.1f} - {:.1f}]\n", row.unit, row.threads,
                        value_text(row.counter, row.median), row.min / 1e9, row.max / 1e9);
  }
  // Fahringer and Pozgaj's (2000) kernel library; the add's throughput is the unit of Xu and
  // Hwang's (1995) flop count.
  std::map<std::string, std::map<std::string, double>> seconds;  // operation -> mode -> s
  std::map<std::string, unsigned> rule;
  for (const KernelRecord& row : run.kernels) {
    seconds[row.operation][row.mode] = row.median;
    rule[row.operation] = row.counted_flops;
  }
  if (seconds.empty()) return text + format_shared_ports(run);
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
  return text + format_shared_ports(run);
}

std::string format_mpi_summary(const RunRecords& run) {
  // Ping-pong (Xu and Hwang (1995), section 4): half the round trip, and the rate it implies.
  std::map<std::uint64_t, const PingPongRecord*> pingpong;
  for (const PingPongRecord& row : run.pingpong) {
    if (row.counter == "seconds_per_message") pingpong[row.message_bytes] = &row;
  }
  std::string text =
      "\nMPI ping-pong, first and last rank (half a round trip): median [min - max]\n";
  text += fmt::format("{:>10} {:>12} {:>24} {:>14}\n", "bytes", "time", "[min - max]", "rate");
  for (const auto& [bytes, row] : pingpong) {
    const auto rate = row->counters.find("bytes_per_second");
    text += fmt::format(
        "{:>10} {:>12} {:>24} {:>14}\n", bytes, format_seconds(row->median),
        fmt::format("[{} - {}]", format_seconds(row->min), format_seconds(row->max)),
        rate != row->counters.end() && bytes > 0 ? format_bytes_per_second(rate->second) : "");
  }
  // Hockney's t = t0 + m / r_inf (Xu and Hwang (1995), Eq. 5), piecewise where the protocols
  // switch.
  std::vector<double> sizes_bytes, medians;
  for (const auto& [bytes, row] : pingpong) {
    sizes_bytes.push_back(static_cast<double>(bytes)), medians.push_back(row->median);
  }
  if (sizes_bytes.size() >= 6) {
    const fit::HockneyFit fit = fit::fit_hockney(sizes_bytes, medians, "ping-pong medians");
    text += fmt::format(
        "Hockney fit of the medians, {} segment{} (mean relative error {:.1f}%, largest "
        "{:.1f}%):\n",
        fit.segments.size(), fit.segments.size() == 1 ? "" : "s", 100 * fit.mean_relative_error,
        100 * fit.max_relative_error);
    for (const fit::HockneySegment& segment : fit.segments) {
      text += fmt::format(
          "  {:>10} to {:>10} B: t0 {:>9}, r_inf {:>12}, m_1/2 {}\n", segment.from_bytes,
          segment.to_bytes, format_seconds(segment.t0_seconds),
          std::isfinite(segment.r_inf()) ? format_bytes_per_second(segment.r_inf()) : "unbounded",
          std::isfinite(segment.m_half()) ? format_bytes(segment.m_half()) : "-");
    }
  }
  // The pair map by placement: where ranks share a node their messages take another path.
  const std::vector<profile::PairClass> classes = fit::pair_classes(run.mpi_other);
  if (!classes.empty()) {
    text += "\nMPI pair map by placement: median over the pairs [min - max]\n";
    text +=
        fmt::format("{:>12} {:>6} {:>32} {:>36}\n", "placement", "pairs", "latency", "bandwidth");
    for (const profile::PairClass& c : classes) {
      const auto range = [](const profile::Quantity& q, auto format) {
        return q.interval ? fmt::format("{} [{} - {}]", format(q.value), format(q.interval->low),
                                        format(q.interval->high))
                          : format(q.value);
      };
      text += fmt::format("{:>12} {:>6} {:>32} {:>36}\n", c.placement, c.pairs,
                          range(c.latency, [](double v) { return format_seconds(v); }),
                          range(c.bandwidth, [](double v) { return format_bytes_per_second(v); }));
    }
  }
  // Collectives: seconds per operation by communicator size, at the smallest and largest size.
  std::map<std::string, std::map<int, std::map<std::uint64_t, double>>> collectives;
  std::set<int> sizes;
  for (const CollectiveRecord& row : run.collectives) {
    const int k = static_cast<int>(row.communicator_ranks);
    collectives[row.operation][k][row.message_bytes] = row.median;
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

nlohmann::json suite_summary_json(const RunRecords& run, const std::string& suite) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Measurement* row_pointer : run.measurements(suite)) {
    const Measurement& row = *row_pointer;
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

}  // namespace sonde::characterize
