#include "predict/report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <cmath>

#include "core/error.hpp"
#include "core/units.hpp"
#include "counters/counter_model.hpp"

namespace sonde::predict {

namespace {

std::string flops(double value) { return format_si(value, "flop"); }

nlohmann::json point_json(const Point& p) {
  nlohmann::json overheads = nlohmann::json::array();
  for (const OverheadTerm& o : p.overheads) {
    overheads.push_back({{"name", o.name}, {"operation", o.operation}, {"seconds", o.seconds}});
  }
  nlohmann::json costs = nlohmann::json::array();
  for (const ComponentCost& c : p.costs) {
    nlohmann::json cost = {{"name", c.name}, {"seconds", c.seconds}, {"bound", c.bound}};
    if (c.range) cost["range_seconds"] = {c.range->low, c.range->high};
    if (!c.level.empty()) cost["level"] = c.level;
    costs.push_back(cost);
  }
  nlohmann::json out = {{"n", p.n},
                        {"processes_per_node", p.processes_per_node},
                        {"threads_per_process", p.threads_per_process},
                        {"seconds", p.total},
                        {"compute_seconds", p.compute},
                        {"communication_seconds", p.communication},
                        {"parallelism_seconds", p.parallelism},
                        {"speedup", p.speedup},
                        {"efficiency", p.efficiency},
                        {"flops_per_second", p.speed},
                        {"utilization", p.utilization},
                        {"overheads", overheads},
                        {"components", costs},
                        {"notes", p.notes}};
  if (p.total_range) out["range_seconds"] = {p.total_range->low, p.total_range->high};
  return out;
}

}  // namespace

std::vector<double> powers_of_two(double largest) {
  std::vector<double> out;
  for (double n = 1; n < largest; n *= 2) out.push_back(n);
  out.push_back(largest);
  return out;
}

std::vector<double> plot_nodes(double largest) {
  std::vector<double> out;
  for (double n = 1; n <= largest * 1.0001; n *= std::pow(2.0, 0.125)) {
    if (out.empty() || std::round(n) > out.back()) out.push_back(std::round(n));
  }
  return out;
}

std::vector<double> parse_nodes(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return usage_error("--nodes", "'" + text + "': " + why +
                                      "; expected a list (1,2,4,256) or a range of powers of two "
                                      "(1..1048576)");
  };
  std::vector<double> out;
  const auto number = [&](const std::string& word) {
    const std::optional<double> value = parse_number(word);
    if (!value) throw bad("'" + word + "' is not a number");
    if (*value < 1 || *value != std::floor(*value)) {
      throw bad("'" + word + "' is not a whole number of nodes >= 1");
    }
    return *value;
  };
  if (const auto dots = text.find(".."); dots != std::string::npos) {
    const double low = number(text.substr(0, dots));
    const double high = number(text.substr(dots + 2));
    if (high < low) throw bad("the range is empty");
    for (double n = low; n < high; n *= 2) out.push_back(n);
    out.push_back(high);
    return out;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    out.push_back(number(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

std::string format_prediction(const Predictor& predictor, const std::vector<double>& nodes,
                              const std::vector<RequirementResult>& requirements) {
  const Summary& s = predictor.summary();
  std::string out = fmt::format("{} on {}\n", predictor.workload().path.string(),
                                predictor.target().machine.name);
  out += "\nComponents (T_1 on the target)\n";
  for (const ComponentTime& c : s.components) {
    out += fmt::format("  {:<12} {:>14} {:>12}   {}\n", c.name, flops(c.work_flop),
                       format_seconds(c.seconds), c.how);
  }
  out +=
      "\nT_n in seconds (Xu and Hwang (1995), Table 8; forms in us, m in bytes; no message at n = "
      "1)\n";
  out += "  T_n = " + predictor.expression() + "\n";
  out += "\nWithout overhead (Xu and Hwang (1995), Table 9)\n";
  out += fmt::format("  workload W                {}\n", flops(s.work_flop));
  out += fmt::format("  sequential time T_1       {}\n", format_seconds(s.t1));
  // A component whose DOP grows with n has no part in T_inf; where some DOP is bounded (a serial
  // part), that part still bounds the average parallelism and P_inf (Amdahl).
  out += s.t_inf > 0
             ? fmt::format("  critical path T_inf       {}{}\n", format_seconds(s.t_inf),
                           s.unbounded_parallelism ? " (the components of bounded DOP alone)" : "")
             : "  critical path T_inf       0 (every component's DOP grows with n)\n";
  out += s.unbounded_parallelism ? "  maximal parallelism N_max unbounded (DOP grows with n)\n"
                                 : fmt::format("  maximal parallelism N_max {:.0f}\n", s.n_max);
  if (s.t_inf > 0) {
    out += fmt::format("  average parallelism       {:.1f}\n", s.average_parallelism);
    out += fmt::format("  maximal performance P_inf {}/s\n", flops(s.p_inf));
  } else {
    out += "  average parallelism       unbounded\n";
    out += "  maximal performance P_inf unbounded\n";
  }
  if (s.peak) out += fmt::format("  node peak P_peak          {}/s\n", flops(*s.peak));
  if (s.sccr) out += fmt::format("  SCCR = P_peak t0          {:.0f} flops per message\n", *s.sccr);

  out +=
      "\nFull-overhead prediction (Xu and Hwang (1995), Table 10), with the other schemes' "
      "speedup\n";
  out += fmt::format("  {:>9} {:>11} {:>23} {:>11} {:>11} {:>9} {:>7} {:>13} {:>7} {:>11} {:>11}\n",
                     "n", "T_n", "range", "compute", "overhead", "S_n", "E_n", "P_n", "U_n",
                     "S_n 0-ovh", "S_n theory");
  for (double n : nodes) {
    const Point full = predictor.at(n, Scheme::full_overhead);
    const Point zero = predictor.at(n, Scheme::zero_overhead);
    const Point theory = predictor.at(n, Scheme::theoretical);
    const std::string range = full.total_range
                                  ? fmt::format("[{} .. {}]", format_seconds(full.total_range->low),
                                                format_seconds(full.total_range->high))
                                  : "";
    out += fmt::format(
        "  {:>9.0f} {:>11} {:>23} {:>11} {:>11} {:>9.3g} {:>6.1f}% {:>13} {:>6.1f}% {:>11.3g} "
        "{:>11.3g}\n",
        n, format_seconds(full.total), range, format_seconds(full.compute),
        format_seconds(full.communication + full.parallelism), full.speedup, 100 * full.efficiency,
        flops(full.speed) + "/s", 100 * full.utilization, zero.speedup, theory.speedup);
  }
  const double largest = nodes.empty() ? 1 : nodes.back();
  const Point last = predictor.at(largest, Scheme::full_overhead);
  if (!last.overheads.empty()) {
    out += fmt::format("\nOverhead at n = {:.0f}, per operation\n", largest);
    for (const OverheadTerm& o : last.overheads) {
      out += fmt::format("  {:<16} {:<16} {:>11}  {:>5.1f}% of T_n\n", o.name, o.operation,
                         format_seconds(o.seconds), 100 * o.seconds / last.total);
    }
  }
  if (!last.costs.empty()) {
    out +=
        fmt::format("\nComponents at n = {:.0f} ({:.0f} processes per node{}): what bounds each\n",
                    largest, last.processes_per_node,
                    last.threads_per_process > 1
                        ? fmt::format(", {:.0f} threads each", last.threads_per_process)
                        : std::string());
    for (const ComponentCost& c : last.costs) {
      out += fmt::format("  {:<16} {:>11}  {:<6} {}\n", c.name, format_seconds(c.seconds), c.level,
                         c.bound);
    }
  }
  std::vector<std::string> notes;
  for (double n : nodes) {
    for (const std::string& note : predictor.at(n, Scheme::full_overhead).notes) {
      const std::string line = fmt::format("n = {:.0f}: {}", n, note);
      if (std::find(notes.begin(), notes.end(), line) == notes.end()) notes.push_back(line);
    }
  }
  if (!notes.empty()) {
    out += "\nNotes\n";
    for (const std::string& note : notes) out += "  " + note + "\n";
  }
  bool loops = false;
  for (const Component& c : predictor.workload().components) loops = loops || c.loop;
  if (loops) {
    out +=
        fmt::format("\nProgram parameters at n = {:.0f} (Fahringer and Pozgaj (2000))\n", largest);
    out += fmt::format("  {:<12} {:>9} {:>10} {:>12} {:>12} {:>12}\n", "component", "goodness",
                       "transfers", "data", "transfer", "computation");
    for (const ProgramParameters& p : predictor.program_parameters(largest)) {
      out += fmt::format("  {:<12} {:>9.3g} {:>10.3g} {:>12} {:>12} {:>12}\n", p.component,
                         p.goodness, p.transfers, format_bytes(p.bytes),
                         format_seconds(p.transfer_seconds), format_seconds(p.computation_seconds));
    }
  }
  if (!requirements.empty()) {
    out += "\nRequirements (full-overhead)\n";
    for (const RequirementResult& r : requirements) {
      out += r.met
                 ? fmt::format("  {:<20} yes, from n = {:.0f}\n", r.requirement.text, *r.smallest_n)
                 : fmt::format("  {:<20} no: {}\n", r.requirement.text, r.why);
    }
  }
  out += "\nAdvice\n";
  for (const std::string& line : predictor.grain_advice(largest)) out += "  " + line + "\n";
  return out;
}

std::string prediction_csv(const Predictor& predictor, const std::vector<double>& nodes) {
  std::string out =
      "scheme,n,seconds,compute_seconds,communication_seconds,parallelism_seconds,speedup,"
      "efficiency,flops_per_second,utilization\n";
  for (Scheme scheme : {Scheme::theoretical, Scheme::zero_overhead, Scheme::full_overhead}) {
    for (double n : nodes) {
      const Point p = predictor.at(n, scheme);
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", to_string(scheme), n, p.total,
                         p.compute, p.communication, p.parallelism, p.speedup, p.efficiency,
                         p.speed, p.utilization);
    }
  }
  return out;
}

nlohmann::json prediction_json(const Predictor& predictor, const std::vector<double>& nodes,
                               const std::vector<RequirementResult>& requirements) {
  const Summary& s = predictor.summary();
  nlohmann::json components = nlohmann::json::array();
  for (const ComponentTime& c : s.components) {
    components.push_back(
        {{"name", c.name}, {"work_flop", c.work_flop}, {"seconds", c.seconds}, {"how", c.how}});
  }
  nlohmann::json out = {{"workload", predictor.workload().path.string()},
                        {"machine", predictor.target().machine.name},
                        {"components", components},
                        {"t_n_expression", predictor.expression()},
                        {"work_flop", s.work_flop},
                        {"t1_seconds", s.t1},
                        {"t_inf_seconds", s.t_inf},
                        {"n_max", s.n_max},
                        {"average_parallelism", s.average_parallelism},
                        {"p_inf_flops_per_second", s.p_inf}};
  if (s.peak) out["peak_flops_per_second"] = *s.peak;
  if (s.sccr) out["sccr_flops"] = *s.sccr;
  for (Scheme scheme : {Scheme::theoretical, Scheme::zero_overhead, Scheme::full_overhead}) {
    nlohmann::json points = nlohmann::json::array();
    for (double n : nodes) points.push_back(point_json(predictor.at(n, scheme)));
    out["schemes"][to_string(scheme)] = points;
  }
  nlohmann::json checks = nlohmann::json::array();
  for (const RequirementResult& r : requirements) {
    nlohmann::json check = {{"requirement", r.requirement.text}, {"met", r.met}};
    if (r.smallest_n) check["smallest_n"] = *r.smallest_n;
    if (!r.why.empty()) check["why"] = r.why;
    checks.push_back(check);
  }
  out["requirements"] = checks;
  out["advice"] = predictor.grain_advice(nodes.empty() ? 1 : nodes.back());
  return out;
}

std::string format_measured(const Predictor& predictor,
                            const std::vector<std::pair<double, double>>& measured) {
  if (measured.empty()) return "";
  std::string out = "\nMeasured against predicted (full-overhead)\n";
  out += fmt::format("  {:>6} {:>12} {:>12} {:>8} {:>10}\n", "n", "measured", "predicted", "E",
                     "|T-P|/T");
  for (const auto& [n, t] : measured) {
    const double p = predictor.at(n, Scheme::full_overhead).total;
    out += fmt::format("  {:>6.0f} {:>12} {:>12} {:>8.3f} {:>9.1f}%\n", n, format_seconds(t),
                       format_seconds(p), counters::error_ratio(t, p), 100 * std::abs(t - p) / t);
  }
  return out;
}

nlohmann::json measured_json(const Predictor& predictor,
                             const std::vector<std::pair<double, double>>& measured) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [n, t] : measured) {
    const double p = predictor.at(n, Scheme::full_overhead).total;
    out.push_back({{"n", n},
                   {"seconds", t},
                   {"predicted_seconds", p},
                   {"error_ratio", counters::error_ratio(t, p)},
                   {"relative_error", std::abs(t - p) / t}});
  }
  return out;
}

}  // namespace sonde::predict
