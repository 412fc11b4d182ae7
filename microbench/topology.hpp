// What hwloc sees of a machine: cores, caches per level, NUMA nodes; and binding threads to cores.
// A Topology can come from this system, from an exported hwloc XML file (a recorded machine) or
// from a synthetic description, so that code for a 128-core NUMA machine is tested on a 2-core VM.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct hwloc_topology;

namespace sonde::microbench {

struct CacheLevel {
  int depth = 0;     // 1 for L1, 2 for L2, ...
  std::string kind;  // "data", "unified" or "instruction"
  std::uint64_t size_bytes = 0;
  unsigned line_bytes = 0;          // 0 when hwloc does not know
  int associativity = 0;            // ways; -1 fully associative; 0 unknown
  unsigned instances = 0;           // how many such caches the machine has
  unsigned cores_per_instance = 0;  // cores that share one of them

  std::string label() const;  // "L1d", "L2", "L3", "L1i"
};

struct NumaNode {
  unsigned os_index = 0;
  std::uint64_t memory_bytes = 0;
  unsigned cores = 0;
};

// Where the calling process is bound: what an MPI rank reports so that a map of pairs can tell
// same-NUMA-node, same-socket, same-node and other-node classes apart.
struct Placement {
  std::string cpus;    // the processing units it may run on, hwloc's list syntax ("0-3")
  int core = -1;       // logical index of the core it last ran on
  int package = -1;    // logical index of that core's package
  int numa_node = -1;  // logical index of that core's NUMA node
};

class Topology {
 public:
  static Topology from_system();
  static Topology from_xml_file(const std::string& path);
  // hwloc's synthetic syntax, e.g. "package:2 numa:2 l3:1(size=32MB) l2:8(size=1MB)
  // l1d:1(size=48KB) core:1 pu:2".
  static Topology from_synthetic(const std::string& description);

  unsigned packages() const { return packages_; }
  unsigned cores() const { return cores_; }
  unsigned processing_units() const { return pus_; }
  const std::vector<NumaNode>& numa_nodes() const { return numa_nodes_; }
  // Data and unified caches from the level nearest the cores outwards (what loads go through).
  const std::vector<CacheLevel>& data_caches() const { return data_caches_; }
  const std::vector<CacheLevel>& all_caches() const { return all_caches_; }
  // The line size of the first data cache; nullopt when hwloc does not know it.
  std::optional<unsigned> line_bytes() const;
  std::uint64_t total_memory_bytes() const;
  const std::string& cpu_model() const { return cpu_model_; }
  const std::string& cpu_vendor() const { return cpu_vendor_; }
  // A copy whose data caches are `caches` (sized by the run, see sizing.hpp); instruction
  // caches, cores, NUMA nodes and binding stay as they are.
  Topology with_data_caches(std::vector<CacheLevel> caches) const;
  // True when the topology describes the machine this process runs on (binding is possible).
  bool is_this_system() const { return this_system_; }

  // Binds the calling thread to one processing unit of core `core_index` (hwloc's logical order),
  // so that it neither migrates nor shares an SMT sibling. Throws Error when it cannot.
  void bind_current_thread_to_core(unsigned core_index) const;

  // The calling process's binding and the core it last ran on (this system only).
  Placement placement() const;
  // The NUMA node (index into numa_nodes()) whose cores include core `core_index`.
  unsigned numa_node_of_core(unsigned core_index) const;
  // Binds the pages of [address, address + bytes) to NUMA node `node_index` before they are first
  // touched (strict: no fallback to another node). Throws Error when it cannot.
  void bind_memory_to_node(void* address, std::size_t bytes, unsigned node_index) const;
  // The NUMA node that holds every touched page of the range; nullopt when they are spread or
  // the system cannot say.
  std::optional<unsigned> numa_node_holding(const void* address, std::size_t bytes) const;

  // "1 package, 1 NUMA node (4.6 GiB), 2 cores, 2 PUs; L1d 48 KiB x2, L2 1 MiB x2, L3 32 MiB x1"
  std::string summary() const;
  // A readable report: machine, NUMA nodes, and a table of caches (size, line, ways, sharing).
  std::string report() const;
  nlohmann::json to_json() const;

 private:
  explicit Topology(std::shared_ptr<hwloc_topology> handle);
  void read();

  std::shared_ptr<hwloc_topology> handle_;
  unsigned packages_ = 0, cores_ = 0, pus_ = 0;
  std::vector<NumaNode> numa_nodes_;
  std::vector<CacheLevel> data_caches_, all_caches_;
  std::string cpu_model_, cpu_vendor_;
  bool this_system_ = false;
};

// `sonde topology`: the report, or its JSON, of the topology exported by `lstopo --of xml` to
// `xml`, of an hwloc `synthetic` description, or of this system when both are empty.
std::string describe_topology(const std::string& xml, const std::string& synthetic, bool json);

}  // namespace sonde::microbench
