// The replay on hand-built traces whose answers are worked out by hand (in microseconds), and
// the costs read from a recorded profile.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/error.hpp"
#include "replay/costs.hpp"
#include "replay/engine.hpp"

namespace sonde::replay {
namespace {

using trace::CollectiveOp;
using trace::Operation;
constexpr double kUs = 1e-6;

// A trace built call by call: each rank's calls are given by the computation before them (µs,
// as both wall and process time) and their operations; the recorded call times are made up
// (the replay does not read them except for calls without operations).
class Builder {
 public:
  explicit Builder(std::uint32_t ranks) {
    trace_.ranks.resize(ranks);
    trace::Communicator world{"MPI_COMM_WORLD", {}};
    for (std::uint32_t r = 0; r < ranks; ++r) world.members.push_back(r);
    trace_.communicators.push_back(world);
    clock_.assign(ranks, 0);
  }
  Builder& call(std::uint32_t rank, double compute_us, const std::string& function,
                std::vector<Operation> operations) {
    trace::Call call;
    call.function = function;
    const auto compute_ns = static_cast<std::uint64_t>(compute_us * 1000);
    call.process_ns_before = compute_ns;
    call.enter_ns = clock_[rank] + compute_ns;
    call.leave_ns = call.enter_ns + 1000;
    clock_[rank] = call.leave_ns;
    call.operations = std::move(operations);
    call.event = trace_.ranks[rank].calls.size() * 2;
    trace_.ranks[rank].calls.push_back(call);
    trace_.ranks[rank].end_ns = clock_[rank];
    return *this;
  }
  // Computation after the last call.
  Builder& tail(std::uint32_t rank, double compute_us) {
    const auto ns = static_cast<std::uint64_t>(compute_us * 1000);
    trace_.ranks[rank].process_ns_after = ns;
    trace_.ranks[rank].end_ns = clock_[rank] + ns;
    return *this;
  }
  const trace::Trace& get() const { return trace_; }

 private:
  trace::Trace trace_;
  std::vector<std::uint64_t> clock_;
};

Operation send(std::uint32_t to, std::uint64_t bytes, std::uint32_t tag = 0) {
  Operation op;
  op.kind = Operation::Kind::send;
  op.peer = to;
  op.bytes = bytes;
  op.tag = tag;
  return op;
}
Operation receive(std::uint32_t from, std::uint64_t bytes, std::uint32_t tag = 0) {
  Operation op = send(from, bytes, tag);
  op.kind = Operation::Kind::receive;
  return op;
}
Operation with_request(Operation op, Operation::Kind kind, std::uint64_t request) {
  op.kind = kind;
  op.request = request;
  return op;
}
Operation collective(CollectiveOp which, std::uint64_t bytes = 0) {
  Operation op;
  op.kind = Operation::Kind::collective;
  op.collective = which;
  op.peer = trace::kNoRoot;
  op.bytes = bytes;
  return op;
}

// Messages cost a + m b; collectives a fixed time each; no ExtraP barrier.
Costs linear_costs(double latency_us, double us_per_byte, double collective_us = 2) {
  Costs costs;
  costs.message = [=](double bytes, Link) { return (latency_us + bytes * us_per_byte) * kUs; };
  costs.collective = [=](CollectiveOp, std::uint32_t, double, Link, std::uint32_t) {
    return CollectiveCost{collective_us * kUs, "fixed"};
  };
  return costs;
}

TEST(Replay, PingPongIsTwoMessagesAndTheComputationBetween) {
  // Rank 0 computes 10 µs and sends 100 B (3 µs: 2 + 100 x 0.01); rank 1 receives it at 13,
  // computes 5, answers at 18, and rank 0 has it at 21.
  Builder b(2);
  b.call(0, 10, "MPI_Send", {send(1, 100)}).call(0, 0, "MPI_Recv", {receive(1, 100)});
  b.call(1, 0, "MPI_Recv", {receive(0, 100)}).call(1, 5, "MPI_Send", {send(0, 100)});
  const Result result = replay(b.get(), linear_costs(2, 0.01), {});
  EXPECT_NEAR(result.predicted_seconds, 21 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[0].end, 21 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[0].compute, 10 * kUs, 1e-12);
  // Rank 1 waited 10 µs for the first message beyond the 3 µs it takes to arrive.
  EXPECT_NEAR(result.ranks[1].wait, 10 * kUs, 1e-12);
  // The path: rank 0's 10 µs, the message (3), rank 1's 5, the answer (3).
  EXPECT_NEAR(result.critical_compute, 15 * kUs, 1e-12);
  EXPECT_NEAR(result.critical_communication, 6 * kUs, 1e-12);
  ASSERT_EQ(result.critical_path.size(), 4u);
  EXPECT_EQ(result.critical_path[1].rank, 1u);
  EXPECT_EQ(result.critical_path[3].rank, 0u);
}

TEST(Replay, RingWaitsForTheSlowestPredecessor) {
  // Rank r computes 10 r µs, then MPI_Sendrecv to r+1 from r-1 (1 µs a message). Rank 0 waits
  // for rank 3's message: 30 + 1.
  Builder b(4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    b.call(r, 10.0 * r, "MPI_Sendrecv", {send((r + 1) % 4, 0), receive((r + 3) % 4, 0)});
  }
  const Result result = replay(b.get(), linear_costs(1, 0), {});
  EXPECT_NEAR(result.ranks[0].end, 31 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[1].end, 11 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[2].end, 21 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[3].end, 31 * kUs, 1e-12);
  EXPECT_NEAR(result.predicted_seconds, 31 * kUs, 1e-12);
}

TEST(Replay, BarrierWithOneLateRank) {
  Builder b(3);
  b.call(0, 1, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  b.call(1, 1, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  b.call(2, 50, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  const Result result = replay(b.get(), linear_costs(1, 0, 2), {});
  EXPECT_NEAR(result.predicted_seconds, 52 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[0].wait, 49 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[0].communication, 2 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[2].wait, 0, 1e-12);
  // The path runs through the late rank's computation.
  EXPECT_EQ(result.critical_path.back().rank, 2u);
  EXPECT_NEAR(result.critical_compute, 50 * kUs, 1e-12);
}

TEST(Replay, ExtrapLinearBarrier) {
  // Shanmugam et al. (1995), Table 1: entry 1, exit 1, model 5 µs, messages of 128 B costing
  // 2 + 128 x 0.01 = 3.28 µs. The master lowers at 50 + 1 + 3.28 + 5 = 59.28 and leaves at
  // 60.28; the slaves' release arrives 3.28 later, and they leave 1 after: 63.56.
  Builder b(3);
  b.call(0, 1, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  b.call(1, 1, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  b.call(2, 50, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  Costs costs = linear_costs(2, 0.01);
  ExtrapBarrier barrier;
  barrier.entry = 1 * kUs;
  barrier.exit = 1 * kUs;
  barrier.model = 5 * kUs;
  barrier.message_bytes = 128;
  costs.extrap_barrier = barrier;
  const Result result = replay(b.get(), costs, {});
  EXPECT_NEAR(result.ranks[0].end, 60.28 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[1].end, 63.56 * kUs, 1e-12);
  EXPECT_NEAR(result.predicted_seconds, 63.56 * kUs, 1e-12);
}

TEST(Replay, CriticalPathMovesWhenTheNetworkChanges) {
  // Rank 0 computes 100 µs and sends 0 B to rank 2; rank 1 computes 10 and sends 10 kB. On a
  // fast network (0.001 µs/B) rank 0's computation is the path (101); on a slow one (0.1 µs/B)
  // rank 1's message is (10 + 1 + 1000 = 1011).
  Builder b(3);
  b.call(0, 100, "MPI_Send", {send(2, 0)});
  b.call(1, 10, "MPI_Send", {send(2, 10000)});
  b.call(2, 0, "MPI_Recv", {receive(0, 0)}).call(2, 0, "MPI_Recv", {receive(1, 10000)});
  const Result fast = replay(b.get(), linear_costs(1, 0.001), {});
  EXPECT_NEAR(fast.predicted_seconds, 101 * kUs, 1e-12);
  EXPECT_EQ(fast.critical_path.back().rank, 0u);
  EXPECT_NEAR(fast.critical_compute, 100 * kUs, 1e-12);
  const Result slow = replay(b.get(), linear_costs(1, 0.1), {});
  EXPECT_NEAR(slow.predicted_seconds, 1011 * kUs, 1e-12);
  EXPECT_EQ(slow.critical_path.back().rank, 1u);
  EXPECT_NEAR(slow.critical_compute, 10 * kUs, 1e-12);
  EXPECT_NEAR(slow.critical_communication, 1001 * kUs, 1e-12);
}

TEST(Replay, NonBlockingExchangeCompletesInWaitall) {
  // Each rank posts an Irecv and an Isend of 100 B (3 µs), computes (5 and 20 µs) and waits: the
  // messages arrived at 3, so each leaves its Waitall on entering it.
  Builder b(2);
  for (std::uint32_t r = 0; r < 2; ++r) {
    const std::uint32_t peer = 1 - r;
    b.call(r, 0, "MPI_Irecv", {with_request(receive(peer, 0), Operation::Kind::irecv_request, 1)});
    b.call(r, 0, "MPI_Isend", {with_request(send(peer, 100), Operation::Kind::isend, 2)});
    b.call(r, r == 0 ? 5 : 20, "MPI_Waitall",
           {with_request(send(peer, 100), Operation::Kind::isend_complete, 2),
            with_request(receive(peer, 100), Operation::Kind::irecv, 1)});
  }
  const Result result = replay(b.get(), linear_costs(2, 0.01), {});
  EXPECT_NEAR(result.ranks[0].end, 5 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[1].end, 20 * kUs, 1e-12);
}

TEST(Replay, RanksSharingAProcessorComputeInTurn) {
  // LBF's process groups: two ranks of 10 and 30 µs on one processor share it until the first
  // is done (at 20), then the second has it alone (20 more): 40. On two processors: 30.
  Builder b(2);
  b.call(0, 10, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  b.call(1, 30, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  Options shared;
  shared.placement = block_placement(2, 2);
  shared.placement.processors_per_node = 1;
  EXPECT_NEAR(replay(b.get(), linear_costs(1, 0, 0), shared).predicted_seconds, 40 * kUs, 1e-12);
  shared.placement.processors_per_node = 2;
  EXPECT_NEAR(replay(b.get(), linear_costs(1, 0, 0), shared).predicted_seconds, 30 * kUs, 1e-12);
}

TEST(Replay, SpeedRatioScalesComputationOnly) {
  Builder b(2);
  b.call(0, 10, "MPI_Send", {send(1, 0)});
  b.call(1, 0, "MPI_Recv", {receive(0, 0)});
  Options options;
  options.speed_ratio = 0.41;  // ExtraP's Sun 4 to CM-5 MipsRatio (1995, section 3.3.1)
  EXPECT_NEAR(replay(b.get(), linear_costs(1, 0), options).predicted_seconds, 5.1 * kUs, 1e-12);
}

TEST(Replay, PhasesScaleByTheirOwnRatio) {
  // Rank 0's 100 µs before its send lie 40 in phase "sweep" (ratio 0.5) and 60 outside it (the
  // machine's ratio 2): 40 x 0.5 + 60 x 2 = 140, and the message 1 µs.
  Builder b(2);
  b.call(0, 100, "MPI_Send", {send(1, 0)});
  b.call(1, 0, "MPI_Recv", {receive(0, 0)});
  trace::Trace t = b.get();
  t.ranks[0].phases.push_back({"sweep", 10000, 50000});
  Options options;
  options.speed_ratio = 2;
  options.phase_speed_ratio["sweep"] = 0.5;
  EXPECT_NEAR(replay(t, linear_costs(1, 0), options).predicted_seconds, 141 * kUs, 1e-12);
  options.phase_speed_ratio = {{"other", 0.5}};
  EXPECT_NEAR(replay(t, linear_costs(1, 0), options).predicted_seconds, 201 * kUs, 1e-12);
}

TEST(Replay, ProcessTimeRatherThanWallTime) {
  // The gap before the send lasted 100 µs of wall time, of which the rank computed 10.
  Builder b(2);
  b.call(0, 100, "MPI_Send", {send(1, 0)});
  b.call(1, 0, "MPI_Recv", {receive(0, 0)});
  trace::Trace t = b.get();
  t.ranks[0].calls[0].process_ns_before = 10000;
  EXPECT_NEAR(replay(t, linear_costs(1, 0), {}).predicted_seconds, 11 * kUs, 1e-12);
  Options wall;
  wall.use_process_time = false;
  EXPECT_NEAR(replay(t, linear_costs(1, 0), wall).predicted_seconds, 101 * kUs, 1e-12);
}

TEST(Replay, MessagesLeavingANodeShareItsLink) {
  // Ranks 0 and 1 on node 0 each send 1000 B to node 1 at once; the link takes 0.01 µs/B, so the
  // second message waits for the first's 10 µs: arrivals at 11 and 21.
  Builder b(4);
  b.call(0, 0, "MPI_Send", {send(2, 1000)});
  b.call(1, 0, "MPI_Send", {send(3, 1000)});
  b.call(2, 0, "MPI_Recv", {receive(0, 1000)});
  b.call(3, 0, "MPI_Recv", {receive(1, 1000)});
  Costs costs = linear_costs(1, 0.01);
  costs.seconds_per_byte_between_nodes = [](double) { return 0.01 * kUs; };
  Options options;
  options.placement = block_placement(4, 2);
  const Result result = replay(b.get(), costs, options);
  EXPECT_NEAR(result.ranks[2].end, 11 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[3].end, 21 * kUs, 1e-12);
  // Within one node nothing is shared.
  EXPECT_NEAR(replay(b.get(), costs, {}).predicted_seconds, 11 * kUs, 1e-12);
}

TEST(Replay, SkipsInitAndFinalize) {
  Builder b(2);
  for (std::uint32_t r = 0; r < 2; ++r) b.call(r, 0, "MPI_Init", {});
  b.call(0, 7, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  b.call(1, 3, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  for (std::uint32_t r = 0; r < 2; ++r) b.call(r, 4, "MPI_Finalize", {});
  const Result result = replay(b.get(), linear_costs(1, 0, 2), {});
  EXPECT_NEAR(result.predicted_seconds, 13 * kUs, 1e-12);  // 7 + 2 + 4
}

TEST(Replay, ASendWithoutItsReceiveIsNamed) {
  Builder b(2);
  b.call(0, 0, "MPI_Send", {send(1, 8, 7)});
  b.call(1, 0, "MPI_Barrier", {});
  try {
    replay(b.get(), linear_costs(1, 0), {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("rank 0, call 0 (MPI_Send"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find("no receive"), std::string::npos) << error.what();
  }
}

TEST(Replay, ADeadlockIsNamed) {
  // Both ranks receive first: nobody ever sends.
  Builder b(2);
  b.call(0, 0, "MPI_Recv", {receive(1, 8)}).call(0, 0, "MPI_Send", {send(1, 8)});
  b.call(1, 0, "MPI_Recv", {receive(0, 8)}).call(1, 0, "MPI_Send", {send(0, 8)});
  try {
    replay(b.get(), linear_costs(1, 0), {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("deadlocks"), std::string::npos) << message;
    EXPECT_NE(message.find("waits for a message from rank 1"), std::string::npos) << message;
  }
}

TEST(Replay, CollectivesThatDisagreeAreNamed) {
  Builder b(2);
  b.call(0, 0, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  b.call(1, 0, "MPI_Allreduce", {collective(CollectiveOp::allreduce, 8)});
  EXPECT_THROW(replay(b.get(), linear_costs(1, 0), {}), Error);
  Builder missing(2);
  missing.call(0, 0, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  missing.call(1, 0, "MPI_Comm_rank", {});
  try {
    replay(missing.get(), linear_costs(1, 0), {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no partner on rank 1"), std::string::npos)
        << error.what();
  }
}

TEST(Costs, TableInterpolatesBetweenMeasuredSizes) {
  const std::vector<std::pair<double, double>> table{{0, 1e-6}, {1000, 2e-6}, {2000, 4e-6}};
  EXPECT_DOUBLE_EQ(interpolate_table(table, 500), 1.5e-6);
  EXPECT_DOUBLE_EQ(interpolate_table(table, 1500), 3e-6);
  EXPECT_DOUBLE_EQ(interpolate_table(table, 3000), 6e-6);  // the last slope on
  EXPECT_DOUBLE_EQ(interpolate_table(table, 0), 1e-6);
}

TEST(Costs, FromARecordedProfile) {
  // machines/epyc-vm.yaml: a two-rank run (collectives measured at n = 2 only).
  const profile::Profile machine = profile::read_profile("machines/epyc-vm.yaml");
  CostSources sources;
  sources.within_node = &machine;
  sources.within_node_file = "machines/epyc-vm.yaml";
  const Costs costs = costs_from_profiles(sources);
  EXPECT_DOUBLE_EQ(costs.message(4096, Link::within_node), machine.point_to_point->seconds(4096));
  // At n = 2 the measured allreduce; at n = 4 (not measured) recursive doubling's two rounds of
  // point-to-point, and said to be derived.
  const CollectiveCost two = costs.collective(CollectiveOp::allreduce, 2, 8, Link::within_node, 1);
  EXPECT_DOUBLE_EQ(two.seconds, machine.collectives.at("allreduce").seconds(2, 8));
  const CollectiveCost four = costs.collective(CollectiveOp::allreduce, 4, 8, Link::within_node, 1);
  EXPECT_DOUBLE_EQ(four.seconds, 2 * machine.point_to_point->seconds(8));
  EXPECT_NE(four.how.find("derived"), std::string::npos) << four.how;
  // Messages between nodes need a network.
  EXPECT_THROW(costs.message(8, Link::between_nodes), Error);
  // Scaled: half the latency, twice the bandwidth.
  sources.latency_scale = 0.5;
  sources.bandwidth_scale = 2;
  const Costs scaled = costs_from_profiles(sources);
  const double t0 = machine.point_to_point->seconds(0);
  EXPECT_NEAR(scaled.message(1 << 20, Link::within_node),
              0.5 * t0 + (machine.point_to_point->seconds(1 << 20) - t0) / 2, 1e-15);
  // The table: the median of the measured half round trips at a measured size.
  sources.latency_scale = sources.bandwidth_scale = 1;
  sources.messages = MessageModel::table;
  const Costs table = costs_from_profiles(sources);
  const auto& measured = machine.point_to_point->measurements.front();
  std::vector<double> at_size;
  for (const auto& m : machine.point_to_point->measurements) {
    if (m.bytes == measured.bytes) at_size.push_back(m.time.value);
  }
  std::sort(at_size.begin(), at_size.end());
  EXPECT_DOUBLE_EQ(table.message(measured.bytes, Link::within_node), at_size[at_size.size() / 2]);
}

TEST(Costs, BeyondTheMeasuredCommunicatorsTheGrowthAcrossNodesAsPredictTakesIt) {
  // Nodes of 8 cores; an allreduce by recursive doubling, 0.25 us a round inside a node and
  // 2.25 us a round between nodes (3, 5.25 and 7.5 us at 16, 32 and 64 ranks), whatever its
  // size up to 8 B. The form over every n, 0.12 n us, would double the 7.5 us at 128 ranks; one
  // more round between nodes gives 9.75 us, as in `sonde predict`.
  profile::Profile machine = profile::read_profile("machines/epyc-vm.yaml");
  machine.machine.cores_per_node = 8;
  profile::Collective rounds;
  for (const auto& [n, seconds] : std::vector<std::pair<std::uint64_t, double>>{
           {2, 0.25e-6}, {4, 0.5e-6}, {8, 0.75e-6}, {16, 3e-6}, {32, 5.25e-6}, {64, 7.5e-6}}) {
    for (const double bytes : {0.0, 8.0}) {
      profile::Quantity t;
      t.value = seconds;
      t.unit = "s";
      rounds.measurements.push_back({n, bytes, t});
    }
  }
  rounds.t0.unit = "s";
  rounds.t0.terms = {profile::Term{"n", 0.12e-6, 0, std::nullopt}};
  machine.collectives["allreduce"] = rounds;
  CostSources sources;
  sources.within_node = &machine;
  sources.within_node_file = "made-up.yaml";
  sources.between_nodes = &machine;  // one profile for both sides
  sources.between_nodes_file = "made-up.yaml";
  const Costs costs = costs_from_profiles(sources);
  // 128 ranks on 16 nodes.
  const CollectiveCost grown =
      costs.collective(CollectiveOp::allreduce, 128, 8, Link::between_nodes, 16);
  EXPECT_NEAR(grown.seconds, 9.75e-6, 1e-12);
  EXPECT_NE(grown.how.find("across nodes of 8 cores"), std::string::npos) << grown.how;
  // The same 128 ranks placed on one node (as replay places a trace by default): no node is
  // crossed, the form's growth, 15 us.
  EXPECT_NEAR(costs.collective(CollectiveOp::allreduce, 128, 8, Link::within_node, 1).seconds,
              15e-6, 1e-12);
  // On nodes of one core, the form's growth from the point at 64: 15 us.
  machine.machine.cores_per_node = 1;
  EXPECT_NEAR(costs_from_profiles(sources)
                  .collective(CollectiveOp::allreduce, 128, 8, Link::between_nodes, 16)
                  .seconds,
              15e-6, 1e-12);
}

TEST(Costs, ExtrapTable3OnTheCm5) {
  // Shanmugam et al. (1995), Table 3: MipsRatio 0.41 from the Sun 4's 1.1360 and the CM-5's
  // 2.7645 scalar Mflop/s; a barrier on the CM-5 with BarrierModelTime 5 µs and the others absent
  // (0), its 128 B messages at 10 µs + 128 x 0.118 µs = 25.104 µs: the master lowers at
  // 25.104 + 5 = 30.104 µs after the last arrival and leaves then, the others 25.104 µs later.
  const profile::Profile sun4 = profile::read_profile("machines/sun4.yaml");
  const profile::Profile cm5 = profile::read_profile("machines/cm-5.yaml");
  EXPECT_NEAR(mips_ratio(sun4, "sun4.yaml", cm5, "cm-5.yaml"), 0.41, 0.001);
  CostSources sources;
  sources.within_node = &cm5;
  sources.within_node_file = "machines/cm-5.yaml";
  sources.extrap_barrier = true;
  const Costs costs = costs_from_profiles(sources);
  ASSERT_TRUE(costs.extrap_barrier);
  EXPECT_DOUBLE_EQ(costs.extrap_barrier->model, 5e-6);
  EXPECT_NEAR(costs.message(128, Link::within_node), 25.104 * kUs, 1e-12);
  Builder b(4);
  for (std::uint32_t r = 0; r < 4; ++r) {
    b.call(r, 0, "MPI_Barrier", {collective(CollectiveOp::barrier)});
  }
  const Result result = replay(b.get(), costs, {});
  EXPECT_NEAR(result.ranks[0].end, 30.104 * kUs, 1e-12);
  EXPECT_NEAR(result.ranks[3].end, 55.208 * kUs, 1e-12);
}

TEST(Costs, MemoryRatioIsTheDramBandwidthsPerCore) {
  // The 16-core node's DRAM triad at 16 threads per core against the 2-core VM's at 2: a
  // memory-bound computation traced on the VM takes bw(VM) / bw(node) as long on the node.
  const profile::Profile vm = profile::read_profile("machines/epyc-vm.yaml");
  const profile::Profile node = profile::read_profile("machines/h100-host-16c-b.yaml");
  auto per_core = [](const profile::Profile& p) {
    for (const auto& level : p.memory) {
      if (level.name == "DRAM") {
        const auto [key, best] = profile::best_bandwidth(level);
        return best->value / profile::bandwidth_threads(key);
      }
    }
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(memory_ratio(vm, "vm", node, "node"), per_core(vm) / per_core(node));
  EXPECT_THROW(memory_ratio(profile::read_profile("machines/cm-5.yaml"), "cm-5", node, "node"),
               Error);
}

TEST(Costs, AProfileWithoutPointToPointIsRefused) {
  profile::Profile empty;
  CostSources sources;
  sources.within_node = &empty;
  sources.within_node_file = "x.yaml";
  try {
    costs_from_profiles(sources);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("x.yaml"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace sonde::replay
