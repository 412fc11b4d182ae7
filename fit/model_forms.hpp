// Model-form selection in the spirit of Extra-P's normal form: candidate forms in n (constant,
// log n, n, n log n, n^c, and sums of two terms), each fitted by relative least squares and scored
// by its leave-one-out cross-validated relative error; the simplest form whose score is within
// the tolerance of the best one wins, so that a term is added only when it pays beyond the noise.
// These are the forms of paper 003's Tables 5 and 6 (t0(n), 1/r_inf(n), barrier, reduce, scan).
#pragma once

#include <string>
#include <vector>

#include "fit/least_squares.hpp"

namespace sonde::fit {

struct Form {
  std::string name;  // "log n + 1"
  std::vector<Basis> basis;
  int parameters() const;  // coefficients, and the exponent of a power term
};

// constant, log n, n, n log n, n^c, and each of the last four plus a constant; log n + n.
// Logarithms are base 2, as in paper 003 (94 log n + 10 is 762 us at n = 256).
const std::vector<Form>& candidate_forms();
const Form& form_named(const std::string& name);  // throws a usage Error for an unknown name

struct FormChoice {
  Form form;
  ModelFit fit;
  double cv_error = 0;  // mean absolute leave-one-out relative error
  // Every candidate's score, in the order tried: what the choice was made from.
  std::vector<std::pair<std::string, double>> scores;

  double operator()(double n) const { return evaluate(form.basis, fit, n); }
  // In the papers' notation with three significant digits: "94 log n + 10", "0.03 n^1.29".
  std::string formula(const std::string& variable = "n") const;
};

// Leave-one-out cross-validated relative error of one form; +infinity when there are too few
// points (a form needs two more points than parameters).
double cross_validated_error(const Form& form, const std::vector<double>& x,
                             const std::vector<double>& y);

// Fits every candidate and chooses as described above. `tolerance` is relative: 0.1 keeps a
// simpler form whose score is within 10% of the best. Among forms with as many parameters, the
// earlier candidate wins: candidate_forms() lists them from the simplest growth. Throws an input
// Error (naming `what`) when no candidate has enough points.
FormChoice select_form(const std::vector<double>& x, const std::vector<double>& y,
                       const std::string& what, double tolerance = 0.0,
                       const std::vector<Form>& candidates = candidate_forms());

// One given form, fitted (for a profile that fixes the form).
FormChoice fit_form(const Form& form, const std::vector<double>& x, const std::vector<double>& y,
                    const std::string& what);

}  // namespace sonde::fit
