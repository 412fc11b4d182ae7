// Form selection's errors name their real cause: too few points or distinct sizes, a value or a
// size that is not a positive number (and where), and, when every candidate's cross-validation
// failed, why each failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "model/model_forms.hpp"

namespace sonde::model {
namespace {

// The message of the Error select_form throws, or "" when it chose a form.
std::string error_of(const std::vector<double>& x, const std::vector<double>& y,
                     const std::vector<Form>& candidates = candidate_forms()) {
  try {
    select_form(x, y, "barrier times", 0.0, candidates);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void expect_has(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "expected '" << part << "' in: " << text;
}

TEST(SelectFormErrors, OneSizeRepeatedIsTooFewDistinctSizes) {
  // Six points, but all at n = 4: no form in n can be told from another.
  const std::string e = error_of({4, 4, 4, 4, 4, 4}, {1, 1.1, 0.9, 1, 1.05, 0.95});
  expect_has(e, "barrier times");
  expect_has(e, "1 distinct size (4)");
  expect_has(e, "three or more");
}

TEST(SelectFormErrors, TooFewPointsForTheCandidatesSaysHowManyEachNeeds) {
  // Xu and Hwang's (1995) overhead forms have two parameters each: leave-one-out needs four points.
  const std::vector<Form> overhead = {form_named("n + 1"), form_named("log n + 1")};
  const std::string e = error_of({2, 4, 8}, {1, 2, 3}, overhead);
  expect_has(e, "3 points");
  expect_has(e, "needs 4");
  EXPECT_EQ(e.find("distinct"), std::string::npos) << e;
}

TEST(SelectFormErrors, ANonPositiveOrNonFiniteValueIsNamedWithItsPoint) {
  const std::vector<double> x = {2, 4, 8, 16, 32};
  expect_has(error_of(x, {1, 2, 0, 4, 5}), "value 0 at n = 8 (point 3 of 5)");
  expect_has(error_of(x, {1, 2, 3, -4, 5}), "value -4 at n = 16 (point 4 of 5)");
  expect_has(error_of(x, {1, std::numeric_limits<double>::quiet_NaN(), 3, 4, 5}),
             "value nan at n = 4 (point 2 of 5)");
  expect_has(error_of({2, 4, 0, 16, 32}, {1, 2, 3, 4, 5}), "size 0 at point 3 of 5");
}

TEST(SelectFormErrors, EveryFormFailingCrossValidationSaysWhy) {
  // log n + n + 1 has three coefficients; leaving out the only point at n = 8 leaves two distinct
  // sizes, which determine two of them: the fit is singular and the form cannot be cross-validated.
  const Form three = {"log n + n + 1",
                      {{"log n", [](double n, double) { return std::log2(n); }, false},
                       {"n", [](double n, double) { return n; }, false},
                       {"1", [](double, double) { return 1.0; }, false}}};
  const std::string e = error_of({2, 2, 4, 4, 8}, {1, 1.1, 2, 2.1, 4}, {three});
  expect_has(e, "no candidate form could be cross-validated");
  expect_has(e, "log n + n + 1");
  expect_has(e, "leaving out n = 8");
  expect_has(e, "determine only 2 of the 3 parameters");
}

TEST(SelectFormErrors, ValidPointsStillChooseAForm) {
  const std::vector<double> x = {2, 4, 8, 16, 32, 64};
  std::vector<double> y;
  for (double n : x) y.push_back(3 * n + 1);
  EXPECT_EQ(select_form(x, y, "linear").form.name, "n + 1");
}

// A form that fits the points best but turns negative where profiles use it is no candidate: the
// t0 of a scatter on a 16-core node, 4.82e-07 log n - 3.21e-08 n at n = 2, 4, 8, 16, is negative
// from n = 128 (and a profile that holds it is refused when read).
TEST(SelectForm, AFormNegativeBeyondItsPointsIsNotChosen) {
  const std::vector<double> n{2, 4, 8, 16};
  std::vector<double> t;
  for (double x : n) t.push_back(4.82e-7 * std::log2(x) - 3.21e-8 * x);
  const FormChoice choice = select_form(n, t, "collectives.scatter.t0");
  for (double x = 2; x <= 1048576; x *= 2)
    EXPECT_GE(choice(x), 0) << choice.formula() << " at " << x;
  const auto scored = std::find_if(choice.scores.begin(), choice.scores.end(),
                                   [](const auto& s) { return s.first == "log n + n"; });
  ASSERT_NE(scored, choice.scores.end());
  EXPECT_TRUE(std::isinf(scored->second));
  // Without the exclusion "log n + n" fits these points exactly: it is what would have won.
  const FormChoice exact = fit_form(form_named("log n + n"), n, t, "exact");
  EXPECT_LT(exact(128), 0);
}

}  // namespace
}  // namespace sonde::model
