// The load on the machine over a benchmark program's run: the CPU time the hypervisor gave to
// others (steal), the CPUs busy with other processes, the load average. Shared VMs are noisy;
// a result says how noisy its machine was while it measured.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace sonde::microbench {

// One reading.
struct LoadSample {
  // /proc/stat's "cpu" line: user nice system idle iowait irq softirq steal guest guest_nice, as
  // many as the kernel gives (at least four).
  std::vector<std::uint64_t> cpu_jiffies;
  unsigned cpus = 0;           // the "cpuN" lines of /proc/stat: the online CPUs
  double loadavg_1min = 0;     // /proc/loadavg
  double own_cpu_seconds = 0;  // getrusage: this process and its waited-for children, user + system
  std::chrono::steady_clock::time_point when;
};

// Reads the texts of /proc/stat and /proc/loadavg; an input Error naming "/proc/stat" or
// "/proc/loadavg" for malformed text. `when` is now.
LoadSample parse_load_sample(const std::string& proc_stat, const std::string& proc_loadavg,
                             double own_cpu_seconds);

// This system now.
LoadSample sample_load();

struct LoadReport {
  double seconds = 0;         // wall time between the samples
  double steal_fraction = 0;  // steal jiffies / all jiffies over the interval (0 when the kernel
                              // reports none)
  double busy_cpus = 0;  // CPUs running this system's work on average (user, nice, system, irq,
                         // softirq: not idle, not iowait, not steal)
  double own_cpus = 0;   // this process's CPU use, in CPUs
  double other_busy_cpus = 0;  // busy_cpus - own_cpus, at least 0: other processes' load
  double loadavg_start = 0, loadavg_end = 0;
};

LoadReport load_between(const LoadSample& start, const LoadSample& end);

// Beyond these a run counts as run beside other work: its times may be slower than the
// machine's.
constexpr double kBusyStealFraction = 0.05;
constexpr double kBusyOtherCpus = 0.25;

// "ran beside other work: 7% of the CPU time stolen by the hypervisor, 0.40 CPUs busy with other
// processes" where `steal_fraction` or `other_busy_cpus` is beyond its threshold; "" otherwise.
std::string busy_note(double steal_fraction, double other_busy_cpus);

nlohmann::json to_json(const LoadReport& report);

}  // namespace sonde::microbench
