// Running a child under SignalForwarding: an interrupt reaches the child whenever it comes,
// including while the child is being started.
#include "core/program.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>

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

// A marker file in the test's scratch folder, not there yet: a child touches it when its work is
// done.
std::filesystem::path fresh_marker(const char* name) {
  const std::filesystem::path marker = std::filesystem::path(::testing::TempDir()) / name;
  std::filesystem::remove(marker);
  return marker;
}

// A launcher that hangs after its work is done (MPI teardown over a slow link) is stopped once
// the grace is over: here the work is a file written at once, and the child sleeps on.
TEST(StopWhenDone, AChildThatHangsAfterItsWorkIsStoppedAfterTheGrace) {
  const std::filesystem::path marker = fresh_marker("stop_when_done_marker");
  StopWhenDone stop;
  stop.done = [&] { return std::filesystem::exists(marker); };
  stop.grace_seconds = 0.5;
  stop.kill_after_seconds = 2;
  const auto start = std::chrono::steady_clock::now();
  const ChildExit exit =
      run_child({"sh", "-c", "touch '" + marker.string() + "'; exec sleep 30"}, {}, false, stop);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(exit.stopped_when_done);
  EXPECT_TRUE(exit.signaled);
  EXPECT_EQ(exit.code, SIGTERM);
  EXPECT_LT(seconds, 20) << "the child was not stopped";
  std::filesystem::remove(marker);
}

// One that ignores SIGTERM is killed. Done only once its trap is set, or SIGTERM could come first.
TEST(StopWhenDone, AChildThatIgnoresTheTerminationIsKilled) {
  const std::filesystem::path marker = fresh_marker("stop_when_done_trap_set");
  StopWhenDone stop;
  stop.done = [&] { return std::filesystem::exists(marker); };
  stop.grace_seconds = 0;
  stop.kill_after_seconds = 0.5;
  const ChildExit exit =
      run_child({"sh", "-c", "trap '' TERM; touch '" + marker.string() + "'; exec sleep 30"}, {},
                false, stop);
  EXPECT_TRUE(exit.stopped_when_done);
  EXPECT_TRUE(exit.signaled);
  EXPECT_EQ(exit.code, SIGKILL);
  std::filesystem::remove(marker);
}

// A child that exits by itself, done or not, is never signalled.
TEST(StopWhenDone, AChildThatExitsIsLeftAlone) {
  StopWhenDone stop;
  stop.done = [] { return true; };
  stop.grace_seconds = 5;
  const ChildExit exit = run_child({"sh", "-c", "exit 3"}, {}, false, stop);
  EXPECT_FALSE(exit.stopped_when_done);
  EXPECT_FALSE(exit.signaled);
  EXPECT_EQ(exit.code, 3);
}

}  // namespace
}  // namespace sonde
