// The memory a process may really use: the smallest of what the OS says is available, what its
// cgroup still allows (Slurm jobs, containers) and what hwloc counts in the NUMA nodes. Every
// default buffer is sized from it, so that a sweep does not overrun a job's limit or a VM's memory.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sonde::microbench {

// What the system says about memory, each reading optional (absent where the file is absent or
// unlimited).
struct MemoryReadings {
  std::optional<std::uint64_t> os_available_bytes;  // /proc/meminfo MemAvailable (kB -> bytes)
  std::optional<std::uint64_t> os_total_bytes;      // MemTotal
  std::optional<std::uint64_t> cgroup_limit_bytes;  // v2 memory.max or v1 memory.limit_in_bytes;
                                                    // "max" or >= 2^60 means none
  std::optional<std::uint64_t> cgroup_usage_bytes;  // v2 memory.current or v1 memory.usage_in_bytes
  std::string cgroup_path;                          // the file the limit came from, for messages
};

// Reads them below `root` ("/" normally; tests point it at a folder laid out like /proc and /sys):
// root/proc/meminfo, root/proc/self/cgroup (v2 line "0::/path" ->
// root/sys/fs/cgroup/<path>/memory.max; v1 line "N:memory:/path" (or a controller list containing
// memory) -> root/sys/fs/cgroup/memory/<path>/memory.limit_in_bytes, falling back to the cgroup
// mount's top-level file when the nested one is absent, as inside containers).
//
// Where a v1 line names the memory controller it is used (a hybrid system keeps memory on v1);
// otherwise the v2 line. The cgroup and each of its ancestors up to the mount are read, since a
// limit set on a parent (a Slurm job above its steps) binds the child too: the one that leaves the
// least headroom (limit minus usage) is reported, with its usage and file. With no limit anywhere,
// the usage and file are those of the process's own cgroup (or of the mount's top level).
//
// A missing file is an absent reading; a malformed one (an unparseable number) throws
// sonde::input_error naming the file and what was expected.
MemoryReadings read_memory_readings(const std::filesystem::path& root = "/");

struct UsableMemory {
  std::uint64_t bytes = 0;          // the smallest bound
  std::string bound_by;             // "MemAvailable", "cgroup limit (<path>)", "hwloc NUMA memory"
  std::vector<std::string> bounds;  // every bound considered, "MemAvailable 22.4 GiB", one each
};

// The smallest of: MemAvailable (MemTotal where the kernel gives no MemAvailable); cgroup limit
// minus cgroup usage (never below 0); hwloc's NUMA total (when > 0). On a tie the earlier in that
// list is named. Throws sonde::io_error when no bound at all is known (nothing readable and a
// NUMA total of 0). On a machine of one NUMA node (numa_nodes == 1) whose node hwloc gives less
// than half of MemTotal, hwloc's total is listed but is not a bound: the node's figure leaves out
// memory the OS has (hotplugged memory on some VMs).
UsableMemory usable_memory(const MemoryReadings& readings, std::uint64_t hwloc_numa_bytes,
                           unsigned numa_nodes = 0);

class Topology;
// The same for this machine: its /proc and cgroup readings and the topology's NUMA memory.
UsableMemory usable_memory(const Topology& topology);

// {"bytes": ..., "bound_by": "...", "bounds": ["...", ...]}
nlohmann::json to_json(const UsableMemory& usable);

}  // namespace sonde::microbench
