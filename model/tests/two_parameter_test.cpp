// The two-parameter modeller recovers laws it was generated from, under noise: the form (which
// terms, in which parameter) and the coefficients; its intervals hold the true values; bad input
// is refused naming the point or the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/two_parameter.hpp"

namespace sonde::model {
namespace {

struct Data {
  std::vector<double> p, m, t;
};

// The law at every (p, m) of a grid, times (1 + e) with e uniform in [-noise, noise] from a fixed
// seed: the test is the same on every run.
Data generate(const std::function<double(double, double)>& law, const std::vector<double>& ps,
              const std::vector<double>& ms, double noise, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> e(-noise, noise);
  Data data;
  for (double p : ps) {
    for (double m : ms) {
      data.p.push_back(p), data.m.push_back(m), data.t.push_back(law(p, m) * (1 + e(random)));
    }
  }
  return data;
}

const std::vector<double> kRanks = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
const std::vector<double> kBytes = {8, 64, 512, 4096, 32768, 262144};

void expect_within(double value, double truth, double fraction, const std::string& what) {
  EXPECT_LE(std::abs(value - truth), fraction * std::abs(truth))
      << what << ": " << value << " against " << truth;
}

TEST(TwoParameterModel, RecoversALogarithmInRanksPlusALinearTermInBytesUnderFivePercentNoise) {
  // The law: t = a log p + b m + c, 5% noise; the form found and the coefficients within
  // 10%. Several seeds, so that one lucky draw does not pass it.
  const double a = 2e-6, b = 1e-9, c = 5e-6;
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    const Data d = generate([&](double p, double m) { return a * std::log2(p) + b * m + c; },
                            kRanks, kBytes, 0.05, seed);
    const TwoParameterModel model = select_two_parameter_model(d.p, d.m, d.t, "test");
    ASSERT_EQ(model.form.name(model.variables), "1 + log p + m") << "seed " << seed;
    expect_within(model.coefficients[0], c, 0.10, "c");
    expect_within(model.coefficients[1], a, 0.10, "a");
    expect_within(model.coefficients[2], b, 0.10, "b");
    EXPECT_EQ(model.hypotheses, 260);
  }
}

TEST(TwoParameterModel, RecoversHockneyWithAStartupAndABandwidthThatBothGrowWithRanks) {
  // t0(p) + m / r_inf(p) with t0 = 1 us (1 + 2 log p) and 1 / r_inf = 0.1 ns (1 + 0.5 log p) per
  // byte: the product term m log p is needed, and found.
  const Data d = generate(
      [](double p, double m) {
        return 1e-6 * (1 + 2 * std::log2(p)) + m * 1e-10 * (1 + 0.5 * std::log2(p));
      },
      kRanks, kBytes, 0.02, 7);
  const TwoParameterModel model = select_two_parameter_model(d.p, d.m, d.t, "test");
  EXPECT_EQ(model.form.name(model.variables), "1 + log p + m + m log p");
  expect_within(model.coefficients[3], 0.5e-10, 0.10, "m log p");
  expect_within(model(1024, 1 << 20), 1e-6 * 21 + (1 << 20) * 1e-10 * 6, 0.05, "t(1024, 1 MiB)");
}

TEST(TwoParameterModel, ALawInOneParameterOnlyKeepsTheOtherOut) {
  const Data d =
      generate([](double p, double) { return 3e-6 + 1e-6 * p; }, kRanks, kBytes, 0.03, 11);
  const TwoParameterModel model = select_two_parameter_model(d.p, d.m, d.t, "test");
  EXPECT_EQ(model.form.name(model.variables), "1 + p");
}

TEST(TwoParameterModel, TheVariablesAreNamedAsGiven) {
  const Data d = generate([](double n, double q) { return 1 + 1e-3 * n * std::log2(n) + 0.5 * q; },
                          {1000, 2000, 4000, 8000, 16000, 32000}, {1, 2, 4, 8, 16}, 0.01, 3);
  const TwoParameterModel model =
      select_two_parameter_model(d.p, d.m, d.t, "test", {"size", "processes"});
  EXPECT_EQ(model.form.name(model.variables), "1 + size log size + processes");
  EXPECT_NE(model.formula().find("size log size"), std::string::npos) << model.formula();
}

TEST(TwoParameterModel, IntervalsHoldTheGeneratingCoefficients) {
  const double a = 2e-6, b = 1e-9, c = 5e-6;
  const Data d = generate([&](double p, double m) { return a * std::log2(p) + b * m + c; }, kRanks,
                          kBytes, 0.05, 9);
  const TwoParameterModel model = select_two_parameter_model(d.p, d.m, d.t, "test");
  ASSERT_EQ(model.form.name(model.variables), "1 + log p + m");
  const std::vector<Interval> intervals = two_parameter_intervals(model, d.p, d.m, d.t);
  ASSERT_EQ(intervals.size(), 3u);
  EXPECT_TRUE(intervals[0].contains(c)) << intervals[0].low << " " << intervals[0].high;
  EXPECT_TRUE(intervals[1].contains(a)) << intervals[1].low << " " << intervals[1].high;
  EXPECT_TRUE(intervals[2].contains(b)) << intervals[2].low << " " << intervals[2].high;
  EXPECT_LT(intervals[1].high - intervals[1].low, a) << "an interval as wide as the value";
}

std::string error_of(const Data& d) {
  try {
    select_two_parameter_model(d.p, d.m, d.t, "collectives.broadcast");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TwoParameterModel, RefusesTooFewDistinctValuesOfEitherParameter) {
  const Data d = generate([](double p, double m) { return p + m; }, kRanks, {8, 64}, 0, 1);
  const std::string e = error_of(d);
  EXPECT_NE(e.find("collectives.broadcast"), std::string::npos) << e;
  EXPECT_NE(e.find("2 distinct values of m"), std::string::npos) << e;
}

TEST(TwoParameterModel, RefusesANonPositiveValueNamingItsPoint) {
  Data d = generate([](double p, double m) { return p + m; }, {2, 4, 8}, {8, 64, 512}, 0, 1);
  d.t[4] = -1;
  const std::string e = error_of(d);
  EXPECT_NE(e.find("point 5 of 9 (p = 4, m = 64): value -1"), std::string::npos) << e;
  d.t[4] = 1;
  d.m[0] = 0;
  EXPECT_NE(error_of(d).find("point 1 of 9 (p = 2, m = 0): expected positive parameters"),
            std::string::npos)
      << error_of(d);
}

}  // namespace
}  // namespace sonde::model
