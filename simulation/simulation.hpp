// Simulated clusters: running sonde's MPI programs under SimGrid's SMPI (smpirun) on a platform
// file, one simulated rank per core. SimGrid itself reads the platform (sonde-simgrid-platform,
// built beside sonde): its hosts, cores and speeds, and the routes between its first hosts, which
// are the ground truth a characterization of the simulated machine is checked against.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace sonde::simulation {

struct SimulatedHost {
  std::string name;
  int cores = 1;
  double speed_flops = 0;  // per core
};

// The path SimGrid routes a message along: its links, their summed latency and the narrowest
// bandwidth (what one message alone gets).
struct SimulatedRoute {
  std::string from, to;
  double latency_seconds = 0;
  double bandwidth_bytes_per_second = 0;
  std::vector<std::string> links;
};

struct PlatformInfo {
  std::string file;
  std::vector<SimulatedHost> hosts;    // in rank order (natural order of their names)
  std::vector<SimulatedRoute> routes;  // first host to itself, to the second and to the last
  int cores() const;
};

// Reads what sonde-simgrid-platform wrote (`source` names it in errors).
PlatformInfo parse_platform_info(const nlohmann::json& json, const std::string& source);

// Has SimGrid read `platform` (sonde-simgrid-platform from `programs_folder`); throws an input
// Error naming the file when SimGrid cannot read it, or when it has no host.
PlatformInfo read_platform(const std::filesystem::path& platform,
                           const std::filesystem::path& programs_folder,
                           const std::filesystem::path& scratch_folder);

// A host file for smpirun placing `ranks` ranks in blocks: each host's cores filled in turn
// ("node-0:8"). Throws a usage Error when the platform has fewer cores than ranks.
std::string block_hostfile(const PlatformInfo& platform, int ranks);

// How the MPI suite runs under SMPI.
struct SmpiLaunch {
  std::filesystem::path platform;
  std::filesystem::path hostfile;
  int ranks = 2;
  // The benchmark harness's own code between MPI calls is not the machine's: simulated time
  // counts only the messages (smpi/simulate-computation:no). Programs whose computation matters
  // run with it on.
  bool simulate_computation = false;
  std::vector<std::string> options;  // more --cfg=name:value, passed on as given
};

// The launcher line: smpirun with the platform, host file and ranks; the shared libraries that
// keep global state privatized per rank (Google Benchmark's registry: without it every rank
// registers into one and the run deadlocks); MPICH's collective algorithms (affordable to
// simulate at hundreds of ranks); large shared-malloc blocks (1024 ranks need them).
std::vector<std::string> smpirun_launcher(const SmpiLaunch& launch);

// The soname of Google Benchmark's library this build links (privatized per simulated rank).
std::string benchmark_library_soname();

}  // namespace sonde::simulation
