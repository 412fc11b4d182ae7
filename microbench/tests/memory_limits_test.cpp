#include "microbench/memory_limits.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "microbench/topology.hpp"

namespace sonde::microbench {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

// What this VM's /proc/meminfo and /proc/self/cgroup say (cgroup v1 for memory, v2 beside it).
constexpr const char* kMeminfo =
    "MemTotal:       24683620 kB\n"
    "MemFree:        23208108 kB\n"
    "MemAvailable:   23495152 kB\n"
    "Buffers:           2048 kB\n"
    "HugePages_Total:       0\n";
constexpr std::uint64_t kAvailable = std::uint64_t{23495152} * 1024;
constexpr const char* kThisMachineCgroup =
    "9:name=systemd:/\n"
    "8:pids:/\n"
    "4:memory:/process_api/48d47a9c008aa4872d285ee7d031103c\n"
    "1:cpu:/\n"
    "0::/\n";

// A folder laid out like / (proc/, sys/fs/cgroup/), removed at the end of the test.
class FakeRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            (std::string("sonde-memory-limits-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& relative, const std::string& text) const {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::string file(const std::string& relative) const { return (root_ / relative).string(); }

  fs::path root_;
};

TEST_F(FakeRoot, NoCgroupLimitAsOnThisMachine) {
  write("proc/meminfo", kMeminfo);
  write("proc/self/cgroup", kThisMachineCgroup);
  const std::string nested = "sys/fs/cgroup/memory/process_api/48d47a9c008aa4872d285ee7d031103c/";
  write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  write("sys/fs/cgroup/memory/memory.usage_in_bytes", "873074688\n");
  write(nested + "memory.limit_in_bytes", "9223372036854771712\n");
  write(nested + "memory.usage_in_bytes", "4796416\n");

  const MemoryReadings readings = read_memory_readings(root_);
  EXPECT_EQ(readings.os_available_bytes, kAvailable);
  EXPECT_EQ(readings.os_total_bytes, std::uint64_t{24683620} * 1024);
  EXPECT_FALSE(readings.cgroup_limit_bytes.has_value());
  EXPECT_EQ(readings.cgroup_usage_bytes, 4796416u);  // the process's own cgroup
  EXPECT_EQ(readings.cgroup_path, file(nested + "memory.limit_in_bytes"));

  const UsableMemory usable = usable_memory(readings, 0);
  EXPECT_EQ(usable.bytes, kAvailable);
  EXPECT_EQ(usable.bound_by, "MemAvailable");
  ASSERT_EQ(usable.bounds.size(), 1u);
  EXPECT_EQ(usable.bounds[0], "MemAvailable 22.4 GiB");
}

TEST_F(FakeRoot, CgroupV2LimitLessItsUsage) {
  write("proc/meminfo", kMeminfo);
  write("proc/self/cgroup", "0::/slurm/uid_1000/job_7\n");
  write("sys/fs/cgroup/slurm/uid_1000/job_7/memory.max", "4294967296\n");
  write("sys/fs/cgroup/slurm/uid_1000/job_7/memory.current", "1073741824\n");

  const MemoryReadings readings = read_memory_readings(root_);
  EXPECT_EQ(readings.cgroup_limit_bytes, 4 * kGiB);
  EXPECT_EQ(readings.cgroup_usage_bytes, 1 * kGiB);
  const std::string limit_file = file("sys/fs/cgroup/slurm/uid_1000/job_7/memory.max");
  EXPECT_EQ(readings.cgroup_path, limit_file);

  const UsableMemory usable = usable_memory(readings, 64 * kGiB);
  EXPECT_EQ(usable.bytes, 3 * kGiB);
  EXPECT_EQ(usable.bound_by, "cgroup limit (" + limit_file + ")");
  ASSERT_EQ(usable.bounds.size(), 3u);
  EXPECT_EQ(usable.bounds[1], "cgroup limit (" + limit_file + ") 4 GiB less 1 GiB used: 3 GiB");
  EXPECT_EQ(usable.bounds[2], "hwloc NUMA memory 64 GiB");
}

TEST_F(FakeRoot, CgroupV2MaxIsNoLimit) {
  write("proc/meminfo", kMeminfo);
  write("proc/self/cgroup", "0::/user.slice/session-1.scope\n");
  write("sys/fs/cgroup/user.slice/session-1.scope/memory.max", "max\n");
  write("sys/fs/cgroup/user.slice/session-1.scope/memory.current", "1048576\n");

  const MemoryReadings readings = read_memory_readings(root_);
  EXPECT_FALSE(readings.cgroup_limit_bytes.has_value());
  EXPECT_EQ(readings.cgroup_usage_bytes, 1 * kMiB);
  const UsableMemory usable = usable_memory(readings, 0);
  EXPECT_EQ(usable.bound_by, "MemAvailable");
  EXPECT_EQ(usable.bytes, kAvailable);
}

TEST_F(FakeRoot, CgroupV2LimitOfAParentBindsTheChild) {
  // Slurm limits the job; its steps and tasks below it say "max".
  write("proc/meminfo", kMeminfo);
  write("proc/self/cgroup", "0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n");
  const std::string job = "sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/";
  write(job + "memory.max", "2147483648\n");
  write(job + "memory.current", "536870912\n");
  write(job + "step_0/user/task_0/memory.max", "max\n");
  write(job + "step_0/user/task_0/memory.current", "1048576\n");

  const MemoryReadings readings = read_memory_readings(root_);
  EXPECT_EQ(readings.cgroup_limit_bytes, 2 * kGiB);
  EXPECT_EQ(readings.cgroup_usage_bytes, 512 * kMiB);
  EXPECT_EQ(readings.cgroup_path, file(job + "memory.max"));
  EXPECT_EQ(usable_memory(readings, 0).bytes, 1536 * kMiB);
}

TEST_F(FakeRoot, CgroupV1NestedLimit) {
  write("proc/meminfo", kMeminfo);
  write("proc/self/cgroup", "11:cpuset:/\n6:memory:/slurm/uid_1000/job_7\n3:cpu,cpuacct:/\n0::/\n");
  write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  write("sys/fs/cgroup/memory/slurm/uid_1000/job_7/memory.limit_in_bytes", "2147483648\n");
  write("sys/fs/cgroup/memory/slurm/uid_1000/job_7/memory.usage_in_bytes", "536870912\n");

  const MemoryReadings readings = read_memory_readings(root_);
  EXPECT_EQ(readings.cgroup_limit_bytes, 2 * kGiB);
  EXPECT_EQ(readings.cgroup_usage_bytes, 512 * kMiB);
  const std::string limit_file =
      file("sys/fs/cgroup/memory/slurm/uid_1000/job_7/memory.limit_in_bytes");
  EXPECT_EQ(readings.cgroup_path, limit_file);
  const UsableMemory usable = usable_memory(readings, 0);
  EXPECT_EQ(usable.bytes, 1536 * kMiB);
  EXPECT_EQ(usable.bound_by, "cgroup limit (" + limit_file + ")");
}

TEST_F(FakeRoot, CgroupV1InAControllerListAndInsideAContainer) {
  // The memory controller mounted with others; the host's path is not below the container's mount,
  // whose top level is the container's own cgroup.
  write("proc/meminfo", kMeminfo);
  write("proc/self/cgroup", "5:memory,hugetlb:/docker/0123abcd\n");
  write("sys/fs/cgroup/memory/memory.limit_in_bytes", "1073741824\n");
  write("sys/fs/cgroup/memory/memory.usage_in_bytes", "2147483648\n");  // over: headroom 0

  const MemoryReadings readings = read_memory_readings(root_);
  EXPECT_EQ(readings.cgroup_limit_bytes, 1 * kGiB);
  EXPECT_EQ(readings.cgroup_path, file("sys/fs/cgroup/memory/memory.limit_in_bytes"));
  const UsableMemory usable = usable_memory(readings, 0);
  EXPECT_EQ(usable.bytes, 0u);  // never below zero
  EXPECT_NE(usable.bound_by.find("cgroup limit"), std::string::npos);
}

TEST_F(FakeRoot, MalformedFilesAreInputErrorsNamingTheFile) {
  write("proc/meminfo", "MemTotal:       24683620 kB\nMemAvailable:   lots kB\n");
  try {
    read_memory_readings(root_);
    FAIL() << "a malformed meminfo was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find(file("proc/meminfo")), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MemAvailable: <number> kB"), std::string::npos)
        << e.what();
  }

  write("proc/meminfo", kMeminfo);
  write("proc/self/cgroup", "0::/job\n");
  write("sys/fs/cgroup/job/memory.max", "4G\n");
  try {
    read_memory_readings(root_);
    FAIL() << "a malformed memory.max was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    EXPECT_NE(std::string(e.what()).find(file("sys/fs/cgroup/job/memory.max")), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("'max'"), std::string::npos) << e.what();
  }
}

TEST_F(FakeRoot, HwlocSmallerThanAllBounds) {
  write("proc/meminfo", kMeminfo);
  write("proc/self/cgroup", "0::/job\n");
  write("sys/fs/cgroup/job/memory.max", "17179869184\n");  // 16 GiB
  write("sys/fs/cgroup/job/memory.current", "0\n");
  const std::uint64_t numa = 5632 * kMiB;  // 5.5 GiB, as hwloc claims on this VM

  const UsableMemory usable = usable_memory(read_memory_readings(root_), numa);
  EXPECT_EQ(usable.bytes, numa);
  EXPECT_EQ(usable.bound_by, "hwloc NUMA memory");
  ASSERT_EQ(usable.bounds.size(), 3u);
  EXPECT_EQ(usable.bounds[2], "hwloc NUMA memory 5.50 GiB");

  const nlohmann::json json = to_json(usable);
  EXPECT_EQ(json["bytes"], numa);
  EXPECT_EQ(json["bound_by"], "hwloc NUMA memory");
  EXPECT_EQ(json["bounds"].size(), 3u);
}

// One NUMA node that holds less than half of MemTotal (the kernel's node meminfo leaves out
// hotplugged memory on some VMs): hwloc's figure is listed, the OS's bound the run. With two
// nodes the same figure still binds (the run stays within the nodes it may use).
TEST_F(FakeRoot, OneNodeMissingMemoryIsNoBound) {
  write("proc/meminfo", kMeminfo);  // MemTotal 23.5 GiB, MemAvailable 22.4 GiB
  const std::uint64_t numa = 10 * kGiB;

  const UsableMemory one = usable_memory(read_memory_readings(root_), numa, 1);
  EXPECT_EQ(one.bytes, kAvailable);
  EXPECT_EQ(one.bound_by, "MemAvailable");
  ASSERT_EQ(one.bounds.size(), 2u);
  EXPECT_EQ(one.bounds[1],
            "hwloc NUMA memory 10 GiB (one NUMA node, less than half of MemTotal 23.5 GiB: not a "
            "bound)");

  const UsableMemory two = usable_memory(read_memory_readings(root_), numa, 2);
  EXPECT_EQ(two.bytes, numa);
  EXPECT_EQ(two.bound_by, "hwloc NUMA memory");

  // One node that holds most of MemTotal (a bare-metal machine): hwloc's figure is a bound as
  // before, though here MemAvailable is the smaller.
  const UsableMemory whole = usable_memory(read_memory_readings(root_), 23 * kGiB, 1);
  EXPECT_EQ(whole.bytes, kAvailable);
  EXPECT_EQ(whole.bounds.back(), "hwloc NUMA memory 23 GiB");
}

TEST_F(FakeRoot, NothingKnownIsAnIoError) {
  const MemoryReadings readings = read_memory_readings(root_);  // nothing there: no error yet
  EXPECT_FALSE(readings.os_available_bytes.has_value());
  EXPECT_FALSE(readings.cgroup_limit_bytes.has_value());
  EXPECT_TRUE(readings.cgroup_path.empty());
  try {
    usable_memory(readings, 0);
    FAIL() << "no bound, yet a usable size";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::failure);
  }
  // Without MemAvailable (kernels before 3.14), MemTotal bounds.
  MemoryReadings old_kernel;
  old_kernel.os_total_bytes = 8 * kGiB;
  EXPECT_EQ(usable_memory(old_kernel, 0).bound_by, "MemTotal");
}

TEST(MemoryLimits, ReadsThisSystem) {
  const MemoryReadings readings = read_memory_readings();
  const UsableMemory usable = usable_memory(readings, Topology::from_system().total_memory_bytes());
  EXPECT_GT(usable.bytes, 0u);
  EXPECT_FALSE(usable.bound_by.empty());
  EXPECT_FALSE(usable.bounds.empty());
}

}  // namespace
}  // namespace sonde::microbench
