#include "microbench/topology.hpp"
#include "microbench/page_buffer.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>

#include "core/error.hpp"

namespace sonde::microbench {
namespace {

const std::string kFixtures = "microbench/tests/fixtures/";

// A two-socket machine with 64 cores, 128 PUs, four NUMA nodes and sixteen L3 slices: what these
// VMs are not, so that code for such machines is exercised here.
constexpr const char* kBigMachine =
    "pack:2 numa:2(memory=68719476736) l3:4(size=33554432) l2:4(size=1048576) "
    "l1d:1(size=49152) core:1 pu:2";

TEST(Topology, ReadsARecordedMachine) {
  const Topology topology = Topology::from_xml_file(kFixtures + "amd-epyc-2core-vm.xml");
  EXPECT_EQ(topology.packages(), 1u);
  EXPECT_EQ(topology.cores(), 2u);
  EXPECT_EQ(topology.processing_units(), 2u);
  ASSERT_EQ(topology.numa_nodes().size(), 1u);
  EXPECT_EQ(topology.cpu_model(), "AMD EPYC");
  ASSERT_EQ(topology.data_caches().size(), 3u);
  const CacheLevel& l1 = topology.data_caches()[0];
  EXPECT_EQ(l1.label(), "L1d");
  EXPECT_EQ(l1.size_bytes, 48u * 1024);
  EXPECT_EQ(l1.line_bytes, 64u);
  EXPECT_EQ(l1.associativity, 12);
  EXPECT_EQ(l1.instances, 2u);
  EXPECT_EQ(l1.cores_per_instance, 1u);
  const CacheLevel& l3 = topology.data_caches()[2];
  EXPECT_EQ(l3.label(), "L3");
  EXPECT_EQ(l3.size_bytes, 32u << 20);
  EXPECT_EQ(l3.instances, 1u);
  EXPECT_EQ(l3.cores_per_instance, 2u);
  EXPECT_EQ(topology.line_bytes(), 64u);
  // The instruction cache is listed but is not a data cache.
  EXPECT_EQ(topology.all_caches().size(), 4u);
  EXPECT_NE(topology.summary().find("L1d 48 KiB x2"), std::string::npos) << topology.summary();
}

// The last data cache (the one nearest memory): the level the largest working sets are sized by.
const CacheLevel& last_data_cache(const Topology& topology) {
  EXPECT_FALSE(topology.data_caches().empty());
  return topology.data_caches().back();
}

TEST(Topology, ReadsThisTurinVmWithItsOddL3) {
  // This VM as hwloc 2.9 sees it: a 508 MiB L3 per core (two of them) and a 5.5 GiB NUMA node.
  const Topology topology = Topology::from_xml_file(kFixtures + "turin-vm-508mib-l3.xml");
  EXPECT_EQ(topology.packages(), 1u);
  EXPECT_EQ(topology.cores(), 2u);
  EXPECT_EQ(topology.processing_units(), 2u);
  EXPECT_EQ(topology.cpu_vendor(), "AuthenticAMD");
  EXPECT_EQ(topology.cpu_model().rfind("Oxide Virtual Turin-like Processor", 0), 0u)
      << topology.cpu_model();
  ASSERT_EQ(topology.numa_nodes().size(), 1u);
  EXPECT_EQ(topology.numa_nodes()[0].memory_bytes, 5865504768u);
  EXPECT_EQ(topology.numa_nodes()[0].cores, 2u);
  EXPECT_EQ(topology.total_memory_bytes(), 5865504768u);
  ASSERT_EQ(topology.data_caches().size(), 3u);
  const CacheLevel& l3 = last_data_cache(topology);
  EXPECT_EQ(l3.label(), "L3");
  EXPECT_EQ(l3.size_bytes, 508ull << 20);
  EXPECT_EQ(l3.instances, 2u);
  EXPECT_EQ(l3.cores_per_instance, 1u);
  EXPECT_EQ(l3.associativity, 0);  // hwloc does not know it here
  EXPECT_EQ(topology.line_bytes(), 64u);
}

TEST(Topology, ReadsATwoSocket128CoreMachineWithEightNumaNodes) {
  const Topology topology = Topology::from_xml_file(kFixtures + "two-socket-128-core-8-numa.xml");
  EXPECT_EQ(topology.packages(), 2u);
  EXPECT_EQ(topology.cores(), 128u);
  EXPECT_EQ(topology.processing_units(), 256u);
  ASSERT_EQ(topology.numa_nodes().size(), 8u);
  for (const NumaNode& node : topology.numa_nodes()) {
    EXPECT_EQ(node.memory_bytes, 64ull << 30);
    EXPECT_EQ(node.cores, 16u);
  }
  EXPECT_EQ(topology.total_memory_bytes(), 512ull << 30);
  EXPECT_EQ(topology.numa_node_of_core(127), 7u);
  ASSERT_EQ(topology.data_caches().size(), 3u);
  EXPECT_EQ(topology.data_caches()[0].label(), "L1d");
  EXPECT_EQ(topology.data_caches()[0].size_bytes, 32u << 10);
  EXPECT_EQ(topology.data_caches()[0].instances, 128u);
  EXPECT_EQ(topology.data_caches()[1].size_bytes, 1u << 20);
  EXPECT_EQ(topology.data_caches()[1].instances, 128u);
  const CacheLevel& l3 = last_data_cache(topology);
  EXPECT_EQ(l3.label(), "L3");
  EXPECT_EQ(l3.size_bytes, 32u << 20);
  EXPECT_EQ(l3.instances, 16u);
  EXPECT_EQ(l3.cores_per_instance, 8u);
}

TEST(Topology, ReadsAVCachePartWith1152MibOfL3) {
  const Topology topology = Topology::from_xml_file(kFixtures + "vcache-1152mib-l3.xml");
  EXPECT_EQ(topology.packages(), 1u);
  EXPECT_EQ(topology.cores(), 96u);
  ASSERT_EQ(topology.numa_nodes().size(), 1u);
  EXPECT_EQ(topology.numa_nodes()[0].cores, 96u);
  EXPECT_EQ(topology.total_memory_bytes(), 384ull << 30);
  ASSERT_EQ(topology.data_caches().size(), 3u);
  EXPECT_EQ(topology.data_caches()[0].size_bytes, 32u << 10);
  EXPECT_EQ(topology.data_caches()[1].size_bytes, 1u << 20);
  const CacheLevel& l3 = last_data_cache(topology);
  EXPECT_EQ(l3.label(), "L3");
  EXPECT_EQ(l3.size_bytes, 96u << 20);
  EXPECT_EQ(l3.instances, 12u);
  EXPECT_EQ(l3.cores_per_instance, 8u);
  EXPECT_EQ(l3.size_bytes * l3.instances, 1152ull << 20);
}

TEST(Topology, ReadsANodeWithHbmBesideDdr) {
  // As hwloc shows a Xeon Max in flat mode: each package has a DDR node (P#0, P#1) and an HBM
  // node (P#2, P#3) with no cores of its own; both are local to all the package's cores.
  const Topology topology = Topology::from_xml_file(kFixtures + "hbm-node.xml");
  EXPECT_EQ(topology.packages(), 2u);
  EXPECT_EQ(topology.cores(), 112u);
  EXPECT_EQ(topology.processing_units(), 224u);
  const auto& nodes = topology.numa_nodes();
  ASSERT_EQ(nodes.size(), 4u);
  const unsigned os_index[] = {0, 2, 1, 3};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(nodes[i].os_index, os_index[i]) << i;
    EXPECT_EQ(nodes[i].memory_bytes, i % 2 == 0 ? 128ull << 30 : 64ull << 30) << i;
    EXPECT_EQ(nodes[i].cores, 56u) << i;  // the package's cores, shared by DDR and HBM
  }
  EXPECT_EQ(topology.total_memory_bytes(), 384ull << 30);
  EXPECT_EQ(topology.numa_node_of_core(0), 0u);  // the first local node: DDR
  EXPECT_EQ(topology.numa_node_of_core(56), 2u);
  ASSERT_EQ(topology.data_caches().size(), 3u);
  const CacheLevel& l3 = last_data_cache(topology);
  EXPECT_EQ(l3.label(), "L3");
  EXPECT_EQ(l3.size_bytes, 117964800u);  // 112.5 MiB
  EXPECT_EQ(l3.instances, 2u);
  EXPECT_EQ(l3.cores_per_instance, 56u);
}

TEST(Topology, ReadsAMachineWithoutL3) {
  // A64FX-like: four core-memory groups of 12 cores, each with an 8 MiB L2 and an 8 GiB node.
  const Topology topology = Topology::from_xml_file(kFixtures + "no-l3.xml");
  EXPECT_EQ(topology.packages(), 1u);
  EXPECT_EQ(topology.cores(), 48u);
  ASSERT_EQ(topology.numa_nodes().size(), 4u);
  for (const NumaNode& node : topology.numa_nodes()) {
    EXPECT_EQ(node.memory_bytes, 8ull << 30);
    EXPECT_EQ(node.cores, 12u);
  }
  EXPECT_EQ(topology.total_memory_bytes(), 32ull << 30);
  ASSERT_EQ(topology.data_caches().size(), 2u);
  EXPECT_EQ(topology.data_caches()[0].label(), "L1d");
  EXPECT_EQ(topology.data_caches()[0].size_bytes, 64u << 10);
  EXPECT_EQ(topology.data_caches()[0].instances, 48u);
  const CacheLevel& l2 = last_data_cache(topology);
  EXPECT_EQ(l2.label(), "L2");
  EXPECT_EQ(l2.size_bytes, 8u << 20);
  EXPECT_EQ(l2.instances, 4u);
  EXPECT_EQ(l2.cores_per_instance, 12u);
}

TEST(Topology, ReadsASyntheticNumaMachine) {
  const Topology topology = Topology::from_synthetic(kBigMachine);
  EXPECT_EQ(topology.packages(), 2u);
  EXPECT_EQ(topology.cores(), 64u);
  EXPECT_EQ(topology.processing_units(), 128u);
  ASSERT_EQ(topology.numa_nodes().size(), 4u);
  EXPECT_EQ(topology.numa_nodes()[0].memory_bytes, 64ull << 30);
  EXPECT_EQ(topology.numa_nodes()[0].cores, 16u);
  EXPECT_EQ(topology.total_memory_bytes(), 256ull << 30);
  ASSERT_EQ(topology.data_caches().size(), 3u);
  EXPECT_EQ(topology.data_caches()[2].instances, 16u);
  EXPECT_EQ(topology.data_caches()[2].cores_per_instance, 4u);
  EXPECT_FALSE(topology.is_this_system());
  // A machine that is not this one cannot be bound to.
  EXPECT_THROW(topology.bind_current_thread_to_core(0), Error);
  EXPECT_EQ(topology.numa_node_of_core(0), 0u);
  EXPECT_EQ(topology.numa_node_of_core(20), 1u);  // 16 cores a node
  EXPECT_EQ(topology.numa_node_of_core(63), 3u);
  char byte = 0;
  EXPECT_THROW(topology.bind_memory_to_node(&byte, 1, 1), Error);
  const nlohmann::json json = topology.to_json();
  EXPECT_EQ(json["cores"], 64);
  EXPECT_EQ(json["numa_nodes"].size(), 4u);
}

TEST(Topology, MalformedFilesAreClearErrors) {
  try {
    Topology::from_xml_file(kFixtures + "does-not-exist.xml");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does-not-exist.xml"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Topology::from_synthetic("pack:banana"), Error);
}

TEST(Topology, ThisSystemCanBeBoundTo) {
  const Topology topology = Topology::from_system();
  ASSERT_GE(topology.cores(), 1u);
  EXPECT_TRUE(topology.is_this_system());
  EXPECT_NO_THROW(topology.bind_current_thread_to_core(topology.cores() - 1));
  EXPECT_THROW(topology.bind_current_thread_to_core(topology.cores() + 7), Error);
  topology.bind_current_thread_to_core(0);
}

TEST(Topology, MemoryCanBeBoundToANodeOfThisSystem) {
  const Topology topology = Topology::from_system();
  const unsigned node = topology.numa_node_of_core(0);
  constexpr std::size_t kBytes = 1 << 20;
  PageBuffer buffer(kBytes, PagePolicy::base);
  topology.bind_memory_to_node(buffer.data(), kBytes, node);
  std::fill_n(static_cast<char*>(buffer.data()), kBytes, 1);  // first touch places them
  EXPECT_EQ(topology.numa_node_holding(buffer.data(), kBytes), node);
  EXPECT_THROW(topology.bind_memory_to_node(buffer.data(), kBytes, 4096), Error);
}

}  // namespace
}  // namespace sonde::microbench
