// sonde-bench-mpi: ping-pong, the pair map, streaming bandwidth and collectives (Xu and Hwang
// (1995), section 4; Eom and Hollingsworth (1998)). Run it under mpirun or srun; rank 0 writes the
// result.
#include <mpi.h>

#include <string>

#include "core/units.hpp"
#include "microbench/mpi/mpi_suite.hpp"
#include "microbench/suite_program.hpp"

#if SONDE_SMPI
constexpr bool kSimulated = true;  // built for SimGrid's SMPI (sonde-bench-mpi-smpi)
#else
constexpr bool kSimulated = false;
#endif

int main(int argc, char** argv) {
  using namespace sonde::microbench;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  CommonOptions options;
  MpiSuitePlan plan;
  std::vector<RankPlace> places;
  SuiteProgram suite;
  suite.program = "sonde-bench-mpi";
  suite.suite = "mpi";
  suite.description =
      "sonde MPI suite: ping-pong between the first and last rank, a latency and bandwidth map "
      "of rank pairs, streaming bandwidth and collectives over 2, 4, 8, ... ranks";
  suite.headline_counters = {"seconds_per_message", "seconds_per_operation", "bytes_per_second"};
  std::vector<std::string> message_sizes, collective_sizes;
  suite.add_options = [&](CLI::App& app) {
    add_mpi_options(app, options, message_sizes, collective_sizes);
  };
  suite.common = &options;
  suite.quiet = rank != 0;
  suite.bind_to_first_core = false;  // the launcher places the ranks
  suite.plan = [&](const Topology& topology, const Sizing& local) {
    std::vector<std::uint64_t> bytes, collective_bytes;
    for (const std::string& text : message_sizes) {
      bytes.push_back(sonde::parse_bytes(text, "--message-bytes"));
    }
    for (const std::string& text : collective_sizes) {
      collective_bytes.push_back(parse_collective_bytes(text));
    }
    // Every rank must plan alike: the fullest node and the smallest buffer allowance decide.
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int on_node = 1, most_on_node = 1;
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
    MPI_Allreduce(&on_node, &most_on_node, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    Sizing sizing = local;
    unsigned long long allowance = local.max_buffer_bytes, smallest = 0;
    MPI_Allreduce(&allowance, &smallest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    sizing.max_buffer_bytes = smallest;
    plan = plan_mpi_suite(options, sizing, size, most_on_node, bytes, kSimulated, collective_bytes);
    places = gather_places(topology, MPI_COMM_WORLD);
    return SuiteParts{plan.parts, plan.skipped_parts};
  };
  suite.register_benchmarks = [&](const Topology&, const Sizing&, const std::optional<CoreClock>&,
                                  ParamRegistry& registry) {
    register_mpi_suite(plan, places, registry);
    return to_json(plan);
  };
  suite.add_context = [&](nlohmann::json& context) { context["mpi"] = mpi_context(places); };
  // Every rank runs the re-measuring passes that rank 0 decides on, or they would wait for each
  // other in the benchmarks' collectives.
  suite.agree = [rank](const std::string& filter) {
    int length = rank == 0 ? static_cast<int>(filter.size()) : 0;
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string agreed = rank == 0 ? filter : std::string(static_cast<std::size_t>(length), '\0');
    if (length > 0) MPI_Bcast(agreed.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    return agreed;
  };
  // And leave out the same benchmarks when a part resumes.
  suite.broadcast = suite.agree;
  const int code = run_suite_program(suite, argc, argv);
  // A rank that stops early (bad options, an unwritable result) would leave the others waiting
  // in a collective: end them all.
  if (code != 0) MPI_Abort(MPI_COMM_WORLD, code);
  MPI_Finalize();
  return code;
}
