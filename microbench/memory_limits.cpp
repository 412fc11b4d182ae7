#include "microbench/memory_limits.hpp"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

#include "core/error.hpp"
#include "core/units.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {
namespace {

namespace fs = std::filesystem;

// A cgroup limit at or beyond 2^60 bytes is the kernel's way of saying "none" (v1 writes
// 9223372036854771712, LONG_MAX rounded down to a page).
constexpr std::uint64_t kUnlimited = std::uint64_t{1} << 60;

// The whole file, or nullopt when it cannot be opened (absent, or not ours to read).
std::optional<std::string> read_text(const fs::path& path) {
  std::ifstream in(path);
  if (!in.is_open()) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// A whole unsigned decimal number, or nullopt.
std::optional<std::uint64_t> parse_count(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The value of "<key>: <number> kB" in /proc/meminfo, in bytes; nullopt when the key is absent.
std::optional<std::uint64_t> meminfo_field(const std::string& text, std::string_view key,
                                           const fs::path& path) {
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::string_view rest(line);
    if (rest.substr(0, key.size()) != key || rest.substr(key.size(), 1) != ":") continue;
    rest = trim(rest.substr(key.size() + 1));
    const auto space = rest.find_first_of(" \t");
    const std::string_view digits = rest.substr(0, space);
    const std::string_view unit =
        space == std::string_view::npos ? std::string_view() : trim(rest.substr(space));
    const auto kib = parse_count(digits);
    if (!kib || unit != "kB" || *kib > std::numeric_limits<std::uint64_t>::max() / 1024)
      throw input_error(fmt::format("{}:{}", path.string(), number),
                        fmt::format("expected '{}: <number> kB', found '{}'", key, trim(line)));
    return *kib * 1024;
  }
  return std::nullopt;
}

// A cgroup limit file: nullopt for "max" or a value of 2^60 and more.
std::optional<std::uint64_t> parse_limit(const std::string& text, const fs::path& path) {
  const std::string_view value = trim(text);
  if (value == "max") return std::nullopt;
  const auto bytes = parse_count(value);
  if (!bytes)
    throw input_error(path.string(),
                      fmt::format("expected a byte count or 'max', found '{}'", value));
  if (*bytes >= kUnlimited) return std::nullopt;
  return bytes;
}

// A cgroup usage file; nullopt when absent.
std::optional<std::uint64_t> read_usage(const fs::path& path) {
  const auto text = read_text(path);
  if (!text) return std::nullopt;
  const std::string_view value = trim(*text);
  const auto bytes = parse_count(value);
  if (!bytes)
    throw input_error(path.string(), fmt::format("expected a byte count, found '{}'", value));
  return bytes;
}

// Where the process's memory cgroup lives: the controller's mount, the path below it, and the
// names of the limit and usage files.
struct CgroupPlace {
  fs::path mount;
  std::string path;  // as /proc/self/cgroup gives it, "/slurm/uid_1/job_2"
  const char* limit_file = nullptr;
  const char* usage_file = nullptr;
};

std::optional<CgroupPlace> find_cgroup(const fs::path& root) {
  const fs::path file = root / "proc/self/cgroup";
  const auto text = read_text(file);
  if (!text) return std::nullopt;
  std::optional<CgroupPlace> v1, v2;
  std::istringstream lines(*text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (trim(line).empty()) continue;
    // "hierarchy-ID:controller-list:cgroup-path"; the path may itself hold colons.
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos)
      throw input_error(fmt::format("{}:{}", file.string(), number),
                        fmt::format("expected 'ID:controllers:path', found '{}'", line));
    const std::string id = line.substr(0, first);
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (id == "0" && controllers.empty()) {
      v2 = CgroupPlace{root / "sys/fs/cgroup", path, "memory.max", "memory.current"};
      continue;
    }
    std::istringstream list(controllers);
    std::string controller;
    while (std::getline(list, controller, ','))
      if (controller == "memory")
        v1 = CgroupPlace{root / "sys/fs/cgroup/memory", path, "memory.limit_in_bytes",
                         "memory.usage_in_bytes"};
  }
  // A hybrid system lists both; its memory controller is the v1 one.
  return v1 ? v1 : v2;
}

// The cgroup's folder and its ancestors up to the mount, deepest first. A path that climbs out of
// the namespace ("/../..") or names no folder here leaves the mount's top level, which is what a
// container sees of its own cgroup.
std::vector<fs::path> cgroup_folders(const CgroupPlace& place) {
  std::vector<fs::path> parts;
  for (const fs::path& part : fs::path(place.path).relative_path()) {
    if (part == "..") return {place.mount};
    if (part.empty() || part == ".") continue;
    parts.push_back(part);
  }
  std::vector<fs::path> folders;
  for (std::size_t depth = parts.size() + 1; depth-- > 0;) {
    fs::path folder = place.mount;
    for (std::size_t i = 0; i < depth; ++i) folder /= parts[i];
    folders.push_back(folder);
  }
  return folders;
}

// Page cache the kernel reclaims before it fails an allocation (v2 "inactive_file", v1
// "total_inactive_file"): a job that has read large files still has that memory to use.
std::uint64_t inactive_file_bytes(const fs::path& folder) {
  const auto text = read_text(folder / "memory.stat");
  if (!text) return 0;
  std::istringstream lines(*text);
  std::string key;
  std::uint64_t value = 0, found = 0;
  while (lines >> key >> value) {
    if (key == "inactive_file" || key == "total_inactive_file") found = std::max(found, value);
  }
  return found;
}

void read_cgroup(const fs::path& root, MemoryReadings& readings) {
  const auto place = find_cgroup(root);
  if (!place) return;
  bool own_seen = false;
  std::optional<std::uint64_t> best_headroom;
  for (const fs::path& folder : cgroup_folders(*place)) {
    const fs::path limit_path = folder / place->limit_file;
    const auto text = read_text(limit_path);
    if (!text) continue;
    const auto limit = parse_limit(*text, limit_path);
    if (!own_seen || limit) {
      auto usage = read_usage(folder / place->usage_file);
      if (usage) {
        const std::uint64_t reclaimable = inactive_file_bytes(folder);
        usage = *usage > reclaimable ? *usage - reclaimable : 0;
      }
      if (!own_seen) {  // the process's own cgroup: reported when nothing above it limits
        own_seen = true;
        readings.cgroup_usage_bytes = usage;
        readings.cgroup_path = limit_path.string();
      }
      if (limit) {
        const std::uint64_t used = usage.value_or(0);
        const std::uint64_t headroom = used >= *limit ? 0 : *limit - used;
        if (!best_headroom || headroom < *best_headroom) {
          best_headroom = headroom;
          readings.cgroup_limit_bytes = limit;
          readings.cgroup_usage_bytes = usage;
          readings.cgroup_path = limit_path.string();
        }
      }
    }
  }
}

}  // namespace

MemoryReadings read_memory_readings(const fs::path& root) {
  MemoryReadings readings;
  const fs::path meminfo = root / "proc/meminfo";
  if (const auto text = read_text(meminfo)) {
    readings.os_available_bytes = meminfo_field(*text, "MemAvailable", meminfo);
    readings.os_total_bytes = meminfo_field(*text, "MemTotal", meminfo);
  }
  read_cgroup(root, readings);
  return readings;
}

UsableMemory usable_memory(const MemoryReadings& readings, std::uint64_t hwloc_numa_bytes,
                           unsigned numa_nodes) {
  UsableMemory usable;
  bool any = false;
  auto consider = [&](std::uint64_t bytes, std::string name, std::string phrase) {
    usable.bounds.push_back(std::move(phrase));
    if (!any || bytes < usable.bytes) {
      usable.bytes = bytes;
      usable.bound_by = std::move(name);
    }
    any = true;
  };
  if (readings.os_available_bytes) {
    consider(*readings.os_available_bytes, "MemAvailable",
             "MemAvailable " + format_bytes(*readings.os_available_bytes));
  } else if (readings.os_total_bytes) {  // kernels before 3.14 give no MemAvailable
    consider(*readings.os_total_bytes, "MemTotal",
             fmt::format("MemTotal {} (no MemAvailable)", format_bytes(*readings.os_total_bytes)));
  }
  if (readings.cgroup_limit_bytes) {
    const std::uint64_t limit = *readings.cgroup_limit_bytes;
    const std::uint64_t used = readings.cgroup_usage_bytes.value_or(0);
    const std::uint64_t headroom = used >= limit ? 0 : limit - used;
    const std::string name = fmt::format("cgroup limit ({})", readings.cgroup_path);
    consider(headroom, name,
             readings.cgroup_usage_bytes
                 ? fmt::format("{} {} less {} used: {}", name, format_bytes(limit),
                               format_bytes(used), format_bytes(headroom))
                 : fmt::format("{} {}", name, format_bytes(limit)));
  }
  // One NUMA node holding far less than the OS's MemTotal: the kernel's per-node meminfo, which
  // hwloc reads, leaves out memory (hotplugged into a movable zone on some VM kinds: 4.59 GiB of
  // 125 GiB on a Firecracker guest, 10 of 23.5 GiB on a KVM one). With one node there is no
  // other node's memory to stay off, so the OS's figures bound the run.
  const bool node_misses_memory =
      numa_nodes == 1 && readings.os_total_bytes && hwloc_numa_bytes < *readings.os_total_bytes / 2;
  if (hwloc_numa_bytes > 0 && node_misses_memory) {
    usable.bounds.push_back(
        fmt::format("hwloc NUMA memory {} (one NUMA node, less than half of MemTotal {}: not a "
                    "bound)",
                    format_bytes(hwloc_numa_bytes), format_bytes(*readings.os_total_bytes)));
  } else if (hwloc_numa_bytes > 0) {
    consider(hwloc_numa_bytes, "hwloc NUMA memory",
             "hwloc NUMA memory " + format_bytes(hwloc_numa_bytes));
  }
  if (!any)
    throw io_error("usable memory",
                   "no bound is known: no MemAvailable or MemTotal in /proc/meminfo, no cgroup "
                   "memory limit and no NUMA memory from hwloc");
  return usable;
}

UsableMemory usable_memory(const Topology& topology) {
  return usable_memory(read_memory_readings(), topology.total_memory_bytes(),
                       static_cast<unsigned>(topology.numa_nodes().size()));
}

nlohmann::json to_json(const UsableMemory& usable) {
  return {{"bytes", usable.bytes}, {"bound_by", usable.bound_by}, {"bounds", usable.bounds}};
}

}  // namespace sonde::microbench
