#include "core/results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string_view>
#include <type_traits>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace sonde {
namespace {

// Fields that Google Benchmark itself writes into each entry; every other number is a counter.
const std::set<std::string>& standard_fields() {
  static const std::set<std::string> fields{"name",
                                            "family_index",
                                            "per_family_instance_index",
                                            "run_name",
                                            "run_type",
                                            "repetitions",
                                            "repetition_index",
                                            "threads",
                                            "iterations",
                                            "real_time",
                                            "cpu_time",
                                            "time_unit",
                                            "aggregate_name",
                                            "aggregate_unit",
                                            "label",
                                            "error_occurred",
                                            "error_message",
                                            "params",
                                            "big_o",
                                            "rms",
                                            "complexity_n"};
  return fields;
}

template <typename T>
T required(const nlohmann::json& entry, const char* key, const std::string& where) {
  const auto it = entry.find(key);
  if (it == entry.end()) throw input_error(where, fmt::format("lacks the field '{}'", key));
  // A whole number only from an integer: get<> would cut 2.5 to 2 (and 1e30 overflows).
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!it->is_number_integer()) {
      throw input_error(where, fmt::format("field '{}' has the wrong type ({}); expected a whole "
                                           "number",
                                           key, it->type_name()));
    }
    const bool fits =
        it->is_number_unsigned()
            ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())
            : it->get<std::int64_t>() >= std::numeric_limits<T>::min() &&
                  it->get<std::int64_t>() <= std::numeric_limits<T>::max();
    if (!fits)
      throw input_error(where, fmt::format("field '{}' is {}: out of range", key, it->dump()));
  }
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    throw input_error(where,
                      fmt::format("field '{}' has the wrong type ({})", key, it->type_name()));
  }
}

// A field that may be absent (then `fallback`), of the right type where present.
template <typename T>
T optional(const nlohmann::json& entry, const char* key, T fallback, const std::string& where) {
  return entry.contains(key) ? required<T>(entry, key, where) : fallback;
}

double non_negative(const nlohmann::json& entry, const char* key, const std::string& where) {
  const double value = required<double>(entry, key, where);
  if (!(value >= 0)) {
    throw input_error(where, fmt::format("field '{}' is {}; expected a value >= 0", key, value));
  }
  return value;
}

}  // namespace

std::optional<double> BenchmarkRecord::counter(const std::string& counter_name) const {
  const auto it = counters.find(counter_name);
  if (it == counters.end()) return std::nullopt;
  return it->second;
}

const nlohmann::json& ResultFile::sonde_context() const {
  const auto it = context.find("sonde");
  if (it == context.end() || !it->is_object()) {
    throw input_error(path.string(), "context lacks the 'sonde' object: not written by sonde");
  }
  return *it;
}

ResultFile parse_result_json(const std::string& text, const std::string& where) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw input_error(where, fmt::format("is not valid JSON (byte {}): {}", e.byte, e.what()));
  } catch (const nlohmann::json::exception& e) {
    // A number beyond a double's range ("1e400"): out_of_range, not a parse error.
    throw input_error(where, fmt::format("is not valid JSON: {}", e.what()));
  }
  if (!document.is_object()) throw input_error(where, "is not a JSON object");
  ResultFile file;
  file.path = where;
  file.context = document.value("context", nlohmann::json::object());
  const auto benchmarks = document.find("benchmarks");
  if (benchmarks == document.end() || !benchmarks->is_array()) {
    throw input_error(where, "lacks the 'benchmarks' array of a Google Benchmark JSON file");
  }
  for (std::size_t i = 0; i < benchmarks->size(); ++i) {
    const nlohmann::json& entry = (*benchmarks)[i];
    const std::string entry_where = fmt::format("{}: benchmarks[{}]", where, i);
    if (!entry.is_object()) throw input_error(entry_where, "is not an object");
    BenchmarkRecord record;
    record.name = required<std::string>(entry, "name", entry_where);
    record.run_name = optional<std::string>(entry, "run_name", record.name, entry_where);
    record.run_type = optional<std::string>(entry, "run_type", "iteration", entry_where);
    record.aggregate_name = optional<std::string>(entry, "aggregate_name", "", entry_where);
    record.repetition_index = optional<int>(entry, "repetition_index", -1, entry_where);
    record.repetitions = optional<int>(entry, "repetitions", 0, entry_where);
    if (optional<bool>(entry, "error_occurred", false, entry_where)) {
      record.error_message =
          optional<std::string>(entry, "error_message", "failed without a message", entry_where);
      // Google Benchmark writes "error_occurred": true with an empty message too.
      if (record.error_message.empty()) record.error_message = "failed without a message";
    } else {
      record.iterations = required<std::int64_t>(entry, "iterations", entry_where);
      if (record.iterations < 0) {
        throw input_error(entry_where,
                          fmt::format("field 'iterations' is {}; expected a whole number >= 0",
                                      record.iterations));
      }
      record.real_time = non_negative(entry, "real_time", entry_where);
      record.cpu_time = non_negative(entry, "cpu_time", entry_where);
      record.time_unit = required<std::string>(entry, "time_unit", entry_where);
    }
    record.params = entry.value("params", nlohmann::json());
    for (const auto& [key, value] : entry.items()) {
      if (value.is_number() && !standard_fields().contains(key)) {
        record.counters[key] = value.get<double>();
      }
    }
    file.benchmarks.push_back(std::move(record));
  }
  return file;
}

ResultFile read_result_file(const std::filesystem::path& path) {
  return parse_result_json(read_file(path), path.string());
}

namespace {

constexpr std::string_view kUnfinished = ".unfinished.json";

// An unfinished file's benchmarks that finished whole: no failed entry, every repetition it was to
// run, and their aggregates where it had several.
ResultFile whole_benchmarks_of(ResultFile file) {
  struct Tally {
    int runs = 0, wanted = 1, aggregates = 0, failed = 0;
    bool whole() const { return failed == 0 && runs >= wanted && (wanted == 1 || aggregates > 0); }
  };
  std::map<std::string, Tally> tallies;
  for (const BenchmarkRecord& record : file.benchmarks) {
    Tally& tally = tallies[record.run_name];
    ++(record.run_type == "aggregate" ? tally.aggregates : tally.runs);
    tally.wanted = std::max(tally.wanted, record.repetitions);
    if (!record.error_message.empty()) ++tally.failed;
  }
  std::erase_if(file.benchmarks,
                [&](const BenchmarkRecord& record) { return !tallies[record.run_name].whole(); });
  file.unfinished = true;
  for (const auto& [run_name, tally] : tallies) file.whole_benchmarks += tally.whole() ? 1 : 0;
  return file;
}

}  // namespace

std::vector<ResultFile> read_result_folder(const std::filesystem::path& folder,
                                           bool with_unfinished) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    throw input_error(folder.string(), "is not a results folder");
  }
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const auto& path = entry.path();
    // Not results: the run's manifest, its sizing, its drift probes, parts set aside because they
    // failed, and what an interrupted part had measured (kept for --resume; read with
    // `with_unfinished` where the part has no whole file).
    const std::string name = path.filename().string();
    const bool unfinished = name.size() > kUnfinished.size() && name.ends_with(kUnfinished);
    const bool set_aside = (name.size() > 12 && name.ends_with(".failed.json")) || unfinished;
    const bool stands_in =
        with_unfinished && unfinished &&
        !std::filesystem::exists(
            folder / (name.substr(0, name.size() - kUnfinished.size()) + ".json"), ec);
    if (entry.is_regular_file() && path.extension() == ".json" && name != "run.json" &&
        name != "drift.json" && !name.starts_with("sizing") && (!set_aside || stands_in)) {
      paths.push_back(path);
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<ResultFile> files;
  for (const auto& path : paths) {
    ResultFile file = read_result_file(path);
    if (path.filename().string().ends_with(kUnfinished))
      file = whole_benchmarks_of(std::move(file));
    files.push_back(std::move(file));
  }
  for (ResultFile& file : files) {
    if (!file.unfinished || file.context.contains("sonde")) continue;
    // A file that does not say its suite borrows nothing: reading it then fails, naming it.
    const std::string suite = file.context.value("sonde_suite", "");
    if (suite.empty()) continue;
    for (const ResultFile& whole : files) {
      if (whole.unfinished || !whole.context.contains("sonde") ||
          whole.context.value("sonde_suite", "") != suite) {
        continue;
      }
      file.context["sonde"] = whole.context["sonde"];
      file.context["sonde"].erase("noise");  // that part's, not this one's
      file.context["sonde"].erase("resumed");
      file.context_from = whole.path.filename().string();
      break;
    }
  }
  return files;
}

}  // namespace sonde
