// Hardware event counts around the benchmarks' timed regions, through PAPI: the one file that
// talks to PAPI. Events are chosen once per process, per kind (derived_counts.hpp's CountKind),
// from PAPI presets first and then native events of CPUs known to have them; `--papi-event
// KIND=EVENT` picks another. A kind without an event is reported missing, with the reason, and
// is never recorded as zero. Counting is per thread: each thread of a team counts its own events.
// A build without PAPI (CMake's SONDE_PAPI off, or PAPI not found) counts nothing: every kind is
// missing with the reason "built without PAPI", and --papi-event is checked but has no effect.
#pragma once

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "microbench/derived_counts.hpp"

namespace sonde::microbench {

// The event chosen for a kind, or why there is none.
struct EventChoice {
  CountKind kind{};
  std::string event;           // empty when missing
  std::string missing_reason;  // why no event counts this kind
};

// Whether this build counts with PAPI.
bool papi_built_in();

// The PAPI event names tried for a kind, in order.
std::vector<std::string> candidate_events(CountKind kind);

// Chooses for each kind the first of its candidates that `try_add` accepts (try_add returns an
// empty string when it does, or why not). `overrides` ("loads=EVENT") replace a kind's
// candidates; a malformed one or an unknown kind is a usage Error naming --papi-event.
std::vector<EventChoice> choose_events(
    const std::vector<std::string>& overrides,
    const std::function<std::string(const std::string& event)>& try_add);

// Event totals of one thread or summed over several; `failed` when counting broke part way.
struct EventTotals {
  std::array<long long, kCountKinds> values{};
  bool failed = false;
  EventTotals& operator+=(const EventTotals& other);
};

class HardwareCounters {
 public:
  // Initializes PAPI and chooses the events, once per process. A machine without events is not
  // an error: the counters are then inactive and status() says why.
  static void open(const std::vector<std::string>& overrides);
  // The process's counters; inactive until open() is called.
  static const HardwareCounters& get();

  bool active() const { return active_; }
  const std::vector<EventChoice>& choices() const { return choices_; }
  // One informative line: what is counted, what is missing and why, or that counts are derived.
  std::string status() const;
  nlohmann::json to_json() const;

  // Counting on the calling thread: start() then stop(totals) adds the events in between.
  // Both do nothing when inactive.
  void start() const;
  void stop(EventTotals& totals) const;

 private:
  bool active_ = false;
  std::string library_;          // "PAPI 7.0.0.0"
  std::string unavailable_why_;  // why PAPI counts nothing here
  std::vector<EventChoice> choices_;
};

// Counts the calling thread's events from construction to stop(): for single-thread loops.
class ScopedCounting {
 public:
  ScopedCounting() { HardwareCounters::get().start(); }
  ScopedCounting(const ScopedCounting&) = delete;
  ScopedCounting& operator=(const ScopedCounting&) = delete;
  ~ScopedCounting() {
    if (!stopped_) stop();
  }
  const EventTotals& stop();

 private:
  EventTotals totals_;
  bool stopped_ = false;
};

// Records the counts of a benchmark's run as Google Benchmark counters, per `unit` of one thread
// ("papi.l1_misses_per_access", "derived.l1_misses_per_access"), as add_time_per() records its
// time: `measured` (summed over all threads and iterations) divided by the iterations run times
// `per_iteration`, the units all threads do in one iteration; `derived` from the pattern. Kinds
// without a count are left out, never zero.
void record_counts(benchmark::State& state, const EventTotals& measured, const std::string& unit,
                   double per_iteration, const std::optional<Counts>& derived);

// The model's counts for a pattern on this machine's caches and base pages; nullopt when hwloc
// knows no data cache.
std::optional<Counts> derive_on(const Topology& topology, const AccessPattern& pattern);

// What a benchmark's parameters say of its counts: the PAPI events, and the derived model's
// pattern or why there is none.
nlohmann::json count_sources(const std::optional<AccessPattern>& pattern,
                             const std::string& not_derived_why = "");

}  // namespace sonde::microbench
