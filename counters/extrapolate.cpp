#include "counters/extrapolate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "model/bootstrap.hpp"

namespace sonde::counters {
namespace {

struct Series {
  std::string phase, counter;
  int index = 0;
  bool bank = false;
};

const CountValue* value_of(const PhaseCounts& p, const Series& s) {
  const auto& group = s.bank ? p.banks : p.processors;
  const auto it = group.find(s.index);
  if (it == group.end()) return nullptr;
  const auto c = it->second.find(s.counter);
  return c == it->second.end() ? nullptr : &c->second;
}

}  // namespace

Extrapolation extrapolate(const CounterTable& pilots, const std::vector<double>& target_sizes,
                          const std::string& pilots_name, int resamples) {
  const std::vector<double> sizes = pilots.sizes();
  if (sizes.size() < 3) {
    throw input_error(
        pilots_name,
        fmt::format("{} problem size{} ({}): extrapolation needs pilot runs at three "
                    "or more sizes to choose a form",
                    sizes.size(), sizes.size() == 1 ? " only" : "s", fmt::join(sizes, ", ")));
  }
  if (target_sizes.empty()) throw usage_error("--size", "no target size");
  for (double n : target_sizes)
    if (!(n > 0)) throw usage_error("--size", fmt::format("{}: expected > 0", n));

  // Every series of the smallest size must be present at every size.
  std::vector<Series> series;
  for (const std::string& phase : pilots.phase_names()) {
    const PhaseCounts* first = pilots.find(phase, sizes.front());
    if (!first) {
      throw input_error(pilots_name,
                        fmt::format("phase '{}' is missing at size {}", phase, sizes.front()));
    }
    for (const auto& [index, counts] : first->processors)
      for (const auto& [counter, v] : counts)
        if (counter != "time") series.push_back({phase, counter, index, false});
    for (const auto& [index, counts] : first->banks)
      for (const auto& [counter, v] : counts) series.push_back({phase, counter, index, true});
  }

  // ... and no size may hold one the smallest lacks: it would be dropped without a word.
  for (const PhaseCounts& p : pilots.phases) {
    for (const auto* group : {&p.processors, &p.banks})
      for (const auto& [index, counts] : *group)
        for (const auto& [counter, v] : counts) {
          const bool bank = group == &p.banks;
          const bool known =
              counter == "time" || std::any_of(series.begin(), series.end(), [&](const Series& s) {
                return s.phase == p.phase && s.counter == counter && s.index == index &&
                       s.bank == bank;
              });
          if (!known) {
            throw input_error(v.where, fmt::format("phase '{}', {} {}: {} at size {} is absent at "
                                                   "the smallest size {} (every pilot run needs "
                                                   "the same counts)",
                                                   p.phase, bank ? "bank" : "processor", index,
                                                   counter, p.size, sizes.front()));
          }
        }
  }

  Extrapolation out;
  for (const Series& s : series) {
    std::vector<double> x, y;
    for (double n : sizes) {
      const PhaseCounts* p = pilots.find(s.phase, n);
      const CountValue* v = p ? value_of(*p, s) : nullptr;
      if (!v) {
        throw input_error(
            pilots_name,
            fmt::format("phase '{}', {} {}: {} is missing at size {} (every pilot "
                        "run needs the same counts)",
                        s.phase, s.bank ? "bank" : "processor", s.index, s.counter, n));
      }
      x.push_back(n);
      // Fitted as count + 1, so that a zero count still has a relative error.
      y.push_back(v->value + 1);
    }
    CountFit fit{s.phase, s.counter, s.index, s.bank, "0", 0, 0, static_cast<int>(x.size())};
    std::vector<double> forecast(target_sizes.size(), 0), low(forecast), high(forecast);
    const bool all_zero = std::all_of(y.begin(), y.end(), [](double v) { return v == 1; });
    if (!all_zero) {
      const std::string what = fmt::format("{} of phase '{}', {} {}", s.counter, s.phase,
                                           s.bank ? "bank" : "processor", s.index);
      const model::FormChoice choice = model::select_form(x, y, what, 0.0, model::count_forms());
      fit.form = choice.form.name;
      fit.mean_relative_error = choice.fit.mean_relative_error;
      fit.max_relative_error = choice.fit.max_relative_error;
      for (std::size_t t = 0; t < target_sizes.size(); ++t)
        forecast[t] = std::max(0.0, choice(target_sizes[t]) - 1);
      low = forecast;
      high = forecast;
      if (resamples > 0) {
        model::BootstrapOptions options;
        options.resamples = resamples;
        const auto intervals = model::bootstrap_intervals(
            x, y,
            [&](const std::vector<double>& bx, const std::vector<double>& by) {
              const model::FormChoice f = model::fit_form(choice.form, bx, by, what);
              std::vector<double> at;
              for (double n : target_sizes) at.push_back(f(n) - 1);
              return at;
            },
            options);
        for (std::size_t t = 0; t < target_sizes.size(); ++t) {
          low[t] = std::clamp(intervals[t].low, 0.0, forecast[t]);
          high[t] = std::max(intervals[t].high, forecast[t]);
        }
      }
    }
    for (std::size_t t = 0; t < target_sizes.size(); ++t) {
      PhaseCounts* p = nullptr;
      for (PhaseCounts& q : out.forecast.phases)
        if (q.phase == s.phase && q.size == target_sizes[t]) p = &q;
      if (!p) {
        out.forecast.phases.push_back(PhaseCounts{s.phase,
                                                  target_sizes[t],
                                                  {},
                                                  {},
                                                  std::nullopt,
                                                  fmt::format("{} (extrapolated)", pilots_name)});
        p = &out.forecast.phases.back();
      }
      CountValue v{forecast[t], low[t], high[t], "extrapolated", p->where};
      (s.bank ? p->banks : p->processors)[s.index][s.counter] = v;
    }
    out.fits.push_back(fit);
  }
  std::stable_sort(out.forecast.phases.begin(), out.forecast.phases.end(),
                   [](const PhaseCounts& a, const PhaseCounts& b) { return a.size < b.size; });
  return out;
}

CounterTable interval_end(const CounterTable& table, bool high) {
  CounterTable out = table;
  for (auto& phase : out.phases) {
    for (auto* group : {&phase.processors, &phase.banks})
      for (auto& [index, counts] : *group)
        for (auto& [name, v] : counts) {
          const auto& end = high ? v.high : v.low;
          if (end) v.value = *end;
        }
  }
  return out;
}

std::vector<ExtrapolatedPoint> predict_extrapolation(const Extrapolation& extrapolation,
                                                     const CounterTable* measured,
                                                     const std::string& measured_name,
                                                     const profile::Profile& profile,
                                                     const std::string& profile_name) {
  const auto forecast = predict_table(extrapolation.forecast, profile, profile_name);
  const auto low =
      predict_table(interval_end(extrapolation.forecast, false), profile, profile_name);
  const auto high =
      predict_table(interval_end(extrapolation.forecast, true), profile, profile_name);
  std::vector<ExtrapolatedPoint> points;
  for (std::size_t i = 0; i < forecast.size(); ++i) {
    ExtrapolatedPoint point;
    point.extrapolated = forecast[i];
    point.f_low = low[i].function("F")->seconds;
    point.f_high = high[i].function("F")->seconds;
    if (measured) {
      const PhaseCounts* counted = measured->find(forecast[i].phase, forecast[i].size);
      if (!counted) {
        throw input_error(measured_name, fmt::format("phase '{}' at size {}: absent",
                                                     forecast[i].phase, forecast[i].size));
      }
      point.measured_counts = predict_phase(*counted, profile, profile_name);
      point.extrapolated.measured = point.measured_counts->measured;
    }
    points.push_back(point);
  }
  return points;
}

}  // namespace sonde::counters
