// `sonde counters`: runs a program that marks its phases (sonde/phase.h) and turns what the
// markers recorded into a counter file. Times come from native runs (the median over repetitions,
// with the fastest and slowest as its spread). Counts come from PAPI where the machine has
// hardware events, measured in the same runs; where it has none, from valgrind's cache
// simulation (callgrind) configured with the cache geometry of the target machine's profile,
// which simulates one private L1 and one further level per run: one run with the L2 as that
// level, one with the last level, and one with a copy of the L1 to count its write-backs.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "counters/counter_file.hpp"
#include "profile/profile.hpp"

namespace sonde::counters {

enum class Source { automatic, papi, valgrind, time };
Source source_named(const std::string& name);  // auto, papi, valgrind, time; usage Error else

struct CollectOptions {
  std::vector<std::string> command;  // the program and its arguments
  double size = 0;                   // the problem size the files record
  int repetitions = 5;               // native runs for the times
  Source source = Source::automatic;
  const profile::Profile* machine = nullptr;  // cache geometry for valgrind
  std::string machine_name;
  std::vector<std::string> papi_overrides;  // "loads=EVENT"
  std::filesystem::path work_folder;        // for the records and callgrind's files
  std::function<void(const std::string&)> progress;
};

struct Collected {
  counters::CounterTable table;
  std::string counts_source;  // papi, callgrind or none
  std::vector<std::string> notes;
};

// What the phase markers (sonde/phase.h) recorded in one run: per processor and phase, the
// seconds and counts summed over the phase's occurrences.
struct PhaseRecord {
  double seconds = 0;
  std::map<std::string, double> counts;
};
using RunRecord = std::map<std::pair<int, std::string>, PhaseRecord>;

// Reads the records a run left under `prefix`.<pid>.json (one per process); the processes'
// threads are numbered rank by rank. An input Error naming `program` where there is none, where
// the markers reported errors or where no phase was marked; one naming the file for a record
// that is no JSON.
RunRecord read_phase_records(const std::filesystem::path& prefix, const std::string& program,
                             int* processes = nullptr);

// Throws an Error naming the program when it fails, marks no phase, or its records disagree;
// the caller's output file is then untouched.
Collected collect(const CollectOptions& options);

// One valgrind run: the caches it simulates (callgrind's D1 and LL) and what it counts.
struct CacheGeometry {
  std::string name;
  std::uint64_t bytes = 0, ways = 0, line = 0;
  std::string valgrind_option() const;  // "49152,12,64"
};
struct ValgrindPass {
  std::string name;  // "l2", "llc", "l1_writebacks"
  CacheGeometry d1, ll;
  std::vector<std::string> counts;  // the counter-file counters this pass provides
};
// The passes for a profile's caches. Throws an input Error naming the profile and the field when
// a cache lacks its capacity, line or ways.
std::vector<ValgrindPass> valgrind_passes(const profile::Profile& machine,
                                          const std::string& machine_name);

// One callgrind dump written at a phase's end: the processor, the phase and the event totals.
struct CallgrindDump {
  int processor = 0;
  std::string phase;
  std::map<std::string, double> events;  // Ir, Dr, Dw, D1mr, D1mw, DLmr, DLmw, DLdmr, DLdmw
};
// Nothing for a dump that no phase marker wrote; an input Error for a malformed one.
std::optional<CallgrindDump> parse_callgrind_dump(const std::string& text, const std::string& file);

// The counter-file counts that a dump (or the sum of one phase's dumps) gives: loads (Dr), stores
// (Dw), l1_misses (D1mr + D1mw), l2_misses and llc_misses (DLmr + DLmw), l1_writebacks and
// llc_writebacks (DLdmr + DLdmw). A count is given only when the dump has every event it sums; one
// that lacks an event is absent from `counts`, never 0, and `missing` says why.
struct CallgrindCounts {
  std::map<std::string, double> counts;
  std::map<std::string, std::string> missing;  // counter: the reason it is absent
};
CallgrindCounts callgrind_counts(const CallgrindDump& dump,
                                 const std::vector<std::string>& counters);

}  // namespace sonde::counters
