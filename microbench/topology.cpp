#include "microbench/topology.hpp"

#include <fmt/format.h>
#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "core/units.hpp"

namespace sonde::microbench {
namespace {

std::shared_ptr<hwloc_topology> make_handle(const std::string& where,
                                            int (*configure)(hwloc_topology_t, const char*),
                                            const char* argument) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw io_error(where, "hwloc cannot initialize a topology");
  std::shared_ptr<hwloc_topology> handle(raw, hwloc_topology_destroy);
  // Caches and NUMA nodes are all we need; I/O devices would only slow the load down.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  // Instruction caches are filtered out by default; `sonde topology` lists them.
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (configure != nullptr && configure(raw, argument) != 0) {
    throw input_error(where, fmt::format("hwloc cannot read it: {}", std::strerror(errno)));
  }
  if (hwloc_topology_load(raw) != 0) {
    throw input_error(where,
                      fmt::format("hwloc cannot load the topology: {}", std::strerror(errno)));
  }
  return handle;
}

std::string cache_kind(hwloc_obj_cache_type_t type) {
  switch (type) {
    case HWLOC_OBJ_CACHE_DATA:
      return "data";
    case HWLOC_OBJ_CACHE_INSTRUCTION:
      return "instruction";
    default:
      return "unified";
  }
}

unsigned count_of(hwloc_topology_t topology, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(topology, type);
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

}  // namespace

std::string CacheLevel::label() const {
  if (kind == "data") return fmt::format("L{}d", depth);
  if (kind == "instruction") return fmt::format("L{}i", depth);
  return fmt::format("L{}", depth);
}

Topology::Topology(std::shared_ptr<hwloc_topology> handle) : handle_(std::move(handle)) { read(); }

Topology Topology::from_system() { return Topology(make_handle("this system", nullptr, nullptr)); }

Topology Topology::from_xml_file(const std::string& path) {
  return Topology(make_handle(path, hwloc_topology_set_xml, path.c_str()));
}

Topology Topology::from_synthetic(const std::string& description) {
  return Topology(make_handle("synthetic topology '" + description + "'",
                              hwloc_topology_set_synthetic, description.c_str()));
}

void Topology::read() {
  hwloc_topology_t topology = handle_.get();
  this_system_ = hwloc_topology_is_thissystem(topology) != 0;
  packages_ = count_of(topology, HWLOC_OBJ_PACKAGE);
  cores_ = count_of(topology, HWLOC_OBJ_CORE);
  pus_ = count_of(topology, HWLOC_OBJ_PU);
  if (cores_ == 0) cores_ = pus_;  // some platforms report no cores; each PU is then one

  for (unsigned i = 0; i < count_of(topology, HWLOC_OBJ_NUMANODE); ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, i);
    NumaNode numa;
    numa.os_index = node->os_index;
    numa.memory_bytes = node->attr->numanode.local_memory;
    numa.cores = static_cast<unsigned>(std::max(
        0, hwloc_get_nbobjs_inside_cpuset_by_type(topology, node->cpuset, HWLOC_OBJ_CORE)));
    numa_nodes_.push_back(numa);
  }

  // Group caches by level, kind and size: hybrid CPUs have caches of several sizes at one level.
  std::map<std::tuple<int, std::string, std::uint64_t>, CacheLevel> caches;
  for (int depth = 0; depth < hwloc_topology_get_depth(topology); ++depth) {
    for (unsigned i = 0; i < static_cast<unsigned>(hwloc_get_nbobjs_by_depth(topology, depth));
         ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_depth(topology, depth, i);
      if (!hwloc_obj_type_is_cache(obj->type)) continue;
      const auto& attr = obj->attr->cache;
      CacheLevel level;
      level.depth = static_cast<int>(attr.depth);
      level.kind = cache_kind(attr.type);
      level.size_bytes = attr.size;
      level.line_bytes = attr.linesize;
      level.associativity = attr.associativity;
      level.cores_per_instance = static_cast<unsigned>(std::max(
          1, hwloc_get_nbobjs_inside_cpuset_by_type(topology, obj->cpuset, HWLOC_OBJ_CORE)));
      auto [it, inserted] = caches.try_emplace({level.depth, level.kind, level.size_bytes}, level);
      it->second.instances += 1;
    }
  }
  for (const auto& [key, level] : caches) {
    all_caches_.push_back(level);
    if (level.kind != "instruction") data_caches_.push_back(level);
  }

  hwloc_obj_t root = hwloc_get_root_obj(topology);
  hwloc_obj_t package = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PACKAGE, 0);
  for (hwloc_obj_t obj : {package, root}) {
    if (obj == nullptr) continue;
    if (const char* model = hwloc_obj_get_info_by_name(obj, "CPUModel");
        model && cpu_model_.empty()) {
      // The CPUID brand string is padded with spaces to 48 bytes on some guests ("Oxide Virtual
      // Turin-like Processor" and 13 spaces), which every summary line would carry.
      cpu_model_ = model;
      const auto end = cpu_model_.find_last_not_of(" \t");
      cpu_model_.erase(end == std::string::npos ? 0 : end + 1);
    }
    if (const char* vendor = hwloc_obj_get_info_by_name(obj, "CPUVendor");
        vendor && cpu_vendor_.empty()) {
      cpu_vendor_ = vendor;
    }
  }
}

Topology Topology::with_data_caches(std::vector<CacheLevel> caches) const {
  Topology copy = *this;
  copy.all_caches_.clear();
  for (const CacheLevel& level : all_caches_) {
    if (level.kind == "instruction") copy.all_caches_.push_back(level);
  }
  copy.all_caches_.insert(copy.all_caches_.end(), caches.begin(), caches.end());
  std::stable_sort(copy.all_caches_.begin(), copy.all_caches_.end(),
                   [](const CacheLevel& a, const CacheLevel& b) { return a.depth < b.depth; });
  copy.data_caches_ = std::move(caches);
  return copy;
}

std::optional<unsigned> Topology::line_bytes() const {
  for (const CacheLevel& level : data_caches_) {
    if (level.line_bytes > 0) return level.line_bytes;
  }
  return std::nullopt;
}

std::uint64_t Topology::total_memory_bytes() const {
  std::uint64_t total = 0;
  for (const NumaNode& node : numa_nodes_) total += node.memory_bytes;
  return total;
}

void Topology::bind_current_thread_to_core(unsigned core_index) const {
  const std::string where = fmt::format("binding to core {}", core_index);
  if (!this_system_) throw usage_error(where, "the topology does not describe this machine");
  hwloc_topology_t topology = handle_.get();
  hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, core_index);
  if (core == nullptr) core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, core_index);
  if (core == nullptr) {
    throw usage_error(where, fmt::format("this machine has only {} cores", cores_));
  }
  hwloc_bitmap_t set = hwloc_bitmap_dup(core->cpuset);
  hwloc_bitmap_singlify(set);  // one PU, so that SMT siblings are not shared
  const int rc = hwloc_set_cpubind(topology, set, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
  const int saved_errno = errno;
  hwloc_bitmap_free(set);
  if (rc != 0) {
    throw io_error(where, fmt::format("hwloc_set_cpubind failed: {}", std::strerror(saved_errno)));
  }
}

Placement Topology::placement() const {
  Placement place;
  hwloc_topology_t topology = handle_.get();
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topology, set, HWLOC_CPUBIND_PROCESS) == 0) {
    char* text = nullptr;
    hwloc_bitmap_list_asprintf(&text, set);
    if (text != nullptr) place.cpus = text;
    std::free(text);
  }
  if (hwloc_get_last_cpu_location(topology, set, HWLOC_CPUBIND_THREAD) == 0) {
    hwloc_obj_t pu =
        hwloc_get_pu_obj_by_os_index(topology, static_cast<unsigned>(hwloc_bitmap_first(set)));
    if (pu != nullptr) {
      const auto index_of = [&](hwloc_obj_type_t type) {
        hwloc_obj_t obj = hwloc_get_ancestor_obj_by_type(topology, type, pu);
        return obj == nullptr ? -1 : static_cast<int>(obj->logical_index);
      };
      place.core = index_of(HWLOC_OBJ_CORE);
      place.package = index_of(HWLOC_OBJ_PACKAGE);
      for (unsigned i = 0; i < count_of(topology, HWLOC_OBJ_NUMANODE); ++i) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, i);
        if (hwloc_bitmap_isincluded(pu->cpuset, node->cpuset))
          place.numa_node = static_cast<int>(i);
      }
    }
  }
  hwloc_bitmap_free(set);
  return place;
}

unsigned Topology::numa_node_of_core(unsigned core_index) const {
  hwloc_topology_t topology = handle_.get();
  hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, core_index);
  if (core == nullptr) core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_PU, core_index);
  if (core == nullptr) {
    throw usage_error("NUMA node of a core", fmt::format("there is no core {}", core_index));
  }
  for (unsigned i = 0; i < count_of(topology, HWLOC_OBJ_NUMANODE); ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, i);
    if (hwloc_bitmap_isincluded(core->cpuset, node->cpuset)) return i;
  }
  return 0;
}

void Topology::bind_memory_to_node(void* address, std::size_t bytes, unsigned node_index) const {
  const std::string where = fmt::format("binding memory to NUMA node {}", node_index);
  if (!this_system_) throw usage_error(where, "the topology does not describe this machine");
  hwloc_topology_t topology = handle_.get();
  hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node_index);
  if (node == nullptr) {
    throw usage_error(where, fmt::format("this machine has {} NUMA nodes", numa_nodes_.size()));
  }
  const int rc = hwloc_set_area_membind(topology, address, bytes, node->nodeset, HWLOC_MEMBIND_BIND,
                                        HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
  if (rc != 0) {
    throw io_error(where, fmt::format("hwloc_set_area_membind failed: {}", std::strerror(errno)));
  }
}

std::optional<unsigned> Topology::numa_node_holding(const void* address, std::size_t bytes) const {
  hwloc_topology_t topology = handle_.get();
  hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
  const int rc =
      hwloc_get_area_memlocation(topology, address, bytes, nodes, HWLOC_MEMBIND_BYNODESET);
  std::optional<unsigned> holder;
  if (rc == 0 && hwloc_bitmap_weight(nodes) == 1) {
    for (unsigned i = 0; i < count_of(topology, HWLOC_OBJ_NUMANODE); ++i) {
      hwloc_obj_t node = hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, i);
      if (hwloc_bitmap_isequal(node->nodeset, nodes)) holder = i;
    }
  }
  hwloc_bitmap_free(nodes);
  return holder;
}

std::string Topology::summary() const {
  std::string text =
      fmt::format("{} package{}, {} NUMA node{} ({}), {} cores, {} PUs", packages_,
                  packages_ == 1 ? "" : "s", numa_nodes_.size(), numa_nodes_.size() == 1 ? "" : "s",
                  format_bytes(static_cast<double>(total_memory_bytes())), cores_, pus_);
  std::string separator = "; ";
  for (const CacheLevel& level : all_caches_) {
    text += fmt::format("{}{} {} x{}", separator, level.label(),
                        format_bytes(static_cast<double>(level.size_bytes)), level.instances);
    separator = ", ";
  }
  return text;
}

std::string Topology::report() const {
  std::string text = fmt::format("CPU          {}{}\n", cpu_model_.empty() ? "unknown" : cpu_model_,
                                 cpu_vendor_.empty() ? "" : " (" + cpu_vendor_ + ")");
  text += fmt::format("Packages     {}\nCores        {}\nPUs          {}\nNUMA nodes   {}\n",
                      packages_, cores_, pus_, numa_nodes_.size());
  for (const NumaNode& node : numa_nodes_) {
    text += fmt::format("  node {:<4} {:>10} local memory, {} cores\n", node.os_index,
                        format_bytes(static_cast<double>(node.memory_bytes)), node.cores);
  }
  text += fmt::format("Caches\n  {:<5} {:<12} {:>10} {:>6} {:>6} {:>10} {:>16}\n", "level", "kind",
                      "size", "line", "ways", "instances", "cores sharing");
  for (const CacheLevel& level : all_caches_) {
    const std::string ways = level.associativity < 0    ? "full"
                             : level.associativity == 0 ? "?"
                                                        : std::to_string(level.associativity);
    text += fmt::format("  {:<5} {:<12} {:>10} {:>6} {:>6} {:>10} {:>16}\n", level.label(),
                        level.kind, format_bytes(static_cast<double>(level.size_bytes)),
                        level.line_bytes > 0 ? fmt::format("{} B", level.line_bytes) : "?", ways,
                        level.instances, level.cores_per_instance);
  }
  return text;
}

nlohmann::json Topology::to_json() const {
  nlohmann::json caches = nlohmann::json::array();
  for (const CacheLevel& level : all_caches_) {
    caches.push_back({{"level", level.depth},
                      {"name", level.label()},
                      {"kind", level.kind},
                      {"size_bytes", level.size_bytes},
                      {"line_bytes", level.line_bytes},
                      {"associativity", level.associativity},
                      {"instances", level.instances},
                      {"cores_per_instance", level.cores_per_instance}});
  }
  nlohmann::json numa = nlohmann::json::array();
  for (const NumaNode& node : numa_nodes_) {
    numa.push_back(
        {{"os_index", node.os_index}, {"memory_bytes", node.memory_bytes}, {"cores", node.cores}});
  }
  return {{"packages", packages_},     {"cores", cores_},     {"processing_units", pus_},
          {"numa_nodes", numa},        {"caches", caches},    {"cpu_model", cpu_model_},
          {"cpu_vendor", cpu_vendor_}, {"summary", summary()}};
}

std::string describe_topology(const std::string& xml, const std::string& synthetic, bool json) {
  const Topology topology = !xml.empty()         ? Topology::from_xml_file(xml)
                            : !synthetic.empty() ? Topology::from_synthetic(synthetic)
                                                 : Topology::from_system();
  return json ? topology.to_json().dump(2) + "\n" : topology.report();
}

}  // namespace sonde::microbench
