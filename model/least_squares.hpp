// Least squares for timings that span decades: every fit minimizes the relative error
// sum(((y_i - f(x_i)) / y_i)^2), so that a 1 us latency and a 1 ms transfer weigh alike, and
// reports its mean and largest relative error. Linear models go through Eigen's column-pivoting QR
// of the weighted design matrix; a power term a * x^c is fitted by profiling the exponent (for each
// c the rest is linear) and refining it by golden-section search.
#pragma once

#include <Eigen/Dense>

#include <functional>
#include <string>
#include <vector>

namespace sonde::model {

struct LinearFit {
  Eigen::VectorXd coefficients;
  double mean_relative_error = 0;
  double max_relative_error = 0;
  double sum_squared_relative = 0;
};

// Rows of `basis` are the points, columns the basis functions at them. Throws an input Error
// (naming `what`) for a y that is not a positive finite number, fewer points than columns, or
// points that do not determine every coefficient.
LinearFit fit_relative(const Eigen::MatrixXd& basis, const Eigen::VectorXd& y,
                       const std::string& what = "fit");

// A model in one variable: coefficients times basis functions, and optionally one power term
// coefficient * x^exponent whose exponent is fitted too.
struct Basis {
  std::string name;  // "1", "log n", "n", "n log n", "n^c"
  std::function<double(double x, double exponent)> at;
  bool power = false;
};

struct ModelFit {
  std::vector<double> coefficients;  // one per basis function
  double exponent = 0;               // of the power term, when there is one
  double mean_relative_error = 0;
  double max_relative_error = 0;
  double sum_squared_relative = 0;
};

// Fits y ~ sum_j c_j * basis_j(x) by relative least squares; the exponent of a power term is
// searched in [min_exponent, max_exponent].
ModelFit fit_model(const std::vector<Basis>& basis, const std::vector<double>& x,
                   const std::vector<double>& y, const std::string& what = "fit",
                   double min_exponent = 0.1, double max_exponent = 3.0);

double evaluate(const std::vector<Basis>& basis, const ModelFit& fit, double x);

}  // namespace sonde::model
