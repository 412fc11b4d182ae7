#include "model/overlap.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"

namespace sonde::model {
namespace {

// A chain of 1 and loads and stores from 0.25 to 4 times it, as the shared-ports kernel's widths.
std::vector<OverlapPoint> generated(double p, const std::vector<double>& noise = {}) {
  std::vector<OverlapPoint> points;
  const double ratios[] = {0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0};
  for (std::size_t i = 0; i < std::size(ratios); ++i) {
    const double both = overlap_p_norm(1.0, ratios[i], p) * (i < noise.size() ? noise[i] : 1.0);
    points.push_back({1.0, ratios[i], both, std::to_string(i)});
  }
  return points;
}

TEST(Overlap, PNormByHand) {
  EXPECT_DOUBLE_EQ(overlap_p_norm(3, 4, 2), 5);
  EXPECT_DOUBLE_EQ(overlap_p_norm(1, 1, 1), 2);
  EXPECT_NEAR(overlap_p_norm(1, 1, 2.5), std::pow(2.0, 0.4), 1e-15);
  EXPECT_DOUBLE_EQ(overlap_p_norm(0, 4, 2.5), 4);
  EXPECT_DOUBLE_EQ(overlap_p_norm(4, 0, 2.5), 4);
}

TEST(Overlap, TheFitRecoversTheExponentItWasGeneratedWith) {
  for (const double p : {1.5, 2.5, 4.0}) {
    const OverlapFit fit = fit_overlap_exponent(generated(p), "generated");
    EXPECT_NEAR(fit.exponent, p, 1e-6 * p) << p;
    EXPECT_NEAR(fit.low, p, 1e-6 * p);
    EXPECT_NEAR(fit.high, p, 1e-6 * p);
    EXPECT_LT(fit.max_relative_error, 1e-9);
    EXPECT_EQ(fit.points, 8u);
    EXPECT_FALSE(fit.at_upper_bound);
    EXPECT_FALSE(fit.at_lower_bound);
  }
}

TEST(Overlap, NoiseWidensTheLeaveOneOutRangeAroundTheExponent) {
  // +-3% on the points where the exponent matters most moves the fit, not far.
  const OverlapFit fit =
      fit_overlap_exponent(generated(2.5, {1.0, 1.03, 0.97, 1.03, 0.97, 1.0, 1.0, 1.0}), "noisy");
  EXPECT_NEAR(fit.exponent, 2.5, 0.4);
  EXPECT_LT(fit.low, fit.exponent);
  EXPECT_GT(fit.high, fit.exponent);
  EXPECT_GT(fit.max_relative_error, 0.01);
  EXPECT_LT(fit.max_relative_error, 0.05);
}

TEST(Overlap, TimesAtTheLargerOrTheSumRunIntoTheBounds) {
  std::vector<OverlapPoint> hidden, apart;
  for (const double b : {0.5, 1.0, 2.0}) {
    hidden.push_back({1.0, b, std::max(1.0, b), ""});
    apart.push_back({1.0, b, 1.0 + b, ""});
  }
  EXPECT_TRUE(fit_overlap_exponent(hidden, "hidden").at_upper_bound);
  EXPECT_TRUE(fit_overlap_exponent(apart, "apart").at_lower_bound);
  EXPECT_NEAR(fit_overlap_exponent(apart, "apart").exponent, kOverlapExponentMin, 1e-6);
}

TEST(Overlap, TooFewPointsOrATimeNotAboveZeroIsAnInputError) {
  std::vector<OverlapPoint> two = {{1, 1, 1.3, "a"}, {1, 2, 2.2, "b"}};
  EXPECT_THROW(fit_overlap_exponent(two, "x"), Error);
  two.push_back({1, -1, 1, "c"});
  try {
    fit_overlap_exponent(two, "results/compute.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("results/compute.json"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("point c"), std::string::npos);
  }
}

}  // namespace
}  // namespace sonde::model
