#include "model/two_parameter.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "core/error.hpp"
#include "model/least_squares.hpp"
#include "model/model_forms.hpp"

namespace sonde::model {

double Shape::at(double x) const {
  double value = exponent == 0 ? 1.0 : std::pow(x, exponent);
  for (int j = 0; j < log_power; ++j) value *= std::log2(x);
  return value;
}

std::string Shape::name(const std::string& variable) const {
  std::string power;
  if (exponent == 1) {
    power = variable;
  } else if (exponent != 0) {
    power = fmt::format("{}^{:g}", variable, exponent);
  }
  std::string logarithm;
  if (log_power == 1) {
    logarithm = "log " + variable;
  } else if (log_power > 1) {
    logarithm = fmt::format("log^{} {}", log_power, variable);
  }
  if (power.empty()) return logarithm;
  return logarithm.empty() ? power : power + " " + logarithm;
}

const std::vector<Shape>& shape_library() {
  // The growths that parallel programs and collectives show: a tree's depth, a square root (a 2-D
  // decomposition's boundary), linear, a sort's n log n, quadratic; and the shares of a fixed
  // whole, 1/x and 1/sqrt(x) (a count per process under strong scaling: n/p).
  static const std::vector<Shape> shapes = {{0, 0}, {0, 1}, {0.5, 0}, {1, 0},
                                            {1, 1}, {2, 0}, {-1, 0},  {-0.5, 0}};
  return shapes;
}

std::string TwoParameterForm::name(const std::array<std::string, 2>& variables) const {
  std::string text;
  for (const Term& term : terms) {
    const std::string a = shape_library()[term.first].name(variables[0]);
    const std::string b = shape_library()[term.second].name(variables[1]);
    // A logarithm goes after a power: "m log p", "n p^-1".
    const bool a_is_log = shape_library()[term.first].exponent == 0;
    std::string part = a.empty() && b.empty() ? "1"
                       : a.empty()            ? b
                       : b.empty()            ? a
                       : a_is_log             ? b + " " + a
                                              : a + " " + b;
    text += (text.empty() ? "" : " + ") + part;
  }
  return text;
}

const std::vector<TwoParameterForm>& two_parameter_forms() {
  static const std::vector<TwoParameterForm> forms = [] {
    std::vector<TwoParameterForm> all;
    const int shapes = static_cast<int>(shape_library().size());
    const Term constant{0, 0};
    all.push_back({{constant}});
    for (int f = 1; f < shapes; ++f) all.push_back({{constant, {f, 0}}});
    for (int g = 1; g < shapes; ++g) all.push_back({{constant, {0, g}}});
    for (int f = 1; f < shapes; ++f) {
      for (int g = 1; g < shapes; ++g) {
        const Term first{f, 0}, second{0, g}, both{f, g};
        all.push_back({{constant, first, second}});
        all.push_back({{constant, both}});
        all.push_back({{constant, first, both}});
        all.push_back({{constant, second, both}});
        all.push_back({{constant, first, second, both}});
      }
    }
    return all;
  }();
  return forms;
}

namespace {

double term_at(const Term& term, double x1, double x2) {
  return shape_library()[term.first].at(x1) * shape_library()[term.second].at(x2);
}

struct Points {
  const std::vector<double>& x1;
  const std::vector<double>& x2;
  const std::vector<double>& y;
};

// Relative least squares of one form on the points in `rows`. The columns are scaled to unit
// largest value before the QR, so that m^2 at a megabyte and a constant do not look collinear to
// its rank test, and the coefficients scaled back.
LinearFit fit_rows(const TwoParameterForm& form, const Points& points,
                   const std::vector<std::size_t>& rows, const std::string& what) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  const auto k = static_cast<Eigen::Index>(form.terms.size());
  Eigen::MatrixXd basis(n, k);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::size_t r = rows[static_cast<std::size_t>(i)];
    y[i] = points.y[r];
    for (Eigen::Index j = 0; j < k; ++j) {
      basis(i, j) = term_at(form.terms[static_cast<std::size_t>(j)], points.x1[r], points.x2[r]);
    }
  }
  Eigen::VectorXd scale(k);
  for (Eigen::Index j = 0; j < k; ++j) {
    const double largest = basis.col(j).cwiseAbs().maxCoeff();
    scale[j] = largest > 0 ? largest : 1.0;
    basis.col(j) /= scale[j];
  }
  LinearFit fit = fit_relative(basis, y, what);
  fit.coefficients = fit.coefficients.cwiseQuotient(scale);
  return fit;
}

double predict(const TwoParameterForm& form, const Eigen::VectorXd& coefficients, double x1,
               double x2) {
  double value = 0;
  for (std::size_t j = 0; j < form.terms.size(); ++j) {
    value += coefficients[static_cast<Eigen::Index>(j)] * term_at(form.terms[j], x1, x2);
  }
  return value;
}

// Each point's squared relative error when it is left out; empty when the form cannot be
// cross-validated here (too few points, or a fit the remaining points do not determine).
std::vector<double> left_out_errors(const TwoParameterForm& form, const Points& points) {
  const std::size_t count = points.y.size();
  if (count < static_cast<std::size_t>(form.parameters()) + 2) return {};
  std::vector<double> errors;
  std::vector<std::size_t> rows;
  for (std::size_t left_out = 0; left_out < count; ++left_out) {
    rows.clear();
    for (std::size_t i = 0; i < count; ++i) {
      if (i != left_out) rows.push_back(i);
    }
    LinearFit fit;
    try {
      fit = fit_rows(form, points, rows, "cross-validation");
    } catch (const Error&) {
      return {};
    }
    const double relative =
        (predict(form, fit.coefficients, points.x1[left_out], points.x2[left_out]) -
         points.y[left_out]) /
        points.y[left_out];
    if (!std::isfinite(relative)) return {};
    errors.push_back(relative * relative);
  }
  return errors;
}

double mean_of(const std::vector<double>& v) {
  if (v.empty()) return std::numeric_limits<double>::infinity();
  double sum = 0;
  for (double e : v) sum += e;
  return sum / static_cast<double>(v.size());
}

void check_points(const Points& points, const std::string& what,
                  const std::array<std::string, 2>& variables) {
  if (points.x1.size() != points.y.size() || points.x2.size() != points.y.size()) {
    throw input_error(what, fmt::format("{} values of {}, {} of {} and {} measurements: expected "
                                        "as many of each",
                                        points.x1.size(), variables[0], points.x2.size(),
                                        variables[1], points.y.size()));
  }
  for (std::size_t i = 0; i < points.y.size(); ++i) {
    const double a = points.x1[i], b = points.x2[i], y = points.y[i];
    const std::string at = fmt::format("point {} of {} ({} = {}, {} = {})", i + 1, points.y.size(),
                                       variables[0], a, variables[1], b);
    if (!std::isfinite(a) || a <= 0 || !std::isfinite(b) || b <= 0) {
      throw input_error(what, fmt::format("{}: expected positive parameters (their logarithms "
                                          "are taken)",
                                          at));
    }
    if (!std::isfinite(y) || y <= 0) {
      throw input_error(what, fmt::format("{}: value {}: expected a positive number (the fit is "
                                          "relative to it)",
                                          at, y));
    }
  }
  for (int side = 0; side < 2; ++side) {
    const std::set<double> distinct(side == 0 ? points.x1.begin() : points.x2.begin(),
                                    side == 0 ? points.x1.end() : points.x2.end());
    if (distinct.size() < 3) {
      throw input_error(what, fmt::format("{} distinct value{} of {}: a model in two parameters "
                                          "needs three or more of each",
                                          distinct.size(), distinct.size() == 1 ? "" : "s",
                                          variables[static_cast<std::size_t>(side)]));
    }
  }
}

TwoParameterModel finish(const TwoParameterForm& form, const Points& points,
                         const std::array<std::string, 2>& variables, const std::string& what) {
  std::vector<std::size_t> all(points.y.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const LinearFit fit = fit_rows(form, points, all, what);
  TwoParameterModel model;
  model.variables = variables;
  model.form = form;
  model.coefficients.assign(fit.coefficients.data(),
                            fit.coefficients.data() + fit.coefficients.size());
  model.mean_relative_error = fit.mean_relative_error;
  model.max_relative_error = fit.max_relative_error;
  model.points = static_cast<int>(points.y.size());
  model.cv_error = mean_of(left_out_errors(form, points));
  return model;
}

}  // namespace

double TwoParameterModel::operator()(double x1, double x2) const {
  double value = 0;
  for (std::size_t j = 0; j < form.terms.size(); ++j) {
    value += coefficients[j] * term_at(form.terms[j], x1, x2);
  }
  return value;
}

std::string TwoParameterModel::formula() const {
  std::string text;
  for (std::size_t j = 0; j < form.terms.size(); ++j) {
    const double c = coefficients[j];
    const std::string shape = TwoParameterForm{{form.terms[j]}}.name(variables);
    const std::string term = fmt::format("{:.3g}", std::abs(c)) + (shape == "1" ? "" : " " + shape);
    if (text.empty()) {
      text = (c < 0 ? "-" : "") + term;
    } else {
      text += (c < 0 ? " - " : " + ") + term;
    }
  }
  return text;
}

TwoParameterModel select_two_parameter_model(const std::vector<double>& x1,
                                             const std::vector<double>& x2,
                                             const std::vector<double>& y, const std::string& what,
                                             const std::array<std::string, 2>& variables,
                                             double tolerance) {
  const Points points{x1, x2, y};
  check_points(points, what, variables);
  const std::vector<TwoParameterForm>& forms = two_parameter_forms();
  std::vector<std::vector<double>> errors(forms.size());
  std::size_t best = forms.size();
  int scored = 0;
  for (std::size_t i = 0; i < forms.size(); ++i) {
    errors[i] = left_out_errors(forms[i], points);
    if (errors[i].empty()) continue;
    ++scored;
    if (best == forms.size() || mean_of(errors[i]) < mean_of(errors[best])) best = i;
  }
  if (best == forms.size()) {
    throw input_error(what, fmt::format("no hypothesis could be cross-validated on {} points "
                                        "(the constant needs 3)",
                                        y.size()));
  }
  // The simplest hypothesis not worse than the best beyond the noise; among as simple ones, the
  // lowest score (many hypotheses share a parameter count, and their order says nothing).
  std::size_t chosen = forms.size();
  for (std::size_t i = 0; i < forms.size(); ++i) {
    if (errors[i].empty() || significantly_worse(errors[i], errors[best], tolerance)) continue;
    if (chosen == forms.size() || forms[i].parameters() < forms[chosen].parameters() ||
        (forms[i].parameters() == forms[chosen].parameters() &&
         mean_of(errors[i]) < mean_of(errors[chosen]))) {
      chosen = i;
    }
  }
  TwoParameterModel model = finish(forms[chosen], points, variables, what);
  model.hypotheses = scored;
  return model;
}

std::vector<Interval> two_parameter_bootstrap(
    const TwoParameterModel& model, const std::vector<double>& x1, const std::vector<double>& x2,
    const std::vector<double>& y,
    const std::function<std::vector<double>(const TwoParameterModel&)>& quantities,
    const BootstrapOptions& options, BootstrapReport* report) {
  // The bootstrap resamples one variable; it resamples the points' indices here, and the fit
  // looks each point up.
  std::vector<double> index(y.size());
  for (std::size_t i = 0; i < index.size(); ++i) index[i] = static_cast<double>(i);
  const std::string what = "bootstrap of " + model.form.name(model.variables);
  return bootstrap_intervals(
      index, y,
      [&](const std::vector<double>& picked, const std::vector<double>& values) {
        std::vector<double> a, b;
        for (double i : picked) {
          a.push_back(x1[static_cast<std::size_t>(i)]);
          b.push_back(x2[static_cast<std::size_t>(i)]);
        }
        const Points points{a, b, values};
        std::vector<std::size_t> rows(values.size());
        for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = r;
        const LinearFit fit = fit_rows(model.form, points, rows, what);
        TwoParameterModel refitted = model;
        refitted.coefficients.assign(fit.coefficients.data(),
                                     fit.coefficients.data() + fit.coefficients.size());
        return quantities(refitted);
      },
      options, report);
}

std::vector<Interval> two_parameter_intervals(
    const TwoParameterModel& model, const std::vector<double>& x1, const std::vector<double>& x2,
    const std::vector<double>& y, const BootstrapOptions& options, BootstrapReport* report) {
  return two_parameter_bootstrap(
      model, x1, x2, y, [](const TwoParameterModel& m) { return m.coefficients; }, options, report);
}

}  // namespace sonde::model
