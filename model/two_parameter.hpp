// Models in two parameters at once, as Extra-P's multi-parameter modeller builds them (Calotoiu et
// al. (2016), "Fast multi-parameter performance modeling"): a constant plus terms that are each a
// function of one parameter or a product of one function of each, e.g. for a collective in ranks p
// and message size m, "c0 + c1 log p + c2 m + c3 m log p" (Hockney's t0(p) + m / r_inf(p)).
//
// Each parameter's functions come from one small library, x^i log2(x)^j with (i, j) in
// {(0,1), (1/2,0), (1,0), (1,1), (2,0), (-1,0), (-1/2,0)}: Extra-P's growths, and the shares of a
// whole (n/p) that counts per process show under strong scaling. Where Extra-P first chooses each
// parameter's best function on its own and then combines them, every combination is tried here
// outright: with seven functions a side that is 260 hypotheses, each cheap, and no choice is made
// from a slice of the data. Every hypothesis is fitted by relative least squares
// (least_squares.hpp) and scored by its leave-one-out error; the simplest one that is not worse
// than the best beyond the noise wins (the same one-sided paired test as select_form), and among
// equally simple ones the lowest score.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <vector>

#include "model/bootstrap.hpp"

namespace sonde::model {

// x^exponent log2(x)^log_power; the index 0 of shape_library() is "none" (the constant 1).
struct Shape {
  double exponent = 0;
  int log_power = 0;
  double at(double x) const;
  // "log p", "p^0.5", "p", "p log p", "p^2"; "" for none.
  std::string name(const std::string& variable) const;
};
const std::vector<Shape>& shape_library();

// One term: the product of shape_library()[first](x1) and shape_library()[second](x2); a term
// with both 0 is the constant.
struct Term {
  int first = 0, second = 0;
  bool operator==(const Term&) const = default;
};

struct TwoParameterForm {
  std::vector<Term> terms;  // the constant first
  int parameters() const { return static_cast<int>(terms.size()); }
  // "1 + log p + m + m log p" (variables as given).
  std::string name(const std::array<std::string, 2>& variables) const;
};

// Every hypothesis: the constant; the constant plus one function of one parameter; and for each
// pair of functions f(x1), g(x2): c0 + c1 f + c2 g, c0 + c1 f g, c0 + c1 f + c2 f g,
// c0 + c1 g + c2 f g and c0 + c1 f + c2 g + c3 f g (Calotoiu et al. (2016), the additive and
// multiplicative combinations).
const std::vector<TwoParameterForm>& two_parameter_forms();

struct TwoParameterModel {
  std::array<std::string, 2> variables{"p", "m"};
  TwoParameterForm form;
  std::vector<double> coefficients;  // one per term
  double cv_error = 0;               // mean squared leave-one-out relative error
  double mean_relative_error = 0, max_relative_error = 0;
  int points = 0;
  int hypotheses = 0;  // how many were scored

  double operator()(double x1, double x2) const;
  // "2.1e-06 + 3.4e-07 log p + 1e-10 m", three significant digits.
  std::string formula() const;
};

// Chooses and fits a model of y in (x1, x2). Throws an input Error naming `what` for a parameter
// or value that is not a positive finite number (and where), fewer than three distinct values of
// either parameter (one cannot show a trend in it), or fewer points than the smallest hypothesis
// needs. `tolerance` as in select_form.
TwoParameterModel select_two_parameter_model(
    const std::vector<double>& x1, const std::vector<double>& x2, const std::vector<double>& y,
    const std::string& what, const std::array<std::string, 2>& variables = {"p", "m"},
    double tolerance = 0.0);

// Bootstrap intervals of what `quantities` computes from the form refitted to each resample of
// the points (the form fixed): forecasts at other parameters, say.
std::vector<Interval> two_parameter_bootstrap(
    const TwoParameterModel& model, const std::vector<double>& x1, const std::vector<double>& x2,
    const std::vector<double>& y,
    const std::function<std::vector<double>(const TwoParameterModel&)>& quantities,
    const BootstrapOptions& options = {}, BootstrapReport* report = nullptr);

// Bootstrap intervals of the chosen form's coefficients (the form fixed, the points resampled).
std::vector<Interval> two_parameter_intervals(const TwoParameterModel& model,
                                              const std::vector<double>& x1,
                                              const std::vector<double>& x2,
                                              const std::vector<double>& y,
                                              const BootstrapOptions& options = {},
                                              BootstrapReport* report = nullptr);

}  // namespace sonde::model
