// How far two times that share a resource overlap: the p-norm (a^p + b^p)^(1/p), between a + b
// (p = 1, no overlap) and max(a, b) (p -> infinity, one wholly hidden behind the other), and the
// least-squares fit of p to times measured apart and together.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace sonde::model {

// (a^p + b^p)^(1/p), p >= 1; a or b not above zero gives the other.
double overlap_p_norm(double a, double b, double p);

// One measurement: the two parts alone and together (seconds, or any one unit).
struct OverlapPoint {
  double a = 0;
  double b = 0;
  double both = 0;
  std::string label;  // which point, for the notes
};

struct OverlapFit {
  double exponent = 0;
  // The range of the exponents fitted with each point left out in turn (a jackknife's range).
  double low = 0;
  double high = 0;
  double mean_relative_error = 0;  // |p-norm / both - 1| over the points at the exponent
  double max_relative_error = 0;
  std::size_t points = 0;
  // The fit ran into a bound of the search: at the upper one the parts overlapped as fully as
  // the max says (or more), at the lower one not at all.
  bool at_upper_bound = false;
  bool at_lower_bound = false;
};

// The search's range of exponents.
inline constexpr double kOverlapExponentMin = 1.0;
inline constexpr double kOverlapExponentMax = 16.0;

// The exponent minimizing the squared logarithms of both / p-norm(a, b) over the points (a
// relative least squares, so that no point weighs more for being longer). Input Error (naming
// `where`) with fewer than three points or a point not above zero.
OverlapFit fit_overlap_exponent(const std::vector<OverlapPoint>& points, const std::string& where);

}  // namespace sonde::model
