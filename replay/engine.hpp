// The replay: a trace's program activity graph run on a target by the earliest-possible-time
// algorithm of Eom and Hollingsworth (1998). Each rank's computation between MPI calls is kept
// (its process time where the trace has it, scaled by ExtraP's processor speed ratio, Shanmugam,
// Malony and Mohr (1995)), and every MPI call costs what the target's models say: a receive ends
// when its message arrives (the send's start plus the half round trip), a collective when its
// last member arrives plus the collective's time. Ranks placed on one node share its processors
// fairly (LBF's process groups, with an infinitely small quantum), and messages leaving a node
// share its link.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "replay/costs.hpp"
#include "trace/trace.hpp"

namespace sonde::replay {

// Where each rank runs: node_of_rank[r], and how many processors each node has (0: as many as
// it needs, one process per processor).
struct Placement {
  std::vector<std::uint32_t> node_of_rank;
  std::uint32_t processors_per_node = 0;
  std::uint32_t nodes() const;
};

// n ranks, `per_node` to a node: in blocks (ranks 0..k-1 on node 0) or round robin (rank r on
// node r mod m).
Placement block_placement(std::uint32_t ranks, std::uint32_t per_node);
Placement round_robin_placement(std::uint32_t ranks, std::uint32_t nodes);

struct Options {
  // Target computation time over traced computation time: ExtraP's MipsRatio (1995, section
  // 3.3.1), e.g. the traced machine's peak over the target's.
  double speed_ratio = 1;
  // The same per phase the program marked (sonde/phase.h): the computation of a gap that lies in
  // a phase (by its share of the gap's wall time) is scaled by the phase's ratio, the rest by
  // speed_ratio. A compute-bound phase may scale with the peaks, a memory-bound one with the
  // memory bandwidths.
  std::map<std::string, double> phase_speed_ratio;
  Placement placement;  // empty node_of_rank: every rank on one node with unlimited processors
  // Computation between calls from the trace's process time where it has it (what the rank
  // computed), else from the wall time between calls (which includes time it waited for a shared
  // processor).
  bool use_process_time = true;
};

enum class Activity { compute, communication, wait };

// One stretch of one rank's replayed time, for the timeline.
struct Interval {
  std::uint32_t rank = 0;
  double begin = 0, end = 0;  // s since the replay's start
  Activity activity = Activity::compute;
  std::string what;  // "MPI_Sendrecv", "computation"
};

// One step of the critical path, latest first: a stretch of a rank's own time, or a message or
// collective that carried the path from one rank to another.
struct PathStep {
  std::uint32_t rank = 0;
  double begin = 0, end = 0;
  std::string what;  // "computation", "MPI_Recv", "message 1 -> 0, 8 B", "MPI_Allreduce (last: 3)"
  Activity activity = Activity::compute;
};

struct RankTimes {
  double compute = 0;        // s computing (its share of a processor, where shared)
  double communication = 0;  // s in MPI calls that the models account for
  double wait = 0;           // s in MPI calls beyond that: waiting for a later peer
  double end = 0;            // when it reached MPI_Finalize
  std::uint64_t calls = 0;
};

struct Result {
  double predicted_seconds = 0;  // the latest rank's end
  double measured_seconds = 0;   // the trace's own span over the same calls
  std::vector<RankTimes> ranks;
  std::vector<PathStep> critical_path;                      // from the end back to the start
  double critical_compute = 0, critical_communication = 0;  // s on the path
  std::vector<Interval> timeline;  // every rank's stretches in time order, merged where alike
  std::vector<std::string> notes;  // how collectives were costed, what was left out
};

// Replays `trace` from each rank's leaving MPI_Init (or its first call) to its entering
// MPI_Finalize (or its last call's end); Init and Finalize themselves are not replayed. Throws an
// input Error naming the trace, rank and call for a send without a receive, a collective whose
// members disagree, or a deadlock.
Result replay(const trace::Trace& trace, const Costs& costs, const Options& options);

}  // namespace sonde::replay
