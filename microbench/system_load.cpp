#include "microbench/system_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/error.hpp"

namespace sonde::microbench {
namespace {

// The fields of the "cpu" line that partition the time: user nice system idle iowait irq softirq
// steal. guest and guest_nice (the ninth and tenth) are already counted in user and nice.
constexpr std::size_t partition_fields = 8;
constexpr std::size_t idle_field = 3, iowait_field = 4, steal_field = 7;

template <typename T>
bool parse_number(std::string_view text, T& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return ec == std::errc() && ptr == end;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> result;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) result.push_back(line.substr(start, i - start));
  }
  return result;
}

bool is_cpu_number(std::string_view word) {
  if (word.size() <= 3 || word.substr(0, 3) != "cpu") return false;
  return std::all_of(word.begin() + 3, word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string read_text(const char* path) {
  std::ifstream in(path);
  if (!in) throw io_error(path, "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double seconds_of(const timeval& t) {
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
}

double own_cpu_seconds() {
  double seconds = 0;
  for (const int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    if (getrusage(who, &usage) == 0)
      seconds += seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
  }
  return seconds;
}

std::uint64_t jiffies(const LoadSample& sample, std::size_t field) {
  return field < sample.cpu_jiffies.size() ? sample.cpu_jiffies[field] : 0;
}

// end - start of one field, 0 where the counter went backwards.
double jiffies_between(const LoadSample& start, const LoadSample& end, std::size_t field) {
  const std::uint64_t a = jiffies(start, field), b = jiffies(end, field);
  return b > a ? static_cast<double>(b - a) : 0.0;
}

}  // namespace

LoadSample parse_load_sample(const std::string& proc_stat, const std::string& proc_loadavg,
                             double own_cpu_seconds) {
  LoadSample sample;
  bool found = false;
  std::istringstream lines(proc_stat);
  std::string line;
  while (std::getline(lines, line)) {
    const std::vector<std::string_view> fields = words(line);
    if (fields.empty()) continue;
    if (is_cpu_number(fields.front())) ++sample.cpus;
    if (fields.front() != "cpu") continue;
    if (found) throw input_error("/proc/stat", "two \"cpu\" lines");
    found = true;
    for (std::size_t i = 1; i < fields.size(); ++i) {
      std::uint64_t value = 0;
      if (!parse_number(fields[i], value)) {
        throw input_error("/proc/stat", fmt::format("the \"cpu\" line's field {} is '{}', not a "
                                                    "count of jiffies",
                                                    i, fields[i]));
      }
      sample.cpu_jiffies.push_back(value);
    }
    if (sample.cpu_jiffies.size() < 4) {
      throw input_error("/proc/stat",
                        fmt::format("the \"cpu\" line has {} fields; expected at least user, "
                                    "nice, system and idle",
                                    sample.cpu_jiffies.size()));
    }
  }
  if (!found) throw input_error("/proc/stat", "no \"cpu\" line (the total over all CPUs)");

  const std::string first_line = proc_loadavg.substr(0, proc_loadavg.find('\n'));
  const std::vector<std::string_view> load = words(first_line);
  if (load.empty() || !parse_number(load.front(), sample.loadavg_1min) ||
      !std::isfinite(sample.loadavg_1min) || sample.loadavg_1min < 0) {
    throw input_error("/proc/loadavg",
                      fmt::format("expected the 1-minute load average first, not '{}'",
                                  load.empty() ? std::string_view() : load.front()));
  }
  sample.own_cpu_seconds = own_cpu_seconds;
  sample.when = std::chrono::steady_clock::now();
  return sample;
}

LoadSample sample_load() {
  return parse_load_sample(read_text("/proc/stat"), read_text("/proc/loadavg"), own_cpu_seconds());
}

LoadReport load_between(const LoadSample& start, const LoadSample& end) {
  LoadReport report;
  report.seconds = std::max(0.0, std::chrono::duration<double>(end.when - start.when).count());
  report.loadavg_start = start.loadavg_1min;
  report.loadavg_end = end.loadavg_1min;

  double total = 0;
  for (std::size_t field = 0; field < partition_fields; ++field) {
    total += jiffies_between(start, end, field);
  }
  const double idle = jiffies_between(start, end, idle_field);
  const double iowait = jiffies_between(start, end, iowait_field);
  const double steal = jiffies_between(start, end, steal_field);
  if (total > 0) {
    report.steal_fraction = steal / total;
    // The CPUs: counted in /proc/stat, else what the jiffies say at the kernel's tick rate.
    double cpus = std::max(start.cpus, end.cpus);
    if (cpus == 0 && report.seconds > 0) {
      cpus = total / (static_cast<double>(sysconf(_SC_CLK_TCK)) * report.seconds);
    }
    report.busy_cpus = std::max(0.0, total - idle - iowait - steal) / total * cpus;
  }
  if (report.seconds > 0) {
    report.own_cpus = std::max(0.0, end.own_cpu_seconds - start.own_cpu_seconds) / report.seconds;
  }
  report.other_busy_cpus = std::max(0.0, report.busy_cpus - report.own_cpus);
  return report;
}

nlohmann::json to_json(const LoadReport& report) {
  return {{"seconds", report.seconds},
          {"steal_fraction", report.steal_fraction},
          {"busy_cpus", report.busy_cpus},
          {"own_cpus", report.own_cpus},
          {"other_busy_cpus", report.other_busy_cpus},
          {"loadavg_start", report.loadavg_start},
          {"loadavg_end", report.loadavg_end}};
}

std::string busy_note(double steal_fraction, double other_busy_cpus) {
  if (steal_fraction <= kBusyStealFraction && other_busy_cpus <= kBusyOtherCpus) return "";
  return fmt::format(
      "ran beside other work: {:.0f}% of the CPU time stolen by the hypervisor, {:.2f} CPUs busy "
      "with other processes",
      100 * steal_fraction, other_busy_cpus);
}

}  // namespace sonde::microbench
