#include "fit/contention_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/error.hpp"
#include "model/bootstrap.hpp"
#include "model/least_squares.hpp"

namespace sonde::fit {

using namespace model;  // the fits are made of the shared forms and estimators

namespace {

using profile::Interval;
using profile::Origin;
using profile::Quantity;

std::string code(unsigned threads, unsigned stride, const std::string& level, bool store,
                 bool concurrent) {
  return fmt::format("p{}.s{}.{}.{}{}", threads, stride, level, store ? 'S' : 'L',
                     concurrent ? 'C' : 'E');
}

class Experiments {
 public:
  explicit Experiments(const ContentionInput& input) : input_(input) {
    for (const AccessPoint& p : input.access) max_threads_ = std::max(max_threads_, p.threads);
  }
  unsigned max_threads() const { return max_threads_; }

  // The experiment, or at `level` the largest stride up to `stride` when that one was not run.
  const AccessPoint* find(unsigned threads, unsigned stride, const std::string& level, bool store,
                          bool concurrent) const {
    const AccessPoint* best = nullptr;
    for (const AccessPoint& p : input_.access) {
      if (p.threads != threads || p.level != level || p.store != store ||
          p.concurrent != concurrent || p.stride_words > stride)
        continue;
      if (!best || p.stride_words > best->stride_words) best = &p;
    }
    return best;
  }
  const OneWordPoint* one_word(unsigned threads, const std::string& operation) const {
    for (const OneWordPoint& p : input_.one_word) {
      if (p.threads == threads && p.operation == operation) return &p;
    }
    return nullptr;
  }

 private:
  const ContentionInput& input_;
  unsigned max_threads_ = 0;
};

// A g value from one experiment: its median with the range of its repetitions, divided by
// `divisor` where the paper's term counts every thread's accesses (then it is derived).
Quantity g_value(const std::string& name, double median, double low, double high,
                 const std::string& paper_code, const std::string& our_code, double divisor,
                 const std::string& divisor_note) {
  Quantity q;
  q.value = median / divisor;
  q.unit = "s";
  q.origin = divisor == 1 ? Origin::measured : Origin::derived;
  if (high > low) q.interval = Interval{low / divisor, high / divisor, 1.0};
  q.sources = {name};
  q.note = fmt::format("experiment {} (Amato et al. 1999: {})", our_code, paper_code);
  if (divisor != 1) q.note += "; " + divisor_note;
  return q;
}

std::optional<Quantity> access_g(const Experiments& e, std::vector<std::string>& missing,
                                 const std::string& paper_code, unsigned threads, unsigned stride,
                                 const std::string& level, bool store, bool concurrent,
                                 double divisor = 1, const std::string& divisor_note = "") {
  const AccessPoint* p = e.find(threads, stride, level, store, concurrent);
  if (!p) {
    missing.push_back(code(threads, stride, level, store, concurrent));
    return std::nullopt;
  }
  return g_value(p->name, p->seconds, p->seconds_min, p->seconds_max, paper_code,
                 code(p->threads, p->stride_words, p->level, p->store, p->concurrent), divisor,
                 divisor_note);
}

std::optional<Quantity> word_g(const Experiments& e, std::vector<std::string>& missing,
                               const std::string& paper_code, unsigned threads,
                               const std::string& operation) {
  const OneWordPoint* p = e.one_word(threads, operation);
  if (!p) {
    missing.push_back(fmt::format("p{}.one_word.{}", threads, operation));
    return std::nullopt;
  }
  // K counts every thread's accesses to the word: the time per access of one thread divided by
  // the number of threads.
  return g_value(p->name, p->seconds, p->seconds_min, p->seconds_max, paper_code,
                 fmt::format("p{}.one_word.{}", threads, operation), threads,
                 fmt::format("per access of all {} threads (K counts them all)", threads));
}

std::optional<profile::BspParameters> bsp(const std::string& name, std::optional<Quantity> g1_min,
                                          std::optional<Quantity> g1_max,
                                          std::optional<Quantity> g2_min,
                                          std::optional<Quantity> g2_max,
                                          const std::vector<std::string>& missing,
                                          std::vector<std::string>& not_fitted) {
  if (g1_min && g1_max && g2_min && g2_max) {
    // Optimistic is the cheaper of the two experiments, pessimistic the dearer: on today's
    // machines the paper's cheaper case is not always the cheaper one (stores can stream faster
    // than loads), and the profile says so.
    for (auto [low, high] : {std::pair{&*g1_min, &*g1_max}, {&*g2_min, &*g2_max}}) {
      if (low->value > high->value) {
        std::swap(*low, *high);
        low->note += "; the paper's pessimistic experiment, cheaper here";
        high->note += "; the paper's optimistic experiment, dearer here";
      }
    }
    return profile::BspParameters{*g1_min, *g1_max, *g2_min, *g2_max};
  }
  not_fitted.push_back(fmt::format("contention.{}: needs experiments {} (a full contention run)",
                                   name, fmt::join(missing, ", ")));
  return std::nullopt;
}

double count(const AccessPoint& p, const std::string& term) {
  if (term == "accesses") return count(p, "loads") + count(p, "stores");
  const auto it = p.counts.find(term);
  return it == p.counts.end() ? 0.0 : it->second;
}

// One F function fitted on `subset`; the counts of each row multiplied by `scale` (F3 counts the
// accesses of every thread at one node).
std::optional<profile::CounterWeights> fit_function(const std::string& name,
                                                    const std::vector<const AccessPoint*>& subset,
                                                    std::vector<std::string> terms, double scale,
                                                    const std::string& subset_text,
                                                    const std::string& counts_source,
                                                    std::vector<std::string>& not_fitted) {
  if (subset.size() < 2) {
    not_fitted.push_back(fmt::format("contention.{}: needs experiments {}; found {}", name,
                                     subset_text, subset.size()));
    return std::nullopt;
  }
  // A count no experiment of the subset has cannot be weighed.
  std::vector<std::string> unseen;
  std::erase_if(terms, [&](const std::string& term) {
    const bool seen = std::any_of(subset.begin(), subset.end(),
                                  [&](const AccessPoint* p) { return count(*p, term) > 0; });
    if (!seen) unseen.push_back(term);
    return !seen;
  });
  if (!unseen.empty()) {
    not_fitted.push_back(fmt::format("contention.{}.{}: no experiment of {} has that count ({})",
                                     name, fmt::join(unseen, ", "), subset_text, counts_source));
  }
  std::vector<std::map<std::string, double>> rows;
  std::vector<double> seconds;
  std::vector<std::string> sources;
  for (const AccessPoint* p : subset) {
    std::map<std::string, double> row;
    for (const std::string& term : terms) row[term] = count(*p, term) * scale;
    rows.push_back(row);
    seconds.push_back(p->seconds);
    sources.push_back(p->name);
  }
  std::vector<std::string> dropped;
  profile::FitQuality quality;
  std::map<std::string, double> weights;
  try {
    weights = fit_weights(rows, seconds, terms, "contention." + name, dropped, quality);
  } catch (const Error& e) {
    not_fitted.push_back(fmt::format("contention.{}: {}", name, e.what()));
    return std::nullopt;
  }
  for (const std::string& term : dropped) {
    not_fitted.push_back(
        fmt::format("contention.{}.{}: fitted negative on {}; left out and the rest refitted", name,
                    term, subset_text));
  }
  // Percentile bootstrap over the experiments (x is the row's index).
  std::vector<double> index(rows.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = static_cast<double>(i);
  std::vector<Interval> intervals;
  std::string interval_note;
  try {
    const auto fitted = [&](const std::vector<double>& x, const std::vector<double>& y) {
      std::vector<std::map<std::string, double>> sample;
      for (double i : x) sample.push_back(rows[static_cast<std::size_t>(i)]);
      std::vector<std::string> ignored;
      profile::FitQuality q;
      const auto w = fit_weights(sample, y, terms, "bootstrap", ignored, q);
      std::vector<double> out;
      for (const std::string& term : terms) out.push_back(w.count(term) ? w.at(term) : 0.0);
      return out;
    };
    BootstrapOptions options;
    options.resamples = 100;
    BootstrapReport report;
    const auto raw = bootstrap_intervals(index, seconds, fitted, options, &report);
    for (const auto& r : raw) intervals.push_back(Interval{r.low, r.high, r.level});
    interval_note = report.note();
  } catch (const Error& e) {
    // Too few distinct experiments to resample: the weights stand without intervals, and say so.
    interval_note = fmt::format("; no bootstrap interval: {}", e.what());
  }
  profile::CounterWeights out;
  for (std::size_t j = 0; j < terms.size(); ++j) {
    if (!weights.count(terms[j])) continue;
    Quantity q;
    q.value = weights.at(terms[j]);
    q.unit = "s";
    q.origin = Origin::fitted;
    q.quality = quality;
    q.sources = sources;
    q.note = fmt::format("seconds per {} event; relative least squares on {} ({} counts){}",
                         terms[j], subset_text, counts_source, interval_note);
    if (j < intervals.size() && intervals[j].high >= intervals[j].low) q.interval = intervals[j];
    out[terms[j]] = q;
  }
  return out;
}

}  // namespace

std::map<std::string, double> fit_weights(const std::vector<std::map<std::string, double>>& rows,
                                          const std::vector<double>& seconds,
                                          const std::vector<std::string>& terms,
                                          const std::string& what,
                                          std::vector<std::string>& dropped,
                                          profile::FitQuality& quality) {
  std::vector<std::string> active = terms;
  while (!active.empty()) {
    Eigen::MatrixXd basis(static_cast<Eigen::Index>(rows.size()),
                          static_cast<Eigen::Index>(active.size()));
    Eigen::VectorXd y(static_cast<Eigen::Index>(rows.size()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (std::size_t j = 0; j < active.size(); ++j) {
        const auto it = rows[i].find(active[j]);
        basis(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
            it == rows[i].end() ? 0.0 : it->second;
      }
      y(static_cast<Eigen::Index>(i)) = seconds[i];
    }
    const LinearFit fit = fit_relative(basis, y, what);
    // Leave out the most negative weight, if any, and fit again (an active-set step).
    Eigen::Index worst = -1;
    for (Eigen::Index j = 0; j < fit.coefficients.size(); ++j) {
      if (fit.coefficients(j) < 0 && (worst < 0 || fit.coefficients(j) < fit.coefficients(worst))) {
        worst = j;
      }
    }
    if (worst < 0) {
      std::map<std::string, double> out;
      for (std::size_t j = 0; j < active.size(); ++j) {
        out[active[j]] = fit.coefficients(static_cast<Eigen::Index>(j));
      }
      quality = {fit.mean_relative_error, fit.max_relative_error, rows.size()};
      return out;
    }
    dropped.push_back(active[static_cast<std::size_t>(worst)]);
    active.erase(active.begin() + worst);
  }
  throw input_error(what, "every weight fitted negative: the counts do not explain the times");
}

ContentionFit fit_contention(const ContentionInput& input) {
  ContentionFit out;
  profile::Contention& c = out.contention;
  c.counts = input.counts_source;
  const Experiments e(input);
  const unsigned P = e.max_threads();
  if (P == 0) {
    out.not_fitted.push_back("contention: no access experiments in the results");
    return out;
  }
  const unsigned line = std::max(1u, input.line_words);
  const unsigned per_node =
      input.threads_per_numa_node == 0 ? P : std::min(P, input.threads_per_numa_node);
  const std::string node_note = fmt::format(
      "per access of the {} threads whose memory is on one NUMA node (M_b counts "
      "them all)",
      per_node);

  // Section 4.1, with the experiments the paper names (and their analogues here).
  {
    std::vector<std::string> missing;
    auto g1_min = access_g(e, missing, "p1.s1.b0.LE", 1, 1, "l1", false, false);
    auto g1_max = access_g(e, missing, "p8.s256.b8.SC", P, 256, "dram", true, true);
    auto g2_min = word_g(e, missing, "variant of p8.s1.b0.LC", P, "load");
    auto g2_max = word_g(e, missing, "variant of p8.s256.b8.SC", P, "store");
    c.qsm = bsp("qsm", g1_min, g1_max, g2_min, g2_max, missing, out.not_fitted);
  }
  {
    std::vector<std::string> missing;
    auto g1_min = access_g(e, missing, "p1.s1.b0.LE", 1, 1, "l1", false, false);
    auto g1_max = access_g(e, missing, "p1.s256.b1.SE", 1, 256, "dram", true, false);
    auto g2_min = access_g(e, missing, "p8.s1.b0.LE", P, 1, "l1", false, false);
    auto g2_max = access_g(e, missing, "p8.s256.b8.SC", P, 256, "dram", true, true);
    c.ebsp = bsp("ebsp", g1_min, g1_max, g2_min, g2_max, missing, out.not_fitted);
  }
  {
    std::vector<std::string> missing;
    auto g1_min = access_g(e, missing, "p1.s1.b0.LE", 1, 1, "l1", false, false);
    auto g1_max = access_g(e, missing, "p8.s32.b1.SC", P, line, "dram", true, true);
    auto g2_min =
        access_g(e, missing, "p8.s256.b8.LE", P, 256, "dram", false, false, per_node, node_note);
    auto g2_max =
        access_g(e, missing, "p8.s256.b8.SE", P, 256, "dram", true, false, per_node, node_note);
    c.dxbsp = bsp("dxbsp", g1_min, g1_max, g2_min, g2_max, missing, out.not_fitted);
  }

  // Section 4.2: F1 on one thread at every level (the paper: p1.s1.b0, p1.s8.b0, p1.s32.b1/8,
  // loads and stores); F2 and F3 on every thread sweeping memory on its own sub-array (the
  // paper: p8.s256.b1 and p8.s256.b8).
  std::vector<const AccessPoint*> one_thread, memory_traffic;
  bool has_l3 = false;
  for (const AccessPoint& p : input.access) {
    has_l3 = has_l3 || p.level == "l3";
    if (p.threads == 1 && !p.concurrent) one_thread.push_back(&p);
    if (P > 1 && p.threads == P && !p.concurrent && p.level == "dram" &&
        count(p, "llc_misses") > 0) {
      memory_traffic.push_back(&p);
    }
  }
  std::vector<std::string> f1_terms = {"accesses", "l1_misses"};
  if (has_l3) f1_terms.push_back("l2_misses");  // a third level: its misses cost apart
  for (const char* term : {"llc_misses", "l1_writebacks", "llc_writebacks"})
    f1_terms.push_back(term);
  c.f1 = fit_function("f1", one_thread, f1_terms, 1.0, "p1.*.*.-E (every level and stride)",
                      input.counts_source, out.not_fitted);
  if (P > 1) {
    const std::string subset = fmt::format("p{}.*.dram.-E with memory traffic", P);
    c.f2 = fit_function("f2", memory_traffic, {"llc_misses", "llc_writebacks"}, 1.0, subset,
                        input.counts_source, out.not_fitted);
    if (per_node == P) {
      // One NUMA node serves all P threads: F3's counts are F2's times P, so its weights are F2's
      // over P by construction. That is derived, not a second fit of the same data.
      if (c.f2) {
        c.f3 = profile::CounterWeights{};
        for (const auto& [term, f2] : *c.f2) {
          Quantity q = f2;
          q.value = f2.value / P;
          if (f2.interval)
            q.interval = Interval{f2.interval->low / P, f2.interval->high / P, f2.interval->level};
          q.origin = Origin::derived;
          q.quality.reset();
          q.note = fmt::format(
              "derived: F2's weight over {}, as one NUMA node serves all {} threads", P, P);
          (*c.f3)[term] = q;
        }
      } else {
        out.not_fitted.push_back(
            "contention.f3: on one NUMA node F3 is F2 over the threads, and F2 was not fitted");
      }
    } else {
      c.f3 = fit_function("f3", memory_traffic, {"llc_misses", "llc_writebacks"}, per_node, subset,
                          input.counts_source, out.not_fitted);
    }
  } else {
    out.not_fitted.push_back("contention.f2, contention.f3: need two or more cores");
  }
  if (!c.qsm && !c.ebsp && !c.dxbsp && !c.f1 && !c.f2 && !c.f3) c.counts.clear();
  return out;
}

}  // namespace sonde::fit
