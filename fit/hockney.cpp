#include "fit/hockney.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "core/error.hpp"

namespace sonde::fit {

using namespace model;  // the fits are made of the shared forms and estimators
namespace {

struct MessagePoint {
  double bytes, seconds;
};

HockneySegment fit_segment(const std::vector<MessagePoint>& points, std::size_t first,
                           std::size_t last, const std::string& what) {
  const auto count = static_cast<Eigen::Index>(last - first + 1);
  Eigen::MatrixXd design(count, 2);
  Eigen::VectorXd y(count);
  for (Eigen::Index i = 0; i < count; ++i) {
    const MessagePoint& p = points[first + static_cast<std::size_t>(i)];
    design(i, 0) = 1;
    design(i, 1) = p.bytes;
    y[i] = p.seconds;
  }
  const LinearFit fit = fit_relative(design, y, what);
  HockneySegment segment;
  segment.from_bytes = points[first].bytes;
  segment.to_bytes = points[last].bytes;
  segment.t0_seconds = fit.coefficients[0];
  segment.seconds_per_byte = fit.coefficients[1];
  segment.points = static_cast<std::size_t>(count);
  segment.mean_relative_error = fit.mean_relative_error;
  segment.max_relative_error = fit.max_relative_error;
  return segment;
}

HockneySegment fit_through_origin(const std::vector<MessagePoint>& points, std::size_t first,
                                  std::size_t last, const std::string& what) {
  const auto count = static_cast<Eigen::Index>(last - first + 1);
  Eigen::MatrixXd design(count, 1);
  Eigen::VectorXd y(count);
  for (Eigen::Index i = 0; i < count; ++i) {
    const MessagePoint& p = points[first + static_cast<std::size_t>(i)];
    design(i, 0) = p.bytes;
    y[i] = p.seconds;
  }
  const LinearFit fit = fit_relative(design, y, what);
  HockneySegment segment;
  segment.from_bytes = points[first].bytes;
  segment.to_bytes = points[last].bytes;
  segment.t0_seconds = 0;
  segment.t0_held_at_zero = true;
  segment.seconds_per_byte = fit.coefficients[0];
  segment.points = static_cast<std::size_t>(count);
  segment.mean_relative_error = fit.mean_relative_error;
  segment.max_relative_error = fit.max_relative_error;
  return segment;
}

double squared_relative(const HockneySegment& s, const std::vector<MessagePoint>& points,
                        std::size_t first, std::size_t last) {
  double sum = 0;
  for (std::size_t i = first; i <= last; ++i) {
    const double r = (s.t0_seconds + s.seconds_per_byte * points[i].bytes - points[i].seconds) /
                     points[i].seconds;
    sum += r * r;
  }
  return sum;
}

}  // namespace

double HockneySegment::r_inf() const {
  return seconds_per_byte > 0 ? 1 / seconds_per_byte : std::numeric_limits<double>::infinity();
}

double HockneySegment::m_half() const { return t0_seconds * r_inf(); }

double HockneyFit::operator()(double bytes) const {
  const std::vector<double> cuts = breakpoints();
  std::size_t i = 0;
  while (i < cuts.size() && bytes > cuts[i]) ++i;
  const HockneySegment& s = segments[i];
  return s.t0_seconds + s.seconds_per_byte * bytes;
}

std::vector<double> HockneyFit::breakpoints() const {
  std::vector<double> cuts;
  for (std::size_t i = 1; i < segments.size(); ++i) {
    cuts.push_back((segments[i - 1].to_bytes + segments[i].from_bytes) / 2);
  }
  return cuts;
}

HockneyFit fit_hockney(const std::vector<double>& bytes, const std::vector<double>& seconds,
                       const std::string& what, int max_segments, int min_points_per_segment) {
  if (bytes.size() != seconds.size()) {
    throw input_error(what, "the message sizes and times differ in number");
  }
  if (bytes.size() < 3) throw input_error(what, "Hockney's fit needs at least three messages");
  std::vector<MessagePoint> points;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (!std::isfinite(bytes[i]) || bytes[i] < 0) {
      throw input_error(what, fmt::format("message size {} is not a size in bytes", bytes[i]));
    }
    if (!std::isfinite(seconds[i]) || seconds[i] <= 0) {
      throw input_error(what, fmt::format("the time of {} bytes is {}: expected a positive time",
                                          bytes[i], seconds[i]));
    }
    points.push_back({bytes[i], seconds[i]});
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const MessagePoint& a, const MessagePoint& b) { return a.bytes < b.bytes; });
  // Segments begin and end between distinct sizes: the repetitions of a size stay together.
  std::vector<std::size_t> starts;  // index of the first point of each distinct size
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i == 0 || points[i].bytes != points[i - 1].bytes) starts.push_back(i);
  }
  const std::size_t sizes = starts.size();
  const auto end_of = [&](std::size_t size_index) {  // the last point of a distinct size
    return size_index + 1 < sizes ? starts[size_index + 1] - 1 : points.size() - 1;
  };
  const auto min_sizes = static_cast<std::size_t>(std::max(2, min_points_per_segment));
  if (sizes < min_sizes) {
    throw input_error(
        what, fmt::format("{} distinct message sizes: Hockney's fit needs {}", sizes, min_sizes));
  }
  const std::size_t most =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(1, max_segments)), sizes / min_sizes);

  // cost[i][j]: squared relative residuals of one segment over sizes i..j; a segment whose fitted
  // t0 is negative (no physical latency) is not a candidate.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> cost(sizes, std::vector<double>(sizes, inf));
  for (std::size_t i = 0; i < sizes; ++i) {
    for (std::size_t j = i + min_sizes - 1; j < sizes; ++j) {
      const HockneySegment segment = fit_segment(points, starts[i], end_of(j), what);
      if (segment.t0_seconds < 0 && most > 1) continue;
      cost[i][j] = squared_relative(segment, points, starts[i], end_of(j));
    }
  }
  // best[k][j]: the cheapest k+1 segments over sizes 0..j; from[k][j]: where the last begins.
  std::vector<std::vector<double>> best(most, std::vector<double>(sizes, inf));
  std::vector<std::vector<std::size_t>> from(most, std::vector<std::size_t>(sizes, 0));
  for (std::size_t j = 0; j < sizes; ++j) best[0][j] = cost[0][j];
  for (std::size_t k = 1; k < most; ++k) {
    for (std::size_t j = 0; j < sizes; ++j) {
      for (std::size_t i = 1; i <= j; ++i) {
        const double total = best[k - 1][i - 1] + cost[i][j];
        if (total < best[k][j]) best[k][j] = total, from[k][j] = i;
      }
    }
  }
  // The number of segments by BIC over all points: N ln(RSS/N) + p ln N, with p = 2 per segment
  // and one per breakpoint. The residuals count no smaller than a relative resolution: below it
  // BIC would split an exact line to gain in the last digits (a simulated network is exactly
  // Hockney's, but for the rounding of its clock: SMPI showed one line fitted as four segments).
  const auto n = static_cast<double>(points.size());
  constexpr double kRelativeResolution = 2e-3;
  const double rss_floor = n * kRelativeResolution * kRelativeResolution;
  std::size_t chosen = 0;
  double chosen_bic = inf;
  for (std::size_t k = 0; k < most; ++k) {
    const double rss = best[k][sizes - 1];
    if (!std::isfinite(rss)) continue;
    const double parameters = 3.0 * static_cast<double>(k + 1) - 1;
    const double bic = n * std::log(std::max(rss, rss_floor) / n) + parameters * std::log(n);
    if (bic < chosen_bic) chosen_bic = bic, chosen = k;
  }
  if (!std::isfinite(chosen_bic)) {
    throw input_error(what, "no segmentation of the messages has a positive latency");
  }
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // in points
  std::size_t last = sizes - 1;
  for (std::size_t k = chosen + 1; k-- > 0;) {
    const std::size_t first = k == 0 ? 0 : from[k][last];
    ranges.emplace_back(starts[first], end_of(last));
    if (first == 0) break;
    last = first - 1;
  }
  std::reverse(ranges.begin(), ranges.end());
  HockneyFit fit;
  double sum = 0;
  for (const auto& [first, end] : ranges) {
    fit.segments.push_back(fit_segment(points, first, end, what));
    if (fit.segments.back().t0_seconds < 0) {
      // A lone segment (or the only segmentation left) whose intercept came out negative: t0 is
      // within the noise of 0, and the least squares under t0 >= 0 lie on that bound, so the
      // slope is fitted again through the origin.
      fit.segments.back() = fit_through_origin(points, first, end, what);
    }
    const HockneySegment& s = fit.segments.back();
    sum += s.mean_relative_error * static_cast<double>(s.points);
    fit.max_relative_error = std::max(fit.max_relative_error, s.max_relative_error);
  }
  fit.mean_relative_error = sum / n;
  return fit;
}

std::string CollectiveFit::formula_microseconds() const {
  const auto scaled = [](FormChoice choice, double factor) {
    for (double& c : choice.fit.coefficients) c *= factor;
    return choice;
  };
  return fmt::format("({}) + ({}) m", scaled(t0, 1e6).formula(),
                     scaled(seconds_per_byte, 1e6).formula());
}

double CollectiveFit::operator()(double ranks, double bytes) const {
  return t0(ranks) + seconds_per_byte(ranks) * bytes;
}

CollectiveFit fit_collective(const std::vector<CollectivePoint>& points, const std::string& what,
                             double tolerance) {
  std::map<double, std::pair<std::vector<double>, std::vector<double>>> by_ranks;
  for (const CollectivePoint& p : points) {
    by_ranks[p.ranks].first.push_back(p.bytes);
    by_ranks[p.ranks].second.push_back(p.seconds);
  }
  std::vector<double> ranks, t0, slope;
  for (const auto& [n, series] : by_ranks) {
    std::vector<double> sizes = series.first;
    std::sort(sizes.begin(), sizes.end());
    if (std::unique(sizes.begin(), sizes.end()) - sizes.begin() < 2) {
      throw input_error(what, fmt::format("{} ranks: t0 and r_inf need two message sizes", n));
    }
    // One Hockney line per communicator size: Table 5's forms are linear in m.
    const HockneyFit line =
        fit_hockney(series.first, series.second, fmt::format("{} at {} ranks", what, n), 1, 2);
    ranks.push_back(n);
    t0.push_back(line.segments.front().t0_seconds);
    slope.push_back(line.segments.front().seconds_per_byte);
  }
  if (ranks.size() < 4) {
    throw input_error(what, fmt::format("{} communicator sizes are too few for t0(n) and r_inf(n) "
                                        "(at least four)",
                                        ranks.size()));
  }
  CollectiveFit fit;
  fit.t0 = select_form(ranks, t0, what + ": t0(n)", tolerance);
  fit.seconds_per_byte = select_form(ranks, slope, what + ": 1/r_inf(n)", tolerance);
  return fit;
}

std::vector<SegmentIntervals> hockney_intervals(const HockneyFit& fit,
                                                const std::vector<double>& bytes,
                                                const std::vector<double>& seconds,
                                                const model::BootstrapOptions& options,
                                                model::BootstrapReport* report) {
  std::vector<SegmentIntervals> result;
  if (report) *report = {};
  for (const HockneySegment& segment : fit.segments) {
    std::vector<double> xs, ys;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] >= segment.from_bytes && bytes[i] <= segment.to_bytes) {
        xs.push_back(bytes[i]), ys.push_back(seconds[i]);
      }
    }
    model::BootstrapReport segment_report;
    const std::vector<model::Interval> intervals = model::bootstrap_intervals(
        xs, ys,
        [](const std::vector<double>& m, const std::vector<double>& t) {
          const HockneyFit line = fit_hockney(m, t, "bootstrap of a Hockney segment", 1, 2);
          return std::vector<double>{line.segments[0].t0_seconds,
                                     line.segments[0].seconds_per_byte};
        },
        options, &segment_report);
    if (report) {
      report->resamples += segment_report.resamples;
      report->failed += segment_report.failed;
      if (report->first_failure.empty()) report->first_failure = segment_report.first_failure;
    }
    result.push_back({intervals[0], intervals[1]});
  }
  return result;
}

}  // namespace sonde::fit
