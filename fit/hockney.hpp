// Hockney's point-to-point model t = t0 + m / r_inf (Xu and Hwang (1995), Eq. 5), piecewise where
// the MPI library switches protocols: the breakpoints are found from the data (dynamic programming
// over contiguous segments, the number of segments chosen by the Bayesian information criterion on
// relative residuals), never given. And the collective form t = t0(n) + m / r_inf(n) (Eq. 6,
// Table 5): Hockney at each n, then a model form for t0(n) and for 1/r_inf(n).
#pragma once

#include <string>
#include <vector>

#include "model/bootstrap.hpp"
#include "model/model_forms.hpp"

namespace sonde::fit {

struct HockneySegment {
  double from_bytes = 0;  // the smallest and largest message of the segment
  double to_bytes = 0;
  double t0_seconds = 0;
  double seconds_per_byte = 0;  // 1 / r_inf
  std::size_t points = 0;
  double mean_relative_error = 0;
  double max_relative_error = 0;
  // The free fit's intercept was negative (a latency within the noise of zero): t0 is held at 0
  // and the slope fitted through the origin.
  bool t0_held_at_zero = false;

  // r_inf in bytes per second; +infinity where the fitted slope is not positive.
  double r_inf() const;
  // Eom and Hollingsworth's (1998) half-performance length m_1/2 = t0 * r_inf.
  double m_half() const;
};

struct HockneyFit {
  std::vector<HockneySegment> segments;  // in order of message size
  double mean_relative_error = 0;
  double max_relative_error = 0;

  double operator()(double bytes) const;  // the segment whose range holds it (or the nearest)
  // Where one segment ends and the next begins: midway between their messages.
  std::vector<double> breakpoints() const;
};

// Throws an input Error (naming `what`) for fewer than three points, a negative size, or a time
// that is not positive.
HockneyFit fit_hockney(const std::vector<double>& bytes, const std::vector<double>& seconds,
                       const std::string& what, int max_segments = 4,
                       int min_points_per_segment = 3);

struct CollectivePoint {
  double ranks = 0;
  double bytes = 0;
  double seconds = 0;
};

struct CollectiveFit {
  model::FormChoice t0;                // seconds, in n
  model::FormChoice seconds_per_byte;  // 1 / r_inf(n)
  // "(52 log n) + (0.029 log n) m" in microseconds, as Xu and Hwang's (1995) Table 5 prints it.
  std::string formula_microseconds() const;
  double operator()(double ranks, double bytes) const;
};

// Needs at least four communicator sizes with two message sizes each.
CollectiveFit fit_collective(const std::vector<CollectivePoint>& points, const std::string& what,
                             double tolerance = 0.0);

// t0 and seconds per byte of each segment, the segments' ranges kept as fitted.
struct SegmentIntervals {
  model::Interval t0_seconds;
  model::Interval seconds_per_byte;
};
std::vector<SegmentIntervals> hockney_intervals(const HockneyFit& fit,
                                                const std::vector<double>& bytes,
                                                const std::vector<double>& seconds,
                                                const model::BootstrapOptions& options = {},
                                                model::BootstrapReport* report = nullptr);

}  // namespace sonde::fit
