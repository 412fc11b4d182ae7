#include "core/statistics.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace sonde {
namespace {

TEST(Median, TakesTheMiddleValueOrTheMeanOfTheTwoMiddleOnes) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_THROW(median({}), std::invalid_argument);
}

}  // namespace
}  // namespace sonde
