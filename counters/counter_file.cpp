#include "counters/counter_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/atomic_file.hpp"
#include "core/csv_table.hpp"
#include "core/error.hpp"
#include "core/units.hpp"

namespace sonde::counters {
namespace {

const std::vector<std::string> kRequiredColumns = {"size", "phase", "processor", "counter",
                                                   "value"};
const std::vector<std::string> kOptionalColumns = {"source", "low", "high", "unit", "processes"};

double time_scale(const std::string& unit, const std::string& where) {
  if (unit.empty() || unit == "s") return 1;
  if (unit == "ms") return 1e-3;
  if (unit == "us") return 1e-6;
  if (unit == "ns") return 1e-9;
  throw input_error(where,
                    fmt::format("unknown time unit {}: expected s, ms, us or ns", shown(unit)));
}

double number(const std::string& text, const std::string& where, const std::string& what) {
  const std::optional<double> value = parse_number(text);
  if (!value) {
    throw input_error(where, fmt::format("{}: expected a number, found {}", what, shown(text)));
  }
  return *value;
}

std::string number_text(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) return fmt::format("{:.0f}", value);
  return fmt::format("{}", value);
}

void check_processors_alike(const PhaseCounts& phase) {
  if (phase.processors.empty()) return;
  const auto& [first_index, first] = *phase.processors.begin();
  for (const auto& [index, counts] : phase.processors) {
    for (const auto* a : {&first, &counts}) {
      const auto* b = a == &first ? &counts : &first;
      for (const auto& [counter, value] : *a) {
        if (!b->count(counter)) {
          const int has = a == &first ? first_index : index;
          const int lacks = a == &first ? index : first_index;
          throw input_error(value.where,
                            fmt::format("phase '{}' at size {}: processor {} has {} but "
                                        "processor {} has not; every processor needs the same "
                                        "counters",
                                        phase.phase, number_text(phase.size), has, counter, lacks));
        }
      }
    }
  }
}

// `processes` is the run's process count where the file states it, 0 where it does not.
void add_count(CounterTable& table, const std::string& phase, double size, int processes,
               const std::string& place, const std::string& counter, std::optional<int> processor,
               CountValue value) {
  auto it = std::find_if(table.phases.begin(), table.phases.end(), [&](const PhaseCounts& p) {
    return p.phase == phase && p.size == size && p.processes == processes;
  });
  if (it == table.phases.end()) {
    table.phases.push_back(PhaseCounts{phase, size, {}, {}, std::nullopt, place, processes});
    it = std::prev(table.phases.end());
  }
  const CountValue* before = nullptr;
  if (counter == kWordAccesses) {
    if (it->word_accesses)
      before = &*it->word_accesses;
    else
      it->word_accesses = value;
  } else {
    const bool bank =
        std::find(bank_counters().begin(), bank_counters().end(), counter) != bank_counters().end();
    Counts& counts = bank ? it->banks[*processor] : it->processors[*processor];
    if (counts.count(counter))
      before = &counts[counter];
    else
      counts[counter] = value;
  }
  if (before) {
    throw input_error(
        place,
        fmt::format("{} of phase '{}'{} at size {}{} given twice (also at {})", counter, phase,
                    processor ? fmt::format(", processor {}", *processor) : "", number_text(size),
                    processes > 0 ? fmt::format(" with {} processes", processes) : "",
                    before->where));
  }
}

void sort_table(CounterTable& table) {
  std::vector<std::string> order = table.phase_names();
  const auto rank = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) - order.begin();
  };
  std::stable_sort(table.phases.begin(), table.phases.end(),
                   [&](const PhaseCounts& a, const PhaseCounts& b) {
                     if (a.size != b.size) return a.size < b.size;
                     if (a.processes != b.processes) return a.processes < b.processes;
                     return rank(a.phase) < rank(b.phase);
                   });
}

}  // namespace

const std::vector<std::string>& processor_counters() {
  static const std::vector<std::string> names = {"time",          "loads",         "stores",
                                                 "l1_misses",     "l2_misses",     "llc_misses",
                                                 "l1_writebacks", "llc_writebacks"};
  return names;
}

const std::vector<std::string>& bank_counters() {
  static const std::vector<std::string> names = {"bank_accesses", "bank_llc_misses",
                                                 "bank_llc_writebacks"};
  return names;
}

std::optional<double> PhaseCounts::measured_time() const {
  if (processors.empty()) return std::nullopt;
  double slowest = 0;
  for (const auto& [index, counts] : processors) {
    const auto t = counts.find("time");
    if (t == counts.end()) return std::nullopt;
    slowest = std::max(slowest, t->second.value);
  }
  return slowest;
}

std::vector<double> CounterTable::sizes() const {
  std::set<double> unique;
  for (const PhaseCounts& p : phases) unique.insert(p.size);
  return {unique.begin(), unique.end()};
}

std::vector<std::string> CounterTable::phase_names() const {
  std::vector<std::string> names;
  for (const PhaseCounts& p : phases)
    if (std::find(names.begin(), names.end(), p.phase) == names.end()) names.push_back(p.phase);
  return names;
}

std::vector<int> CounterTable::process_counts() const {
  std::set<int> unique;
  for (const PhaseCounts& p : phases) unique.insert(p.processes);
  return {unique.begin(), unique.end()};
}

const PhaseCounts* CounterTable::find(const std::string& phase, double size) const {
  for (const PhaseCounts& p : phases)
    if (p.phase == phase && p.size == size) return &p;
  return nullptr;
}

const PhaseCounts* CounterTable::find(const std::string& phase, double size, int processes) const {
  for (const PhaseCounts& p : phases)
    if (p.phase == phase && p.size == size && p.processes == processes) return &p;
  return nullptr;
}

namespace {

void read_into(CounterTable& table, const std::string& text, const std::string& file) {
  const CsvTable csv = parse_csv_table(text, file);
  const std::vector<CsvRow>& rows = csv.rows;
  std::size_t header_row = 0;
  while (header_row < rows.size() && !rows[header_row].cells.empty() &&
         trimmed(rows[header_row].cells[0]).rfind('#', 0) == 0)
    ++header_row;
  if (header_row >= rows.size()) throw input_error(file, "empty: expected a header row and counts");
  std::map<std::string, std::size_t> column;
  const CsvRow& header = rows[header_row];
  for (std::size_t i = 0; i < header.cells.size(); ++i) {
    const std::string name = trimmed(header.cells[i]);
    const std::string where = fmt::format("{}:{}:{}", file, header.line, i + 1);
    const bool known =
        std::find(kRequiredColumns.begin(), kRequiredColumns.end(), name) !=
            kRequiredColumns.end() ||
        std::find(kOptionalColumns.begin(), kOptionalColumns.end(), name) != kOptionalColumns.end();
    if (!known) {
      throw input_error(where, fmt::format("unknown column {}: expected size, phase, processor, "
                                           "counter, value and optionally source, low, high, unit",
                                           shown(name)));
    }
    if (column.count(name)) throw input_error(where, fmt::format("column '{}' twice", name));
    column[name] = i;
  }
  for (const std::string& name : kRequiredColumns) {
    if (!column.count(name)) {
      throw input_error(fmt::format("{}:{}", file, header.line),
                        fmt::format("missing column '{}' (a counter file has size, phase, "
                                    "processor, counter, value)",
                                    name));
    }
  }
  std::size_t counted = 0;
  for (std::size_t r = header_row + 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (!row.cells.empty() && trimmed(row.cells[0]).rfind('#', 0) == 0) continue;
    if (std::all_of(row.cells.begin(), row.cells.end(),
                    [](const std::string& c) { return trimmed(c).empty(); }))
      continue;
    const auto cell = [&](const std::string& name) -> std::pair<std::string, std::string> {
      if (!column.count(name)) return {"", ""};
      const std::size_t i = column[name];
      const std::string where = fmt::format("{}:{}:{}", file, row.line, i + 1);
      return {i < row.cells.size() ? trimmed(row.cells[i]) : "", where};
    };
    // A number's cell: with a decimal point for a decimal comma in a semicolon-separated file.
    const auto numeric = [&](const std::string& name) -> std::pair<std::string, std::string> {
      const auto [text, where] = cell(name);
      return {numeric_cell(text, csv), where};
    };
    if (row.cells.size() > header.cells.size()) {
      throw input_error(
          fmt::format("{}:{}", file, row.line),
          fmt::format("{} cells, the header has {}", row.cells.size(), header.cells.size()));
    }
    const auto [size_text, size_where] = numeric("size");
    const double size = number(size_text, size_where, "size");
    if (size <= 0)
      throw input_error(size_where, fmt::format("size: expected > 0, found {}", size_text));
    const auto [phase, phase_where] = cell("phase");
    if (phase.empty()) throw input_error(phase_where, "phase: empty");
    const auto [counter, counter_where] = cell("counter");
    const bool per_processor = std::find(processor_counters().begin(), processor_counters().end(),
                                         counter) != processor_counters().end();
    const bool per_bank =
        std::find(bank_counters().begin(), bank_counters().end(), counter) != bank_counters().end();
    if (!per_processor && !per_bank && counter != kWordAccesses) {
      throw input_error(counter_where,
                        fmt::format("unknown counter {}: expected one of {}, {}, {}",
                                    shown(counter), fmt::join(processor_counters(), ", "),
                                    fmt::join(bank_counters(), ", "), kWordAccesses));
    }
    const auto [processor_text, processor_where] = numeric("processor");
    std::optional<int> processor;
    if (counter == kWordAccesses) {
      if (!processor_text.empty())
        throw input_error(processor_where, "processor: word_accesses is per phase, leave it empty");
    } else {
      const double p = number(processor_text, processor_where, per_bank ? "bank" : "processor");
      if (p < 0 || p != std::floor(p) || p > 1e7) {
        throw input_error(processor_where,
                          fmt::format("{}: expected a whole number >= 0, found {}",
                                      per_bank ? "bank" : "processor", shown(processor_text)));
      }
      processor = static_cast<int>(p);
    }
    const auto [unit, unit_where] = cell("unit");
    double scale = 1;
    if (counter == "time") {
      scale = time_scale(unit, unit_where);
    } else if (!unit.empty() && unit != "events" && unit != "1") {
      throw input_error(unit_where, fmt::format("unknown unit {} for a count: expected events or "
                                                "nothing",
                                                shown(unit)));
    }
    const auto [value_text, value_where] = numeric("value");
    CountValue value;
    value.value = number(value_text, value_where, counter) * scale;
    if (value.value < 0) {
      throw input_error(value_where,
                        fmt::format("{}: expected >= 0, found {}", counter, value_text));
    }
    for (const char* bound : {"low", "high"}) {
      const auto [text, where] = numeric(bound);
      if (text.empty()) continue;
      const double b = number(text, where, bound) * scale;
      if (b < 0) throw input_error(where, fmt::format("{}: expected >= 0, found {}", bound, text));
      (std::string(bound) == "low" ? value.low : value.high) = b;
    }
    if ((value.low && *value.low > value.value * (1 + 1e-12)) ||
        (value.high && *value.high < value.value * (1 - 1e-12))) {
      throw input_error(fmt::format("{}:{}", file, row.line), "low <= value <= high does not hold");
    }
    value.source = cell("source").first;
    value.where = fmt::format("{}:{}", file, row.line);
    int processes = 0;
    if (column.count("processes")) {
      const auto [processes_text, processes_where] = numeric("processes");
      const double q = number(processes_text, processes_where, "processes");
      if (q < 1 || q != std::floor(q) || q > 1e7) {
        throw input_error(processes_where, fmt::format("processes: expected a whole number of "
                                                       "processes, 1 or more, found {}",
                                                       shown(processes_text)));
      }
      processes = static_cast<int>(q);
      if (per_processor && processor && *processor >= processes) {
        throw input_error(processes_where,
                          fmt::format("processor {} in a run of {} processes (numbered from 0)",
                                      *processor, processes));
      }
    }
    add_count(table, phase, size, processes, value.where, counter, processor, value);
    ++counted;
  }
  if (counted == 0) throw input_error(file, "no counts: expected rows after the header");
}

// The table of every file read: each phase's processors alike, in order.
CounterTable finished(CounterTable table) {
  for (const PhaseCounts& phase : table.phases) check_processors_alike(phase);
  sort_table(table);
  return table;
}

}  // namespace

CounterTable read_counter_file(const std::filesystem::path& path) {
  return read_counter_files({path});
}

CounterTable read_counter_files(const std::vector<std::filesystem::path>& paths) {
  CounterTable table;
  for (const auto& path : paths) read_into(table, read_file(path), path.string());
  return finished(std::move(table));
}

CounterTable parse_counter_file(const std::string& text, const std::string& file) {
  CounterTable table;
  read_into(table, text, file);
  return finished(std::move(table));
}

std::string format_counter_file(const CounterTable& table) {
  std::string text = "# sonde counter file (docs/formats.md, Counter files)\n";
  // The process count is a column only where the table states it.
  const bool processes = std::any_of(table.phases.begin(), table.phases.end(),
                                     [](const PhaseCounts& p) { return p.processes > 0; });
  std::vector<std::string> header = {"size",  "phase",  "processor", "counter",
                                     "value", "source", "low",       "high"};
  if (processes) header.push_back("processes");
  text += csv_line(header);
  const auto row = [&](const PhaseCounts& p, const std::string& processor,
                       const std::string& counter, const CountValue& v) {
    std::vector<std::string> cells = {number_text(p.size),
                                      p.phase,
                                      processor,
                                      counter,
                                      fmt::format("{}", v.value),
                                      v.source,
                                      v.low ? fmt::format("{}", *v.low) : "",
                                      v.high ? fmt::format("{}", *v.high) : ""};
    if (processes) cells.push_back(std::to_string(p.processes));
    text += csv_line(cells);
  };
  for (const PhaseCounts& p : table.phases) {
    for (const auto& [index, counts] : p.processors)
      for (const std::string& counter : processor_counters())
        if (counts.count(counter)) row(p, std::to_string(index), counter, counts.at(counter));
    for (const auto& [index, counts] : p.banks)
      for (const std::string& counter : bank_counters())
        if (counts.count(counter)) row(p, std::to_string(index), counter, counts.at(counter));
    if (p.word_accesses) row(p, "", kWordAccesses, *p.word_accesses);
  }
  return text;
}

void write_counter_file(const std::filesystem::path& path, const CounterTable& table) {
  write_file_atomically(path, format_counter_file(table));
}

}  // namespace sonde::counters
