#include "counters/counter_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/units.hpp"

namespace sonde::counters {
namespace {

std::string size_text(double size) { return format_si(size, ""); }

// F1, F2 and F3 are shown, but only their maximum F predicts a time.
bool is_part_of_f(const std::string& name) { return name == "F1" || name == "F2" || name == "F3"; }

}  // namespace

std::string format_counter_predictions(const std::vector<PhasePrediction>& predictions) {
  std::string out;
  std::vector<std::string> names;
  for (const auto& p : predictions)
    for (const auto& f : p.functions)
      if (std::find(names.begin(), names.end(), f.name) == names.end()) names.push_back(f.name);
  out += fmt::format("{:>9} {:<28} {:>3} {:>10}", "size", "phase", "p", "measured");
  for (const auto& name : names) out += fmt::format(" {:>10}", name);
  out += "\n";
  for (const auto& p : predictions) {
    out += fmt::format("{:>9} {:<28} {:>3} {:>10}", size_text(p.size), p.phase, p.processors,
                       p.measured ? format_seconds(*p.measured) : "-");
    for (const auto& name : names) {
      const FunctionValue* f = p.function(name);
      out += fmt::format(" {:>10}", f ? format_seconds(f->seconds) : "-");
    }
    out += "\n";
    if (p.measured) {
      out += fmt::format("{:>9} {:<28} {:>3} {:>10}", "", "  E = max(T,P)/min(T,P)", "", "");
      for (const auto& name : names) {
        const FunctionValue* f = p.function(name);
        out +=
            fmt::format(" {:>10}", f && !is_part_of_f(name)
                                       ? fmt::format("{:.2f}", error_ratio(*p.measured, f->seconds))
                                       : "");
      }
      out += "\n";
    }
  }
  const auto summary = summarize_errors(predictions);
  if (!summary.empty()) {
    out +=
        "\nErrors per phase over the sizes (Amato et al. (1999), Table 2): average / largest E\n";
    out += fmt::format("  {:<28}", "phase");
    for (const auto& name : names)
      if (!is_part_of_f(name)) out += fmt::format(" {:>13}", name);
    out += "\n";
    std::vector<std::string> phases;
    for (const auto& s : summary)
      if (std::find(phases.begin(), phases.end(), s.phase) == phases.end())
        phases.push_back(s.phase);
    for (const auto& phase : phases) {
      out += fmt::format("  {:<28}", phase);
      for (const auto& name : names) {
        if (is_part_of_f(name)) continue;
        const auto it = std::find_if(summary.begin(), summary.end(), [&](const ErrorSummary& s) {
          return s.phase == phase && s.function == name;
        });
        out += fmt::format(
            " {:>13}",
            it == summary.end() ? "-" : fmt::format("{:.2f} / {:.2f}", it->average, it->maximum));
      }
      out += "\n";
    }
  }
  std::vector<std::string> notes;
  for (const auto& p : predictions)
    for (const auto& n : p.notes)
      if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
  if (!notes.empty()) {
    out += "\nAssumptions\n";
    for (const auto& n : notes) out += "  - " + n + "\n";
  }
  return out;
}

nlohmann::json counter_predictions_json(const std::vector<PhasePrediction>& predictions) {
  nlohmann::json out = {{"phases", nlohmann::json::array()}, {"errors", nlohmann::json::array()}};
  for (const auto& p : predictions) {
    nlohmann::json functions = nlohmann::json::object();
    for (const auto& f : p.functions) {
      functions[f.name] = {{"seconds", f.seconds}, {"detail", f.detail}};
      if (p.measured) functions[f.name]["error_ratio"] = error_ratio(*p.measured, f.seconds);
    }
    nlohmann::json phase = {
        {"size", p.size}, {"phase", p.phase}, {"processors", p.processors}, {"H", p.h},
        {"M", p.m},       {"M_b", p.m_b},     {"functions", functions},     {"notes", p.notes}};
    if (p.k) phase["K"] = *p.k;
    if (p.measured) phase["measured_seconds"] = *p.measured;
    out["phases"].push_back(phase);
  }
  for (const auto& s : summarize_errors(predictions)) {
    out["errors"].push_back({{"phase", s.phase},
                             {"function", s.function},
                             {"average", s.average},
                             {"maximum", s.maximum},
                             {"points", s.points}});
  }
  return out;
}

std::string format_count_fits(const std::vector<CountFit>& fits) {
  // One line per phase and counter: the forms over the processors, and the worst fit error.
  std::map<std::pair<std::string, std::string>, std::pair<std::vector<std::string>, double>> lines;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& f : fits) {
    const auto key = std::pair{
        f.phase, (f.bank ? "bank " : "") + f.counter + (f.over.empty() ? "" : " (" + f.over + ")")};
    if (!lines.count(key)) order.push_back(key);
    auto& [forms, worst] = lines[key];
    if (std::find(forms.begin(), forms.end(), f.form) == forms.end()) forms.push_back(f.form);
    worst = std::max(worst, f.max_relative_error);
  }
  std::string out =
      fmt::format("  {:<28} {:<26} {:<24} {}\n", "phase", "count", "form(s)", "largest fit error");
  for (const auto& key : order) {
    const auto& [forms, worst] = lines[key];
    std::string joined;
    for (const auto& f : forms) joined += (joined.empty() ? "" : "; ") + f;
    out +=
        fmt::format("  {:<28} {:<26} {:<24} {:.1f}%\n", key.first, key.second, joined, 100 * worst);
  }
  return out;
}

std::string format_table4(const std::vector<ExtrapolatedPoint>& points) {
  const bool measured = std::any_of(points.begin(), points.end(), [](const ExtrapolatedPoint& p) {
    return p.measured_counts.has_value();
  });
  if (!measured) {
    // A forecast only: F from the extrapolated counts, with its interval; nothing measured.
    std::string out = fmt::format("{:>9} {:>5} {:<28} {:>26} {:>21}\n", "size", "p", "phase",
                                  "F from extrapolated counts", "F interval");
    for (const auto& point : points) {
      const auto& x = point.extrapolated;
      out += fmt::format(
          "{:>9} {:>5} {:<28} {:>26} {:>21}\n", size_text(x.size), x.processors, x.phase,
          format_seconds(x.function("F")->seconds),
          fmt::format("[{}, {}]", format_seconds(point.f_low), format_seconds(point.f_high)));
    }
    out +=
        "\nA forecast: no measured counts were given (--measured), so there is no measured time "
        "or F with measured counts to set beside it.\n";
    return out;
  }
  std::string out =
      fmt::format("{:>9} {:>5} {:<28} {:>10} {:>10} {:>6} {:>10} {:>21} {:>6}\n", "size", "p",
                  "phase", "measured", "F counted", "E", "F extrap.", "F interval", "E");
  std::vector<PhasePrediction> counted, extrapolated;
  for (const auto& point : points) {
    if (!point.measured_counts) continue;
    const auto& m = *point.measured_counts;
    const double fm = m.function("F")->seconds, fx = point.extrapolated.function("F")->seconds;
    const auto e = [&](double f) {
      return m.measured ? fmt::format("{:.2f}", error_ratio(*m.measured, f)) : std::string("-");
    };
    out += fmt::format(
        "{:>9} {:>5} {:<28} {:>10} {:>10} {:>6} {:>10} {:>21} {:>6}\n", size_text(m.size),
        m.processors, m.phase, m.measured ? format_seconds(*m.measured) : "-", format_seconds(fm),
        e(fm), format_seconds(fx),
        fmt::format("[{}, {}]", format_seconds(point.f_low), format_seconds(point.f_high)), e(fx));
    counted.push_back(m);
    extrapolated.push_back(point.extrapolated);
    extrapolated.back().measured = m.measured;
  }
  // F's rows of the per-phase summaries, and all phases together.
  const auto f_rows = [](const std::vector<PhasePrediction>& predictions) {
    std::vector<ErrorSummary> rows;
    ErrorSummary all{"all", "F", 0, 0, 0};
    for (const ErrorSummary& s : summarize_errors(predictions)) {
      if (s.function != "F") continue;
      rows.push_back(s);
      all.average += s.average * s.points;
      all.maximum = std::max(all.maximum, s.maximum);
      all.points += s.points;
    }
    if (all.points > 0) all.average /= all.points;
    rows.push_back(all);
    return rows;
  };
  const auto m = f_rows(counted), x = f_rows(extrapolated);
  if (m.size() > 1) {
    out += "\nF's errors, as Amato et al.'s (1999) Table 4: E = max(T,P)/min(T,P) over the sizes\n";
    out += fmt::format("  {:<28} {:>16} {:>16} {:>16} {:>16}\n", "phase", "measured: avg",
                       "measured: max", "estimated: avg", "estimated: max");
    for (std::size_t i = 0; i < m.size(); ++i) {
      out += fmt::format("  {:<28} {:>16.2f} {:>16.2f} {:>16.2f} {:>16.2f}\n", m[i].phase,
                         m[i].average, m[i].maximum, x[i].average, x[i].maximum);
    }
  }
  return out;
}

nlohmann::json table4_json(const std::vector<ExtrapolatedPoint>& points) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& point : points) {
    const auto& x = point.extrapolated;
    const double fx = x.function("F")->seconds;
    nlohmann::json row = {{"size", x.size},
                          {"processors", x.processors},
                          {"phase", x.phase},
                          {"f_extrapolated", fx},
                          {"f_interval", {point.f_low, point.f_high}}};
    // What was measured, only where something was.
    if (point.measured_counts) {
      const auto& m = *point.measured_counts;
      row["f_measured_counts"] = m.function("F")->seconds;
      if (m.measured) {
        row["measured_seconds"] = *m.measured;
        row["error_measured_counts"] = error_ratio(*m.measured, m.function("F")->seconds);
        row["error_extrapolated"] = error_ratio(*m.measured, fx);
      }
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace sonde::counters
