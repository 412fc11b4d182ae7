// The real runner of `sonde check`: the program's standard output and error through pipes, each
// line passed on as it comes (save the time records), SIGINT and SIGTERM passed on to it, and a
// run past its time limit stopped. The program runs in a process group of its own, so that
// stopping it reaches what it started (an MPI launcher's ranks), with its standard input from
// /dev/null (a launcher in a background group must not read the terminal).
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <deque>
#include <memory>
#include <optional>

#include "check/check.hpp"
#include "core/error.hpp"

extern char** environ;

namespace sonde::check {
namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile pid_t g_child = 0;

extern "C" void pass_signal_on(int signal) {
  g_signal = signal;
  if (g_child > 0) ::kill(-g_child, signal);  // the child's group: it leads one
}

// Installs the handlers while it lives. No SA_RESTART: a signal wakes the wait for output.
class Forwarding {
 public:
  Forwarding() {
    g_signal = 0;
    struct sigaction action {};
    action.sa_handler = pass_signal_on;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~Forwarding() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  Forwarding(const Forwarding&) = delete;
  Forwarding& operator=(const Forwarding&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// A pipe's two ends, closed when it goes.
struct Pipe {
  std::array<int, 2> fd{-1, -1};
  Pipe() {
    if (::pipe2(fd.data(), O_CLOEXEC) != 0) {
      throw io_error("sonde check", fmt::format("cannot make a pipe: {}", std::strerror(errno)));
    }
  }
  ~Pipe() {
    close_end(0);
    close_end(1);
  }
  void close_end(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

constexpr std::size_t kTailLines = 8;

// Splits what a stream gives into lines, and hands each on.
class Lines {
 public:
  Lines(bool standard_output, RunOutput& run, std::deque<std::string>& tail, std::ostream& pass)
      : standard_output_(standard_output), run_(run), tail_(tail), pass_(pass) {}
  void add(const char* data, std::size_t size) {
    pending_.append(data, size);
    std::size_t end = 0;
    while ((end = pending_.find('\n')) != std::string::npos) {
      line(pending_.substr(0, end));
      pending_.erase(0, end + 1);
    }
  }
  void finish() {
    if (!pending_.empty()) line(pending_);
    pending_.clear();
  }

 private:
  void line(const std::string& text) {
    if (standard_output_) run_.output += text + "\n";
    const bool record = standard_output_ && has_seconds(text);
    if (!record) pass_ << text << "\n" << std::flush;
    std::string shown_line = text;
    if (!shown_line.empty() && shown_line.back() == '\r') shown_line.pop_back();
    if (shown_line.find_first_not_of(" \t") == std::string::npos) return;  // blank
    tail_.push_back(shown_line);
    if (tail_.size() > kTailLines) tail_.pop_front();
  }

  bool standard_output_;
  RunOutput& run_;
  std::deque<std::string>& tail_;
  std::ostream& pass_;
  std::string pending_;
};

using Clock = std::chrono::steady_clock;

// Milliseconds from now to `when` for poll(), at least 0; -1 (wait) for no time point.
int milliseconds_until(const std::optional<Clock::time_point>& when) {
  if (!when) return -1;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(*when - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 60'000));
}

RunOutput run_captured(const std::vector<std::string>& argv, std::ostream& pass,
                       double time_limit_seconds, double grace_seconds) {
  RunOutput run;
  if (g_signal != 0) {
    run.interrupted = true;
    return run;
  }
  if (argv.empty()) throw usage_error("sonde check", "no program");
  Pipe out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own, led by the child
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (rc != 0) throw io_error(argv[0], fmt::format("cannot start it: {}", std::strerror(rc)));
  g_child = pid;
  // A signal that came while the child was being started found no child to pass it to.
  if (g_signal != 0) ::kill(-pid, g_signal);
  out.close_end(1);
  err.close_end(1);

  // Past the limit: SIGTERM to the group, SIGKILL after the grace, and after a last second the
  // pipes are given up (a process that left the group may hold them).
  std::optional<Clock::time_point> next_step;
  if (time_limit_seconds > 0) {
    next_step = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(time_limit_seconds));
  }
  int steps_taken = 0;
  std::deque<std::string> tail;
  Lines out_lines(true, run, tail, pass), err_lines(false, run, tail, pass);
  std::array<pollfd, 2> fds{pollfd{out.fd[0], POLLIN, 0}, pollfd{err.fd[0], POLLIN, 0}};
  std::array<char, 65536> buffer{};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (next_step && Clock::now() >= *next_step) {
      if (steps_taken == 2) break;
      run.timed_out = true;
      ::kill(-pid, steps_taken == 0 ? SIGTERM : SIGKILL);
      const double wait = steps_taken == 0 ? grace_seconds : 1.0;
      next_step = Clock::now() +
                  std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait));
      ++steps_taken;
    }
    if (::poll(fds.data(), fds.size(), milliseconds_until(next_step)) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        fds[i].fd = -1;  // the end: closed with its Pipe
        continue;
      }
      (i == 0 ? out_lines : err_lines).add(buffer.data(), static_cast<std::size_t>(got));
    }
  }
  out_lines.finish();
  err_lines.finish();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      g_child = 0;
      throw io_error(argv[0], fmt::format("cannot wait for it: {}", std::strerror(errno)));
    }
  }
  g_child = 0;
  run.exit = WIFSIGNALED(status) ? ChildExit{true, WTERMSIG(status)}
                                 : ChildExit{false, WEXITSTATUS(status)};
  run.tail.assign(tail.begin(), tail.end());
  run.interrupted = g_signal != 0;
  return run;
}

}  // namespace

Runner process_runner(std::ostream& pass_through, double time_limit_seconds, double grace_seconds) {
  auto forwarding = std::make_shared<Forwarding>();
  return [forwarding, &pass_through, time_limit_seconds,
          grace_seconds](const std::vector<std::string>& argv) {
    return run_captured(argv, pass_through, time_limit_seconds, grace_seconds);
  };
}

}  // namespace sonde::check
