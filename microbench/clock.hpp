// The core clock, so that latencies can be given in cycles as well as in seconds.
#pragma once

#include <optional>
#include <string>

namespace sonde::microbench {

struct CoreClock {
  double hertz = 0;
  std::string source;  // how it was obtained: measured, or a nominal figure the system reports
};

// On x86-64, measures the clock of the calling thread's core with a chain of dependent register
// additions (one cycle each on every x86 core since the P6), taking the fastest of several
// samples so that a preemption cannot lower it. Elsewhere, the nominal maximum from cpufreq. The
// caller should be bound to a core. nullopt when neither is available.
std::optional<CoreClock> measure_core_clock();

// The nominal figure the system reports: cpufreq's cpuinfo_max_freq, else /proc/cpuinfo's
// "cpu MHz" (in a VM, usually the host's TSC rate). nullopt when neither exists.
std::optional<CoreClock> nominal_core_clock();

}  // namespace sonde::microbench
