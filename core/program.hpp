// The outermost frame of every sonde program: an error becomes one clear line on stderr and the
// exit code its kind calls for.
#pragma once

#include <functional>
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
  bool ok() const { return !signaled && code == 0; }
};

// Starts argv (found on the PATH) with this process's environment plus `extra_environment`
// ("NAME=value", replacing a variable of that name) and waits for it; with `discard_stdout` its
// standard output goes to /dev/null (its errors still reach ours). Throws an io Error when it
// cannot be started.
ChildExit run_child(const std::vector<std::string>& argv,
                    const std::vector<std::string>& extra_environment = {},
                    bool discard_stdout = false);

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
