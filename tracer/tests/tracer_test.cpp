// The tracer's tests. TracedProgram.* checks an archive the tracer wrote of
// sonde-tracer-test-program (tests/traced_program.cpp), named by SONDE_TRACER_TEST_ARCHIVE with
// SONDE_TRACER_TEST_RANKS ranks (tests/run_traced.cmake runs the program under the launcher with
// the tracer preloaded, then this). Launch.* runs the program through run_trace, as
// `sonde trace` does, and checks what it says when the command fails or writes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "trace/otf2_io.hpp"
#include "trace/trace.hpp"
#include "tracer/launch.hpp"
#include "tracer/tables.hpp"

namespace {

using sonde::trace::Call;
using sonde::trace::CollectiveOp;
using sonde::trace::kNoRoot;
using sonde::trace::Operation;
using sonde::trace::Trace;
using Kind = Operation::Kind;

// The calls of tests/traced_program.cpp, in order.
std::vector<std::string> expected_functions(int rank) {
  std::vector<std::string> calls = {"MPI_Init"};
  for (int i = 0; i < 3; ++i) {
    if (rank % 2 == 0) {
      calls.insert(calls.end(), {"MPI_Send", "MPI_Recv"});
    } else {
      calls.insert(calls.end(), {"MPI_Recv", "MPI_Send"});
    }
  }
  calls.insert(
      calls.end(),
      {"MPI_Sendrecv",  "MPI_Irecv",   "MPI_Isend",          "MPI_Waitall",   "MPI_Allreduce",
       "MPI_Bcast",     "MPI_Gather",  "MPI_Alltoall",       "MPI_Barrier",   "MPI_Comm_split",
       "MPI_Allreduce", "MPI_Send",    "MPI_Irecv",          "MPI_Isend",     "MPI_Wait",
       "MPI_Test",      "MPI_Irecv",   "MPI_Isend",          "MPI_Waitany",   "MPI_Waitany",
       "MPI_Reduce",    "MPI_Scan",    "MPI_Reduce_scatter", "MPI_Allgather", "MPI_Allgatherv",
       "MPI_Gatherv",   "MPI_Scatter", "MPI_Scatterv",       "MPI_Alltoallv", "MPI_Gather",
       "MPI_Comm_dup",  "MPI_Barrier", "MPI_Comm_free",      "MPI_Comm_free", "MPI_Finalize"});
  return calls;
}

std::vector<std::string> functions(const std::vector<Call>& calls) {
  std::vector<std::string> names;
  for (const Call& call : calls) names.push_back(call.function);
  return names;
}

// Expects one operation of the call and returns it.
const Operation& only(const Call& call) {
  static const Operation none;
  EXPECT_EQ(call.operations.size(), 1u) << call.function;
  return call.operations.empty() ? none : call.operations.front();
}

void expect_point_to_point(const Operation& op, Kind kind, int peer, int tag, std::uint64_t bytes,
                           const std::string& where) {
  EXPECT_EQ(op.kind, kind) << where;
  EXPECT_EQ(op.communicator, 0u) << where;
  EXPECT_EQ(op.peer, static_cast<std::uint32_t>(peer)) << where;
  EXPECT_EQ(op.tag, static_cast<std::uint32_t>(tag)) << where;
  EXPECT_EQ(op.bytes, bytes) << where;
}

void expect_collective(const Operation& op, CollectiveOp which, std::uint32_t communicator,
                       std::uint32_t root, std::uint64_t sent, std::uint64_t received,
                       const std::string& where) {
  EXPECT_EQ(op.kind, Kind::collective) << where;
  EXPECT_EQ(op.collective, which) << where;
  EXPECT_EQ(op.communicator, communicator) << where;
  EXPECT_EQ(op.peer, root) << where;
  EXPECT_EQ(op.bytes, sent) << where;
  EXPECT_EQ(op.bytes_received, received) << where;
}

// Checks the trace of tests/traced_program.cpp with `n` ranks; `process_time`: whether the
// tracer recorded it (SONDE_TRACE_PROCESS_TIME was not 0).
void check_traced_program(const Trace& trace, int n, const std::string& machine,
                          bool process_time = true) {
  ASSERT_NO_THROW(sonde::trace::check_trace(trace));
  ASSERT_EQ(trace.ranks.size(), static_cast<std::size_t>(n));
  ASSERT_FALSE(trace.communicators.empty());
  std::vector<std::uint32_t> world(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) world[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(r);
  EXPECT_EQ(trace.communicators[0].members, world);

  for (int r = 0; r < n; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const auto& rank = trace.ranks[static_cast<std::size_t>(r)];
    const std::vector<Call>& c = rank.calls;
    ASSERT_EQ(functions(c), expected_functions(r));
    const int partner = r ^ 1, right = (r + 1) % n, left = (r + n - 1) % n;
    for (std::size_t k = 0; k < c.size(); ++k) {
      EXPECT_LE(c[k].enter_ns, c[k].leave_ns) << k;
      if (k > 0) {
        EXPECT_LE(c[k - 1].leave_ns, c[k].enter_ns) << k;
      }
    }
    EXPECT_EQ(rank.start_ns, c.front().enter_ns);
    EXPECT_EQ(rank.end_ns, c.back().leave_ns);
    EXPECT_TRUE(c[0].operations.empty());

    // Ping-pong: calls 1..6.
    for (std::size_t k = 1; k <= 6; ++k) {
      const Kind kind = c[k].function == "MPI_Send" ? Kind::send : Kind::receive;
      expect_point_to_point(only(c[k]), kind, partner, 7, 8, "ping-pong call " + std::to_string(k));
    }
    // The ring.
    ASSERT_EQ(c[7].operations.size(), 2u);
    expect_point_to_point(c[7].operations[0], Kind::send, right, 11, 16, "Sendrecv send");
    expect_point_to_point(c[7].operations[1], Kind::receive, left, 11, 16, "Sendrecv receive");
    // Irecv, Isend, Waitall.
    const Operation& irecv = only(c[8]);
    EXPECT_EQ(irecv.kind, Kind::irecv_request);
    const Operation& isend = only(c[9]);
    expect_point_to_point(isend, Kind::isend, right, 12, 32, "Isend");
    EXPECT_NE(irecv.request, isend.request);
    ASSERT_EQ(c[10].operations.size(), 2u);
    expect_point_to_point(c[10].operations[0], Kind::irecv, left, 12, 32, "Waitall irecv");
    EXPECT_EQ(c[10].operations[0].request, irecv.request);
    EXPECT_EQ(c[10].operations[1].kind, Kind::isend_complete);
    EXPECT_EQ(c[10].operations[1].request, isend.request);

    // The busy loop between the Waitall and the Allreduce: its process time.
    if (!process_time) {
      for (const Call& call : c) EXPECT_FALSE(call.process_ns_before.has_value()) << call.function;
    }
    ASSERT_EQ(c[11].process_ns_before.has_value(), process_time);
    if (process_time) {
      EXPECT_GE(*c[11].process_ns_before, 1'500'000u);
      EXPECT_GE(c[11].enter_ns - c[10].leave_ns, *c[11].process_ns_before * 9 / 10);
      // (Not the MPI_Test: the unsuccessful tests before it, unrecorded, are computation.)
      for (std::size_t k = 1; k < c.size(); ++k) {
        if (k == 11 || k == 22 || !c[k].process_ns_before) continue;
        EXPECT_LT(*c[k].process_ns_before, 1'500'000u) << "call " << k << " " << c[k].function;
      }
    }

    expect_collective(only(c[11]), CollectiveOp::allreduce, 0, kNoRoot, 8, 8, "Allreduce");
    expect_collective(only(c[12]), CollectiveOp::broadcast, 0, 1, r == 1 ? 64 : 0, r == 1 ? 0 : 64,
                      "Bcast");
    expect_collective(only(c[13]), CollectiveOp::gather, 0, 0, 8,
                      r == 0 ? 8 * static_cast<std::uint64_t>(n) : 0, "Gather");
    expect_collective(only(c[14]), CollectiveOp::alltoall, 0, kNoRoot,
                      4 * static_cast<std::uint64_t>(n), 4 * static_cast<std::uint64_t>(n),
                      "Alltoall");
    expect_collective(only(c[15]), CollectiveOp::barrier, 0, kNoRoot, 0, 0, "Barrier");
    EXPECT_EQ(only(c[16]).kind, Kind::collective);  // MPI_Comm_split, over the world
    EXPECT_EQ(only(c[16]).communicator, 0u);

    // The allreduce over the split communicator: its members are the ranks of r's parity.
    const Operation& split = only(c[17]);
    ASSERT_LT(split.communicator, trace.communicators.size());
    EXPECT_NE(split.communicator, 0u);
    std::vector<std::uint32_t> parity;
    for (int q = r % 2; q < n; q += 2) parity.push_back(static_cast<std::uint32_t>(q));
    EXPECT_EQ(trace.communicators[split.communicator].members, parity);
    expect_collective(split, CollectiveOp::allreduce, split.communicator, kNoRoot, 4, 4,
                      "Allreduce over the split communicator");

    EXPECT_TRUE(c[18].operations.empty()) << "MPI_Send to MPI_PROC_NULL";
    // Irecv, Isend, Wait (the send), Test (the receive).
    const Operation& irecv13 = only(c[19]);
    const Operation& isend13 = only(c[20]);
    expect_point_to_point(isend13, Kind::isend, left, 13, 4, "Isend 13");
    EXPECT_EQ(only(c[21]).kind, Kind::isend_complete);
    EXPECT_EQ(only(c[21]).request, isend13.request);
    expect_point_to_point(only(c[22]), Kind::irecv, right, 13, 4, "Test");
    EXPECT_EQ(only(c[22]).request, irecv13.request);
    // Irecv, Isend, Waitany twice: one completes each, in either order.
    const Operation& irecv14 = only(c[23]);
    const Operation& isend14 = only(c[24]);
    std::set<std::uint64_t> completed;
    for (std::size_t k : {25u, 26u}) {
      const Operation& op = only(c[k]);
      completed.insert(op.request);
      if (op.kind == Kind::irecv) expect_point_to_point(op, Kind::irecv, left, 14, 4, "Waitany");
    }
    EXPECT_EQ(completed, (std::set<std::uint64_t>{irecv14.request, isend14.request}));
    // The other collectives.
    const auto n64 = static_cast<std::uint64_t>(n);
    expect_collective(only(c[27]), CollectiveOp::reduce, 0, 0, 8, r == 0 ? 8 : 0, "Reduce");
    expect_collective(only(c[28]), CollectiveOp::scan, 0, kNoRoot, 4, 4, "Scan");
    expect_collective(only(c[29]), CollectiveOp::reduce_scatter, 0, kNoRoot, 4 * n64, 4,
                      "Reduce_scatter");
    expect_collective(only(c[30]), CollectiveOp::allgather, 0, kNoRoot, 4, 4 * n64, "Allgather");
    expect_collective(only(c[31]), CollectiveOp::allgather, 0, kNoRoot, 4, 4 * n64, "Allgatherv");
    expect_collective(only(c[32]), CollectiveOp::gather, 0, 1, 8, r == 1 ? 8 * n64 : 0, "Gatherv");
    expect_collective(only(c[33]), CollectiveOp::scatter, 0, 0, r == 0 ? 4 * n64 : 0, 4, "Scatter");
    expect_collective(only(c[34]), CollectiveOp::scatter, 0, 1, r == 1 ? 8 * n64 : 0, 8,
                      "Scatterv");
    expect_collective(only(c[35]), CollectiveOp::alltoall, 0, kNoRoot, 4 * n64, 4 * n64,
                      "Alltoallv");
    expect_collective(only(c[36]), CollectiveOp::gather, 0, 0, 8, r == 0 ? 8 * n64 : 0,
                      "Gather, in place at the root");
    // A duplicate of the world: the same members, another communicator.
    EXPECT_EQ(only(c[37]).communicator, 0u);
    const Operation& barrier = only(c[38]);
    ASSERT_LT(barrier.communicator, trace.communicators.size());
    EXPECT_NE(barrier.communicator, 0u);
    EXPECT_NE(barrier.communicator, split.communicator);
    EXPECT_EQ(trace.communicators[barrier.communicator].members, world);
    expect_collective(barrier, CollectiveOp::barrier, barrier.communicator, kNoRoot, 0, 0,
                      "Barrier over the duplicate");
    EXPECT_EQ(only(c[39]).communicator, barrier.communicator);
    // MPI_Comm_free of the split communicator.
    EXPECT_EQ(only(c[40]).communicator, split.communicator);
    EXPECT_TRUE(c[41].operations.empty());

    // The phases, around the busy loop and around the split.
    ASSERT_EQ(rank.phases.size(), 2u);
    EXPECT_EQ(rank.phases[0].name, "compute");
    EXPECT_EQ(rank.phases[1].name, "exchange");
    EXPECT_GE(rank.phases[0].begin_ns, c[10].leave_ns);
    EXPECT_LE(rank.phases[0].end_ns, c[11].enter_ns);
    EXPECT_GE(rank.phases[0].end_ns - rank.phases[0].begin_ns, 1'500'000u);
    EXPECT_GE(rank.phases[1].begin_ns, c[14].leave_ns);
    EXPECT_LE(rank.phases[1].begin_ns, c[15].enter_ns);
    EXPECT_GE(rank.phases[1].end_ns, c[17].leave_ns);
    EXPECT_LE(rank.phases[1].end_ns, c[18].enter_ns);
  }

  const auto property = [&](const std::string& key) {
    const auto at = trace.properties.find(key);
    return at == trace.properties.end() ? std::string() : at->second;
  };
  EXPECT_FALSE(property("launcher").empty());
  EXPECT_FALSE(property("host").empty());
  EXPECT_FALSE(property("mpi_library").empty());
  EXPECT_EQ(property("process_time"), process_time ? "thread CPU time" : "");
  EXPECT_GT(std::atof(property("tracer_overhead_ns").c_str()), 0.0)
      << property("tracer_overhead_ns");
  EXPECT_EQ(property("machine"), machine);
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

TEST(TracedProgram, ArchiveHoldsTheKnownSequence) {
  const std::string archive = environment("SONDE_TRACER_TEST_ARCHIVE");
  if (archive.empty()) GTEST_SKIP() << "SONDE_TRACER_TEST_ARCHIVE names no archive";
  const int ranks = std::atoi(environment("SONDE_TRACER_TEST_RANKS").c_str());
  const Trace trace = sonde::trace::read_otf2(archive);
  check_traced_program(trace, ranks, environment("SONDE_TRACER_TEST_MACHINE"),
                       environment("SONDE_TRACER_TEST_PROCESS_TIME") != "0");
}

// ---- run_trace, as `sonde trace` calls it ----

std::filesystem::path work_folder(const std::string& name) {
  const auto folder = std::filesystem::temp_directory_path() / ("sonde-tracer-test-" + name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

TEST(Launch, TracesTheProgramThroughTheLauncher) {
  ASSERT_TRUE(std::filesystem::exists(sonde::tracer::tracer_library()));
  const auto folder = work_folder("launch");
  sonde::tracer::TraceOptions options;
  options.output = (folder / "t.otf2").string();
  options.machine = "test-machine";
  options.command = {SONDE_TRACER_TEST_MPIEXEC, SONDE_TRACER_TEST_NP_FLAG, "2",
                     SONDE_TRACER_TEST_PROGRAM};
  ASSERT_EQ(sonde::tracer::run_trace(options), 0);
  const Trace trace = sonde::trace::read_otf2(options.output);
  // By default the tracer reads process time only where a host's ranks outnumber its processors
  // (two ranks on a one-core machine); the trace says whether it did.
  check_traced_program(trace, 2, "test-machine", trace.properties.count("process_time") > 0);
  EXPECT_NE(trace.properties.at("launcher").find(SONDE_TRACER_TEST_PROGRAM), std::string::npos);
  // A second run replaces the archive, and says so again.
  ASSERT_EQ(sonde::tracer::run_trace(options), 0);
  std::filesystem::remove_all(folder);
}

TEST(Launch, ReturnsTheExitStatusOfAFailingCommand) {
  const auto folder = work_folder("failing");
  sonde::tracer::TraceOptions options;
  options.output = (folder / "t.otf2").string();
  options.command = {"sh", "-c", "exit 3"};
  EXPECT_EQ(sonde::tracer::run_trace(options), 3);
  EXPECT_FALSE(std::filesystem::exists(options.output));
  std::filesystem::remove_all(folder);
}

TEST(Launch, SaysWhyNoArchiveWasWritten) {
  const auto folder = work_folder("no-mpi");
  sonde::tracer::TraceOptions options;
  options.output = (folder / "t.otf2").string();
  options.command = {"true"};
  try {
    sonde::tracer::run_trace(options);
    FAIL() << "no error";
  } catch (const sonde::Error& error) {
    EXPECT_NE(std::string(error.what()).find("did not call MPI_Finalize"), std::string::npos)
        << error.what();
  }
  std::filesystem::remove_all(folder);
}

TEST(Launch, RefusesWhatCannotRun) {
  sonde::tracer::TraceOptions options;
  options.command = {"true"};
  EXPECT_THROW(sonde::tracer::run_trace(options), sonde::Error);  // no -o
  options.output = "/no/such/folder/t.otf2";
  EXPECT_THROW(sonde::tracer::run_trace(options), sonde::Error);
  options.output = (std::filesystem::temp_directory_path() / "t.otf2").string();
  options.command = {"no-such-launcher-of-sonde", "-n", "2"};
  EXPECT_THROW(sonde::tracer::run_trace(options), sonde::Error);
  options.command.clear();
  EXPECT_THROW(sonde::tracer::run_trace(options), sonde::Error);
}

TEST(Launch, PassesTheVariablesToOpenMpi) {
  const std::vector<std::string> command = {"mpirun", "-n", "4", "prog", "-x"};
  EXPECT_EQ(sonde::tracer::launch_command(command, {"LD_PRELOAD", "SONDE_TRACE_OUTPUT"}, true),
            (std::vector<std::string>{"mpirun", "-x", "LD_PRELOAD", "-x", "SONDE_TRACE_OUTPUT",
                                      "-n", "4", "prog", "-x"}));
  EXPECT_EQ(sonde::tracer::launch_command(command, {"LD_PRELOAD"}, false), command);
  EXPECT_FALSE(sonde::tracer::is_open_mpi_launcher("true"));
  EXPECT_FALSE(sonde::tracer::is_open_mpi_launcher("no-such-mpirun"));
  if (std::filesystem::exists("/usr/bin/mpiexec.openmpi")) {
    EXPECT_TRUE(sonde::tracer::is_open_mpi_launcher("/usr/bin/mpiexec.openmpi"));
  }
  if (std::filesystem::exists("/usr/bin/mpiexec.mpich")) {
    EXPECT_FALSE(sonde::tracer::is_open_mpi_launcher("/usr/bin/mpiexec.mpich"));
  }
}

}  // namespace

namespace {

// ---- the tracer's containers ----

TEST(Tables, HandleTableFindsWhatIsLeftAfterManyTakes) {
  sonde::tracer::HandleTable<std::uint64_t> table(4);
  std::map<std::uint64_t, std::uint64_t> model;
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  };
  for (int step = 0; step < 200000; ++step) {
    // Keys like handles: pointers 64 bytes apart, a few hundred live at a time.
    const std::uint64_t key = 0x7f0000000000ull + 64 * (next() % 1000);
    if (next() % 2 == 0) {
      table.insert(key, key + 1);
      model[key] = key + 1;
    } else {
      std::uint64_t value = 0;
      const bool found = table.take(key, value);
      ASSERT_EQ(found, model.count(key) == 1) << step;
      if (found) {
        EXPECT_EQ(value, key + 1);
      }
      model.erase(key);
    }
  }
  for (const auto& [key, value] : model) {
    ASSERT_NE(table.find(key), nullptr);
    EXPECT_EQ(*table.find(key), value);
  }
  EXPECT_EQ(table.find(1), nullptr);
}

TEST(Tables, LogKeepsOrderAcrossChunks) {
  sonde::tracer::Log<std::uint64_t> log;
  EXPECT_EQ(log.size(), 0u);
  log.prepare();
  EXPECT_EQ(log.size(), 0u);
  const std::size_t n = 3 * sonde::tracer::Log<std::uint64_t>::kChunk + 5;
  for (std::size_t i = 0; i < n; ++i) log.push_back(i);
  ASSERT_EQ(log.size(), n);
  EXPECT_EQ(log.back(), n - 1);
  EXPECT_EQ(log[sonde::tracer::Log<std::uint64_t>::kChunk],
            sonde::tracer::Log<std::uint64_t>::kChunk);
  std::size_t expected = 0;
  log.each_part([&](const std::uint64_t* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(values[i], expected++);
  });
  EXPECT_EQ(expected, n);
}

}  // namespace
