#include "tracer/launch.hpp"

#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "core/program.hpp"
#include "trace/otf2_io.hpp"

extern char** environ;

namespace sonde::tracer {
namespace {

// What `argv` writes to stdout and stderr, or "" when it cannot be started.
std::string output_of(const std::vector<std::string>& argv) {
  int pipe_fds[2] = {-1, -1};
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string text;
  if (rc == 0) {
    std::array<char, 4096> chunk{};
    while (true) {
      const ssize_t got = ::read(pipe_fds[0], chunk.data(), chunk.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      text.append(chunk.data(), static_cast<std::size_t>(got));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(pipe_fds[0]);
  return text;
}

// The file's identity, to tell an archive written by this run from one left by an earlier run:
// write_otf2 moves a new file in place, so a new archive has a new inode or time.
struct FileStamp {
  bool exists = false;
  ino_t inode = 0;
  timespec modified{};
  bool operator==(const FileStamp& other) const {
    return exists == other.exists && inode == other.inode &&
           modified.tv_sec == other.modified.tv_sec && modified.tv_nsec == other.modified.tv_nsec;
  }
};

FileStamp stamp(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};
  return {true, st.st_ino, st.st_mtim};
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) {
    if (!text.empty()) text += ' ';
    const bool plain =
        !word.empty() && word.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    text += plain ? word : "'" + word + "'";
  }
  return text;
}

// The address sanitizer's runtime where this sonde runs with it (a sanitizer build: GCC's
// libasan.so, clang's libclang_rt.asan-<arch>.so), or "". The tracer beside such a sonde is built
// with it too, and the runtime must come before every other library of a program: it is preloaded
// first.
std::string sanitizer_runtime() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        const std::string name = info->dlpi_name != nullptr ? info->dlpi_name : "";
        const std::string file = std::filesystem::path(name).filename().string();
        if (file.rfind("libasan.so", 0) != 0 && file.rfind("libclang_rt.asan-", 0) != 0) return 0;
        *static_cast<std::string*>(data) = name;
        return 1;
      },
      &found);
  return found;
}

}  // namespace

std::filesystem::path tracer_library() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw io_error("/proc/self/exe", "cannot find this program's folder: " + ec.message());
  return exe.parent_path() / "libsonde_trace.so";
}

bool is_open_mpi_launcher(const std::string& launcher) {
  const std::string base = std::filesystem::path(launcher).filename().string();
  bool named = false;
  for (const char* name : {"mpirun", "mpiexec", "orterun", "prterun"})
    named = named || base.rfind(name, 0) == 0;
  if (!named || !on_path(launcher)) return false;
  const std::string version = output_of({launcher, "--version"});
  return version.find("Open MPI") != std::string::npos ||
         version.find("OpenRTE") != std::string::npos;
}

std::vector<std::string> launch_command(const std::vector<std::string>& command,
                                        const std::vector<std::string>& names, bool open_mpi) {
  if (!open_mpi || command.empty()) return command;
  std::vector<std::string> argv{command.front()};
  for (const std::string& name : names) {
    argv.push_back("-x");
    argv.push_back(name);
  }
  argv.insert(argv.end(), command.begin() + 1, command.end());
  return argv;
}

int run_trace(const TraceOptions& options) {
  if (options.output.empty()) throw usage_error("-o", "name the OTF2 archive to write (t.otf2)");
  if (options.command.empty())
    throw usage_error("--", "no command to trace (sonde trace -o t.otf2 -- mpirun -n 4 prog)");
  if (!on_path(options.command.front())) {
    throw usage_error(
        "--", fmt::format("{} is not an executable program", shown(options.command.front())));
  }
  const std::filesystem::path library = tracer_library();
  if (!std::filesystem::exists(library)) {
    throw io_error(library.string(),
                   "the tracing library is not beside sonde (build the sonde_tracer target, or "
                   "install sonde with it)");
  }
  const std::filesystem::path output = std::filesystem::absolute(options.output);
  if (!std::filesystem::is_directory(output.parent_path()))
    throw io_error(options.output, "its folder does not exist");

  std::string preload = library.string();
  if (const std::string runtime = sanitizer_runtime(); !runtime.empty())
    preload = runtime + ":" + preload;
  if (const char* existing = std::getenv("LD_PRELOAD"); existing != nullptr && *existing != '\0')
    preload += std::string(":") + existing;
  std::vector<std::string> environment = {"LD_PRELOAD=" + preload,
                                          "SONDE_TRACE_OUTPUT=" + output.string(),
                                          "SONDE_TRACE_LAUNCHER=" + joined(options.command)};
  std::vector<std::string> names = {"LD_PRELOAD", "SONDE_TRACE_OUTPUT", "SONDE_TRACE_LAUNCHER"};
  if (!options.machine.empty()) {
    environment.push_back("SONDE_TRACE_MACHINE=" + options.machine);
    names.push_back("SONDE_TRACE_MACHINE");
  }
  const std::vector<std::string> argv =
      launch_command(options.command, names, is_open_mpi_launcher(options.command.front()));

  const FileStamp before = stamp(output);
  ChildExit ended;
  {
    SignalForwarding forwarding;
    ended = run_child(argv, environment);
    if (interrupting_signal() != 0) {
      fmt::print(stderr, "sonde trace: interrupted\n");
      return static_cast<int>(ExitCode::interrupted);
    }
  }
  if (!ended.ok()) {
    if (ended.signaled) {
      fmt::print(stderr, "sonde trace: the traced command was killed by signal {}: {}\n",
                 ended.code, joined(options.command));
      return 128 + ended.code;
    }
    fmt::print(stderr, "sonde trace: the traced command failed with exit status {}: {}\n",
               ended.code, joined(options.command));
    return ended.code;
  }
  const FileStamp after = stamp(output);
  if (!after.exists || after == before) {
    throw Error(ExitCode::failure, options.output,
                "the traced command succeeded but wrote no trace: the program did not call "
                "MPI_Finalize, or the launcher did not pass LD_PRELOAD (and SONDE_TRACE_OUTPUT) "
                "to its ranks");
  }
  const trace::Trace trace = trace::read_otf2(output);
  std::size_t calls = 0;
  for (const trace::Rank& rank : trace.ranks) calls += rank.calls.size();
  fmt::print("sonde trace: wrote {} ({} ranks, {} MPI calls)\n", options.output, trace.ranks.size(),
             calls);
  return 0;
}

}  // namespace sonde::tracer
