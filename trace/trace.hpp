// A traced MPI run as sonde reads it: per rank, every MPI call with the time it was entered and
// left and the operations it did (OTF2's MPI events), the computation between calls (wall time,
// and process time where the tracer recorded it), and the phases the program marked. This is the
// program activity graph of Eom and Hollingsworth (1998) before its dependences are drawn: the
// replay (replay/) matches sends to receives and collectives across ranks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sonde::trace {

// The collectives sonde models, by the names the profiles use (collectives.<name>).
enum class CollectiveOp {
  barrier,
  broadcast,
  gather,
  scatter,
  allgather,
  alltoall,
  reduce,
  allreduce,
  scan,
  reduce_scatter,
  other  // one the profiles have no model for (MPI_Alltoallw, ...): replayed as its measured time
};
const char* name(CollectiveOp op);  // "allreduce"; "other"

inline constexpr std::uint32_t kNoRoot = 0xFFFFFFFFu;

// One MPI operation inside a call, as OTF2 records it (OTF2_Events.h): a blocking send or
// receive, the start and the completion of a non-blocking one (matched by a request id that is
// unique per rank while the request lives), or a collective.
struct Operation {
  enum class Kind {
    send,            // MPI_Send and the send half of MPI_Sendrecv (OTF2 MpiSend)
    receive,         // MPI_Recv and the receive half of MPI_Sendrecv (OTF2 MpiRecv)
    isend,           // MPI_Isend posted (OTF2 MpiIsend)
    isend_complete,  // its request completed, in MPI_Wait* or MPI_Test* (OTF2 MpiIsendComplete)
    irecv_request,   // MPI_Irecv posted (OTF2 MpiIrecvRequest): source and tag not yet known
    irecv,           // its request completed, with the actual source, tag and size (OTF2 MpiIrecv)
    collective       // OTF2 MpiCollectiveBegin .. MpiCollectiveEnd
  };
  Kind kind = Kind::send;
  std::uint32_t communicator = 0;  // index into Trace::communicators
  // The peer (send: receiver, receive: sender) or the root of a rooted collective (kNoRoot if
  // none), as a rank of the communicator, which is OTF2's convention.
  std::uint32_t peer = 0;
  std::uint32_t tag = 0;
  std::uint64_t bytes = 0;           // point-to-point: the message; collective: sent by this rank
  std::uint64_t bytes_received = 0;  // collective only: received by this rank
  std::uint64_t request = 0;         // the non-blocking kinds only
  CollectiveOp collective = CollectiveOp::other;
};

// One MPI call of one rank.
struct Call {
  std::string function;                      // "MPI_Sendrecv", as the trace names the region
  std::uint64_t enter_ns = 0, leave_ns = 0;  // wall clock, ns since the trace's epoch
  // Process (CPU) time of the rank between the previous call's leave (or the rank's start) and
  // this enter, where the trace has it: what the rank computed, without the time it waited for a
  // processor it shared (Eom and Hollingsworth's process time). nullopt: wall time only.
  std::optional<std::uint64_t> process_ns_before;
  std::vector<Operation> operations;
  // The position of its enter in the rank's event stream, for messages: OTF2's, which counts
  // from 1; 0 where it is not known (a trace built in memory). write_otf2 does not keep it: the
  // archive has its own positions, which read_otf2 gives.
  std::uint64_t event = 0;
};

// A phase the program marked (sonde/phase.h), as a region of the trace.
struct Phase {
  std::string name;
  std::uint64_t begin_ns = 0, end_ns = 0;
};

struct Rank {
  std::uint64_t start_ns = 0, end_ns = 0;  // the rank's first and last event (MPI_Init's enter,
                                           // MPI_Finalize's leave, where traced)
  std::vector<Call> calls;                 // in the order the rank made them
  std::vector<Phase> phases;               // in the order they began
  // Process time between the last call's leave and end_ns, where the trace has it.
  std::optional<std::uint64_t> process_ns_after;
};

// A communicator: its members as world ranks (Trace::ranks indices), in the communicator's rank
// order. Index 0 is MPI_COMM_WORLD.
struct Communicator {
  std::string name;
  std::vector<std::uint32_t> members;
};

struct Trace {
  std::vector<Rank> ranks;  // world rank order (OTF2 locations)
  std::vector<Communicator> communicators;
  // Free-form facts about the run, kept in the OTF2 archive as properties (OTF2 namespace
  // "SONDE"): "machine" (the profile name of the host, where given), "launcher", "mpi_library",
  // "host", "process_time" ("thread CPU time" where recorded), "tracer_overhead_ns".
  std::map<std::string, std::string> properties;
  std::string source;  // the archive it was read from, for messages; "" when built in memory

  // Wall time of the run: the latest rank end minus the earliest rank start, in seconds.
  double measured_seconds() const;
};

// Structural checks every reader and builder runs: times that do not go backwards within a rank,
// calls within the rank's start and end, communicators with members in range, peers and roots in
// range of their communicator, request ids completed at most once after being posted. Throws an
// input Error "<source>: rank R, call K (MPI_Recv, event E): <problem>" (K counts from 0, like
// Rank::calls; "trace" for an in-memory trace's source). Also checked: communicator 0 holds every
// rank in order (it is MPI_COMM_WORLD), and phases lie within the rank's life in the order they
// began.
void check_trace(const Trace& trace);

}  // namespace sonde::trace
