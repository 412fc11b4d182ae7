#include "check/check.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/csv_table.hpp"
#include "core/error.hpp"
#include "core/host.hpp"
#include "core/statistics.hpp"
#include "core/units.hpp"
#include "counters/collect.hpp"
#include "counters/counter_model.hpp"
#include "microbench/system_load.hpp"
#include "predict/workload.hpp"
#include "profile/profile.hpp"

namespace sonde::check {
namespace {

namespace fs = std::filesystem;

bool is_name_character(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

// An argument as a shell would need it: quoted where it holds anything but plain characters.
std::string shell_quoted(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return is_name_character(c) || std::string_view("-./=:,+@%").find(c) != std::string::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string command_text(const std::vector<std::string>& argv) {
  std::vector<std::string> words;
  for (const std::string& word : argv) words.push_back(shell_quoted(word));
  return fmt::format("{}", fmt::join(words, " "));
}

std::string setting_label(const Record& r) {
  return r.setting.empty() ? std::string("(spreadsheet)") : r.setting;
}

std::string number_text(double value) {
  return std::isfinite(value) ? fmt::format("{}", value) : std::string("inf");
}

// The lowest or highest of a record's probe samples of one field, those of one core alone or
// those of several cores at once, as CSV text; "" where there are none (a 0 was not timed).
std::string now_text(const Record& r, double MachineSample::*field, bool highest,
                     bool at_once = false) {
  std::optional<double> value;
  for (const MachineSample& s : r.machine_now) {
    if ((s.threads > 1) != at_once || !(s.*field > 0)) continue;
    value = !value ? s.*field : highest ? std::max(*value, s.*field) : std::min(*value, s.*field);
  }
  return value ? number_text(*value) : std::string();
}

// The first of a record's probe samples that ran the random chase; null where none did.
const MachineSample* first_chased(const Record& r) {
  const auto it = std::find_if(r.machine_now.begin(), r.machine_now.end(),
                               [](const MachineSample& s) { return s.chase_bytes > 0; });
  return it == r.machine_now.end() ? nullptr : &*it;
}

// The first of a record's probe samples whose `field` exceeds `floor`, that field as CSV text; ""
// where none does (the chase's size, the in-core read's, how many cores ran at once).
template <typename T>
std::string first_above_text(const Record& r, T MachineSample::*field, T floor = 0) {
  for (const MachineSample& s : r.machine_now) {
    if (s.*field > floor) return std::to_string(s.*field);
  }
  return "";
}

nlohmann::json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

std::string parameters_text(const std::map<std::string, double>& parameters) {
  std::vector<std::string> pairs;
  for (const auto& [name, value] : parameters) pairs.push_back(name + "=" + format_value(value));
  return fmt::format("{}", fmt::join(pairs, ","));
}

std::string interval_text(const Record& r) {
  if (!r.in_interval) return "no interval";
  return *r.in_interval ? "yes" : "no";
}

// "1.00 s [900 ms .. 1.10 s]"
std::string predicted_text(const Record& r) {
  if (!r.interval) return format_seconds(r.predicted);
  return fmt::format("{} [{} .. {}]", format_seconds(r.predicted), format_seconds(r.interval->low),
                     format_seconds(r.interval->high));
}

// "500 ms (490 ms .. 510 ms, 5 runs)"
std::string measured_text(const Record& r) {
  return fmt::format("{} ({} .. {}, {} run{})", format_seconds(r.measured.median),
                     format_seconds(r.measured.min), format_seconds(r.measured.max),
                     r.measured.count, r.measured.count == 1 ? "" : "s");
}

// What a failed run's last lines said, on one line.
std::string tail_text(const std::vector<std::string>& tail) {
  if (tail.empty()) return "it printed nothing";
  std::vector<std::string> lines;
  for (const std::string& line : tail) {
    lines.push_back(line.size() > 200 ? line.substr(0, 200) + "..." : line);
  }
  return fmt::format("its output ended: {}", fmt::join(lines, " | "));
}

// Why an MPI launcher may have refused to start, where sonde can tell.
std::string launcher_hint(const std::vector<std::string>& launcher, const RunOutput& run) {
  if (launcher.empty()) return "";
  std::string hint;
  if (::geteuid() == 0 && std::getenv("OMPI_ALLOW_RUN_AS_ROOT") == nullptr) {
    hint +=
        "; this runs as root, which Open MPI's launcher refuses unless "
        "OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are set: "
        "`source scripts/mpi-env.sh` sets them for the shell";
  }
  const bool slots = std::any_of(run.tail.begin(), run.tail.end(), [](const std::string& line) {
    return line.find("slots") != std::string::npos;
  });
  if (slots && std::getenv("OMPI_MCA_rmaps_base_oversubscribe") == nullptr) {
    hint +=
        "; more ranks than cores need OMPI_MCA_rmaps_base_oversubscribe=1 with Open MPI "
        "(`source scripts/mpi-env.sh`)";
  }
  return hint;
}

// A folder for the phase records, removed with everything in it when it goes. It lies beside the
// record files, not in /tmp: ranks on other nodes write there too, so it must be shared. Named
// after this host and process, so that checks from several hosts can share the folder.
struct PhaseFolder {
  fs::path path;
  explicit PhaseFolder(const fs::path& beside)
      : path(beside / fmt::format(".sonde-check-phases-{}-{}", host_name(), ::getpid())) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~PhaseFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  PhaseFolder(const PhaseFolder&) = delete;
  PhaseFolder& operator=(const PhaseFolder&) = delete;
};

// SONDE_PHASE_RECORD (where) and SONDE_PHASE_MODE (times only) for the program's processes while
// it lives, then the values sonde had before: the program inherits sonde's environment, and the
// launcher passes it on to the ranks it starts on this node.
class PhaseRecording {
 public:
  explicit PhaseRecording(const fs::path& prefix) {
    set("SONDE_PHASE_RECORD", prefix.string());
    set("SONDE_PHASE_MODE", "time");
  }
  ~PhaseRecording() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  PhaseRecording(const PhaseRecording&) = delete;
  PhaseRecording& operator=(const PhaseRecording&) = delete;

 private:
  void set(const std::string& name, const std::string& value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Per phase, the slowest and the fastest processor's seconds over `repetitions`.
std::map<std::string, PhaseTime> phase_times(const counters::RunRecord& run,
                                             std::size_t repetitions) {
  std::map<std::string, PhaseTime> times;
  for (const auto& [key, record] : run) {
    const double seconds = record.seconds / static_cast<double>(repetitions);
    const auto [it, first] = times.try_emplace(key.second, PhaseTime{seconds, seconds});
    it->second.slowest = std::max(it->second.slowest, seconds);
    it->second.fastest = std::min(it->second.fastest, seconds);
  }
  return times;
}

}  // namespace

std::vector<int> parse_ranks(const std::string& text) {
  if (trimmed(text).empty()) throw usage_error("--ranks", "expected rank counts, as 1,2,4");
  std::vector<int> ranks;
  for (const std::string& part : split(text, ',')) {
    const std::string word = trimmed(part);
    const std::optional<double> value = parse_number(word);
    if (!value || *value != std::floor(*value) || *value > 1e7) {
      throw usage_error("--ranks", fmt::format("{} in {}: expected whole numbers, as 1,2,4",
                                               shown(word), shown(text)));
    }
    if (*value <= 0) {
      throw usage_error("--ranks", fmt::format("{} in {}: a rank count must be at least 1",
                                               shown(word), shown(text)));
    }
    ranks.push_back(static_cast<int>(*value));
  }
  return ranks;
}

std::vector<std::pair<std::string, double>> parse_setting(const std::string& text) {
  const std::string expected = "expected NAME=VALUE pairs separated by commas, as N=8192,K=10";
  if (trimmed(text).empty()) throw usage_error("--set", fmt::format("empty; {}", expected));
  std::vector<std::pair<std::string, double>> setting;
  for (const std::string& part : split(text, ',')) {
    const std::size_t equals = part.find('=');
    if (equals == std::string::npos) {
      throw usage_error("--set", fmt::format("{} in {} has no '='; {}", shown(trimmed(part)),
                                             shown(text), expected));
    }
    const std::string name = trimmed(part.substr(0, equals));
    const std::string value_text = trimmed(part.substr(equals + 1));
    if (name.empty()) {
      throw usage_error("--set", fmt::format("{} in {} has no name before '='; {}",
                                             shown(trimmed(part)), shown(text), expected));
    }
    const std::optional<double> value = parse_number(value_text);
    if (!value) {
      throw usage_error("--set",
                        fmt::format("{} in {}: the value {} is no number; {}", shown(trimmed(part)),
                                    shown(text), shown(value_text), expected));
    }
    const bool twice = std::any_of(setting.begin(), setting.end(),
                                   [&](const auto& pair) { return pair.first == name; });
    if (twice) {
      throw usage_error("--set", fmt::format("{}: {} is given twice", shown(text), shown(name)));
    }
    setting.emplace_back(name, *value);
  }
  return setting;
}

std::string format_value(double value) {
  if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 1e18) {
    return fmt::format("{}", static_cast<long long>(value));
  }
  return fmt::format("{}", value);
}

std::vector<std::string> substitute(const std::vector<std::string>& command,
                                    const std::map<std::string, std::string>& values) {
  std::vector<std::string> result;
  for (const std::string& argument : command) {
    std::string text;
    std::size_t at = 0;
    while (at < argument.size()) {
      const std::size_t open = argument.find('{', at);
      if (open == std::string::npos) break;
      std::size_t close = open + 1;
      while (close < argument.size() && is_name_character(argument[close])) ++close;
      if (close == open + 1 || close >= argument.size() || argument[close] != '}') {
        text += argument.substr(at, open + 1 - at);  // not a placeholder: left as it is
        at = open + 1;
        continue;
      }
      const std::string name = argument.substr(open + 1, close - open - 1);
      const auto value = values.find(name);
      if (value == values.end()) {
        std::vector<std::string> known;
        for (const auto& [known_name, unused] : values) known.push_back("{" + known_name + "}");
        throw usage_error("--", fmt::format("the placeholder {{{}}} in {} has no value: it is no "
                                            "parameter of the spreadsheet; the placeholders are {}",
                                            name, shown(argument), fmt::join(known, ", ")));
      }
      text += argument.substr(at, open - at) + value->second;
      at = close + 1;
    }
    if (at < argument.size()) text += argument.substr(at);
    result.push_back(text);
  }
  return result;
}

std::vector<std::string> launcher_words(const std::optional<std::string>& launcher) {
  std::string text;
  if (launcher) {
    text = *launcher;
  } else {
    const char* given = std::getenv("SONDE_MPIEXEC");
    text = given != nullptr && !trimmed(given).empty() ? given : "mpiexec";
  }
  std::istringstream in(text);
  std::vector<std::string> words;
  std::string word;
  while (in >> word) words.push_back(word);
  // `--launcher= --ranks 1` gives the launcher the next argument.
  if (!words.empty() && words.front().front() == '-') {
    throw usage_error("--launcher",
                      fmt::format("{} is no launcher; to run the program directly "
                                  "give --launcher \"\", an empty argument of its own",
                                  shown(text)));
  }
  return words;
}

namespace {

// Where each "seconds" key's value starts in `line` (after the colon and blanks).
std::vector<std::size_t> seconds_values(const std::string& line) {
  static const std::string key = "\"seconds\"";
  std::vector<std::size_t> starts;
  for (std::size_t at = line.find(key); at != std::string::npos; at = line.find(key, at + 1)) {
    std::size_t i = at + key.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i >= line.size() || line[i] != ':') continue;
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    starts.push_back(i);
  }
  return starts;
}

}  // namespace

bool has_seconds(const std::string& line) { return !seconds_values(line).empty(); }

std::vector<double> seconds_in(const std::string& output, const std::string& program) {
  std::vector<double> seconds;
  for (std::string line : split(output, '\n')) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    for (std::size_t start : seconds_values(line)) {
      const char* begin = line.c_str() + start;
      char* end = nullptr;
      const double value = std::strtod(begin, &end);
      if (end == begin || !std::isfinite(value) || value < 0) {
        throw Error(ExitCode::failure, program,
                    fmt::format("printed {}: its \"seconds\" is no time; expected a number >= 0, "
                                "as {{\"seconds\": 0.25}}",
                                shown(line)));
      }
      seconds.push_back(value);
    }
  }
  return seconds;
}

Measured summarize(std::vector<double> seconds) {
  if (seconds.empty()) throw std::logic_error("summarize: no time");
  Measured measured;
  measured.median = sonde::median(seconds);
  measured.min = *std::min_element(seconds.begin(), seconds.end());
  measured.max = *std::max_element(seconds.begin(), seconds.end());
  measured.count = seconds.size();
  return measured;
}

void compare(Record& r) {
  r.error_ratio = counters::error_ratio(r.measured.median, r.predicted);
  r.error_ratio_in_state_now.reset();
  if (r.predicted_in_state_now) {
    r.error_ratio_in_state_now =
        counters::error_ratio(r.measured.median, *r.predicted_in_state_now);
  }
  r.in_interval.reset();
  if (r.interval) {
    r.in_interval = r.interval->low <= r.measured.median && r.measured.median <= r.interval->high;
  }
}

std::map<std::pair<std::string, int>, std::vector<MachineSample>> recorded_machine_now(
    const std::string& path) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw input_error(path, std::string("not JSON: ") + e.what());
  }
  if (!root.is_object() || !root.contains("records") || !root["records"].is_array()) {
    throw input_error(path, "records: absent or not a list; expected a record file of sonde check");
  }
  std::map<std::pair<std::string, int>, std::vector<MachineSample>> samples;
  std::size_t index = 0;
  for (const nlohmann::json& record : root["records"]) {
    const std::string where = fmt::format("records[{}]", index++);
    if (!record.is_object() || !record.contains("n") || !record["n"].is_number_integer() ||
        !record.contains("setting") || !record["setting"].is_string()) {
      throw input_error(path, where + ": expected a record with n (a whole number) and setting");
    }
    if (!record.contains("machine_now")) continue;  // not probed
    const nlohmann::json& now = record["machine_now"];
    if (!now.is_object() || !now.contains("samples") || !now["samples"].is_array()) {
      throw input_error(path, where + ".machine_now.samples: absent or not a list");
    }
    std::vector<MachineSample>& list =
        samples[{record["setting"].get<std::string>(), record["n"].get<int>()}];
    std::size_t at = 0;
    for (const nlohmann::json& sample : now["samples"]) {
      const std::string field = fmt::format("{}.machine_now.samples[{}]", where, at++);
      const auto number = [&](const char* key, bool may_be_null) {
        if (!sample.contains(key) || (sample[key].is_null() && may_be_null)) return 0.0;
        if (!sample[key].is_number()) {
          throw input_error(path, fmt::format("{}.{}: absent or no number", field, key));
        }
        return sample[key].get<double>();
      };
      if (!sample.is_object() || !sample.contains("threads") || !sample.contains("when") ||
          !sample["when"].is_string() || !sample.contains("dram_triad_bytes_per_second")) {
        throw input_error(path, field + ": expected threads, when and dram_triad_bytes_per_second");
      }
      MachineSample s;
      s.core = static_cast<unsigned>(number("core", false));
      s.threads = static_cast<unsigned>(number("threads", false));
      s.when = sample["when"].get<std::string>();
      s.dram_triad_bytes_per_second = number("dram_triad_bytes_per_second", false);
      // Records written before the probe's size was kept have none: 0, not known.
      s.triad_bytes = static_cast<std::uint64_t>(number("triad_bytes", true));
      s.add_latency_seconds = number("add_latency_seconds", true);
      s.dram_chase_seconds = number("dram_chase_seconds", true);
      s.chase_bytes = static_cast<std::uint64_t>(number("chase_bytes", true));
      // Records written before the probe read L1 have neither: 0, not timed.
      s.l1_read_bytes_per_second = number("l1_read_bytes_per_second", true);
      s.l1_bytes = static_cast<std::uint64_t>(number("l1_bytes", true));
      if (s.threads < 1) throw input_error(path, field + ".threads: expected at least 1");
      if (s.when != "before" && s.when != "after") {
        throw input_error(
            path, fmt::format("{}.when: {}; expected before or after", field, shown(s.when)));
      }
      if (s.dram_triad_bytes_per_second < 0 || s.l1_read_bytes_per_second < 0) {
        const bool triad = s.dram_triad_bytes_per_second < 0;
        throw input_error(
            path, fmt::format("{}.{}: {}; expected a rate >= 0 (0: not measured)", field,
                              triad ? "dram_triad_bytes_per_second" : "l1_read_bytes_per_second",
                              triad ? s.dram_triad_bytes_per_second : s.l1_read_bytes_per_second));
      }
      list.push_back(std::move(s));
    }
  }
  return samples;
}

namespace {

// Columns padded to their widest cell, those in `right` aligned right, the last one unpadded.
std::string aligned(const std::vector<std::string>& header,
                    const std::vector<std::vector<std::string>>& rows,
                    const std::set<std::size_t>& right) {
  std::vector<std::size_t> widths(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    widths[c] = header[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text = " ";
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool last = c + 1 == cells.size();
      if (right.count(c)) {
        text += fmt::format(" {:>{}}", cells[c], widths[c]);
      } else {
        text += last ? " " + cells[c] : fmt::format(" {:<{}}", cells[c], widths[c]);
      }
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::string text = line(header);
  for (const auto& row : rows) text += line(row);
  return text;
}

std::string ratio_text(double e) { return std::isfinite(e) ? fmt::format("{:.2f}", e) : "inf"; }

}  // namespace

std::string format_table(const std::vector<Record>& records) {
  const bool communication = std::any_of(records.begin(), records.end(), [](const Record& r) {
    return r.compared == "communication";
  });
  std::vector<std::string> header = {
      "setting",     "n",    communication ? "predicted T_comm" : "predicted P", "measured T", "E",
      "in interval", "notes"};
  const bool in_state = std::any_of(records.begin(), records.end(), [](const Record& r) {
    return r.predicted_in_state_now.has_value();
  });
  if (in_state) header.insert(header.begin() + 5, {"P' (state now)", "E'"});
  std::vector<std::vector<std::string>> rows;
  for (const Record& r : records) {
    std::vector<std::string> notes = r.notes;
    notes.insert(notes.end(), r.state_now_notes.begin(), r.state_now_notes.end());
    std::vector<std::string> row = {setting_label(r),
                                    std::to_string(r.n),
                                    predicted_text(r),
                                    measured_text(r),
                                    ratio_text(r.error_ratio),
                                    interval_text(r),
                                    fmt::format("{}", fmt::join(notes, "; "))};
    if (in_state) {
      row.insert(row.begin() + 5,
                 {r.predicted_in_state_now ? format_seconds(*r.predicted_in_state_now) : "-",
                  r.error_ratio_in_state_now ? ratio_text(*r.error_ratio_in_state_now) : "-"});
    }
    rows.push_back(std::move(row));
  }
  return aligned(header, rows,
                 in_state ? std::set<std::size_t>{1, 4, 6} : std::set<std::size_t>{1, 4});
}

std::vector<RowPrediction> row_predictions(const predict::Point& point) {
  std::vector<RowPrediction> rows;
  for (const predict::ComponentCost& cost : point.costs) {
    rows.push_back({std::string(cost.name), cost.seconds, cost.bound});
  }
  for (const predict::OverheadTerm& term : point.overheads) {
    const auto it = std::find_if(rows.begin(), rows.end(),
                                 [&](const RowPrediction& row) { return row.name == term.name; });
    if (it != rows.end()) {
      it->seconds += term.seconds;
      it->bound += "; " + std::string(term.operation);
      it->communication = true;
    } else {
      rows.push_back({std::string(term.name), term.seconds, std::string(term.operation), true});
    }
  }
  return rows;
}

std::vector<ComponentCheck> match_components(const std::vector<RowPrediction>& rows,
                                             const std::map<std::string, PhaseTime>& phases) {
  // A row by name, as the spreadsheet orders them; rows.end() for none.
  const auto row_named = [&](const std::string& name) {
    return std::find_if(rows.begin(), rows.end(),
                        [&](const RowPrediction& row) { return row.name == name; });
  };
  // The rows each phase names ("fft + reorder": two), and how many phases name each row.
  const auto rows_in = [](const std::string& phase) {
    std::vector<std::string> names;
    std::size_t start = 0;
    while (true) {
      const std::size_t end = phase.find(" + ", start);
      names.push_back(phase.substr(start, end == std::string::npos ? end : end - start));
      if (end == std::string::npos) return names;
      start = end + 3;
    }
  };
  std::map<std::string, std::vector<std::string>> phases_naming;
  for (const auto& [phase, time] : phases) {
    for (const std::string& row : rows_in(phase)) phases_naming[row].push_back(phase);
  }
  std::vector<ComponentCheck> checks;
  std::set<std::string> covered;
  for (const auto& [phase, time] : phases) {
    ComponentCheck c;
    c.name = phase;
    double predicted = 0;
    std::vector<std::string> bounds, found, missing, shared;
    for (const std::string& row : rows_in(phase)) {
      const auto it = row_named(row);
      if (it == rows.end()) {
        missing.push_back(shown(row));
        continue;
      }
      predicted += it->seconds;
      bounds.push_back(it->bound);
      c.communication = c.communication || it->communication;
      found.push_back(row);
      for (const std::string& other : phases_naming[row]) {
        if (other != phase)
          shared.push_back(fmt::format("{} is in {} too", shown(row), shown(other)));
      }
    }
    const double seconds = c.communication ? time.fastest : time.slowest;
    c.measured = seconds;
    if (!missing.empty()) {
      // Part of its time belongs to no row: its rows are listed as unmarked instead.
      c.bound = fmt::format("the spreadsheet has no row {}", fmt::join(missing, ", "));
    } else if (!shared.empty()) {
      // A row's time cannot be in two phases: set against either, it would be counted twice.
      c.bound = fmt::format("no prediction: {}", fmt::join(shared, "; "));
    } else {
      c.predicted = predicted;
      c.bound = fmt::format("{}", fmt::join(bounds, "; "));
      if (predicted > 0 && seconds > 0) c.error_ratio = counters::error_ratio(seconds, predicted);
      covered.insert(found.begin(), found.end());
    }
    checks.push_back(std::move(c));
  }
  // The program's order is unknown; phases in the spreadsheet's order of their first row.
  const auto first_row = [&](const ComponentCheck& c) {
    return row_named(rows_in(c.name).front()) - rows.begin();
  };
  std::stable_sort(checks.begin(), checks.end(),
                   [&](const auto& a, const auto& b) { return first_row(a) < first_row(b); });
  for (const RowPrediction& row : rows) {
    if (covered.count(row.name)) continue;
    ComponentCheck c;
    c.name = row.name;
    c.predicted = row.seconds;
    c.communication = row.communication;
    c.bound = row.bound + " (no phase marks it)";
    checks.push_back(std::move(c));
  }
  return checks;
}

std::string format_components(const std::vector<Record>& records) {
  std::string text;
  for (const Record& r : records) {
    if (r.components.empty()) continue;
    std::vector<std::vector<std::string>> rows;
    for (const ComponentCheck& c : r.components) {
      rows.push_back({c.name, c.predicted ? format_seconds(*c.predicted) : "",
                      c.measured ? format_seconds(*c.measured) : "",
                      c.error_ratio ? ratio_text(*c.error_ratio) : "", c.bound});
    }
    text += fmt::format(
        "\n{}, n = {}, per repetition: computation the slowest process, communication the "
        "fastest\n",
        setting_label(r), r.n);
    text += aligned({"phase", "predicted", "measured", "E", "bound by"}, rows, {1, 2, 3});
  }
  return text;
}

namespace {

// E over the records with P' where a record has one and P elsewhere; nullopt where none has a P'.
struct StateNowSummary {
  std::size_t points = 0;  // those with a P'
  double mean = 0, largest = 0;
};
std::optional<StateNowSummary> in_state_now(const std::vector<Record>& records) {
  StateNowSummary summary;
  double sum = 0;
  for (const Record& r : records) {
    const double e = r.error_ratio_in_state_now.value_or(r.error_ratio);
    sum += e;
    summary.largest = std::max(summary.largest, e);
    if (r.error_ratio_in_state_now) ++summary.points;
  }
  if (summary.points == 0) return std::nullopt;
  summary.mean = sum / static_cast<double>(records.size());
  return summary;
}

}  // namespace

std::string format_summary(const std::vector<Record>& records) {
  if (records.empty()) return "No point measured.\n";
  double sum = 0, largest = 0;
  std::size_t with_interval = 0, inside = 0;
  for (const Record& r : records) {
    sum += r.error_ratio;
    largest = std::max(largest, r.error_ratio);
    if (r.in_interval) {
      ++with_interval;
      if (*r.in_interval) ++inside;
    }
  }
  const double mean = sum / static_cast<double>(records.size());
  std::string interval = with_interval == 0 ? std::string("no prediction has an interval")
                                            : fmt::format("{} of {} in the prediction interval",
                                                          inside, with_interval);
  if (with_interval > 0 && with_interval < records.size()) {
    interval += fmt::format(" ({} without one)", records.size() - with_interval);
  }
  std::string text = fmt::format("E = max(T, P) / min(T, P) over {} point{}: mean {}, max {}; {}\n",
                                 records.size(), records.size() == 1 ? "" : "s", ratio_text(mean),
                                 ratio_text(largest), interval);
  // Beside it, never in its place: E with P priced in the memory state the probes saw.
  if (const auto now = in_state_now(records)) {
    text += fmt::format(
        "E = max(T, P') / min(T, P'), P' priced in the memory state the probes saw ({} of {} "
        "point{}; P elsewhere): mean {}, max {}\n",
        now->points, records.size(), records.size() == 1 ? "" : "s", ratio_text(now->mean),
        ratio_text(now->largest));
  }
  return text;
}

std::string records_csv(const std::vector<Record>& records) {
  std::string text = csv_line({"spreadsheet",
                               "machine",
                               "machine_name",
                               "network",
                               "setting",
                               "parameters",
                               "n",
                               "compared",
                               "predicted_seconds",
                               "predicted_low_seconds",
                               "predicted_high_seconds",
                               "measured_median_seconds",
                               "measured_min_seconds",
                               "measured_max_seconds",
                               "repetitions",
                               "error_ratio",
                               "in_interval",
                               "notes",
                               "command",
                               "date",
                               "host",
                               "dram_triad_now_low_bytes_per_second",
                               "dram_triad_now_high_bytes_per_second",
                               "profile_dram_triad_bytes_per_second",
                               "add_latency_now_low_seconds",
                               "add_latency_now_high_seconds",
                               "profile_add_latency_seconds",
                               "dram_triad_at_once_threads",
                               "dram_triad_at_once_now_low_bytes_per_second",
                               "dram_triad_at_once_now_high_bytes_per_second",
                               "profile_dram_triad_at_once_bytes_per_second",
                               "dram_chase_bytes",
                               "dram_chase_now_low_seconds",
                               "dram_chase_now_high_seconds",
                               "profile_dram_chase_seconds",
                               "l1_read_bytes",
                               "l1_read_now_low_bytes_per_second",
                               "l1_read_now_high_bytes_per_second",
                               "profile_l1_read_bytes_per_second",
                               "predicted_in_state_now_seconds",
                               "error_ratio_in_state_now",
                               "state_now_notes",
                               "steal_fraction",
                               "other_busy_cpus",
                               "dram_triad_bytes",
                               "profile_usual_triad_bytes_per_second",
                               "profile_usual_triad_at_once_bytes_per_second"});
  for (const Record& r : records) {
    text += csv_line(
        {r.spreadsheet,
         r.machine,
         r.machine_name,
         r.network,
         r.setting,
         parameters_text(r.parameters),
         std::to_string(r.n),
         r.compared,
         number_text(r.predicted),
         r.interval ? number_text(r.interval->low) : "",
         r.interval ? number_text(r.interval->high) : "",
         number_text(r.measured.median),
         number_text(r.measured.min),
         number_text(r.measured.max),
         std::to_string(r.measured.count),
         number_text(r.error_ratio),
         r.in_interval ? (*r.in_interval ? "yes" : "no") : "",
         fmt::format("{}", fmt::join(r.notes, "; ")),
         command_text(r.command),
         r.date,
         r.host,
         now_text(r, &MachineSample::dram_triad_bytes_per_second, false),
         now_text(r, &MachineSample::dram_triad_bytes_per_second, true),
         r.profile_dram_triad ? number_text(r.profile_dram_triad->value) : "",
         now_text(r, &MachineSample::add_latency_seconds, false),
         now_text(r, &MachineSample::add_latency_seconds, true),
         r.profile_add_latency ? number_text(r.profile_add_latency->value) : "",
         first_above_text(r, &MachineSample::threads, 1u),
         now_text(r, &MachineSample::dram_triad_bytes_per_second, false, true),
         now_text(r, &MachineSample::dram_triad_bytes_per_second, true, true),
         r.profile_dram_triad_at_once ? number_text(r.profile_dram_triad_at_once->value) : "",
         first_above_text(r, &MachineSample::chase_bytes),
         now_text(r, &MachineSample::dram_chase_seconds, false),
         now_text(r, &MachineSample::dram_chase_seconds, true),
         r.profile_dram_chase ? number_text(r.profile_dram_chase->value) : "",
         first_above_text(r, &MachineSample::l1_bytes),
         now_text(r, &MachineSample::l1_read_bytes_per_second, false),
         now_text(r, &MachineSample::l1_read_bytes_per_second, true),
         r.profile_l1_read ? number_text(r.profile_l1_read->value) : "",
         r.predicted_in_state_now ? number_text(*r.predicted_in_state_now) : "",
         r.error_ratio_in_state_now ? number_text(*r.error_ratio_in_state_now) : "",
         fmt::format("{}", fmt::join(r.state_now_notes, "; ")),
         r.load ? number_text(r.load->steal_fraction) : "",
         r.load ? number_text(r.load->other_busy_cpus) : "",
         first_above_text(r, &MachineSample::triad_bytes),
         r.profile_usual_triad ? number_text(r.profile_usual_triad->value) : "",
         r.profile_usual_triad_at_once ? number_text(r.profile_usual_triad_at_once->value) : ""});
  }
  return text;
}

nlohmann::json records_json(const std::vector<Record>& records, bool complete,
                            const std::string& error) {
  nlohmann::json list = nlohmann::json::array();
  double sum = 0, largest = 0;
  std::size_t with_interval = 0, inside = 0;
  for (const Record& r : records) {
    nlohmann::json j;
    j["spreadsheet"] = r.spreadsheet;
    j["machine"] = r.machine;
    j["machine_name"] = r.machine_name;
    j["network"] = r.network;
    j["setting"] = r.setting;
    j["parameters"] = r.parameters;
    j["n"] = r.n;
    j["compared"] = r.compared;
    j["predicted_seconds"] = finite_or_null(r.predicted);
    j["predicted_low_seconds"] = r.interval ? finite_or_null(r.interval->low) : nullptr;
    j["predicted_high_seconds"] = r.interval ? finite_or_null(r.interval->high) : nullptr;
    j["measured_median_seconds"] = r.measured.median;
    j["measured_min_seconds"] = r.measured.min;
    j["measured_max_seconds"] = r.measured.max;
    j["repetitions"] = r.measured.count;
    j["error_ratio"] = finite_or_null(r.error_ratio);
    j["in_interval"] = r.in_interval ? nlohmann::json(*r.in_interval) : nlohmann::json(nullptr);
    j["notes"] = r.notes;
    j["command"] = r.command;
    j["date"] = r.date;
    j["host"] = r.host;
    if (!r.machine_now.empty()) {
      nlohmann::json samples = nlohmann::json::array();
      for (const MachineSample& s : r.machine_now) {
        // The cores at once time no add chain: null, not 0.
        samples.push_back(
            {{"core", s.core},
             {"threads", s.threads},
             {"when", s.when},
             {"dram_triad_bytes_per_second", s.dram_triad_bytes_per_second},
             {"triad_bytes", s.triad_bytes},
             {"add_latency_seconds",
              s.threads > 1 ? nlohmann::json(nullptr) : nlohmann::json(s.add_latency_seconds)},
             {"dram_chase_seconds",
              s.chase_bytes > 0 ? nlohmann::json(s.dram_chase_seconds) : nlohmann::json(nullptr)},
             {"chase_bytes", s.chase_bytes},
             {"l1_read_bytes_per_second", s.l1_bytes > 0
                                              ? nlohmann::json(s.l1_read_bytes_per_second)
                                              : nlohmann::json(nullptr)},
             {"l1_bytes", s.l1_bytes}});
      }
      j["machine_now"] = {
          {"samples", samples},
          {"profile_dram_triad_bytes_per_second",
           r.profile_dram_triad ? nlohmann::json(r.profile_dram_triad->value) : nullptr},
          {"profile_add_latency_seconds",
           r.profile_add_latency ? nlohmann::json(r.profile_add_latency->value) : nullptr},
          {"profile_dram_triad_at_once_bytes_per_second",
           r.profile_dram_triad_at_once ? nlohmann::json(r.profile_dram_triad_at_once->value)
                                        : nullptr},
          {"profile_dram_chase_seconds",
           r.profile_dram_chase ? nlohmann::json(r.profile_dram_chase->value) : nullptr},
          {"profile_l1_read_bytes_per_second",
           r.profile_l1_read ? nlohmann::json(r.profile_l1_read->value) : nullptr},
          {"profile_usual_triad_bytes_per_second",
           r.profile_usual_triad ? nlohmann::json(r.profile_usual_triad->value) : nullptr},
          {"profile_usual_triad_at_once_bytes_per_second",
           r.profile_usual_triad_at_once ? nlohmann::json(r.profile_usual_triad_at_once->value)
                                         : nullptr}};
    }
    if (r.predicted_in_state_now) {
      j["predicted_in_state_now_seconds"] = finite_or_null(*r.predicted_in_state_now);
      j["error_ratio_in_state_now"] =
          r.error_ratio_in_state_now ? finite_or_null(*r.error_ratio_in_state_now) : nullptr;
    }
    if (!r.state_now_notes.empty()) j["state_now_notes"] = r.state_now_notes;
    if (r.load) {
      j["load"] = {{"seconds", r.load->seconds},
                   {"steal_fraction", r.load->steal_fraction},
                   {"other_busy_cpus", r.load->other_busy_cpus}};
    }
    if (!r.components.empty()) {
      nlohmann::json components = nlohmann::json::array();
      const auto optional = [](const std::optional<double>& v) {
        return v ? finite_or_null(*v) : nlohmann::json(nullptr);
      };
      for (const ComponentCheck& c : r.components) {
        components.push_back({{"name", c.name},
                              {"bound", c.bound},
                              {"communication", c.communication},
                              {"predicted_seconds", optional(c.predicted)},
                              {"measured_seconds", optional(c.measured)},
                              {"error_ratio", optional(c.error_ratio)}});
      }
      j["components"] = components;
    }
    list.push_back(j);
    sum += r.error_ratio;
    largest = std::max(largest, r.error_ratio);
    if (r.in_interval) {
      ++with_interval;
      if (*r.in_interval) ++inside;
    }
  }
  nlohmann::json report;
  report["records"] = list;
  report["summary"] = {
      {"points", records.size()},
      {"mean_error_ratio", records.empty()
                               ? nlohmann::json(nullptr)
                               : finite_or_null(sum / static_cast<double>(records.size()))},
      {"max_error_ratio", records.empty() ? nlohmann::json(nullptr) : finite_or_null(largest)},
      {"with_interval", with_interval},
      {"in_interval", inside}};
  if (const auto now = in_state_now(records)) {
    report["summary"]["in_state_now_points"] = now->points;
    report["summary"]["mean_error_ratio_in_state_now"] = finite_or_null(now->mean);
    report["summary"]["max_error_ratio_in_state_now"] = finite_or_null(now->largest);
  }
  report["complete"] = complete;
  if (!error.empty()) report["error"] = error;
  return report;
}

namespace {

// How often a point is measured while the probes see the state move during its runs.
constexpr int kMeasureAttempts = 3;

// Each --set as given ("N=8192,K=10") with its values; one empty setting for the spreadsheet's own.
using Settings = std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>>;

Settings parse_settings(const std::vector<std::string>& sets) {
  Settings settings;
  for (const std::string& text : sets) {
    const auto setting = parse_setting(text);
    std::vector<std::string> pairs;
    for (const auto& [name, value] : setting) pairs.push_back(name + "=" + format_value(value));
    settings.emplace_back(fmt::format("{}", fmt::join(pairs, ",")), setting);
  }
  if (settings.empty()) settings.emplace_back();
  return settings;
}

// Every parameter a setting names is the spreadsheet's.
void check_parameters_named(const Settings& settings, const predict::Workload& base,
                            const std::string& spreadsheet) {
  for (const auto& [text, setting] : settings) {
    for (const auto& [name, value] : setting) {
      if (base.parameters.count(name)) continue;
      std::vector<std::string> names;
      for (const auto& [known, unused] : base.parameters) names.push_back(known);
      throw usage_error(
          "--set",
          fmt::format("{}: {} has no parameter {}; {}", shown(text), spreadsheet, shown(name),
                      names.empty() ? std::string("it has none")
                                    : fmt::format("it has {}", fmt::join(names, ", "))));
    }
  }
}

// A point to check: its record as predicted, the prediction's rows (which its phases are set
// against) and its --set values (to price it again in the state its probes see).
struct PlannedPoint {
  Record record;
  std::vector<RowPrediction> rows;
  std::map<std::string, double> overrides;
};

// Every setting at every rank count, predicted, with the command that measures it.
std::vector<PlannedPoint> plan_points(const CheckOptions& o, const Settings& settings,
                                      const std::vector<int>& ranks, const profile::Profile& target,
                                      const predict::PredictOptions& predict_options,
                                      const std::vector<std::string>& launcher,
                                      const std::string& host) {
  std::vector<PlannedPoint> planned;
  for (const auto& [text, setting] : settings) {
    const std::map<std::string, double> overrides(setting.begin(), setting.end());
    const predict::Predictor predictor(predict::read_workload(o.spreadsheet, overrides), target,
                                       o.machine, predict_options);
    for (int n : ranks) {
      Record r;
      r.spreadsheet = o.spreadsheet;
      r.machine = o.machine;
      r.machine_name = target.machine.name;
      r.network = o.network;
      r.setting = text;
      r.parameters = predictor.workload().parameters;
      r.n = n;
      const predict::Point point = predictor.at(n, predict::Scheme::full_overhead);
      r.compared = o.communication_only ? "communication" : "total";
      r.predicted = o.communication_only ? point.communication : point.total;
      r.interval = o.communication_only ? point.communication_range : point.total_range;
      // Set against T_comm alone, the compute components' notes are no part of the comparison.
      r.notes = o.communication_only ? point.communication_notes : point.notes;
      std::map<std::string, std::string> values;
      for (const auto& [name, value] : r.parameters) values[name] = format_value(value);
      values["n"] = std::to_string(n);
      values["repetitions"] = std::to_string(o.repetitions);
      r.command = launcher;
      if (!launcher.empty()) {
        r.command.push_back("-n");
        r.command.push_back(std::to_string(n));
      }
      for (std::string& word : substitute(o.command, values)) r.command.push_back(std::move(word));
      r.host = host;
      planned.push_back({std::move(r), row_predictions(point), overrides});
    }
  }
  return planned;
}

// The launcher and every program the points run are there to be run.
void check_commands_found(const std::vector<PlannedPoint>& planned,
                          const std::vector<std::string>& launcher) {
  if (!launcher.empty() && !on_path(launcher.front())) {
    throw usage_error("--launcher",
                      fmt::format("{} not found on the PATH; name the MPI launcher with "
                                  "--launcher or SONDE_MPIEXEC, or give --launcher \"\" to run "
                                  "the program directly",
                                  shown(launcher.front())));
  }
  std::set<std::string> programs;
  const std::size_t program_at = launcher.empty() ? 0 : launcher.size() + 2;  // after "-n <n>"
  for (const PlannedPoint& p : planned) programs.insert(p.record.command.at(program_at));
  for (const std::string& program : programs) {
    if (!on_path(program)) {
      throw usage_error(
          "--", fmt::format("the program {} not found: {}", shown(program),
                            program.find('/') == std::string::npos ? "it is not on the PATH"
                                                                   : "no executable file there"));
    }
  }
}

// Probes the machine `when` ("before", "after") a point's runs into its machine_now and says on
// `log` what the probe saw. The probe is a diagnostic: where it fails (no memory, no binding) the
// check goes on without it, and the point's notes say so.
void probe_machine_now(Record& r, const Probe& probe, const ProbeSizes& sizes, const char* when,
                       std::ostream& log) {
  std::vector<MachineSample> samples;
  try {
    samples = probe(sizes);
  } catch (const std::exception& e) {
    const std::string note = fmt::format("machine {} the runs: not probed ({})", when, e.what());
    log << "sonde check: " << note << "\n";
    r.notes.push_back(note);
    return;
  }
  std::vector<std::string> triads, adds, chases, l1_reads;
  std::string at_once;
  std::uint64_t chased_bytes = 0;  // as the samples ran it: whole lines
  for (MachineSample& s : samples) {
    s.when = when;
    if (s.threads > 1) {
      at_once = fmt::format("; {} cores at once {:.1f} GB/s", s.threads,
                            s.dram_triad_bytes_per_second / 1e9);
    } else {
      triads.push_back(
          fmt::format("core {} {:.1f} GB/s", s.core, s.dram_triad_bytes_per_second / 1e9));
      adds.push_back(fmt::format("core {} {:.3g} ns", s.core, s.add_latency_seconds * 1e9));
      if (s.chase_bytes > 0) {
        chased_bytes = s.chase_bytes;
        chases.push_back(fmt::format("core {} {:.3g} ns", s.core, s.dram_chase_seconds * 1e9));
      }
      if (s.l1_bytes > 0) {
        l1_reads.push_back(
            fmt::format("core {} {:.1f} GB/s", s.core, s.l1_read_bytes_per_second / 1e9));
      }
    }
    r.machine_now.push_back(std::move(s));
  }
  log << fmt::format(
      "sonde check: machine {}: DRAM triad (1 thread) {}{}; add latency {}{}{}\n", when,
      fmt::join(triads, ", "), at_once, fmt::join(adds, ", "),
      chases.empty()
          ? std::string()
          : fmt::format("; chase over {} {}", format_bytes(static_cast<double>(chased_bytes)),
                        fmt::join(chases, ", ")),
      l1_reads.empty() ? std::string()
                       : fmt::format("; in-core read {}", fmt::join(l1_reads, ", ")));
}

// The load over two stretches of runs: each share weighted by its stretch's seconds.
Record::Load merged(const Record::Load& a, const Record::Load& b) {
  const double seconds = a.seconds + b.seconds;
  if (!(seconds > 0)) return a;
  const auto weighted = [&](double x, double y) {
    return (x * a.seconds + y * b.seconds) / seconds;
  };
  return Record::Load{seconds, weighted(a.steal_fraction, b.steal_fraction),
                      weighted(a.other_busy_cpus, b.other_busy_cpus)};
}

// The phases the kept runs recorded, one folder per set of runs with its repetitions, set against
// the point's rows (its components), and what its notes should say of them. Sets kept together
// are averaged over all their repetitions. The phases' times are a diagnostic: a program that
// marks none is still checked.
std::vector<std::string> time_phases(Record& r, const std::vector<RowPrediction>& rows,
                                     const std::vector<std::pair<fs::path, std::size_t>>& sets,
                                     const std::string& command, bool launched, std::ostream& log) {
  std::vector<std::string> notes;
  try {
    // Per phase: the sums over the sets of its per-repetition times times the set's repetitions,
    // and the repetitions summed.
    std::map<std::string, std::pair<PhaseTime, std::size_t>> sums;
    bool named_processes = false;
    for (const auto& [prefix, repetitions] : sets) {
      int processes = 0;
      const counters::RunRecord phases = counters::read_phase_records(prefix, command, &processes);
      for (const auto& [name, t] : phase_times(phases, repetitions)) {
        auto& [sum, count] = sums[name];
        sum.slowest += t.slowest * static_cast<double>(repetitions);
        sum.fastest += t.fastest * static_cast<double>(repetitions);
        count += repetitions;
      }
      // Run directly (no launcher), the program is one process whatever n says.
      if (launched && processes != r.n && !named_processes) {
        named_processes = true;
        notes.push_back(
            fmt::format("phases timed on {} of {} processes (do the ranks share the "
                        "folder of the records?)",
                        processes, r.n));
      }
    }
    std::map<std::string, PhaseTime> times;
    for (const auto& [name, sum_count] : sums) {
      const double count = static_cast<double>(sum_count.second);
      times[name] = PhaseTime{sum_count.first.slowest / count, sum_count.first.fastest / count};
    }
    r.components = match_components(rows, times);
  } catch (const std::exception& e) {  // a sonde Error, or a file the system refused
    const std::string note = fmt::format("phases not timed: {}", e.what());
    log << "sonde check: " << note << "\n";
    notes.push_back(note);
  }
  return notes;
}

// The point's probes set against its profile: what the profile said of each probed figure, the
// drift notes, and P' and E' where the probes saw a state the profile can be moved to.
void set_against_profile(Record& r, const PlannedPoint& point, const profile::Profile& target,
                         const CheckOptions& o, const predict::PredictOptions& predict_options) {
  if (const profile::Quantity* q = profile_dram_triad(target)) r.profile_dram_triad = *q;
  if (const profile::Quantity* q = profile_add_latency(target)) r.profile_add_latency = *q;
  if (const profile::Quantity* q = profile_l1_read(target)) r.profile_l1_read = *q;
  if (const MachineSample* chased = first_chased(r)) {
    if (const profile::Quantity* q = profile_dram_chase(target, chased->chase_bytes)) {
      r.profile_dram_chase = *q;
    }
  }
  const auto at_once = std::find_if(r.machine_now.begin(), r.machine_now.end(),
                                    [](const MachineSample& s) { return s.threads > 1; });
  if (at_once != r.machine_now.end()) {
    if (const profile::Quantity* q = profile_dram_triad(target, at_once->threads)) {
      r.profile_dram_triad_at_once = *q;
    }
    if (const profile::UsualState* u = usual_state_for(target, at_once->threads, r.machine_now)) {
      r.profile_usual_triad_at_once = u->dram_triad;
    }
  }
  if (const profile::UsualState* u = usual_state_for(target, 1, r.machine_now)) {
    r.profile_usual_triad = u->dram_triad;
  }
  for (std::string& note : drift_notes(target, r.machine_now)) r.notes.push_back(note);
  StateNow now = profile_in_state_now(target, r.machine_now);
  r.state_now_notes = std::move(now.notes);
  if (now.scaled) {
    const predict::Predictor in_state(predict::read_workload(o.spreadsheet, point.overrides),
                                      now.profile, o.machine, predict_options);
    const predict::Point priced = in_state.at(r.n, predict::Scheme::full_overhead);
    r.predicted_in_state_now = o.communication_only ? priced.communication : priced.total;
    compare(r);
  }
}

}  // namespace

int check_command(const CheckOptions& o, std::ostream& out, std::ostream& log, const Runner& runner,
                  const Probe& probe) {
  // Everything asked for is checked before the first run.
  if (o.command.empty()) {
    throw usage_error("--", "no program to run; give it after --, as -- ./program --N {N}");
  }
  if (o.repetitions < 1) {
    throw usage_error("--repetitions", fmt::format("{}: expected at least 1", o.repetitions));
  }
  if (o.components && o.communication_only) {
    throw usage_error("--components",
                      "not with --communication-only: a simulated run's phases cost no time, and "
                      "the programs built for SMPI mark none");
  }
  const std::vector<int> ranks = parse_ranks(o.ranks);
  const Settings settings = parse_settings(o.sets);
  const predict::Workload base = predict::read_workload(o.spreadsheet);
  check_parameters_named(settings, base, o.spreadsheet);
  std::vector<std::string> named;
  for (const auto& component : base.components) named.push_back(component.machine);
  predict::PredictOptions predict_options;
  predict_options.reference_machines =
      profile::reference_profiles(o.references, named, fs::path(o.machine));
  predict::read_network(predict_options, o.network);
  const profile::Profile target = profile::read_profile(o.machine);
  const std::vector<std::string> launcher = launcher_words(o.launcher);
  std::vector<PlannedPoint> planned =
      plan_points(o, settings, ranks, target, predict_options, launcher, host_name());
  check_commands_found(planned, launcher);
  for (const std::string& file : {o.csv, o.json}) {
    if (file.empty()) continue;
    const fs::path folder = fs::path(file).parent_path();
    ensure_writable_folder(folder.empty() ? fs::path(".") : folder);
  }

  // The recorded probes stand in for probing.
  std::map<std::pair<std::string, int>, std::vector<MachineSample>> recorded;
  if (!o.machine_now_from.empty()) recorded = recorded_machine_now(o.machine_now_from);
  ProbeSizes probe_sizes;
  if (probe) {
    const std::uint64_t memory = memory_available();
    probe_sizes.triad_bytes = probe_bytes(target, memory);
    probe_sizes.chase_bytes = probe_chase_bytes(target, memory);
    probe_sizes.line_bytes = probe_line_bytes(target);
    probe_sizes.l1_bytes = probe_l1_bytes(target);
  }
  std::optional<PhaseFolder> phase_folder;
  if (o.components) {
    const std::string& file = !o.json.empty() ? o.json : o.csv;
    const fs::path folder = fs::path(file).parent_path();
    phase_folder.emplace(fs::absolute(folder.empty() ? fs::path(".") : folder));
  }
  std::vector<Record> done;
  const auto write = [&](bool complete, const std::string& error) {
    if (!o.csv.empty()) write_file_atomically(o.csv, records_csv(done));
    if (!o.json.empty()) {
      write_file_atomically(o.json, records_json(done, complete, error).dump(2) + "\n");
    }
  };
  // What a failure keeps: the points measured before it, in the table and the files.
  const auto fail = [&](ExitCode code, const std::string& where, const std::string& what) {
    std::vector<std::string> files;
    for (const std::string& file : {o.csv, o.json})
      if (!file.empty()) files.push_back(file);
    std::string kept;
    if (done.empty()) {
      kept = "no point was measured before";
    } else {
      kept = fmt::format(
          "the {} point{} measured before {} kept{}", done.size(), done.size() == 1 ? "" : "s",
          done.size() == 1 ? "is" : "are",
          files.empty() ? std::string() : fmt::format(" in {}", fmt::join(files, " and ")));
    }
    const Error error(code, where, what + "; " + kept);
    write(false, error.what());
    if (!done.empty()) out << format_table(done) << format_summary(done) << format_components(done);
    return error;
  };

  for (std::size_t i = 0; i < planned.size(); ++i) {
    Record& r = planned[i].record;
    const std::string command = command_text(r.command);
    const std::string point = fmt::format("{}, n = {}", setting_label(r), r.n);
    log << fmt::format("sonde check: {} of {}: {}: {}\n", i + 1, planned.size(), point, command);
    // Runs the point's program once, its phases recorded under `prefix` where asked, and returns
    // the times it printed. A failure or an interrupt throws, keeping the points measured before.
    const auto run_once = [&](const fs::path& prefix) {
      // The load over the runs, read as characterize reads it per part: a point timed beside
      // other work (a neighbour on the host, stolen time) says so. No /proc: no reading.
      const auto sample = []() -> std::optional<microbench::LoadSample> {
        try {
          return microbench::sample_load();
        } catch (const Error&) {
          return std::nullopt;
        }
      };
      const std::optional<microbench::LoadSample> load_before = sample();
      const RunOutput run = [&] {
        std::optional<PhaseRecording> recording;
        if (phase_folder) recording.emplace(prefix);
        return runner(r.command);
      }();
      r.load.reset();
      if (const auto load_after = sample(); load_before && load_after) {
        const microbench::LoadReport report = microbench::load_between(*load_before, *load_after);
        r.load = Record::Load{report.seconds, report.steal_fraction, report.other_busy_cpus};
      }
      if (run.interrupted) {
        throw fail(ExitCode::interrupted, "sonde check",
                   fmt::format("interrupted during {}", point));
      }
      if (run.timed_out) {
        std::size_t printed = 0;
        for (const std::string& line : split(run.output, '\n'))
          printed += has_seconds(line) ? 1 : 0;
        throw fail(ExitCode::failure, command,
                   fmt::format("did not end within --time-limit {} at {} and was stopped "
                               "(SIGTERM, then SIGKILL); it had printed {} of {} times{}; {}",
                               format_seconds(o.time_limit_seconds), point, printed, o.repetitions,
                               printed >= static_cast<std::size_t>(o.repetitions)
                                   ? ": its work was done, and it hung while ending (in "
                                     "MPI_Finalize, or the launcher's teardown)"
                                   : "",
                               tail_text(run.tail)));
      }
      if (!run.exit.ok()) {
        throw fail(ExitCode::failure, command,
                   fmt::format("{} at {}; {}{}",
                               run.exit.signaled ? fmt::format("killed by signal {}", run.exit.code)
                                                 : fmt::format("exit status {}", run.exit.code),
                               point, tail_text(run.tail), launcher_hint(launcher, run)));
      }
      std::vector<double> seconds;
      try {
        seconds = seconds_in(run.output, command);
      } catch (const Error& e) {
        throw fail(e.code(), "", fmt::format("{} (at {})", e.what(), point));
      }
      if (seconds.empty()) {
        throw fail(ExitCode::failure, command,
                   fmt::format("printed no time at {}: expected a line with \"seconds\" per "
                               "repetition on its standard output, as {{\"seconds\": 0.25}}; {}",
                               point, tail_text(run.tail)));
      }
      if (seconds.size() != static_cast<std::size_t>(o.repetitions)) {
        log << fmt::format("sonde check: {}: printed {} time{} for {} repetitions\n", point,
                           seconds.size(), seconds.size() == 1 ? "" : "s", o.repetitions);
      }
      return seconds;
    };
    // A point whose probes saw the node's memory state move during its runs timed neither state:
    // it is measured again, three sets of runs in all at most, and the first set timed in a steady
    // state is kept, the sets before it named in its notes as set aside. Where the state moved
    // during every set, none is steadier than another and keeping the last would be a draw (on
    // the Zen 5 guest the blocked multiply's three sets took 515, 523 and 704 ms, and the last was
    // kept): all the runs are kept together, their median and spread over every set.
    struct RunSet {
      std::vector<double> seconds;
      fs::path phases;    // where its phases were recorded; empty: not recorded
      std::string moved;  // how the state moved during it; empty: steady, or not probed
      std::vector<MachineSample> machine;  // its probes, before and after
      std::optional<Record::Load> load;
    };
    std::vector<RunSet> sets;
    for (int attempt = 1;; ++attempt) {
      if (probe) probe_machine_now(r, probe, probe_sizes, "before", log);
      RunSet set;
      set.phases = phase_folder
                       ? phase_folder->path /
                             (attempt == 1 ? fmt::format("point-{}", i + 1)
                                           : fmt::format("point-{}-attempt-{}", i + 1, attempt)) /
                             "phases"
                       : fs::path();
      if (phase_folder) fs::create_directories(set.phases.parent_path());
      set.seconds = run_once(set.phases);
      set.load = r.load;
      if (probe) {
        probe_machine_now(r, probe, probe_sizes, "after", log);
        set.moved = state_moved(r.machine_now);
      }
      set.machine = std::move(r.machine_now);
      r.machine_now.clear();
      sets.push_back(std::move(set));
      if (sets.back().moved.empty() || attempt == kMeasureAttempts) break;
      log << fmt::format("sonde check: {}: measured again: runs of median {} timed while {}\n",
                         point, format_seconds(sonde::median(sets.back().seconds)),
                         sets.back().moved);
    }
    const bool together = sets.size() > 1 && !sets.back().moved.empty();
    const auto first_kept = together ? sets.begin() : sets.end() - 1;
    std::vector<std::string> moving;
    for (auto set = sets.begin(); set != sets.end(); ++set) {
      const std::string median = format_seconds(sonde::median(set->seconds));
      if (set < first_kept) {
        r.notes.push_back(fmt::format("measured again: runs of median {} set aside, timed while {}",
                                      median, set->moved));
      } else if (together) {
        moving.push_back(fmt::format("runs of median {} timed while {}", median, set->moved));
      }
    }
    std::vector<double> seconds;
    std::vector<std::pair<fs::path, std::size_t>> phase_sets;
    r.load.reset();
    for (auto set = first_kept; set != sets.end(); ++set) {
      seconds.insert(seconds.end(), set->seconds.begin(), set->seconds.end());
      r.machine_now.insert(r.machine_now.end(), set->machine.begin(), set->machine.end());
      phase_sets.emplace_back(set->phases, set->seconds.size());
      if (set->load) r.load = r.load ? merged(*r.load, *set->load) : *set->load;
    }
    if (together) {
      const std::string note =
          fmt::format("the state moved during every set of runs ({}): all {} runs kept together",
                      fmt::join(moving, "; "), seconds.size());
      log << "sonde check: " << point << ": " << note << "\n";
      r.notes.push_back(note);
    }
    r.measured = summarize(seconds);
    compare(r);
    std::vector<std::string> phase_notes;
    if (phase_folder) {
      phase_notes = time_phases(r, planned[i].rows, phase_sets, command, !launcher.empty(), log);
    }
    r.notes.insert(r.notes.end(), phase_notes.begin(), phase_notes.end());
    if (r.load) {
      if (const std::string busy =
              microbench::busy_note(r.load->steal_fraction, r.load->other_busy_cpus);
          !busy.empty()) {
        log << "sonde check: " << point << ": " << busy << "\n";
        r.notes.push_back(busy);
      }
    }
    if (const auto it = recorded.find({r.setting, r.n}); it != recorded.end()) {
      r.machine_now = it->second;
    }
    if (!r.machine_now.empty()) set_against_profile(r, planned[i], target, o, predict_options);
    r.date = utc_timestamp();
    done.push_back(r);
    write(i + 1 == planned.size(), "");
  }
  out << format_table(done) << format_summary(done) << format_components(done);
  return 0;
}

}  // namespace sonde::check
