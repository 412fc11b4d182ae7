// Fuzzes the counter file reader (counters/counter_file.cpp, parse_counter_file): the input is a
// counter file's text. A table it accepts keeps the format's promises (docs/formats.md, "Counter
// files"): sizes > 0, counts and bounds finite and >= 0 with low <= value <= high, every
// processor of a phase with the same counters; and it round-trips: written by
// format_counter_file and read again, it is the same table.
#include <cstddef>
#include <cstdint>
#include <string>

#include "counters/counter_file.hpp"
#include "fuzz/fuzz_support.hpp"

namespace {

using namespace sonde::counters;
using sonde::fuzz::finite_at_least;
constexpr const char* kFile = "fuzz.csv";

void check_value(const CountValue& v, const std::string& what) {
  SONDE_FUZZ_CHECK(finite_at_least(v.value, 0), "{}: {} accepted", what, v.value);
  if (v.low) {
    SONDE_FUZZ_CHECK(finite_at_least(*v.low, 0) && *v.low <= v.value * (1 + 1e-12),
                     "{}: low {} with value {} accepted", what, *v.low, v.value);
  }
  if (v.high) {
    SONDE_FUZZ_CHECK(finite_at_least(*v.high, 0) && *v.high >= v.value * (1 - 1e-12),
                     "{}: high {} with value {} accepted", what, *v.high, v.value);
  }
}

void check_table(const CounterTable& table) {
  SONDE_FUZZ_CHECK(!table.phases.empty(), "a table without counts accepted");
  for (const PhaseCounts& p : table.phases) {
    SONDE_FUZZ_CHECK(finite_at_least(p.size, 0) && p.size > 0, "size {} accepted", p.size);
    SONDE_FUZZ_CHECK(!p.phase.empty(), "an empty phase name accepted");
    const Counts* first = p.processors.empty() ? nullptr : &p.processors.begin()->second;
    for (const auto& [index, counts] : p.processors) {
      SONDE_FUZZ_CHECK(index >= 0, "processor {} accepted", index);
      SONDE_FUZZ_CHECK(counts.size() == first->size(), "phase '{}': processors with other counters",
                       p.phase);
      for (const auto& [counter, value] : counts) {
        SONDE_FUZZ_CHECK(first->count(counter), "phase '{}': processors with other counters",
                         p.phase);
        check_value(value, p.phase + " " + counter);
      }
    }
    for (const auto& [index, counts] : p.banks) {
      SONDE_FUZZ_CHECK(index >= 0, "bank {} accepted", index);
      for (const auto& [counter, value] : counts) check_value(value, p.phase + " " + counter);
    }
    if (p.word_accesses) check_value(*p.word_accesses, p.phase + " word_accesses");
    if (const auto t = p.measured_time()) {
      SONDE_FUZZ_CHECK(finite_at_least(*t, 0), "phase '{}': measured time {}", p.phase, *t);
    }
  }
}

bool same_value(const CountValue& a, const CountValue& b) {
  return a.value == b.value && a.low == b.low && a.high == b.high && a.source == b.source;
}

bool same_counts(const std::map<int, Counts>& a, const std::map<int, Counts>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [index, counts] : a) {
    const auto other = b.find(index);
    if (other == b.end() || other->second.size() != counts.size()) return false;
    for (const auto& [counter, value] : counts) {
      const auto it = other->second.find(counter);
      if (it == other->second.end() || !same_value(value, it->second)) return false;
    }
  }
  return true;
}

void check_round_trip(const CounterTable& table) {
  const std::string written = format_counter_file(table);
  CounterTable again;
  try {
    again = parse_counter_file(written, "written.csv");
  } catch (const sonde::Error& e) {
    sonde::fuzz::broken(
        fmt::format("an accepted table, written, is refused: {}\n{}", e.what(), written));
  }
  SONDE_FUZZ_CHECK(again.phases.size() == table.phases.size(),
                   "written and read: {} phases, not {}\n{}", again.phases.size(),
                   table.phases.size(), written);
  // The same phases at the same sizes with the same counts; their order may differ (phases go by
  // size, then by where a phase first appears, which writing can change).
  for (const PhaseCounts& a : table.phases) {
    const PhaseCounts* b = again.find(a.phase, a.size);
    SONDE_FUZZ_CHECK(b != nullptr, "written and read, phase '{}' at size {} is lost\n{}", a.phase,
                     a.size, written);
    const bool words = a.word_accesses.has_value() == b->word_accesses.has_value() &&
                       (!a.word_accesses || same_value(*a.word_accesses, *b->word_accesses));
    SONDE_FUZZ_CHECK(
        same_counts(a.processors, b->processors) && same_counts(a.banks, b->banks) && words,
        "written and read, phase '{}' at size {} differs\n{}", a.phase, a.size, written);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = sonde::fuzz::text_of(data, size);
  CounterTable table;
  try {
    table = parse_counter_file(text, kFile);
  } catch (const sonde::Error& e) {
    sonde::fuzz::check_refusal(e, kFile, sonde::ExitCode::bad_input);
    return 0;
  }
  check_table(table);
  check_round_trip(table);
  return 0;
}
