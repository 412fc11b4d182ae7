#include "simulation/simulation.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"

namespace sonde::simulation {
namespace {

nlohmann::json two_hosts() {
  return nlohmann::json::parse(R"({
    "platform": "p.xml",
    "hosts": [{"name": "node-0", "cores": 4, "speed_flops": 1e9},
              {"name": "node-1", "cores": 4, "speed_flops": 1e9}],
    "routes": [{"from": "node-0", "to": "node-1", "latency_seconds": 2e-6,
                "bandwidth_bytes_per_second": 1e10, "links": ["up", "down"]}]})");
}

TEST(Platform, ReadsWhatSimGridSaid) {
  const PlatformInfo info = parse_platform_info(two_hosts(), "p.json");
  EXPECT_EQ(info.cores(), 8);
  ASSERT_EQ(info.routes.size(), 1u);
  EXPECT_DOUBLE_EQ(info.routes[0].latency_seconds, 2e-6);
  EXPECT_EQ(info.routes[0].links.size(), 2u);
}

TEST(Platform, RefusesASummaryWithoutHostsOrFields) {
  nlohmann::json empty = two_hosts();
  empty["hosts"] = nlohmann::json::array();
  EXPECT_THROW(parse_platform_info(empty, "p.json"), Error);
  nlohmann::json broken = two_hosts();
  broken["hosts"][0].erase("cores");
  try {
    parse_platform_info(broken, "p.json");
    FAIL() << "a host without cores was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("p.json"), std::string::npos) << e.what();
  }
}

TEST(Platform, PlacesRanksInBlocks) {
  const PlatformInfo info = parse_platform_info(two_hosts(), "p.json");
  EXPECT_EQ(block_hostfile(info, 3), "node-0:3\n");
  EXPECT_EQ(block_hostfile(info, 6), "node-0:4\nnode-1:2\n");
  EXPECT_EQ(block_hostfile(info, 8), "node-0:4\nnode-1:4\n");
  EXPECT_THROW(block_hostfile(info, 9), Error);
  EXPECT_THROW(block_hostfile(info, 0), Error);
}

TEST(Launcher, PrivatizesGoogleBenchmarkAndTurnsComputationOff) {
  SmpiLaunch launch;
  launch.platform = "/p/flat.xml";
  launch.hostfile = "/r/hosts.txt";
  launch.ranks = 16;
  launch.options = {"--cfg=smpi/host-speed:1Gf"};
  const std::vector<std::string> line = smpirun_launcher(launch);
  const auto has = [&](const std::string& word) {
    return std::find(line.begin(), line.end(), word) != line.end();
  };
  EXPECT_EQ(line.front(), "smpirun");
  EXPECT_TRUE(has("16"));
  EXPECT_TRUE(has("/p/flat.xml"));
  EXPECT_TRUE(has("/r/hosts.txt"));
  EXPECT_TRUE(has("--cfg=smpi/privatize-libs:" + benchmark_library_soname()));
  EXPECT_NE(benchmark_library_soname().find("libbenchmark.so"), std::string::npos);
  EXPECT_TRUE(has("--cfg=smpi/simulate-computation:no"));
  EXPECT_EQ(line.back(), "--cfg=smpi/host-speed:1Gf");
  launch.simulate_computation = true;
  const std::vector<std::string> computing = smpirun_launcher(launch);
  EXPECT_EQ(std::find(computing.begin(), computing.end(), "--cfg=smpi/simulate-computation:no"),
            computing.end());
}

}  // namespace
}  // namespace sonde::simulation
