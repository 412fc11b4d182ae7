#include "microbench/clock.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>

namespace sonde::microbench {
namespace {

#if defined(__x86_64__)
// 64 dependent `add reg, reg` per round. A register operand (not an immediate) keeps renamers
// that fold immediate additions from shortening the chain.
std::uint64_t dependent_adds(std::uint64_t rounds, std::uint64_t step) {
  std::uint64_t x = 0;
  for (std::uint64_t r = 0; r < rounds; ++r) {
    asm volatile(
        ".rept 64\n\t"
        "add %1, %0\n\t"
        ".endr"
        : "+r"(x)
        : "r"(step));
  }
  return x;
}
#endif

}  // namespace

std::optional<CoreClock> nominal_core_clock() {
  std::ifstream cpufreq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (cpufreq >> khz && khz > 0) return CoreClock{khz * 1e3, "nominal: cpufreq cpuinfo_max_freq"};
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) break;
      try {
        const double mhz = std::stod(line.substr(colon + 1));
        if (mhz > 0) return CoreClock{mhz * 1e6, "nominal: /proc/cpuinfo cpu MHz"};
      } catch (const std::exception&) {
        break;
      }
    }
  }
  return std::nullopt;
}

std::optional<CoreClock> measure_core_clock() {
#if defined(__x86_64__)
  using clock = std::chrono::steady_clock;
  constexpr std::uint64_t kRounds = 200000;  // 12.8 M cycles: about 4 ms at 3 GHz
  double best = 0;
  for (int sample = 0; sample < 7; ++sample) {
    const auto start = clock::now();
    const std::uint64_t sink = dependent_adds(kRounds, static_cast<std::uint64_t>(sample) | 1);
    const auto stop = clock::now();
    asm volatile("" : : "r"(sink));
    const double seconds = std::chrono::duration<double>(stop - start).count();
    if (seconds > 0) best = std::max(best, static_cast<double>(kRounds) * 64 / seconds);
  }
  if (best > 0) return CoreClock{best, "measured: dependent integer-add chain, 1 cycle per add"};
#endif
  return nominal_core_clock();
}

}  // namespace sonde::microbench
