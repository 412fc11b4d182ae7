#include "counters/extrapolate.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "model/bootstrap.hpp"
#include "model/two_parameter.hpp"

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

// A count's model in size n and processes p (Calotoiu et al. (2016)), fitted as count + 1 so that
// a zero count still has a relative error, forecast at every target (n, p) with its bootstrap
// interval. All-zero counts forecast zero.
struct TwoParameterSeries {
  std::string form = "0";
  double mean_relative_error = 0, max_relative_error = 0;
  std::vector<double> forecast, low, high;
};

TwoParameterSeries fit_in_size_and_processes(const std::vector<double>& n,
                                             const std::vector<double>& p, std::vector<double> y,
                                             const std::vector<std::pair<double, int>>& targets,
                                             const std::string& what, int resamples) {
  TwoParameterSeries out;
  out.forecast.assign(targets.size(), 0);
  out.low = out.high = out.forecast;
  if (std::all_of(y.begin(), y.end(), [](double v) { return v == 0; })) return out;
  for (double& v : y) v += 1;
  const model::TwoParameterModel chosen =
      model::select_two_parameter_model(n, p, y, what, {"n", "p"});
  out.form = chosen.form.name(chosen.variables);
  out.mean_relative_error = chosen.mean_relative_error;
  out.max_relative_error = chosen.max_relative_error;
  const auto at_targets = [&](const model::TwoParameterModel& m) {
    std::vector<double> values;
    for (const auto& [size, processes] : targets) values.push_back(m(size, processes) - 1);
    return values;
  };
  const std::vector<double> values = at_targets(chosen);
  for (std::size_t t = 0; t < targets.size(); ++t) out.forecast[t] = std::max(0.0, values[t]);
  out.low = out.high = out.forecast;
  if (resamples > 0) {
    model::BootstrapOptions options;
    options.resamples = resamples;
    const auto intervals = model::two_parameter_bootstrap(chosen, n, p, y, at_targets, options);
    for (std::size_t t = 0; t < targets.size(); ++t) {
      out.low[t] = std::clamp(intervals[t].low, 0.0, out.forecast[t]);
      out.high[t] = std::max(intervals[t].high, out.forecast[t]);
    }
  }
  return out;
}

// Pilot runs at several sizes and process counts: each count modelled in both at once. A
// processor's index means nothing across process counts, so per-processor counts are modelled as
// two series, the largest over the processors and their mean; a forecast run of P processes gives
// processor 0 the largest and each other processor (P mean - largest) / (P - 1), so that both the
// slowest processor, which F's superstep time follows, and the total keep their models. Banks
// keep their index (the banks do not change with the process count).
Extrapolation extrapolate_in_size_and_processes(const CounterTable& pilots,
                                                const std::vector<double>& target_sizes,
                                                const std::vector<int>& target_processes,
                                                const std::string& pilots_name, int resamples) {
  const std::vector<double> sizes = pilots.sizes();
  const std::vector<int> counts = pilots.process_counts();
  for (const PhaseCounts& run : pilots.phases) {
    if (run.processes == 0) {
      throw input_error(run.where, fmt::format("phase '{}' at size {} does not state its process "
                                               "count, which other pilot runs do (the `processes` "
                                               "column)",
                                               run.phase, run.size));
    }
  }
  if (sizes.size() < 3 || counts.size() < 3) {
    throw input_error(
        pilots_name,
        fmt::format("pilot runs at {} problem size(s) ({}) and {} process count(s) "
                    "({}): a model in both needs three or more of each",
                    sizes.size(), fmt::join(sizes, ", "), counts.size(), fmt::join(counts, ", ")));
  }
  if (target_processes.empty()) {
    throw usage_error("--processes", fmt::format("the pilot runs have {} process counts ({}): "
                                                 "say at which to forecast",
                                                 counts.size(), fmt::join(counts, ", ")));
  }
  for (int q : target_processes)
    if (q < 1) throw usage_error("--processes", fmt::format("{}: expected 1 or more", q));
  std::vector<std::pair<double, int>> targets;
  for (double size : target_sizes)
    for (int q : target_processes) targets.emplace_back(size, q);

  Extrapolation out;
  for (const std::string& phase : pilots.phase_names()) {
    std::vector<const PhaseCounts*> runs;
    for (const PhaseCounts& run : pilots.phases)
      if (run.phase == phase) runs.push_back(&run);
    const PhaseCounts& first = *runs.front();
    std::vector<std::string> processor_counts;
    if (!first.processors.empty())
      for (const auto& [counter, v] : first.processors.begin()->second)
        if (counter != "time") processor_counts.push_back(counter);
    std::vector<double> n, p;
    for (const PhaseCounts* run : runs) n.push_back(run->size), p.push_back(run->processes);

    std::vector<PhaseCounts*> forecast;
    for (const auto& [size, processes] : targets) {
      out.forecast.phases.push_back(PhaseCounts{phase,
                                                size,
                                                {},
                                                {},
                                                std::nullopt,
                                                fmt::format("{} (extrapolated)", pilots_name),
                                                processes});
    }
    const std::size_t base = out.forecast.phases.size() - targets.size();
    const auto absent = [&](const PhaseCounts& run, const std::string& what) {
      return input_error(run.where, fmt::format("phase '{}' at size {} with {} processes: {} is "
                                                "absent (every pilot run needs the same counts)",
                                                phase, run.size, run.processes, what));
    };
    for (const std::string& counter : processor_counts) {
      std::vector<double> largest, mean;
      for (const PhaseCounts* run : runs) {
        double most = 0, sum = 0;
        if (run->processors.empty()) throw absent(*run, counter);
        for (const auto& [index, values] : run->processors) {
          const auto it = values.find(counter);
          if (it == values.end())
            throw absent(*run, fmt::format("{} of processor {}", counter, index));
          most = std::max(most, it->second.value), sum += it->second.value;
        }
        largest.push_back(most);
        mean.push_back(sum / static_cast<double>(run->processors.size()));
      }
      const std::string what = fmt::format("{} of phase '{}'", counter, phase);
      const TwoParameterSeries top =
          fit_in_size_and_processes(n, p, largest, targets, what + ", the largest", resamples);
      const TwoParameterSeries average =
          fit_in_size_and_processes(n, p, mean, targets, what + ", the mean", resamples);
      const int points = static_cast<int>(n.size());
      out.fits.push_back({phase, counter, 0, false, top.form, top.mean_relative_error,
                          top.max_relative_error, points, "largest"});
      out.fits.push_back({phase, counter, 0, false, average.form, average.mean_relative_error,
                          average.max_relative_error, points, "mean"});
      for (std::size_t t = 0; t < targets.size(); ++t) {
        PhaseCounts& run = out.forecast.phases[base + t];
        const int q = targets[t].second;
        const std::string where = run.where;
        run.processors[0][counter] = {top.forecast[t], top.low[t], top.high[t], "extrapolated",
                                      where};
        const auto rest = [&](double total_mean, double most) {
          return std::max(0.0, (q * total_mean - most) / (q - 1));
        };
        for (int i = 1; i < q; ++i) {
          const double value = rest(average.forecast[t], top.forecast[t]);
          run.processors[i][counter] = {
              value, std::min(value, rest(average.low[t], top.forecast[t])),
              std::max(value, rest(average.high[t], top.forecast[t])), "extrapolated", where};
        }
      }
    }
    for (const auto& [bank, values] : first.banks) {
      for (const auto& [counter, v] : values) {
        std::vector<double> y;
        for (const PhaseCounts* run : runs) {
          const auto b = run->banks.find(bank);
          if (b == run->banks.end() || !b->second.count(counter))
            throw absent(*run, fmt::format("{} of bank {}", counter, bank));
          y.push_back(b->second.at(counter).value);
        }
        const TwoParameterSeries series = fit_in_size_and_processes(
            n, p, y, targets, fmt::format("{} of phase '{}', bank {}", counter, phase, bank),
            resamples);
        out.fits.push_back({phase, counter, bank, true, series.form, series.mean_relative_error,
                            series.max_relative_error, static_cast<int>(n.size()), ""});
        for (std::size_t t = 0; t < targets.size(); ++t) {
          PhaseCounts& run = out.forecast.phases[base + t];
          run.banks[bank][counter] = {series.forecast[t], series.low[t], series.high[t],
                                      "extrapolated", run.where};
        }
      }
    }
  }
  std::stable_sort(out.forecast.phases.begin(), out.forecast.phases.end(),
                   [](const PhaseCounts& a, const PhaseCounts& b) {
                     return std::pair(a.size, a.processes) < std::pair(b.size, b.processes);
                   });
  return out;
}

}  // namespace

Extrapolation extrapolate(const CounterTable& pilots, const std::vector<double>& target_sizes,
                          const std::string& pilots_name, int resamples,
                          const std::vector<int>& target_processes) {
  if (target_sizes.empty()) throw usage_error("--size", "no target size");
  for (double n : target_sizes)
    if (!(n > 0)) throw usage_error("--size", fmt::format("{}: expected > 0", n));
  const std::vector<int> counts = pilots.process_counts();
  if (counts.size() > 1) {
    return extrapolate_in_size_and_processes(pilots, target_sizes, target_processes, pilots_name,
                                             resamples);
  }
  for (int q : target_processes) {
    if (counts.empty() || q != counts.front()) {
      throw usage_error(
          "--processes",
          fmt::format("{}: the pilot runs {}; forecasting at another count needs pilot runs at "
                      "three or more counts (the counter file's `processes` column, "
                      "docs/formats.md)",
                      q,
                      counts.empty() || counts.front() == 0
                          ? std::string("do not state their process count")
                          : fmt::format("all have {} processes", counts.front())));
    }
  }
  const std::vector<double> sizes = pilots.sizes();
  if (sizes.size() < 3) {
    throw input_error(
        pilots_name,
        fmt::format("{} problem size{} ({}): extrapolation needs pilot runs at three "
                    "or more sizes to choose a form",
                    sizes.size(), sizes.size() == 1 ? " only" : "s", fmt::join(sizes, ", ")));
  }
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
              counter == "time" ||
              std::any_of(series.begin(), series.end(),
                          // Init-captures: clang before 16 cannot capture a structured binding.
                          [&, &counter = counter, index = index](const Series& s) {
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
    CountFit fit{s.phase, s.counter, s.index, s.bank, "0", 0, 0, static_cast<int>(x.size()), ""};
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
      const PhaseCounts* counted =
          measured->find(forecast[i].phase, forecast[i].size, forecast[i].processors);
      if (!counted && measured->process_counts().size() == 1)
        counted = measured->find(forecast[i].phase, forecast[i].size);
      if (!counted) {
        throw input_error(measured_name,
                          fmt::format("phase '{}' at size {} with {} processes: absent",
                                      forecast[i].phase, forecast[i].size, forecast[i].processors));
      }
      point.measured_counts = predict_phase(*counted, profile, profile_name);
      point.extrapolated.measured = point.measured_counts->measured;
    }
    points.push_back(point);
  }
  return points;
}

}  // namespace sonde::counters
