// Model-form selection in the spirit of Extra-P's normal form: candidate forms in n (constant,
// log n, n, n log n, n^c, and sums of two terms), each fitted by relative least squares and scored
// by its leave-one-out squared relative error; the simplest form that is not worse than the best
// beyond the noise (a one-sided paired test at 95% on the points' errors) wins, so that a term is
// added only when it pays.
// These are the forms of Xu and Hwang's (1995) Tables 5 and 6 (t0(n), 1/r_inf(n), barrier, reduce,
// scan).
#pragma once

#include <string>
#include <vector>

#include "model/least_squares.hpp"

namespace sonde::model {

struct Form {
  std::string name;  // "log n + 1"
  std::vector<Basis> basis;
  int parameters() const;  // coefficients, and the exponent of a power term
};

// 1, log n, n, n log n; log n, n and n log n each plus a constant; log n + n; n^c, n^c + 1.
// Logarithms are base 2, as in Xu and Hwang (1995) (94 log n + 10 is 762 us at n = 256).
const std::vector<Form>& candidate_forms();
// The candidates for a program's counts in its problem size (Amato et al. (1999), section 5.4): the
// above and n log n + n, the growth of a comparison sort with linear passes around it.
const std::vector<Form>& count_forms();
const Form& form_named(const std::string& name);  // throws a usage Error for an unknown name

struct FormChoice {
  Form form;
  ModelFit fit;
  double cv_error = 0;  // mean squared leave-one-out relative error
  // Every candidate's score, in the order tried: what the choice was made from.
  std::vector<std::pair<std::string, double>> scores;

  double operator()(double n) const { return evaluate(form.basis, fit, n); }
  // In the papers' notation with three significant digits: "94 log n + 10", "0.03 n^1.29".
  std::string formula(const std::string& variable = "n") const;
};

// Mean squared leave-one-out relative error of one form; +infinity when there are too few points
// (a form needs two more points than parameters).
double cross_validated_error(const Form& form, const std::vector<double>& x,
                             const std::vector<double>& y);

// Fits every candidate and chooses as described above. `tolerance` (relative, default 0) also
// keeps a simpler form whose score is within that fraction of the best, significant or not.
// Among forms with as many parameters, the earlier candidate wins: candidate_forms() lists them
// from the simplest growth. Throws an input Error naming `what` and the real cause: a size or a
// value that is not a positive finite number (and at which point), fewer than three distinct
// sizes, fewer points than the simplest candidate's parameters + 2, or, when every candidate's
// cross-validation failed, each one's reason (too few points for it, or a fit made singular by
// leaving out a point).
FormChoice select_form(const std::vector<double>& x, const std::vector<double>& y,
                       const std::string& what, double tolerance = 0.0,
                       const std::vector<Form>& candidates = candidate_forms());

// Whether a model whose points' squared left-out relative errors are `simpler` is worse than the
// one with `best` beyond the noise: the test select_form chooses by (and the two-parameter
// modeller too).
bool significantly_worse(const std::vector<double>& simpler, const std::vector<double>& best,
                         double tolerance);

// One given form, fitted (for a profile that fixes the form).
FormChoice fit_form(const Form& form, const std::vector<double>& x, const std::vector<double>& y,
                    const std::string& what);

}  // namespace sonde::model
