// The counts that a kernel's own access pattern and the machine's cache geometry imply: what the
// benchmarks record, marked "derived", where PAPI has no hardware events (these VMs), and beside
// the measured counts where it has, so that the model can be checked against the hardware.
//
// The model is a steady-state sweep: each stream is swept over and over, in the same order each
// time, through write-allocate caches with LRU replacement. A level whose capacity holds what the
// threads sharing it sweep misses nothing after the first pass; one that does not misses every
// line the sweep touches (a cyclic sweep larger than an LRU cache never hits). Misses at a level
// are at most the misses of the level before it. Every line a store stream misses at a level is
// written back from it later. Not modeled: hardware prefetching (it turns demand misses into hits
// on real counters), coherence misses between threads, victim and non-inclusive policies.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "microbench/topology.hpp"

namespace sonde::microbench {

// The counts Amato et al.'s (1999) function F is built from (section 4.2: the R10000's loads and
// stores issued, L1 and L2 misses, L1 and L2 write-backs), with the last level named apart so that
// a machine with three levels keeps its L2 and its memory traffic both.
enum class CountKind {
  loads,
  stores,
  l1_misses,
  l2_misses,
  llc_misses,
  l1_writebacks,
  llc_writebacks
};
inline constexpr std::size_t kCountKinds = 7;
const std::array<CountKind, kCountKinds>& all_count_kinds();
std::string_view name_of(CountKind kind);
std::optional<CountKind> count_kind_named(std::string_view name);

// One count per kind; nullopt where there is none (a missing count is never a zero).
using Counts = std::array<std::optional<double>, kCountKinds>;

// A data or unified cache level as the model needs it.
struct CacheGeometry {
  int depth = 0;
  std::uint64_t bytes = 0;  // one instance
  unsigned line_bytes = 64;
  int ways = 0;  // 0 unknown, -1 fully associative
  unsigned cores_per_instance = 1;
};
std::vector<CacheGeometry> cache_geometry(const Topology& topology);

// One stream of accesses, swept once per pass: `bytes` per thread, one access of `access_bytes`
// every `stride_bytes`. A pointer chase is a stream with one access per line in random order.
struct AccessStream {
  std::uint64_t bytes = 0;
  std::uint64_t stride_bytes = 8;
  bool store = false;
  bool random_order = false;  // no regular stride: its lines spread over every set
  // A store into the lines the stream before it loads (an update in place, a[i] += s b[i]): it
  // takes no room and misses nowhere of its own, and each line its load stream misses is written
  // back.
  bool into_previous = false;
};

// Streams swept together, one access of each per step (a copy loads a[i] and stores b[i]).
struct AccessPattern {
  std::vector<AccessStream> streams;
  unsigned threads = 1;  // bound to the first cores, packed
  bool shared = false;   // all threads sweep the same data (Amato et al.'s (1999) "concurrent")
};

// Per step of one thread: loads and stores (in accesses, not instructions: a vector load of
// eight words is eight), and for each cache level its misses and write-backs (in lines).
struct DerivedCounts {
  double loads = 0;
  double stores = 0;
  std::vector<double> misses;      // one per cache level, L1 first
  std::vector<double> writebacks;  // lines written back out of each level
};

// Throws a usage Error for an empty pattern, a zero stride or size, or no cache levels.
DerivedCounts derive_counts(const AccessPattern& pattern, const std::vector<CacheGeometry>& caches,
                            std::uint64_t page_bytes);

// The model's counts as Amato et al.'s (1999) kinds: L2 is the second level, the last level is the
// last.
Counts to_counts(const DerivedCounts& derived);

// What a benchmark's parameters say of its pattern: the streams and threads, and the model.
nlohmann::json to_json(const AccessPattern& pattern);

}  // namespace sonde::microbench
