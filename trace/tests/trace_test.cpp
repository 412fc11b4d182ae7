#include <gtest/gtest.h>
#include <otf2/otf2.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "trace/otf2_io.hpp"
#include "trace/trace.hpp"

namespace sonde::trace {
namespace {

namespace fs = std::filesystem;
using Kind = Operation::Kind;

Operation p2p(Kind kind, std::uint32_t communicator, std::uint32_t peer, std::uint32_t tag,
              std::uint64_t bytes, std::uint64_t request = 0) {
  Operation op;
  op.kind = kind;
  op.communicator = communicator;
  op.peer = peer;
  op.tag = tag;
  op.bytes = bytes;
  op.request = request;
  return op;
}

// The completion of an isend and the posting of an irecv carry their request alone in OTF2.
Operation request_only(Kind kind, std::uint64_t request) {
  Operation op;
  op.kind = kind;
  op.request = request;
  return op;
}

Operation collective(CollectiveOp type, std::uint32_t communicator, std::uint32_t root,
                     std::uint64_t sent, std::uint64_t received) {
  Operation op;
  op.kind = Kind::collective;
  op.collective = type;
  op.communicator = communicator;
  op.peer = root;
  op.bytes = sent;
  op.bytes_received = received;
  return op;
}

Call call(std::string function, std::uint64_t enter_ns, std::uint64_t leave_ns,
          std::optional<std::uint64_t> process_ns_before, std::vector<Operation> operations,
          std::uint64_t event) {
  Call c;
  c.function = std::move(function);
  c.enter_ns = enter_ns;
  c.leave_ns = leave_ns;
  c.process_ns_before = process_ns_before;
  c.operations = std::move(operations);
  c.event = event;
  return c;
}

// Three ranks with every kind of operation. The events are the positions write_otf2 gives the
// calls' Enters (OTF2 counts from 1; event 1 is the rank's ProgramBegin), worked out by hand from
// the order it writes: phases that begin with a call hold it, metrics precede their Enter.
Trace sample_trace() {
  Trace trace;
  trace.communicators = {{"MPI_COMM_WORLD", {0, 1, 2}}, {"evens", {0, 2}}};
  trace.properties = {{"host", "node01"},
                      {"machine", "laptop"},
                      {"mpi_library", "Open MPI 4.1.4"},
                      {"process_time", "thread CPU time"},
                      {"tracer_overhead_ns", "120"}};
  trace.ranks.resize(3);

  Rank& r0 = trace.ranks[0];
  r0.start_ns = 1000;
  r0.end_ns = 100000;
  r0.phases = {{"setup", 1000, 5000}, {"solve", 5000, 90000}};
  r0.calls = {
      call("MPI_Init", 1000, 2000, std::nullopt, {}, 3),
      call("MPI_Send", 3000, 3500, 900, {p2p(Kind::send, 0, 1, 7, 1024)}, 6),
      // Sendrecv on the sub-communicator: two operations in one call; "solve" begins with it.
      call("MPI_Sendrecv", 5000, 6000, 1400,
           {p2p(Kind::send, 1, 1, 3, 64), p2p(Kind::receive, 1, 1, 3, 64)}, 12),
      call("MPI_Isend", 7000, 7100, 800, {p2p(Kind::isend, 0, 2, 5, 2048, 11)}, 17),
      call("MPI_Irecv", 7200, 7300, 90, {request_only(Kind::irecv_request, 12)}, 21),
      call("MPI_Waitall", 8000, 9000, 650,
           {request_only(Kind::isend_complete, 11), p2p(Kind::irecv, 0, 1, 6, 512, 12)}, 25),
      call("MPI_Bcast", 10000, 12000, 950, {collective(CollectiveOp::broadcast, 0, 0, 4096, 0)},
           30),
      call("MPI_Allreduce", 13000, 15000, 1000,
           {collective(CollectiveOp::allreduce, 1, kNoRoot, 8, 8)}, 35),
      call("MPI_Finalize", 95000, 99000, 79000, {}, 41),
  };
  r0.process_ns_after = 900;

  // No process time at all.
  Rank& r1 = trace.ranks[1];
  r1.start_ns = 1500;
  r1.end_ns = 100500;
  r1.phases = {{"setup", 1500, 4000}};
  r1.calls = {
      call("MPI_Init", 1500, 2500, std::nullopt, {}, 3),
      call("MPI_Recv", 2600, 3600, std::nullopt, {p2p(Kind::receive, 0, 0, 7, 1024)}, 5),
      call("MPI_Send", 7000, 7100, std::nullopt, {p2p(Kind::send, 0, 0, 6, 512)}, 9),
      call("MPI_Bcast", 10000, 12000, std::nullopt,
           {collective(CollectiveOp::broadcast, 0, 0, 0, 4096)}, 12),
      call("MPI_Barrier", 16000, 16500, std::nullopt,
           {collective(CollectiveOp::barrier, 0, kNoRoot, 0, 0)}, 16),
      call("MPI_Finalize", 95000, 99500, std::nullopt, {}, 20),
  };

  // Process time for some calls only, a call that takes no time, a receive before a send in one
  // call, a collective sonde does not model and a phase that takes no time.
  Rank& r2 = trace.ranks[2];
  r2.start_ns = 1200;
  r2.end_ns = 100200;
  r2.phases = {{"checkpoint", 20000, 20000}};
  r2.calls = {
      call("MPI_Init", 1200, 2200, std::nullopt, {}, 2),
      call("MPI_Comm_rank", 2300, 2300, 100, {}, 5),
      call("MPI_Sendrecv", 5000, 6000, std::nullopt,
           {p2p(Kind::receive, 1, 0, 3, 64), p2p(Kind::send, 1, 0, 3, 64)}, 7),
      call("MPI_Comm_split", 6500, 6800, 300, {collective(CollectiveOp::other, 0, kNoRoot, 0, 0)},
           12),
      call("MPI_Finalize", 95000, 99000, 88000, {}, 19),
  };
  return trace;
}

auto fields(const Operation& op) {
  return std::tuple(static_cast<int>(op.kind), op.communicator, op.peer, op.tag, op.bytes,
                    op.bytes_received, op.request, static_cast<int>(op.collective));
}

void expect_same(const Trace& expected, const Trace& actual) {
  ASSERT_EQ(expected.ranks.size(), actual.ranks.size());
  for (std::size_t r = 0; r < expected.ranks.size(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const Rank& e = expected.ranks[r];
    const Rank& a = actual.ranks[r];
    EXPECT_EQ(e.start_ns, a.start_ns);
    EXPECT_EQ(e.end_ns, a.end_ns);
    EXPECT_EQ(e.process_ns_after, a.process_ns_after);
    ASSERT_EQ(e.calls.size(), a.calls.size());
    for (std::size_t k = 0; k < e.calls.size(); ++k) {
      SCOPED_TRACE("call " + std::to_string(k) + " " + e.calls[k].function);
      EXPECT_EQ(e.calls[k].function, a.calls[k].function);
      EXPECT_EQ(e.calls[k].enter_ns, a.calls[k].enter_ns);
      EXPECT_EQ(e.calls[k].leave_ns, a.calls[k].leave_ns);
      EXPECT_EQ(e.calls[k].process_ns_before, a.calls[k].process_ns_before);
      EXPECT_EQ(e.calls[k].event, a.calls[k].event);
      ASSERT_EQ(e.calls[k].operations.size(), a.calls[k].operations.size());
      for (std::size_t o = 0; o < e.calls[k].operations.size(); ++o) {
        EXPECT_EQ(fields(e.calls[k].operations[o]), fields(a.calls[k].operations[o]))
            << "operation " << o;
      }
    }
    ASSERT_EQ(e.phases.size(), a.phases.size());
    for (std::size_t p = 0; p < e.phases.size(); ++p) {
      EXPECT_EQ(e.phases[p].name, a.phases[p].name);
      EXPECT_EQ(e.phases[p].begin_ns, a.phases[p].begin_ns);
      EXPECT_EQ(e.phases[p].end_ns, a.phases[p].end_ns);
    }
  }
  ASSERT_EQ(expected.communicators.size(), actual.communicators.size());
  for (std::size_t c = 0; c < expected.communicators.size(); ++c) {
    EXPECT_EQ(expected.communicators[c].name, actual.communicators[c].name);
    EXPECT_EQ(expected.communicators[c].members, actual.communicators[c].members);
  }
  EXPECT_EQ(expected.properties, actual.properties);
}

// The message of the sonde::Error that `run` throws, or a failure.
std::string error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no sonde::Error was thrown";
  return "";
}

class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() /
              ("sonde-trace-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
               "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path folder_;
};

TEST(CollectiveOpName, NamesTheProfilesUse) {
  EXPECT_STREQ(name(CollectiveOp::allreduce), "allreduce");
  EXPECT_STREQ(name(CollectiveOp::reduce_scatter), "reduce_scatter");
  EXPECT_STREQ(name(CollectiveOp::broadcast), "broadcast");
  EXPECT_STREQ(name(CollectiveOp::other), "other");
}

TEST(MeasuredSeconds, SpansTheEarliestStartToTheLatestEnd) {
  const Trace trace = sample_trace();
  EXPECT_DOUBLE_EQ(trace.measured_seconds(), (100500 - 1000) * 1e-9);
  EXPECT_EQ(Trace{}.measured_seconds(), 0.0);
}

TEST(CheckTrace, AcceptsTheSample) { EXPECT_NO_THROW(check_trace(sample_trace())); }

TEST(CheckTrace, RejectsTimeGoingBackwards) {
  Trace trace = sample_trace();
  trace.ranks[1].calls[1].enter_ns = 2400;  // before MPI_Init's leave at 2500
  const std::string message = error_of([&] { check_trace(trace); });
  EXPECT_NE(message.find("trace: rank 1, call 1 (MPI_Recv, event 5)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("backwards"), std::string::npos) << message;

  Trace inside_out = sample_trace();
  inside_out.ranks[0].calls[2].leave_ns = 4000;  // before its enter at 5000
  EXPECT_NE(error_of([&] { check_trace(inside_out); }).find("rank 0, call 2 (MPI_Sendrecv"),
            std::string::npos);
}

TEST(CheckTrace, RejectsAPeerOutOfItsCommunicator) {
  Trace trace = sample_trace();
  trace.source = "run.otf2";
  trace.ranks[0].calls[2].operations[0].peer = 2;  // "evens" has two ranks
  const std::string message = error_of([&] { check_trace(trace); });
  EXPECT_EQ(message.rfind("run.otf2: rank 0, call 2 (MPI_Sendrecv, event 12)", 0), 0u) << message;
  EXPECT_NE(message.find("peer 2"), std::string::npos) << message;

  Trace root = sample_trace();
  root.ranks[1].calls[3].operations[0].peer = 3;  // the root of MPI_Bcast
  EXPECT_NE(error_of([&] { check_trace(root); }).find("rank 1, call 3 (MPI_Bcast"),
            std::string::npos);

  Trace member = sample_trace();
  member.communicators[1].members = {0, 3};
  EXPECT_NE(error_of([&] { check_trace(member); }).find("communicator 1 ('evens')"),
            std::string::npos);
}

TEST(CheckTrace, RejectsARequestCompletedTwiceOrNeverPosted) {
  Trace twice = sample_trace();
  twice.ranks[0].calls[7].operations.push_back(request_only(Kind::isend_complete, 11));
  std::string message = error_of([&] { check_trace(twice); });
  EXPECT_NE(message.find("rank 0, call 7 (MPI_Allreduce, event 35)"), std::string::npos) << message;
  EXPECT_NE(message.find("completed before"), std::string::npos) << message;

  Trace never = sample_trace();
  never.ranks[0].calls[5].operations[1].request = 13;  // the irecv posted request 12
  message = error_of([&] { check_trace(never); });
  EXPECT_NE(message.find("rank 0, call 5 (MPI_Waitall, event 25)"), std::string::npos) << message;
  EXPECT_NE(message.find("never posted"), std::string::npos) << message;
}

TEST_F(TraceTest, RoundTripsEveryField) {
  const Trace trace = sample_trace();
  const fs::path path = folder_ / "run.otf2";
  write_otf2(trace, path);
  const Trace read = read_otf2(path);
  expect_same(trace, read);
  EXPECT_EQ(read.source, path.string());
}

TEST_F(TraceTest, OtfPrintReadsTheArchive) {
  const fs::path path = folder_ / "run.otf2";
  write_otf2(sample_trace(), path);
  const std::string command = "otf2-print -Werror '" + path.string() + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << output;
  EXPECT_EQ(WEXITSTATUS(status), 0) << output;
  EXPECT_NE(output.find("MPI_SEND"), std::string::npos) << output;
  EXPECT_NE(output.find("MPI_COLLECTIVE_END"), std::string::npos) << output;
  EXPECT_NE(output.find("\"MPI_Sendrecv\""), std::string::npos) << output;
  EXPECT_NE(output.find("\"solve\""), std::string::npos) << output;
}

TEST_F(TraceTest, WritingOverAnArchiveReplacesItWhole) {
  const fs::path path = folder_ / "run.otf2";
  write_otf2(sample_trace(), path);
  Trace smaller;
  smaller.communicators = {{"MPI_COMM_WORLD", {0}}};
  smaller.properties = {{"host", "other"}};
  smaller.ranks.resize(1);
  smaller.ranks[0].start_ns = 10;
  smaller.ranks[0].end_ns = 50;
  smaller.ranks[0].calls = {call("MPI_Barrier", 20, 30, std::nullopt,
                                 {collective(CollectiveOp::barrier, 0, kNoRoot, 0, 0)}, 2)};
  write_otf2(smaller, path);
  expect_same(smaller, read_otf2(path));
  // Only the new archive is left: no event file of the old ranks, no temporary folder.
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(folder_)) {
    names.push_back(fs::relative(entry.path(), folder_).string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"run", "run.def", "run.otf2", "run/0.def", "run/0.evt"}));
}

TEST_F(TraceTest, WriteLeavesAForeignFolderAlone) {
  const fs::path path = folder_ / "heat.otf2";
  fs::create_directories(folder_ / "heat");
  std::ofstream(folder_ / "heat" / "input.dat") << "keep me";
  try {
    write_otf2(sample_trace(), path);
    ADD_FAILURE() << "wrote over a folder holding other files";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::failure);
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(folder_ / "heat" / "input.dat"));
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(TraceTest, ReadingAMissingOrForeignFileFails) {
  const fs::path missing = folder_ / "missing.otf2";
  std::string message = error_of([&] { read_otf2(missing); });
  EXPECT_NE(message.find(missing.string()), std::string::npos) << message;

  const fs::path text = folder_ / "notes.otf2";
  std::ofstream(text) << "not a trace\n";
  message = error_of([&] { read_otf2(text); });
  EXPECT_NE(message.find(text.string()), std::string::npos) << message;
}

TEST_F(TraceTest, ReadingATruncatedEventFileFails) {
  const fs::path path = folder_ / "run.otf2";
  write_otf2(sample_trace(), path);
  const fs::path events = folder_ / "run" / "1.evt";
  fs::resize_file(events, fs::file_size(events) / 2);
  const std::string message = error_of([&] { read_otf2(path); });
  EXPECT_NE(message.find(path.string() + ": rank 1"), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

TEST_F(TraceTest, ReadingAnArchiveWithoutARanksEventsFails) {
  const fs::path path = folder_ / "run.otf2";
  write_otf2(sample_trace(), path);
  fs::remove(folder_ / "run" / "2.evt");
  const std::string message = error_of([&] { read_otf2(path); });
  EXPECT_NE(message.find(path.string() + ": rank 2"), std::string::npos) << message;
}

// An archive written by hand with the OTF2 API, as another tool (Score-P) might write it: one
// rank, the regions MPI_Send (0, paradigm MPI), "compute" (1, a user function) and "iteration"
// (2, a phase by its flag), MPI_COMM_WORLD (0), and a process-time metric (class 0).
void write_by_hand(const fs::path& folder, const std::function<void(OTF2_EvtWriter*)>& events,
                   std::uint64_t declared_events = 0) {
  OTF2_Archive* archive =
      OTF2_Archive_Open(folder.c_str(), "hand", OTF2_FILEMODE_WRITE, OTF2_CHUNK_SIZE_MIN,
                        OTF2_CHUNK_SIZE_MIN, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  ASSERT_NE(archive, nullptr);
  static OTF2_FlushCallbacks flush = {[](void*, OTF2_FileType, OTF2_LocationRef, void*,
                                         bool) -> OTF2_FlushType { return OTF2_FLUSH; },
                                      nullptr};
  ASSERT_EQ(OTF2_Archive_SetFlushCallbacks(archive, &flush, nullptr), OTF2_SUCCESS);
  ASSERT_EQ(OTF2_Archive_SetSerialCollectiveCallbacks(archive), OTF2_SUCCESS);
  ASSERT_EQ(OTF2_Archive_OpenEvtFiles(archive), OTF2_SUCCESS);
  OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive, 0);
  events(writer);
  ASSERT_EQ(OTF2_Archive_CloseEvtWriter(archive, writer), OTF2_SUCCESS);
  ASSERT_EQ(OTF2_Archive_CloseEvtFiles(archive), OTF2_SUCCESS);
  OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive);
  OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000, 0, 1000, OTF2_UNDEFINED_TIMESTAMP);
  const char* strings[] = {"",         "MPI_Send",       "compute",      "node",
                           "rank 0",   "MPI_COMM_WORLD", "process_time", "ns",
                           "iteration"};
  for (OTF2_StringRef s = 0; s < 9; ++s) OTF2_GlobalDefWriter_WriteString(defs, s, strings[s]);
  OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, 3, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
  OTF2_GlobalDefWriter_WriteLocationGroup(defs, 0, 4, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                          OTF2_UNDEFINED_LOCATION_GROUP);
  OTF2_GlobalDefWriter_WriteLocation(defs, 0, 4, OTF2_LOCATION_TYPE_CPU_THREAD, declared_events, 0);
  OTF2_GlobalDefWriter_WriteRegion(defs, 0, 1, 1, 0, OTF2_REGION_ROLE_POINT2POINT,
                                   OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion(defs, 1, 2, 2, 0, OTF2_REGION_ROLE_FUNCTION,
                                   OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
  OTF2_GlobalDefWriter_WriteRegion(defs, 2, 8, 8, 0, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER,
                                   OTF2_REGION_FLAG_PHASE, 0, 0, 0);
  const OTF2_MetricMemberRef member = 0;
  OTF2_GlobalDefWriter_WriteMetricMember(defs, member, 6, 0, OTF2_METRIC_TYPE_OTHER,
                                         OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
                                         OTF2_BASE_DECIMAL, 0, 7);
  OTF2_GlobalDefWriter_WriteMetricClass(defs, 0, 1, &member, OTF2_METRIC_SYNCHRONOUS_STRICT,
                                        OTF2_RECORDER_KIND_CPU);
  const std::uint64_t locations[] = {0};
  OTF2_GlobalDefWriter_WriteGroup(defs, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 1, locations);
  OTF2_GlobalDefWriter_WriteGroup(defs, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                  OTF2_GROUP_FLAG_NONE, 1, locations);
  OTF2_GlobalDefWriter_WriteComm(defs, 0, 5, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
  ASSERT_EQ(OTF2_Archive_CloseGlobalDefWriter(archive, defs), OTF2_SUCCESS);
  ASSERT_EQ(OTF2_Archive_Close(archive), OTF2_SUCCESS);
}

void metric(OTF2_EvtWriter* w, OTF2_TimeStamp time, std::uint64_t process_ns) {
  const OTF2_Type type = OTF2_TYPE_UINT64;
  OTF2_MetricValue value;
  value.unsigned_int = process_ns;
  OTF2_EvtWriter_Metric(w, nullptr, time, 0, 1, &type, &value);
}

TEST_F(TraceTest, ReadsAForeignArchiveWithComputationPhasesAndMetrics) {
  // As Score-P records it: the metric at every Enter and Leave, computation regions around the
  // MPI calls, a phase flagged as one.
  write_by_hand(folder_, [](OTF2_EvtWriter* w) {
    metric(w, 10, 0);
    OTF2_EvtWriter_Enter(w, nullptr, 10, 1);  // computation, ignored
    OTF2_EvtWriter_Enter(w, nullptr, 15, 2);  // the phase
    metric(w, 20, 400);
    OTF2_EvtWriter_Enter(w, nullptr, 20, 0);
    OTF2_EvtWriter_MpiSend(w, nullptr, 20, 0, 0, 9, 100);
    metric(w, 30, 450);  // process time inside MPI_Send: not the computation's
    OTF2_EvtWriter_Leave(w, nullptr, 30, 0);
    OTF2_EvtWriter_Leave(w, nullptr, 35, 2);
    metric(w, 40, 700);
    OTF2_EvtWriter_Leave(w, nullptr, 40, 1);
  });
  const Trace trace = read_otf2(folder_ / "hand.otf2");
  ASSERT_EQ(trace.ranks.size(), 1u);
  const Rank& rank = trace.ranks[0];
  EXPECT_EQ(rank.start_ns, 10u);
  EXPECT_EQ(rank.end_ns, 40u);
  ASSERT_EQ(rank.calls.size(), 1u);
  EXPECT_EQ(rank.calls[0].function, "MPI_Send");
  EXPECT_EQ(rank.calls[0].event, 5u);
  EXPECT_EQ(fields(rank.calls[0].operations.at(0)), fields(p2p(Kind::send, 0, 0, 9, 100)));
  EXPECT_EQ(rank.calls[0].process_ns_before, std::optional<std::uint64_t>(400));
  EXPECT_EQ(rank.process_ns_after, std::optional<std::uint64_t>(250));
  ASSERT_EQ(rank.phases.size(), 1u);
  EXPECT_EQ(rank.phases[0].name, "iteration");
  EXPECT_EQ(rank.phases[0].begin_ns, 15u);
  EXPECT_EQ(rank.phases[0].end_ns, 35u);
  ASSERT_EQ(trace.communicators.size(), 1u);
  EXPECT_EQ(trace.communicators[0].name, "MPI_COMM_WORLD");
}

TEST_F(TraceTest, WriteRefusesWhatItCannotKeep) {
  const fs::path path = folder_ / "run.otf2";
  Trace bad_name = sample_trace();
  bad_name.properties["MPI-Library"] = "MPICH";
  EXPECT_NE(error_of([&] { write_otf2(bad_name, path); }).find("'MPI-Library'"), std::string::npos);
  Trace bad_peer = sample_trace();
  bad_peer.ranks[1].calls[2].operations[0].peer = 9;
  EXPECT_NE(error_of([&] { write_otf2(bad_peer, path); }).find("rank 1, call 2 (MPI_Send"),
            std::string::npos);
  EXPECT_TRUE(fs::is_empty(folder_));
}

TEST_F(TraceTest, ReadingMalformedEventsFailsNamingTheEvent) {
  const fs::path path = folder_ / "hand.otf2";
  struct Case {
    const char* name;
    std::function<void(OTF2_EvtWriter*)> events;
    const char* where;
    const char* problem;
  };
  const std::vector<Case> cases = {
      {"an MPI event outside a call",
       [](OTF2_EvtWriter* w) {
         OTF2_EvtWriter_Enter(w, nullptr, 10, 1);
         OTF2_EvtWriter_MpiSend(w, nullptr, 20, 0, 0, 9, 100);
         OTF2_EvtWriter_Leave(w, nullptr, 30, 1);
       },
       ": rank 0, event 2", "outside any MPI call"},
      {"a Leave without its Enter",
       [](OTF2_EvtWriter* w) { OTF2_EvtWriter_Leave(w, nullptr, 30, 0); }, ": rank 0, event 1",
       "without its Enter"},
      {"an unknown communicator",
       [](OTF2_EvtWriter* w) {
         OTF2_EvtWriter_Enter(w, nullptr, 20, 0);
         OTF2_EvtWriter_MpiSend(w, nullptr, 20, 0, 7, 9, 100);
         OTF2_EvtWriter_Leave(w, nullptr, 30, 0);
       },
       ": rank 0, event 2", "communicator 7"},
      {"a request never posted",
       [](OTF2_EvtWriter* w) {
         OTF2_EvtWriter_Enter(w, nullptr, 20, 0);
         OTF2_EvtWriter_MpiIsendComplete(w, nullptr, 30, 5);
         OTF2_EvtWriter_Leave(w, nullptr, 30, 0);
       },
       ": rank 0, event 2", "never posted"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    fs::remove_all(folder_);
    fs::create_directories(folder_);
    write_by_hand(folder_, c.events);
    const std::string message = error_of([&] { read_otf2(path); });
    EXPECT_NE(message.find(path.string() + c.where), std::string::npos) << message;
    EXPECT_NE(message.find(c.problem), std::string::npos) << message;
  }
}

TEST_F(TraceTest, ReadingEventsCutAtARecordsEndFails) {
  // The definitions promise 6 events; the file holds 3, whole.
  write_by_hand(
      folder_,
      [](OTF2_EvtWriter* w) {
        OTF2_EvtWriter_Enter(w, nullptr, 20, 0);
        OTF2_EvtWriter_MpiSend(w, nullptr, 20, 0, 0, 9, 100);
        OTF2_EvtWriter_Leave(w, nullptr, 30, 0);
      },
      6);
  const fs::path path = folder_ / "hand.otf2";
  const std::string message = error_of([&] { read_otf2(path); });
  EXPECT_NE(message.find(path.string() + ": rank 0, after event 3"), std::string::npos) << message;
  EXPECT_NE(message.find("truncated"), std::string::npos) << message;
}

}  // namespace
}  // namespace sonde::trace
