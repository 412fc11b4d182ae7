#include "simulation/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

#include "core/error.hpp"
#include "core/program.hpp"

namespace sonde::simulation {

int PlatformInfo::cores() const {
  int total = 0;
  for (const SimulatedHost& host : hosts) total += host.cores;
  return total;
}

PlatformInfo parse_platform_info(const nlohmann::json& json, const std::string& source) {
  PlatformInfo info;
  try {
    info.file = json.at("platform").get<std::string>();
    for (const auto& host : json.at("hosts")) {
      SimulatedHost h{host.at("name").get<std::string>(), host.at("cores").get<int>(),
                      host.at("speed_flops").get<double>()};
      if (h.cores < 1) throw input_error(source, fmt::format("host '{}' has no core", h.name));
      info.hosts.push_back(std::move(h));
    }
    for (const auto& route : json.at("routes")) {
      info.routes.push_back({route.at("from").get<std::string>(), route.at("to").get<std::string>(),
                             route.at("latency_seconds").get<double>(),
                             route.at("bandwidth_bytes_per_second").get<double>(),
                             route.at("links").get<std::vector<std::string>>()});
    }
  } catch (const nlohmann::json::exception& e) {
    throw input_error(source, fmt::format("not a platform summary: {}", e.what()));
  }
  if (info.hosts.empty()) throw input_error(source, "the platform has no host");
  return info;
}

PlatformInfo read_platform(const std::filesystem::path& platform,
                           const std::filesystem::path& programs_folder,
                           const std::filesystem::path& scratch_folder) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(platform, ec)) {
    throw input_error(platform.string(), "no such platform file");
  }
  const std::filesystem::path reader = programs_folder / "sonde-simgrid-platform";
  if (!on_path(reader.string())) {
    throw io_error(reader.string(),
                   "missing: this sonde was built without SimGrid (install libsimgrid-dev and "
                   "build again; scripts/install-deps.sh does)");
  }
  std::filesystem::create_directories(scratch_folder, ec);
  const std::filesystem::path out = scratch_folder / "platform.json";
  const ChildExit exit = run_child({reader.string(), platform.string(), out.string()});
  if (!exit.ok()) {
    throw input_error(platform.string(),
                      "SimGrid could not read this platform (its message is above)");
  }
  std::ifstream in(out);
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw input_error(out.string(), e.what());
  }
  return parse_platform_info(json, out.string());
}

std::string block_hostfile(const PlatformInfo& platform, int ranks) {
  if (ranks < 1) throw usage_error("--ranks", "needs at least one rank");
  if (ranks > platform.cores()) {
    throw usage_error("--ranks", fmt::format("{} ranks, but the platform {} has {} cores", ranks,
                                             platform.file, platform.cores()));
  }
  std::string text;
  int left = ranks;
  for (const SimulatedHost& host : platform.hosts) {
    if (left == 0) break;
    const int here = std::min(left, host.cores);
    text += fmt::format("{}:{}\n", host.name, here);
    left -= here;
  }
  return text;
}

std::vector<std::string> smpirun_launcher(const SmpiLaunch& launch) {
  std::vector<std::string> line = {"smpirun",
                                   "-np",
                                   std::to_string(launch.ranks),
                                   "-platform",
                                   launch.platform.string(),
                                   "-hostfile",
                                   launch.hostfile.string(),
                                   "--cfg=smpi/privatize-libs:" + benchmark_library_soname(),
                                   "--cfg=smpi/coll-selector:mpich",
                                   "--cfg=smpi/shared-malloc-blocksize:67108864",
                                   "--log=root.thresh:warning"};
  if (!launch.simulate_computation) line.push_back("--cfg=smpi/simulate-computation:no");
  for (const std::string& option : launch.options) line.push_back(option);
  return line;
}

std::string benchmark_library_soname() { return SONDE_BENCHMARK_SONAME; }

}  // namespace sonde::simulation
