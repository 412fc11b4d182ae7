// The outermost frame of every sonde program: an error becomes one clear line on stderr and the
// exit code its kind calls for.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sonde {

int run_program(const char* program, const std::function<int()>& body);

// Whether `program` can be started: a path to an executable, or a name found on the PATH.
bool on_path(const std::string& program);

// How a child ended: its exit status, or the signal that killed it.
struct ChildExit {
  bool signaled = false;
  int code = 0;
  // Stopped by run_child after its work was done (StopWhenDone): the signal says how, not a
  // failure of the work.
  bool stopped_when_done = false;
  bool ok() const { return !signaled && code == 0; }
};

// For a child that may not exit after its work is done: an MPI launcher whose teardown hangs
// after the result is written. Once `done()` holds (asked about once a second), the child has
// `grace_seconds` to exit; then it is sent SIGTERM (a launcher passes it on to its ranks), and
// SIGKILL `kill_after_seconds` later.
struct StopWhenDone {
  std::function<bool()> done;
  double grace_seconds = 60;
  double kill_after_seconds = 10;
};

// Starts argv (found on the PATH) with this process's environment plus `extra_environment`
// ("NAME=value", replacing a variable of that name) and waits for it; with `discard_stdout` its
// standard output goes to /dev/null (its errors still reach ours); with `stop_when_done` it is
// stopped as that says. Throws an io Error when it cannot be started.
ChildExit run_child(const std::vector<std::string>& argv,
                    const std::vector<std::string>& extra_environment = {},
                    bool discard_stdout = false,
                    const std::optional<StopWhenDone>& stop_when_done = std::nullopt);

// While one lives, SIGINT and SIGTERM are passed on to the running child and remembered, so that
// an interrupt stops the child and then the caller, cleanly.
class SignalForwarding {
 public:
  SignalForwarding();
  ~SignalForwarding();
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;
};

// The signal received under the current SignalForwarding, or 0.
int interrupting_signal();

}  // namespace sonde
