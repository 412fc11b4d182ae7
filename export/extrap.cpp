// Extra-P's input formats. The grammar of both comes from docs/file-formats.md of
// github.com/extra-p/extrap ("Text file format": its ABNF, PARAMETER, POINTS, METRIC, REGION,
// DATA, "#" comments, numbers without exponent, every region with one DATA line per point; "JSON
// format": {"parameters": [...], "measurements": {callpath: {metric: [{"point", "values"}]}}}),
// checked against its readers extrap/fileio/file_reader/text_file_reader.py and
// json_file_reader.py. The text reader looks a METRIC up wrongly when a name comes back after
// another (it keeps the last new one), so each metric is written once, with every region under it.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "export/common.hpp"
#include "export/export.hpp"

namespace sonde::exports {

namespace {

// Extra-P models a parameter from five or more of its values: a note for each that has fewer in
// the series written.
std::vector<std::string> few_values_notes(const ExtrapData& data,
                                          const std::vector<const ExtrapSeries*>& written) {
  std::vector<std::string> notes;
  for (std::size_t i = 0; i < data.parameters.size(); ++i) {
    std::set<double> values;
    for (const ExtrapSeries* s : written) {
      for (const ExtrapPoint& p : s->points) values.insert(p.coordinates[i]);
    }
    if (values.size() < 5) {
      notes.push_back(fmt::format(
          "Parameter {} has {} value(s) here: Extra-P needs five values of a parameter to model "
          "it{}.",
          data.parameters[i], values.size(),
          data.more_values_advice.empty() ? "" : "; " + data.more_values_advice));
    }
  }
  return notes;
}

}  // namespace

ExtrapData extrap_from_collectives(const profile::Profile& profile, const std::string& where) {
  ExtrapData data;
  data.parameters = {"p", "m"};
  data.source = where;
  std::vector<std::string> without;
  for (const auto& [operation, collective] : profile.collectives) {
    if (collective.measurements.empty()) {
      without.push_back(operation);
      continue;
    }
    ExtrapSeries series{operation, "time", {}};
    for (const profile::CollectiveMeasurement& m : collective.measurements) {
      series.points.push_back({{static_cast<double>(m.ranks), m.bytes}, {m.time.value}});
    }
    std::sort(
        series.points.begin(), series.points.end(),
        [](const ExtrapPoint& a, const ExtrapPoint& b) { return a.coordinates < b.coordinates; });
    data.series.push_back(std::move(series));
  }
  if (data.series.empty()) {
    throw input_error(where,
                      profile.collectives.empty()
                          ? "collectives: absent; the Extra-P export needs measured collectives"
                          : "collectives.<operation>.measurements: absent in every collective; "
                            "the profile holds fitted forms only, and Extra-P models "
                            "measurements");
  }
  data.notes.push_back(fmt::format(
      "Collectives of {} from the sonde profile {}: parameters p (ranks in the communicator) and "
      "m (bytes per message; 0 for the barrier; alltoall: bytes to each other rank), metric time "
      "in seconds, one operation, the slowest rank's.",
      profile.machine.name, where));
  data.notes.push_back(
      "One value per point: the median of the repetitions. The profile keeps the median and the "
      "repetitions' range (collectives.<operation>.measurements[].time.interval), not each "
      "repetition.");
  data.notes.push_back(
      "Not expressed: the profile's own forms in n (Extra-P fits its own models), the intervals, "
      "and the point-to-point measurements.");
  if (!without.empty()) {
    data.notes.push_back(fmt::format("Not expressed: {}: forms only, no measured points.",
                                     fmt::join(without, ", ")));
  }
  data.more_values_advice = "run the MPI suite on more ranks";
  return data;
}

ExtrapData extrap_from_counters(const counters::CounterTable& table, const std::string& where) {
  ExtrapData data;
  data.parameters = {"size", "processes"};
  data.source = where;
  std::vector<std::string> metrics = {"time"};
  for (const std::string& counter : counters::processor_counters()) {
    if (counter != "time") metrics.push_back(counter);
  }
  metrics.push_back(counters::kWordAccesses);
  std::set<std::string> incomplete;
  for (const std::string& phase : table.phase_names()) {
    for (const std::string& metric : metrics) {
      ExtrapSeries series{phase, metric, {}};
      std::vector<std::string> missing;
      for (const counters::PhaseCounts& counts : table.phases) {
        if (counts.phase != phase) continue;
        // The run's stated process count (the processes column), else the processors counted.
        const double processes = counts.processes > 0
                                     ? static_cast<double>(counts.processes)
                                     : static_cast<double>(counts.processors.size());
        std::optional<double> value;
        if (metric == "time") {
          value = counts.measured_time();
        } else if (metric == counters::kWordAccesses) {
          if (counts.word_accesses) value = counts.word_accesses->value;
        } else {
          double sum = 0;
          bool all = !counts.processors.empty();
          for (const auto& [processor, values] : counts.processors) {
            const auto found = values.find(metric);
            if (found == values.end()) {
              all = false;
              break;
            }
            sum += found->second.value;
          }
          if (all) value = sum;
        }
        if (value) {
          series.points.push_back({{counts.size, processes}, {*value}});
        } else {
          missing.push_back(detail::shortest(counts.size));
        }
      }
      if (!series.points.empty() && !missing.empty()) {
        incomplete.insert(fmt::format("{} {} at size {}", phase, metric, fmt::join(missing, ", ")));
      }
      if (!series.points.empty()) data.series.push_back(std::move(series));
    }
  }
  if (data.series.empty()) {
    throw input_error(where, "no phase has a time or a count to export");
  }
  data.notes.push_back(fmt::format(
      "Pilot runs from the sonde counter files {}: parameters size (the problem size n) and "
      "processes (the counter file's processes column, or where it has none the processors, "
      "threads or "
      "ranks counted in the phase), one region per phase.",
      where));
  data.notes.push_back(
      "Metrics: time in seconds, the slowest processor's (the superstep's time); each count "
      "summed over the processors; word_accesses per phase. One value per point: the counter "
      "files' low and high (a spread or an interval) are not expressed.");
  data.notes.push_back(
      "Not expressed: the per-bank counts (bank_*), the per-processor values, and counts "
      "measured on some processors of a phase only.");
  data.more_values_advice = "run more pilot sizes or process counts";
  for (const std::string& item : incomplete) {
    data.notes.push_back("Not expressed: " + item +
                         ": absent there, or not counted on every processor.");
  }
  return data;
}

namespace {

// The points every written series must have: those of the largest group of series that share
// their points (the text format needs one DATA line per point in every region).
std::vector<std::vector<double>> common_points(const ExtrapData& data,
                                               std::vector<const ExtrapSeries*>& kept,
                                               std::vector<std::string>& left_out) {
  std::map<std::vector<std::vector<double>>, std::vector<const ExtrapSeries*>> groups;
  for (const ExtrapSeries& s : data.series) {
    std::vector<std::vector<double>> points;
    for (const ExtrapPoint& p : s.points) points.push_back(p.coordinates);
    groups[points].push_back(&s);
  }
  const auto best =
      std::max_element(groups.begin(), groups.end(), [](const auto& a, const auto& b) {
        if (a.second.size() != b.second.size()) return a.second.size() < b.second.size();
        return a.first.size() < b.first.size();
      });
  kept = best->second;
  for (const ExtrapSeries& s : data.series) {
    if (std::find(kept.begin(), kept.end(), &s) == kept.end()) {
      left_out.push_back(fmt::format("{} ({})", s.callpath, s.metric));
    }
  }
  return best->first;
}

std::string coordinate_text(double value) { return detail::fixed_decimal(value); }

}  // namespace

std::string extrap_text(const ExtrapData& data) {
  std::vector<const ExtrapSeries*> kept;
  std::vector<std::string> left_out;
  const std::vector<std::vector<double>> points = common_points(data, kept, left_out);

  std::ostringstream out;
  out << "# Extra-P text input (docs/file-formats.md of github.com/extra-p/extrap), exported by "
         "sonde.\n";
  for (const std::string& note : data.notes) {
    for (const std::string& line : detail::wrap("# ", note)) out << line << "\n";
  }
  if (!left_out.empty()) {
    const std::string note = fmt::format(
        "Not expressed here: {}: measured at other points than the rest, and this format needs "
        "a value at every point in every region; the extrap-json export holds them.",
        fmt::join(left_out, ", "));
    for (const std::string& line : detail::wrap("# ", note)) out << line << "\n";
  }
  for (const std::string& note : few_values_notes(data, kept)) {
    for (const std::string& line : detail::wrap("# ", note)) out << line << "\n";
  }
  out << "PARAMETER";
  for (const std::string& parameter : data.parameters) out << " " << parameter;
  out << "\nPOINTS";
  for (const std::vector<double>& point : points) {
    out << " (";
    for (std::size_t i = 0; i < point.size(); ++i) {
      out << (i ? " " : "") << coordinate_text(point[i]);
    }
    out << ")";
  }
  out << "\n";
  std::vector<std::string> metrics;
  for (const ExtrapSeries* s : kept) {
    if (std::find(metrics.begin(), metrics.end(), s->metric) == metrics.end()) {
      metrics.push_back(s->metric);
    }
  }
  for (const std::string& metric : metrics) {
    out << "METRIC " << metric << "\n";
    for (const ExtrapSeries* s : kept) {
      if (s->metric != metric) continue;
      out << "REGION " << s->callpath << "\n";
      for (const ExtrapPoint& p : s->points) {
        out << "DATA";
        for (double value : p.values) out << " " << detail::fixed_decimal(value);
        out << "\n";
      }
    }
  }
  return out.str();
}

std::string extrap_json(const ExtrapData& data) {
  std::vector<const ExtrapSeries*> all;
  for (const ExtrapSeries& s : data.series) all.push_back(&s);
  std::vector<std::string> notes = data.notes;
  for (const std::string& note : few_values_notes(data, all)) notes.push_back(note);
  nlohmann::ordered_json root;
  root["parameters"] = data.parameters;
  nlohmann::ordered_json measurements = nlohmann::ordered_json::object();
  for (const ExtrapSeries& s : data.series) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const ExtrapPoint& p : s.points) {
      list.push_back({{"point", p.coordinates}, {"values", p.values}});
    }
    measurements[s.callpath][s.metric] = list;
  }
  root["measurements"] = measurements;
  // Extra-P's reader takes only "parameters" and "measurements"; its schema allows more keys.
  root["sonde"] = {
      {"format", "Extra-P JSON input (docs/file-formats.md of github.com/extra-p/extrap)"},
      {"source", data.source},
      {"notes", notes}};
  return root.dump(2) + "\n";
}

namespace {

// NUMBER = ["-" / "+"] 1*DIGIT ["." *DIGIT]
bool is_number(const std::string& text) {
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  const std::size_t digits = i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == digits) return false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  }
  return i == text.size();
}

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

}  // namespace

ExtrapData read_extrap_text(const std::string& text, const std::string& where) {
  ExtrapData data;
  std::vector<std::vector<double>> points;
  std::string metric, region;
  ExtrapSeries* current = nullptr;
  std::istringstream lines(text);
  std::string line;
  const auto finish = [&](const std::string& place) {
    if (current && current->points.size() != points.size()) {
      throw input_error(place, fmt::format("region '{}' metric '{}' has {} DATA lines for {} "
                                           "POINTS",
                                           current->callpath, current->metric,
                                           current->points.size(), points.size()));
    }
  };
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    const std::string place = fmt::format("{}:{}", where, number);
    if (line.empty() || line[0] == '#' || line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    const auto space = line.find(' ');
    const std::string keyword = line.substr(0, space);
    const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (keyword == "PARAMETER") {
      if (!points.empty()) throw input_error(place, "PARAMETER after POINTS");
      for (const std::string& name : words_of(rest)) data.parameters.push_back(name);
      if (data.parameters.empty()) throw input_error(place, "PARAMETER without a name");
    } else if (keyword == "POINTS") {
      if (data.parameters.empty()) throw input_error(place, "POINTS before PARAMETER");
      std::string body = rest;
      std::size_t at = 0;
      while ((at = body.find('(', at)) != std::string::npos) {
        const auto close = body.find(')', at);
        if (close == std::string::npos) throw input_error(place, "a point without ')'");
        std::vector<double> point;
        for (const std::string& c : words_of(body.substr(at + 1, close - at - 1))) {
          if (!is_number(c)) throw input_error(place, "'" + c + "' is not a NUMBER");
          point.push_back(std::stod(c));
        }
        if (point.size() != data.parameters.size()) {
          throw input_error(place, fmt::format("a point has {} coordinates for {} parameters",
                                               point.size(), data.parameters.size()));
        }
        points.push_back(point);
        at = close + 1;
      }
      if (points.empty()) throw input_error(place, "POINTS without a point");
    } else if (keyword == "METRIC" || keyword == "REGION") {
      finish(place);
      current = nullptr;
      if (rest.empty()) throw input_error(place, keyword + " without a name");
      (keyword == "METRIC" ? metric : region) = rest;
    } else if (keyword == "DATA") {
      if (points.empty()) throw input_error(place, "DATA before POINTS");
      if (region.empty()) throw input_error(place, "DATA before REGION");
      if (!current) {
        data.series.push_back({region, metric, {}});
        current = &data.series.back();
      }
      if (current->points.size() >= points.size()) {
        throw input_error(place, "more DATA lines than POINTS");
      }
      std::vector<double> values;
      for (const std::string& v : words_of(rest)) {
        if (!is_number(v)) throw input_error(place, "'" + v + "' is not a NUMBER");
        values.push_back(std::stod(v));
      }
      if (values.empty()) throw input_error(place, "DATA without a value");
      current->points.push_back({points[current->points.size()], values});
    } else {
      throw input_error(place, "unknown keyword '" + keyword +
                                   "'; expected PARAMETER, POINTS, METRIC, REGION, DATA or #");
    }
  }
  finish(fmt::format("{}:{}", where, number));
  return data;
}

ExtrapData read_extrap_json(const std::string& text, const std::string& where) {
  nlohmann::ordered_json root;
  try {
    root = nlohmann::ordered_json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw input_error(where, std::string("not JSON: ") + e.what());
  }
  ExtrapData data;
  if (!root.is_object() || !root.contains("parameters") || !root["parameters"].is_array() ||
      root["parameters"].empty()) {
    throw input_error(where, "parameters: expected a list of at least one name");
  }
  for (const auto& p : root["parameters"]) {
    if (!p.is_string()) throw input_error(where, "parameters: a name is not a string");
    data.parameters.push_back(p.get<std::string>());
  }
  if (!root.contains("measurements") || !root["measurements"].is_object() ||
      root["measurements"].empty()) {
    throw input_error(where, "measurements: expected an object of at least one callpath");
  }
  for (const auto& [callpath, metrics] : root["measurements"].items()) {
    if (!metrics.is_object() || metrics.empty()) {
      throw input_error(where, "measurements." + callpath + ": expected an object of metrics");
    }
    for (const auto& [metric, list] : metrics.items()) {
      const std::string key = "measurements." + callpath + "." + metric;
      if (!list.is_array()) throw input_error(where, key + ": expected a list");
      ExtrapSeries series{callpath, metric, {}};
      for (const auto& item : list) {
        if (!item.is_object() || !item.contains("point") || !item.contains("values")) {
          throw input_error(where, key + ": an entry lacks point or values");
        }
        ExtrapPoint point;
        for (const auto& c : item["point"]) {
          if (!c.is_number()) throw input_error(where, key + ": a coordinate is not a number");
          point.coordinates.push_back(c.get<double>());
        }
        for (const auto& v : item["values"]) {
          if (!v.is_number()) throw input_error(where, key + ": a value is not a number");
          point.values.push_back(v.get<double>());
        }
        if (point.coordinates.size() != data.parameters.size() || point.values.empty()) {
          throw input_error(where, key +
                                       ": a point needs one coordinate per parameter and a "
                                       "value");
        }
        series.points.push_back(std::move(point));
      }
      data.series.push_back(std::move(series));
    }
  }
  return data;
}

}  // namespace sonde::exports
