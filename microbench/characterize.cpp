#include "microbench/characterize.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/results.hpp"
#include "core/version.hpp"
#include "microbench/run_context.hpp"

extern char** environ;

namespace sonde::microbench {
namespace {

volatile std::sig_atomic_t g_signal = 0;
volatile pid_t g_child = 0;

extern "C" void forward_signal(int signal) {
  g_signal = signal;
  if (g_child > 0) ::kill(g_child, signal);
}

// While a part runs, an interrupt stops the part (the child) and then this run, cleanly.
class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction action {};
    action.sa_handler = forward_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~SignalForwarding() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

struct ChildExit {
  bool signaled = false;
  int code = 0;  // exit status, or the signal number
};

ChildExit run_child(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ);
  if (rc != 0) throw io_error(argv[0], fmt::format("cannot start it: {}", std::strerror(rc)));
  g_child = pid;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      g_child = 0;
      throw io_error(argv[0], fmt::format("cannot wait for it: {}", std::strerror(errno)));
    }
  }
  g_child = 0;
  if (WIFSIGNALED(status)) return {true, WTERMSIG(status)};
  return {false, WEXITSTATUS(status)};
}

nlohmann::json read_manifest(const std::filesystem::path& path) {
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw input_error(path.string(), fmt::format("is not a valid run manifest: {}", e.what()));
  }
}

// The newest run of this machine whose manifest says it is not complete.
std::string newest_unfinished_run(const std::filesystem::path& machine_folder) {
  std::string newest;
  std::error_code ec;
  if (!std::filesystem::is_directory(machine_folder, ec)) return newest;
  for (const auto& entry : std::filesystem::directory_iterator(machine_folder)) {
    const auto manifest = entry.path() / "run.json";
    if (!std::filesystem::is_regular_file(manifest, ec)) continue;
    if (read_manifest(manifest).value("complete", false)) continue;
    const std::string id = entry.path().filename().string();
    if (id > newest) newest = id;
  }
  return newest;
}

bool is_whole_result(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  try {
    read_result_file(path);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// "20261121T140509Z": sorts in time order and is safe in any file system.
std::string new_run_id() {
  std::string stamp = utc_timestamp();
  std::erase(stamp, '-');
  std::erase(stamp, ':');
  return stamp;
}

}  // namespace

std::filesystem::path own_folder() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw io_error("/proc/self/exe", "cannot find this program's folder: " + ec.message());
  return exe.parent_path();
}

CharacterizeOutcome characterize(const CharacterizeOptions& options, const Topology& topology) {
  const MemorySuitePlan plan = plan_memory_suite(options.memory, topology);
  const std::string machine = folder_safe(options.machine.empty() ? host_name() : options.machine);
  const std::filesystem::path machine_folder = options.results_root / machine;
  const std::vector<std::string> memory_args = memory_option_arguments(options.memory);

  std::string run_id = options.run_id;
  if (options.resume && run_id.empty()) {
    run_id = newest_unfinished_run(machine_folder);
    if (run_id.empty()) {
      throw usage_error("--resume", fmt::format("no unfinished run of '{}' under {}", machine,
                                                machine_folder.string()));
    }
  }
  if (run_id.empty()) run_id = new_run_id();
  if (folder_safe(run_id) != run_id) {
    throw usage_error("--run-id", fmt::format("'{}' is not a folder name; use letters, digits, "
                                              "'.', '_' and '-'",
                                              run_id));
  }

  CharacterizeOutcome outcome;
  outcome.run_folder = machine_folder / run_id;
  ensure_writable_folder(outcome.run_folder);
  const std::filesystem::path manifest_path = outcome.run_folder / "run.json";
  nlohmann::json manifest;
  std::error_code ec;
  if (std::filesystem::exists(manifest_path, ec)) {
    manifest = read_manifest(manifest_path);
    if (manifest.value("memory_arguments", nlohmann::json()) != nlohmann::json(memory_args)) {
      throw usage_error(
          "--resume",
          fmt::format(
              "run {} was started with the options [{}], not [{}]; give the "
              "same options or start a new run",
              run_id,
              fmt::join(manifest.value("memory_arguments", std::vector<std::string>{}), " "),
              fmt::join(memory_args, " ")));
    }
    fmt::print(stderr, "sonde: continuing run {} in {}\n", run_id, outcome.run_folder.string());
  } else {
    manifest = {{"run_id", run_id},
                {"machine", machine},
                {"host", host_name()},
                {"started_utc", utc_timestamp()},
                {"sonde_version", sonde::version},
                {"memory_arguments", memory_args},
                {"complete", false}};
    fmt::print(stderr, "sonde: new run {} in {}\n", run_id, outcome.run_folder.string());
  }
  manifest["parts"] = plan.parts;
  manifest["skipped_parts"] = plan.skipped_parts;
  write_file_atomically(manifest_path, manifest.dump(2) + "\n");
  for (const std::string& skipped : plan.skipped_parts)
    fmt::print(stderr, "sonde: skipped {}\n", skipped);

  const std::filesystem::path folder =
      options.programs_folder.empty() ? own_folder() : options.programs_folder;
  const std::filesystem::path program = folder / "sonde-bench-memory";
  if (::access(program.c_str(), X_OK) != 0) {
    throw io_error(program.string(), "the memory benchmark program is missing or not executable");
  }

  SignalForwarding forwarding;
  g_signal = 0;
  std::vector<std::string> failed;
  for (std::size_t i = 0; i < plan.parts.size(); ++i) {
    const std::string& part = plan.parts[i];
    const std::filesystem::path file = outcome.run_folder / fmt::format("memory-{}.json", part);
    outcome.result_files.push_back(file);
    if (is_whole_result(file)) {
      fmt::print(stderr, "sonde: [{}/{}] {}: kept from before\n", i + 1, plan.parts.size(), part);
      ++outcome.parts_kept;
      continue;
    }
    fmt::print(stderr, "sonde: [{}/{}] {}\n", i + 1, plan.parts.size(), part);
    std::vector<std::string> argv{program.string()};
    argv.insert(argv.end(), memory_args.begin(), memory_args.end());
    argv.insert(argv.end(), {"--part=" + part, "--out=" + file.string(), "--progress"});
    const ChildExit exit = run_child(argv);
    if (g_signal != 0 || (exit.signaled && (exit.code == SIGINT || exit.code == SIGTERM))) {
      throw Error(ExitCode::interrupted, "sonde characterize",
                  fmt::format("interrupted during part {}; the {} finished parts are kept in {}; "
                              "continue with: sonde characterize --resume (and the same options)",
                              part, i, outcome.run_folder.string()));
    }
    if (exit.signaled || exit.code != 0) {
      // A part that failed keeps its file for inspection under another name and runs again on
      // --resume.
      if (std::filesystem::exists(file, ec)) {
        std::filesystem::rename(
            file, outcome.run_folder / fmt::format("memory-{}.failed.json", part), ec);
      }
      failed.push_back(exit.signaled ? fmt::format("{} (killed by signal {})", part, exit.code)
                                     : fmt::format("{} (exit {})", part, exit.code));
      outcome.result_files.pop_back();
      continue;
    }
    ++outcome.parts_measured;
  }
  if (!failed.empty()) {
    throw io_error("sonde characterize",
                   fmt::format("parts failed: {}; the other parts are kept in {}; --resume runs "
                               "the failed ones again",
                               fmt::join(failed, ", "), outcome.run_folder.string()));
  }
  manifest["complete"] = true;
  manifest["finished_utc"] = utc_timestamp();
  write_file_atomically(manifest_path, manifest.dump(2) + "\n");
  return outcome;
}

}  // namespace sonde::microbench
