// The counter file: per phase (superstep), per processor (thread or rank), at one or more
// problem sizes, the counts Amato et al.'s (1999) functions need, each with where it came from.
// `sonde counters` writes it; a person or another tool can write it too (docs/formats.md, "Counter
// files").
//
//   size,phase,processor,counter,value,source,low,high
//   200000,ss1.count,0,time,0.00131,clock,0.00129,0.00140
//   200000,ss1.count,0,loads,400512,callgrind,,
//
// A long table, one count per row, so that a count that was not measured is simply absent.
// Counters: time (seconds, the processor's time in the phase), loads, stores, l1_misses,
// l2_misses, llc_misses, l1_writebacks, llc_writebacks per processor; bank_accesses,
// bank_llc_misses, bank_llc_writebacks per bank (the processor column holds the bank); and
// word_accesses (Amato et al.'s (1999) K: the most accesses to one word by all processors) per
// phase, with the processor column empty. An optional `unit` column gives the time's unit (s, ms,
// us, ns). An optional `processes` column gives the run's process count, so that pilot runs at
// several counts share one table (a two-parameter extrapolation in size and processes).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sonde::counters {

// The per-processor counters, in the order files list them.
const std::vector<std::string>& processor_counters();
// The per-bank counters and the per-phase one.
const std::vector<std::string>& bank_counters();
inline const char* const kWordAccesses = "word_accesses";

struct CountValue {
  double value = 0;
  std::optional<double> low, high;  // a spread or an interval, where known
  std::string source;               // papi, callgrind, clock, extrapolated, hand, ...
  std::string where;                // "file.csv:12", for messages
};

using Counts = std::map<std::string, CountValue>;  // by counter

// One phase at one size.
struct PhaseCounts {
  std::string phase;
  double size = 0;
  std::map<int, Counts> processors;
  std::map<int, Counts> banks;
  std::optional<CountValue> word_accesses;
  std::string where;  // the first row's place
  int processes = 0;  // the run's process count, from the `processes` column; 0: not stated

  // The superstep's measured time: the slowest processor's, when every processor has a time.
  std::optional<double> measured_time() const;
};

struct CounterTable {
  std::vector<PhaseCounts> phases;  // ordered by size, then by first appearance of the phase
  std::vector<double> sizes() const;
  std::vector<std::string> phase_names() const;  // in order of first appearance
  std::vector<int> process_counts() const;       // distinct, ascending
  // The first phase of that name at that size (whatever its process count), or at that size and
  // process count.
  const PhaseCounts* find(const std::string& phase, double size) const;
  const PhaseCounts* find(const std::string& phase, double size, int processes) const;
};

// Reads and checks one file. Errors name the file, the line and the column: a missing column,
// an unknown column, counter or unit, a count or time that is negative, NaN or not a number, a
// size that is not positive, a processor that is not a whole number, a count given twice, and a
// phase whose processors do not all have the same counters.
CounterTable read_counter_file(const std::filesystem::path& path);
// The same from the file's text; `file` names it in messages.
CounterTable parse_counter_file(const std::string& text, const std::string& file);

// Several files as one table; the same count given in two files is an error naming both.
CounterTable read_counter_files(const std::vector<std::filesystem::path>& paths);

// The table as a counter file (written atomically).
std::string format_counter_file(const CounterTable& table);
void write_counter_file(const std::filesystem::path& path, const CounterTable& table);

}  // namespace sonde::counters
