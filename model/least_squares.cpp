#include "model/least_squares.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace sonde::model {

LinearFit fit_relative(const Eigen::MatrixXd& basis, const Eigen::VectorXd& y,
                       const std::string& what) {
  if (basis.rows() != y.size()) throw input_error(what, "the points and values differ in number");
  if (basis.rows() < basis.cols()) {
    throw input_error(
        what, fmt::format("{} points cannot fit {} parameters", basis.rows(), basis.cols()));
  }
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    if (!std::isfinite(y[i]) || y[i] <= 0) {
      throw input_error(what, fmt::format("value {} is {}: expected a positive number", i, y[i]));
    }
  }
  // Dividing each row by its y turns relative error into ordinary least squares.
  const Eigen::VectorXd weight = y.cwiseInverse();
  const Eigen::MatrixXd weighted = weight.asDiagonal() * basis;
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(y.size());
  // Too few distinct points for the basis (every n the same, say) has no unique fit: an error,
  // not a least-norm answer.
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(weighted);
  if (qr.rank() < basis.cols()) {
    throw input_error(what, fmt::format("the points determine only {} of the {} parameters "
                                        "(too few distinct points)",
                                        qr.rank(), basis.cols()));
  }
  LinearFit fit;
  fit.coefficients = qr.solve(ones);
  const Eigen::VectorXd relative = (basis * fit.coefficients - y).cwiseQuotient(y);
  fit.mean_relative_error = relative.cwiseAbs().mean();
  fit.max_relative_error = relative.cwiseAbs().maxCoeff();
  fit.sum_squared_relative = relative.squaredNorm();
  return fit;
}

namespace {

ModelFit fit_with_exponent(const std::vector<Basis>& basis, const std::vector<double>& x,
                           const Eigen::VectorXd& y, double exponent, const std::string& what) {
  Eigen::MatrixXd design(static_cast<Eigen::Index>(x.size()),
                         static_cast<Eigen::Index>(basis.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    for (std::size_t j = 0; j < basis.size(); ++j) {
      design(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
          basis[j].at(x[i], exponent);
    }
  }
  const LinearFit linear = fit_relative(design, y, what);
  ModelFit fit;
  fit.coefficients.assign(linear.coefficients.data(),
                          linear.coefficients.data() + linear.coefficients.size());
  fit.exponent = exponent;
  fit.mean_relative_error = linear.mean_relative_error;
  fit.max_relative_error = linear.max_relative_error;
  fit.sum_squared_relative = linear.sum_squared_relative;
  return fit;
}

}  // namespace

ModelFit fit_model(const std::vector<Basis>& basis, const std::vector<double>& x,
                   const std::vector<double>& y, const std::string& what, double min_exponent,
                   double max_exponent) {
  if (x.size() != y.size()) throw input_error(what, "the points and values differ in number");
  for (double v : x) {
    if (!std::isfinite(v) || v <= 0) {
      throw input_error(what, fmt::format("point {} is not a positive number", v));
    }
  }
  const Eigen::VectorXd values = Eigen::Map<const Eigen::VectorXd>(y.data(), y.size());
  const bool power =
      std::any_of(basis.begin(), basis.end(), [](const Basis& b) { return b.power; });
  if (!power) return fit_with_exponent(basis, x, values, 0, what);
  // Profile the exponent on a grid, then refine around the best point by golden section.
  const auto cost = [&](double c) {
    return fit_with_exponent(basis, x, values, c, what).sum_squared_relative;
  };
  const int steps = 58;
  double best = min_exponent, best_cost = cost(min_exponent);
  for (int i = 1; i <= steps; ++i) {
    const double c = min_exponent + (max_exponent - min_exponent) * i / steps;
    const double value = cost(c);
    if (value < best_cost) best = c, best_cost = value;
  }
  const double step = (max_exponent - min_exponent) / steps;
  double lo = std::max(min_exponent, best - step), hi = std::min(max_exponent, best + step);
  const double golden = (std::sqrt(5.0) - 1) / 2;
  double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
  double fa = cost(a), fb = cost(b);
  for (int i = 0; i < 60 && hi - lo > 1e-7; ++i) {
    if (fa < fb) {
      hi = b, b = a, fb = fa, a = hi - golden * (hi - lo), fa = cost(a);
    } else {
      lo = a, a = b, fa = fb, b = lo + golden * (hi - lo), fb = cost(b);
    }
  }
  return fit_with_exponent(basis, x, values, (lo + hi) / 2, what);
}

double evaluate(const std::vector<Basis>& basis, const ModelFit& fit, double x) {
  double sum = 0;
  for (std::size_t j = 0; j < basis.size(); ++j)
    sum += fit.coefficients[j] * basis[j].at(x, fit.exponent);
  return sum;
}

}  // namespace sonde::model
