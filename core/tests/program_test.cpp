// Running a child under SignalForwarding: an interrupt reaches the child whenever it comes,
// including while the child is being started.
#include "core/program.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>

namespace sonde {
namespace {

// An interrupt that came before the child existed (between a caller's last check and the start,
// as when Ctrl-C is pressed just as `sonde characterize` starts a part) must stop the child at
// once, not let it run to its end with the interrupt pending.
TEST(SignalForwarding, AnInterruptBeforeTheChildStartsReachesIt) {
  SignalForwarding forwarding;
  std::raise(SIGINT);  // caught: remembered, no child to pass it to yet
  ASSERT_EQ(interrupting_signal(), SIGINT);
  const auto start = std::chrono::steady_clock::now();
  const ChildExit exit = run_child({"sleep", "5"});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(exit.signaled);
  EXPECT_EQ(exit.code, SIGINT);
  EXPECT_LT(seconds, 4) << "the child ran to its end";
}

TEST(SignalForwarding, WithoutAnInterruptTheChildRunsToItsEnd) {
  SignalForwarding forwarding;
  const ChildExit exit = run_child({"true"});
  EXPECT_TRUE(exit.ok());
  EXPECT_EQ(interrupting_signal(), 0);
}

}  // namespace
}  // namespace sonde
