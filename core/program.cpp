#include "core/program.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>

#include "core/error.hpp"

extern char** environ;

namespace sonde {
namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile std::sig_atomic_t g_forwarding = 0;  // whether a SignalForwarding lives
volatile pid_t g_child = 0;
struct sigaction g_old_int {
}, g_old_term{};

extern "C" void forward_signal(int signal) {
  g_signal = signal;
  if (g_child > 0) ::kill(g_child, signal);
}

}  // namespace

int run_program(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: internal error: {}\n", program, e.what());
    return static_cast<int>(ExitCode::failure);
  }
}

// Whether `program` can be started: a path to an executable, or a name found on the PATH.
bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::string folders = path == nullptr ? "/usr/bin:/bin" : path;
  std::size_t start = 0;
  while (start <= folders.size()) {
    const std::size_t end = std::min(folders.find(':', start), folders.size());
    const std::string folder = folders.substr(start, end - start);
    if (!folder.empty() && ::access((folder + "/" + program).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

namespace {

// Waits for `pid`. With `stop`, polls instead, asking `stop->done()` once a second; once it holds,
// the child has the grace, then SIGTERM, then SIGKILL. Sets `stopped` when a signal was sent.
int wait_for(pid_t pid, const std::string& program, const std::optional<StopWhenDone>& stop,
             bool& stopped) {
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> done_at;
  auto next_ask = Clock::now();
  int signals_sent = 0;
  while (true) {
    int status = 0;
    const pid_t got = ::waitpid(pid, &status, stop ? WNOHANG : 0);
    if (got == pid) return status;
    if (got < 0 && errno != EINTR) {
      g_child = 0;
      throw io_error(program, fmt::format("cannot wait for it: {}", std::strerror(errno)));
    }
    if (!stop) continue;  // interrupted by a signal: wait again
    const auto now = Clock::now();
    if (!done_at && now >= next_ask) {
      if (stop->done()) done_at = now;
      next_ask = now + std::chrono::seconds(1);
    }
    if (done_at) {
      const double waited = std::chrono::duration<double>(now - *done_at).count();
      if (signals_sent == 0 && waited >= stop->grace_seconds) {
        ::kill(pid, SIGTERM);
        signals_sent = 1;
      } else if (signals_sent == 1 && waited >= stop->grace_seconds + stop->kill_after_seconds) {
        ::kill(pid, SIGKILL);
        signals_sent = 2;
      }
      stopped = signals_sent > 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace

ChildExit run_child(const std::vector<std::string>& argv,
                    const std::vector<std::string>& extra_environment, bool discard_stdout,
                    const std::optional<StopWhenDone>& stop_when_done) {
  if (argv.empty()) throw usage_error("run_child", "no program");
  std::vector<std::string> environment = extra_environment;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced =
        std::any_of(extra_environment.begin(), extra_environment.end(),
                    [&](const std::string& x) { return x.rfind(name + "=", 0) == 0; });
    if (!replaced) environment.push_back(entry);
  }
  std::vector<char*> args, envp;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  for (const std::string& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  if (discard_stdout) {
    ::posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  // posix_spawnp: a launcher ("mpiexec", "srun", "valgrind") is found on the PATH.
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw io_error(argv[0], fmt::format("cannot start it: {}", std::strerror(rc)));
  g_child = pid;
  // A signal that came while the child was being started found no child to pass it to: passed on
  // now, or the child would run to its end with the interrupt pending.
  if (g_forwarding != 0 && g_signal != 0) ::kill(pid, g_signal);
  bool stopped = false;
  const int status = wait_for(pid, argv[0], stop_when_done, stopped);
  g_child = 0;
  ChildExit exit = WIFSIGNALED(status) ? ChildExit{true, WTERMSIG(status)}
                                       : ChildExit{false, WEXITSTATUS(status)};
  exit.stopped_when_done = stopped;
  return exit;
}

SignalForwarding::SignalForwarding() {
  g_signal = 0;
  g_forwarding = 1;
  struct sigaction action {};
  action.sa_handler = forward_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &g_old_int);
  ::sigaction(SIGTERM, &action, &g_old_term);
}

SignalForwarding::~SignalForwarding() {
  g_forwarding = 0;
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
}

int interrupting_signal() { return g_signal; }

}  // namespace sonde
