#include "microbench/derived_counts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"

namespace sonde::microbench {
namespace {

constexpr std::array<std::string_view, kCountKinds> kNames = {
    "loads", "stores", "l1_misses", "l2_misses", "llc_misses", "l1_writebacks", "llc_writebacks"};

// Lines of a level that a stream with a regular stride can occupy. When the level's set index
// lies within the page offset (L1 caches are indexed so), a stride of k lines touches only
// sets / gcd(k, sets) of its sets; beyond the page the physical pages scatter the sets, and the
// whole capacity counts.
double usable_lines(const AccessStream& stream, const CacheGeometry& level,
                    std::uint64_t page_bytes) {
  const double all = static_cast<double>(level.bytes / level.line_bytes);
  if (stream.random_order || level.ways <= 0) return all;
  if (stream.stride_bytes < level.line_bytes || stream.stride_bytes % level.line_bytes != 0) {
    return all;
  }
  const std::uint64_t sets =
      level.bytes / (static_cast<std::uint64_t>(level.ways) * level.line_bytes);
  if (sets == 0 || sets * level.line_bytes > page_bytes) return all;
  const std::uint64_t stride_lines = stream.stride_bytes / level.line_bytes;
  return static_cast<double>(level.ways) * static_cast<double>(sets / std::gcd(stride_lines, sets));
}

// Lines one pass of the stream touches: one per access when accesses are a line or more apart.
double lines_per_pass(const AccessStream& stream, unsigned line_bytes) {
  if (stream.random_order || stream.stride_bytes >= line_bytes) {
    return static_cast<double>(stream.bytes / std::max<std::uint64_t>(stream.stride_bytes, 1));
  }
  return static_cast<double>(stream.bytes) / line_bytes;
}

// Misses per access once the level cannot hold the sweep: each line touched misses once.
double misses_per_access(const AccessStream& stream, unsigned line_bytes) {
  if (stream.random_order) return 1;
  return std::min(1.0, static_cast<double>(stream.stride_bytes) / line_bytes);
}

}  // namespace

const std::array<CountKind, kCountKinds>& all_count_kinds() {
  static const std::array<CountKind, kCountKinds> kinds = {
      CountKind::loads,         CountKind::stores,     CountKind::l1_misses,
      CountKind::l2_misses,     CountKind::llc_misses, CountKind::l1_writebacks,
      CountKind::llc_writebacks};
  return kinds;
}

std::string_view name_of(CountKind kind) { return kNames[static_cast<std::size_t>(kind)]; }

std::optional<CountKind> count_kind_named(std::string_view name) {
  for (CountKind kind : all_count_kinds()) {
    if (name_of(kind) == name) return kind;
  }
  return std::nullopt;
}

std::vector<CacheGeometry> cache_geometry(const Topology& topology) {
  std::vector<CacheGeometry> levels;
  for (const CacheLevel& cache : topology.data_caches()) {
    CacheGeometry level;
    level.depth = cache.depth;
    level.bytes = cache.size_bytes;
    level.line_bytes = cache.line_bytes > 0 ? cache.line_bytes : 64;
    level.ways = cache.associativity;
    level.cores_per_instance = std::max(1u, cache.cores_per_instance);
    levels.push_back(level);
  }
  return levels;
}

DerivedCounts derive_counts(const AccessPattern& pattern, const std::vector<CacheGeometry>& caches,
                            std::uint64_t page_bytes) {
  if (pattern.streams.empty()) throw usage_error("derived counts", "the pattern has no streams");
  if (caches.empty()) throw usage_error("derived counts", "the machine has no cache levels");
  if (pattern.threads == 0) throw usage_error("derived counts", "the pattern has no threads");
  for (const AccessStream& stream : pattern.streams) {
    if (stream.bytes == 0 || stream.stride_bytes == 0) {
      throw usage_error("derived counts", "a stream has no bytes or a zero stride");
    }
  }
  for (const CacheGeometry& level : caches) {
    if (level.bytes == 0 || level.line_bytes == 0) {
      throw usage_error("derived counts", fmt::format("cache level {} has no size", level.depth));
    }
  }

  DerivedCounts counts;
  for (const AccessStream& stream : pattern.streams)
    (stream.store ? counts.stores : counts.loads) += 1;

  // Per stream, the misses per step at the level before (every access reaches L1).
  std::vector<double> reaching(pattern.streams.size(), 1.0);
  for (const CacheGeometry& level : caches) {
    // Threads whose data shares one instance of this level (packed on the first cores).
    const unsigned copies =
        pattern.shared ? 1u : std::min(pattern.threads, level.cores_per_instance);
    double occupancy = 0;
    for (const AccessStream& stream : pattern.streams) {
      if (stream.into_previous) continue;  // the lines its load stream holds
      occupancy += copies * lines_per_pass(stream, level.line_bytes) /
                   usable_lines(stream, level, page_bytes);
    }
    const bool fits = occupancy <= 1.0;
    double misses = 0, writebacks = 0;
    for (std::size_t i = 0; i < pattern.streams.size(); ++i) {
      const AccessStream& stream = pattern.streams[i];
      if (stream.into_previous && i > 0) {
        reaching[i] = 0;
        writebacks += reaching[i - 1];  // the dirty lines its load stream lets go
        continue;
      }
      const double m =
          fits ? 0.0 : std::min(reaching[i], misses_per_access(stream, level.line_bytes));
      reaching[i] = m;
      misses += m;
      if (stream.store) writebacks += m;
    }
    counts.misses.push_back(misses);
    counts.writebacks.push_back(writebacks);
  }
  return counts;
}

Counts to_counts(const DerivedCounts& derived) {
  Counts counts;
  const auto set = [&](CountKind kind, double value) {
    counts[static_cast<std::size_t>(kind)] = value;
  };
  set(CountKind::loads, derived.loads);
  set(CountKind::stores, derived.stores);
  if (!derived.misses.empty()) {
    set(CountKind::l1_misses, derived.misses.front());
    set(CountKind::llc_misses, derived.misses.back());
    set(CountKind::l1_writebacks, derived.writebacks.front());
    set(CountKind::llc_writebacks, derived.writebacks.back());
  }
  if (derived.misses.size() >= 2) set(CountKind::l2_misses, derived.misses[1]);
  return counts;
}

nlohmann::json to_json(const AccessPattern& pattern) {
  nlohmann::json streams = nlohmann::json::array();
  for (const AccessStream& stream : pattern.streams) {
    streams.push_back({{"bytes", stream.bytes},
                       {"stride_bytes", stream.stride_bytes},
                       {"access", stream.into_previous ? "store into the previous stream's lines"
                                  : stream.store       ? "store"
                                                       : "load"},
                       {"order", stream.random_order ? "random" : "sequential"}});
  }
  return {{"streams", streams},
          {"threads", pattern.threads},
          {"sharing", pattern.shared ? "concurrent" : "exclusive"},
          {"model",
           "steady-state sweeps through write-allocate LRU caches; capacity and set conflicts "
           "only (no prefetching, no coherence misses)"}};
}

}  // namespace sonde::microbench
