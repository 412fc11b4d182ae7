#include "model/model_forms.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/error.hpp"

namespace sonde::model {
namespace {

Basis one() {
  return {"1", [](double, double) { return 1.0; }, false};
}
Basis log_n() {
  return {"log n", [](double n, double) { return std::log2(n); }, false};
}
Basis linear() {
  return {"n", [](double n, double) { return n; }, false};
}
Basis n_log_n() {
  return {"n log n", [](double n, double) { return n * std::log2(n); }, false};
}
Basis power() {
  return {"n^c", [](double n, double c) { return std::pow(n, c); }, true};
}

// Three significant digits, as the papers print coefficients.
std::string number(double value) { return fmt::format("{:.3g}", value); }

}  // namespace

int Form::parameters() const {
  int count = static_cast<int>(basis.size());
  for (const Basis& b : basis) count += b.power ? 1 : 0;
  return count;
}

const std::vector<Form>& candidate_forms() {
  static const std::vector<Form> forms = {
      {"1", {one()}},
      {"log n", {log_n()}},
      {"n", {linear()}},
      {"n log n", {n_log_n()}},
      {"log n + 1", {log_n(), one()}},
      {"n + 1", {linear(), one()}},
      {"n log n + 1", {n_log_n(), one()}},
      {"log n + n", {log_n(), linear()}},
      {"n^c", {power()}},
      {"n^c + 1", {power(), one()}},
  };
  return forms;
}

const std::vector<Form>& count_forms() {
  static const std::vector<Form> forms = [] {
    std::vector<Form> all = candidate_forms();
    all.push_back({"n log n + n", {n_log_n(), linear()}});
    return all;
  }();
  return forms;
}

const Form& form_named(const std::string& name) {
  for (const Form& form : candidate_forms()) {
    if (form.name == name) return form;
  }
  throw usage_error("model form", fmt::format("unknown form '{}'", name));
}

std::string FormChoice::formula(const std::string& variable) const {
  std::string text;
  for (std::size_t j = 0; j < form.basis.size(); ++j) {
    const double c = fit.coefficients[j];
    std::string term;
    const std::string& b = form.basis[j].name;
    if (b == "1") {
      term = number(std::abs(c));
    } else {
      const std::string shape = b == "n^c" ? fmt::format("n^{}", number(fit.exponent)) : b;
      std::string named;
      for (char ch : shape) named += ch == 'n' ? variable : std::string(1, ch);
      term = number(std::abs(c)) + " " + named;
    }
    if (text.empty()) {
      text = (c < 0 ? "-" : "") + term;
    } else {
      text += (c < 0 ? " - " : " + ") + term;
    }
  }
  return text;
}

namespace {

// An Error's message without its place ("cross-validation: ").
std::string reason_of(const Error& e) {
  const std::string text = e.what();
  const std::string place = e.where() + ": ";
  return text.rfind(place, 0) == 0 ? text.substr(place.size()) : text;
}

// Each point's squared relative error when it is left out of the fit; empty, with `why` set, when
// the form cannot be cross-validated on these points.
std::vector<double> left_out_errors(const Form& form, const std::vector<double>& x,
                                    const std::vector<double>& y, std::string* why = nullptr) {
  const std::size_t count = x.size();
  std::vector<double> errors;
  const std::size_t needed = static_cast<std::size_t>(form.parameters()) + 2;
  if (count < needed) {
    if (why)
      *why = fmt::format("{} points; it needs {} ({} parameters + 2)", count, needed,
                         form.parameters());
    return errors;
  }
  std::vector<double> xs, ys;
  for (std::size_t left_out = 0; left_out < count; ++left_out) {
    xs.clear(), ys.clear();
    for (std::size_t i = 0; i < count; ++i) {
      if (i != left_out) xs.push_back(x[i]), ys.push_back(y[i]);
    }
    ModelFit fit;
    try {
      fit = fit_model(form.basis, xs, ys, "cross-validation");
    } catch (const Error& e) {
      // The points cannot tell this form's terms apart: it cannot be chosen.
      if (why) *why = fmt::format("leaving out n = {}, {}", x[left_out], reason_of(e));
      return {};
    }
    const double relative = (evaluate(form.basis, fit, x[left_out]) - y[left_out]) / y[left_out];
    if (!std::isfinite(relative)) {
      if (why)
        *why = fmt::format("leaving out n = {}, the fit predicts {} there", x[left_out],
                           evaluate(form.basis, fit, x[left_out]));
      return {};
    }
    errors.push_back(relative * relative);
  }
  return errors;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double e : v) sum += e;
  return v.empty() ? std::numeric_limits<double>::infinity() : sum / static_cast<double>(v.size());
}

}  // namespace

// Whether `simpler` is worse than `best` beyond the noise: a one-sided paired test at 95% on the
// points' squared left-out relative errors (their mean difference above 1.645 standard errors),
// and a difference above `tolerance` of the best score. With five points the test is weak: a form
// whose left-out RMS relative error is above 1% and twice the best's is worse whatever it says.
constexpr double kOneSided95 = 1.645;
bool significantly_worse(const std::vector<double>& simpler, const std::vector<double>& best,
                         double tolerance) {
  if (simpler.empty()) return true;
  const double rms_simpler = std::sqrt(mean(simpler)), rms_best = std::sqrt(mean(best));
  if (rms_simpler > std::max(0.01, 2 * rms_best) && mean(simpler) > (1 + tolerance) * mean(best))
    return true;
  const std::size_t n = simpler.size();
  double sum = 0, sum_squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = simpler[i] - best[i];
    sum += d, sum_squares += d * d;
  }
  const double m = sum / static_cast<double>(n);
  const double variance =
      n > 1 ? (sum_squares - static_cast<double>(n) * m * m) / static_cast<double>(n - 1) : 0;
  const double standard_error = std::sqrt(std::max(variance, 0.0) / static_cast<double>(n));
  return m > kOneSided95 * standard_error && m > tolerance * mean(best);
}

double cross_validated_error(const Form& form, const std::vector<double>& x,
                             const std::vector<double>& y) {
  return mean(left_out_errors(form, x, y));
}

namespace {

// `form` fitted to all the points, with its cross-validated error as already computed.
FormChoice fitted(const Form& form, const std::vector<double>& x, const std::vector<double>& y,
                  const std::string& what, double cv_error) {
  FormChoice choice;
  choice.form = form;
  choice.fit = fit_model(form.basis, x, y, what);
  choice.cv_error = cv_error;
  return choice;
}

}  // namespace

FormChoice fit_form(const Form& form, const std::vector<double>& x, const std::vector<double>& y,
                    const std::string& what) {
  return fitted(form, x, y, what, cross_validated_error(form, x, y));
}

namespace {

// The first point of a doubling grid from `from` to `to` (and `to` itself) where the fitted form
// is negative; nullopt when there is none.
std::optional<double> negative_between(const FormChoice& choice, double from, double to) {
  for (double n = from; n < to; n *= 2) {
    if (choice(n) < 0) return n;
  }
  if (choice(to) < 0) return to;
  return std::nullopt;
}

}  // namespace

FormChoice select_form(const std::vector<double>& x, const std::vector<double>& y,
                       const std::string& what, double tolerance,
                       const std::vector<Form>& candidates) {
  // What no form can be chosen from, each with its own cause.
  if (candidates.empty()) throw input_error(what, "no candidate forms to choose from");
  if (x.size() != y.size()) {
    throw input_error(what, fmt::format("{} sizes but {} values", x.size(), y.size()));
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || x[i] <= 0) {
      throw input_error(what, fmt::format("size {} at point {} of {}: expected a positive number",
                                          x[i], i + 1, x.size()));
    }
    if (!std::isfinite(y[i]) || y[i] <= 0) {
      throw input_error(what, fmt::format("value {} at n = {} (point {} of {}): expected a "
                                          "positive number (the fit is relative to it)",
                                          y[i], x[i], i + 1, x.size()));
    }
  }
  std::vector<double> distinct = x;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 3) {
    throw input_error(what, fmt::format("{} distinct size{} ({}) in {} points: choosing a form in "
                                        "n needs three or more",
                                        distinct.size(), distinct.size() == 1 ? "" : "s",
                                        fmt::join(distinct, ", "), x.size()));
  }
  const auto simplest = std::min_element(
      candidates.begin(), candidates.end(),
      [](const Form& a, const Form& b) { return a.parameters() < b.parameters(); });
  if (simplest != candidates.end() &&
      x.size() < static_cast<std::size_t>(simplest->parameters()) + 2) {
    throw input_error(
        what, fmt::format("{} points: the simplest candidate form ({}) needs {} for leave-one-out "
                          "cross-validation ({} parameter{} + 2)",
                          x.size(), simplest->name, simplest->parameters() + 2,
                          simplest->parameters(), simplest->parameters() == 1 ? "" : "s"));
  }

  std::vector<std::pair<std::string, double>> scores;
  std::vector<std::vector<double>> errors;
  std::vector<std::string> failures;
  std::size_t best = candidates.size();
  // A form is used far beyond its points (a profile's forms in n are read back and checked up to
  // n = 2^20): one that turns negative there predicts no time at all and is no candidate. Seen on
  // a 16-core node: scatter's t0 fitted as 4.82e-07 log n - 3.21e-08 n, negative from n = 128.
  const auto [lowest, highest] = std::minmax_element(x.begin(), x.end());
  const double reach_from = *lowest;
  const double reach = std::max(1048576.0, *highest * 1024);
  std::vector<bool> excluded(candidates.size(), false);
  std::vector<std::optional<FormChoice>> fits(candidates.size());  // each on all the points
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::string why;
    errors.push_back(left_out_errors(candidates[i], x, y, &why));
    scores.emplace_back(candidates[i].name, mean(errors.back()));
    if (!why.empty()) failures.push_back(fmt::format("{}: {}", candidates[i].name, why));
    if (std::isfinite(scores[i].second)) {
      // With the score just computed: fit_form would cross-validate again.
      fits[i] = fitted(candidates[i], x, y, what, scores[i].second);
      if (const auto n = negative_between(*fits[i], reach_from, reach)) {
        scores[i].second = std::numeric_limits<double>::infinity();
        failures.push_back(fmt::format("{}: negative at {}", candidates[i].name, *n));
        excluded[i] = true;
      }
    }
    if (std::isfinite(scores[i].second) &&
        (best == candidates.size() || scores[i].second < scores[best].second)) {
      best = i;
    }
  }
  if (best == candidates.size()) {
    throw input_error(what, fmt::format("no candidate form could be cross-validated on {} points "
                                        "at {} sizes: {}",
                                        x.size(), distinct.size(), fmt::join(failures, "; ")));
  }
  // The simplest form that is not worse than the best beyond the noise: fewest parameters first,
  // then the earlier in the candidates' order (a constant and a logarithm before a power).
  std::size_t chosen = best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (excluded[i] || significantly_worse(errors[i], errors[best], tolerance)) continue;
    if (candidates[i].parameters() < candidates[chosen].parameters() ||
        (candidates[i].parameters() == candidates[chosen].parameters() && i < chosen)) {
      chosen = i;
    }
  }
  // Every form that can be chosen has a finite score, so it was fitted above (one without is
  // significantly worse than any: its errors are empty or infinite).
  FormChoice choice = fits[chosen].value();
  choice.scores = std::move(scores);
  return choice;
}

}  // namespace sonde::model
