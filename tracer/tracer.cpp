// libsonde_trace.so: an MPI interposition (PMPI) tracer. LD_PRELOADed into an MPI program, it
// defines the MPI_* functions sonde models, records each call and calls the PMPI_* one; at
// MPI_Finalize the ranks' records are gathered to rank 0, which writes one OTF2 archive
// (trace/otf2_io.hpp). Recording a run in full to translate it later to another machine is the
// method of Shanmugam, Malony and Mohr (1995, ExtraP); sonde's replay (replay/) is the translation.
//
// Per call the tracer keeps the wall clock (CLOCK_MONOTONIC) and the calling thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID) at enter and leave, so that the computation between two calls has
// both its wall time and its process time: what the rank computed, without the time it waited
// for a processor (Eom and Hollingsworth, 1998, whose term "process time" is).
//
// Clocks: ranks on one host share CLOCK_MONOTONIC, so their times are on one base as they are.
// A rank on another host than rank 0 estimates its offset to rank 0 by ping-pongs at MPI_Init and
// again at MPI_Finalize (the sample of the least round trip, offset = mid-point of the round trip
// minus rank 0's reading) and its times are moved by the offset interpolated linearly between
// the two, which takes out the clocks' drift as well. SONDE_TRACE_CLOCK_ALIGN=always aligns
// every rank (to test it on one host), =never none.
//
// Cost: the thread's CPU time is a system call (CLOCK_THREAD_CPUTIME_ID has no vDSO path), two
// per call, most of the tracer's cost per call (1.3 us a reading on a 2-core KVM guest, 0.25 us
// on a 16-core one). It is needed only where ranks share processors (then wall time between calls
// counts the time a rank waited for one), so by default (SONDE_TRACE_PROCESS_TIME=auto) it is
// read only when some host has more ranks than the processors its ranks may run on (the union of
// their affinity masks); =1 always, =0 never.
//
// Limits: nothing is written when the program does not reach MPI_Finalize (MPI_Abort, a crash, a
// rank killed): the records live in memory to the end. Every rank must be traced (the launcher
// must pass LD_PRELOAD to all of them), or the tracer's own collectives at MPI_Init do not match.
// The tracer is built against one MPI library and traces programs built against that one. Only
// the C bindings are intercepted. MPI_Test is recorded only when it completes (a polling loop's
// unsuccessful tests are computation time). Phases are recorded from the thread that called
// MPI_Init. Intercommunicators are recorded with their local group.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "trace/otf2_io.hpp"
#include "trace/trace.hpp"
#include "tracer/tables.hpp"

// The program's flag of sonde/phase.h, where it links libsonde_phase: null otherwise.
extern "C" int sonde_phase_collecting __attribute__((weak));

namespace {

using sonde::trace::CollectiveOp;
using sonde::trace::kNoRoot;
using OpKind = sonde::trace::Operation::Kind;
using sonde::tracer::HandleTable;
using sonde::tracer::Log;

// ---- the functions traced, by number in the records ----

// clang-format off
#define SONDE_TRACED_FUNCTIONS(X)                                                               \
  X(Init) X(Init_thread) X(Finalize) X(Send) X(Ssend) X(Rsend) X(Bsend) X(Recv) X(Isend)       \
  X(Irecv) X(Wait) X(Waitall) X(Waitany) X(Test) X(Sendrecv) X(Barrier) X(Bcast) X(Reduce)     \
  X(Allreduce) X(Gather) X(Gatherv) X(Scatter) X(Scatterv) X(Allgather) X(Allgatherv)          \
  X(Alltoall) X(Alltoallv) X(Reduce_scatter) X(Scan) X(Comm_dup) X(Comm_split) X(Comm_free)

enum class Function : std::uint16_t {
#define SONDE_ENUM(name) name,
  SONDE_TRACED_FUNCTIONS(SONDE_ENUM)
#undef SONDE_ENUM
  count
};

constexpr const char* kFunctionNames[] = {
#define SONDE_NAME(name) "MPI_" #name,
  SONDE_TRACED_FUNCTIONS(SONDE_NAME)
#undef SONDE_NAME
};
// clang-format on
static_assert(std::size(kFunctionNames) == static_cast<std::size_t>(Function::count));

// ---- the records: plain data, appended on the hot path, serialized as they are ----

struct CallRecord {
  std::uint64_t enter_ns = 0, leave_ns = 0;          // CLOCK_MONOTONIC
  std::uint64_t cpu_enter_ns = 0, cpu_leave_ns = 0;  // CLOCK_THREAD_CPUTIME_ID
  std::uint32_t first_operation = 0, operation_count = 0;
  Function function = Function::Init;
  // Whether the previous call was made by the same thread: thread CPU times compare only then.
  std::uint8_t same_thread = 1;
  std::uint8_t padding[5] = {};
};
static_assert(std::is_trivially_copyable_v<CallRecord> && sizeof(CallRecord) == 48);

struct OperationRecord {
  std::uint64_t bytes = 0, bytes_received = 0, request = 0;
  std::uint32_t communicator = 0;  // the rank's own communicator index, made global at the end
  std::uint32_t peer = 0, tag = 0;
  OpKind kind = OpKind::send;
  CollectiveOp collective = CollectiveOp::other;
};
static_assert(std::is_trivially_copyable_v<OperationRecord>);

struct PhaseRecord {
  std::uint64_t begin_ns = 0, end_ns = 0;
  std::uint32_t name = 0;  // index into the rank's phase names
  std::uint32_t open = 1;
};
static_assert(std::is_trivially_copyable_v<PhaseRecord>);

enum class Creator : std::uint8_t { world, self, dup, split, other };

// A communicator as this rank knows it. Ranks agree on a communicator by its members and by how
// many communicators of the same members each made before it: communicators are made by
// collective calls, which the members make in the same order.
struct LocalCommunicator {
  Creator creator = Creator::other;
  std::uint32_t occurrence = 0;
  std::vector<std::uint32_t> members;  // world ranks, in the communicator's rank order
};

struct CommunicatorEntry {
  std::uint32_t index = 0;  // into Tracer::communicators
  int size = 0, rank = 0;   // in the communicator
};

struct RequestEntry {
  std::uint64_t id = 0;
  std::uint64_t posted_bytes = 0;  // an Irecv's buffer, should the status not give the count
  std::uint32_t communicator = 0;
  bool receive = false;
};

// MPI handles (pointers in Open MPI, integers in MPICH) as keys.
template <typename Handle>
std::uint64_t key_of(Handle handle) {
  if constexpr (std::is_pointer_v<Handle>) {
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(handle));
  } else {
    return static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<Handle>>(handle));
  }
}

// ---- clocks ----

inline std::uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull +
         static_cast<std::uint64_t>(ts.tv_nsec);
}
inline std::uint64_t wall_ns() { return clock_ns(CLOCK_MONOTONIC); }
bool g_process_time = true;  // SONDE_TRACE_PROCESS_TIME=0: wall time only
inline std::uint64_t cpu_ns() { return g_process_time ? clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0; }

struct Enter {
  std::uint64_t wall_ns = 0, cpu_ns = 0;
};

// Process time first, so that the wall clock is read next to the PMPI call.
inline Enter enter() {
  Enter e;
  e.cpu_ns = cpu_ns();
  e.wall_ns = wall_ns();
  return e;
}

// One sample of this rank's clock against rank 0's: offset = this clock - rank 0's, at `at_ns`.
struct ClockSample {
  std::int64_t offset_ns = 0;
  std::uint64_t at_ns = 0;
};

// ---- the tracer's state: one per process, made at MPI_Init, never destroyed ----

struct Tracer {
  bool active = false;
  bool failed = false;        // stopped part way: sends no records, and rank 0 writes nothing
  bool threaded = false;      // MPI_THREAD_MULTIPLE: records are appended under a lock
  bool threads_call = false;  // MPI_THREAD_SERIALIZED or more: calls may come from any thread
  std::atomic_flag lock = ATOMIC_FLAG_INIT;
  MPI_Comm comm = MPI_COMM_NULL;  // the tracer's own duplicate of MPI_COMM_WORLD
  MPI_Group world_group = MPI_GROUP_NULL;
  int world_rank = 0, world_size = 1;
  std::string output;  // SONDE_TRACE_OUTPUT, where rank 0 writes
  std::uint32_t last_thread = 0;
  std::uint64_t next_request = 1;
  double record_cost_ns = 0;

  Log<CallRecord> calls;
  Log<OperationRecord> operations;
  std::vector<PhaseRecord> phases;
  std::vector<std::string> phase_names;
  std::vector<LocalCommunicator> communicators;
  HandleTable<CommunicatorEntry> communicator_of{64};
  HandleTable<RequestEntry> requests{4096};

  std::vector<char> hosts;            // world_size host names of kHostBytes each
  std::vector<std::uint8_t> aligned;  // per world rank: whether its clock is aligned to rank 0's
  ClockSample at_init, at_finalize;
};

constexpr std::size_t kHostBytes = 256;
constexpr int kTagClock = 1;

Tracer* g = nullptr;
bool g_warned = false;
void (*g_forward_begin)(const char*) = nullptr;  // libsonde_phase's markers, when it collects too
void (*g_forward_end)(const char*) = nullptr;

thread_local bool t_mpi_thread = false;  // the thread that called MPI_Init
thread_local std::uint32_t t_thread = 0;
std::atomic<std::uint32_t> g_threads{0};

inline bool tracing() { return g != nullptr && g->active; }

void stop_tracing(const char* why) {
  if (g != nullptr) {
    g->active = false;
    g->failed = true;
  }
  if (!g_warned) {
    g_warned = true;
    std::fprintf(stderr, "sonde trace: rank %d stops tracing: %s\n", g ? g->world_rank : -1, why);
  }
}

class SpinLock {
 public:
  explicit SpinLock(Tracer& t) : t_(t.threaded ? &t : nullptr) {
    if (t_ != nullptr)
      while (t_->lock.test_and_set(std::memory_order_acquire)) {
      }
  }
  ~SpinLock() {
    if (t_ != nullptr) t_->lock.clear(std::memory_order_release);
  }
  SpinLock(const SpinLock&) = delete;
  SpinLock& operator=(const SpinLock&) = delete;

 private:
  Tracer* t_;
};

std::uint32_t this_thread() {
  if (t_thread == 0) t_thread = g_threads.fetch_add(1, std::memory_order_relaxed) + 1;
  return t_thread;
}

// Appends the call that entered at `e` and left now, to `calls`; the operations follow it.
template <typename Calls>
inline void append_call(Calls& calls, std::uint32_t first_operation, const Enter& e, Function f,
                        std::uint8_t same_thread) {
  CallRecord record;
  record.leave_ns = wall_ns();
  record.cpu_leave_ns = cpu_ns();
  record.enter_ns = e.wall_ns;
  record.cpu_enter_ns = e.cpu_ns;
  record.first_operation = first_operation;
  record.function = f;
  record.same_thread = same_thread;
  calls.push_back(record);
}

// What a wrapper adds to its call: the operations.
class Recording {
 public:
  explicit Recording(Tracer& t) : t_(t) {}
  void add(const OperationRecord& operation) {
    t_.operations.push_back(operation);
    ++t_.calls.back().operation_count;
  }
  Tracer& tracer() { return t_; }

 private:
  Tracer& t_;
};

// Records the call entered at `e`, then lets `operations` add its operations where the call
// succeeded (`rc`; a failed call's arguments may not be valid handles). Never throws: a failure
// (out of memory) stops tracing on this rank, and the program goes on.
template <typename Operations>
void record(const Enter& e, Function f, int rc, Operations&& operations) {
  try {
    Tracer& t = *g;
    SpinLock lock(t);
    std::uint8_t same = 1;
    if (t.threads_call) {
      const std::uint32_t thread = this_thread();
      same = thread == t.last_thread ? 1 : 0;
      t.last_thread = thread;
    }
    append_call(t.calls, static_cast<std::uint32_t>(t.operations.size()), e, f, same);
    if (rc != MPI_SUCCESS) return;
    Recording r(t);
    operations(r);
  } catch (const std::exception& error) {
    stop_tracing(error.what());
  } catch (...) {
    stop_tracing("an unknown exception");
  }
}

void record(const Enter& e, Function f) {
  record(e, f, MPI_SUCCESS, [](Recording&) {});
}

// ---- communicators ----

std::vector<std::uint32_t> world_members(Tracer& t, MPI_Comm comm) {
  MPI_Group group = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size)), world(ranks.size());
  for (int i = 0; i < size; ++i) ranks[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(group, size, ranks.data(), t.world_group, world.data());
  PMPI_Group_free(&group);
  return {world.begin(), world.end()};
}

CommunicatorEntry add_communicator(Tracer& t, MPI_Comm comm, Creator creator) {
  LocalCommunicator local;
  local.creator = creator;
  local.members = world_members(t, comm);
  for (const LocalCommunicator& other : t.communicators)
    if (other.members == local.members) ++local.occurrence;
  CommunicatorEntry entry;
  entry.index = static_cast<std::uint32_t>(t.communicators.size());
  PMPI_Comm_size(comm, &entry.size);
  PMPI_Comm_rank(comm, &entry.rank);
  t.communicators.push_back(std::move(local));
  t.communicator_of.insert(key_of(comm), entry);
  return entry;
}

// The communicator's entry; one the tracer has not seen made (MPI_COMM_SELF, MPI_Cart_create,
// MPI_Comm_create, ...) is added at its first use.
CommunicatorEntry communicator(Tracer& t, MPI_Comm comm) {
  if (CommunicatorEntry* entry = t.communicator_of.find(key_of(comm))) return *entry;
  return add_communicator(t, comm, comm == MPI_COMM_SELF ? Creator::self : Creator::other);
}

// ---- operations ----

std::uint64_t type_bytes(int count, MPI_Datatype type) {
  if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
  int size = 0;
  PMPI_Type_size(type, &size);
  return size > 0 ? static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size) : 0;
}

std::uint64_t sum_counts(const int counts[], int n) {
  std::uint64_t sum = 0;
  if (counts == nullptr) return 0;
  for (int i = 0; i < n; ++i) sum += counts[i] > 0 ? static_cast<std::uint64_t>(counts[i]) : 0;
  return sum;
}

// The bytes a status says arrived; `posted` when it cannot say (more than INT_MAX bytes).
std::uint64_t received_bytes(const MPI_Status& status, std::uint64_t posted) {
  int count = 0;
  // MPI_BYTE: both libraries keep the byte count in the status, whatever the datatype was.
  PMPI_Get_count(&status, MPI_BYTE, &count);
  return count == MPI_UNDEFINED || count < 0 ? posted : static_cast<std::uint64_t>(count);
}

OperationRecord point_to_point(OpKind kind, std::uint32_t communicator, int peer, int tag,
                               std::uint64_t bytes) {
  OperationRecord op;
  op.kind = kind;
  op.communicator = communicator;
  op.peer = static_cast<std::uint32_t>(peer);
  op.tag = static_cast<std::uint32_t>(tag);
  op.bytes = bytes;
  return op;
}

OperationRecord collective(CollectiveOp which, std::uint32_t communicator, std::uint32_t root,
                           std::uint64_t sent_bytes, std::uint64_t received_bytes) {
  OperationRecord op;
  op.kind = OpKind::collective;
  op.collective = which;
  op.communicator = communicator;
  op.peer = root;
  op.bytes = sent_bytes;
  op.bytes_received = received_bytes;
  return op;
}

void add_send(Recording& r, MPI_Comm comm, int dest, int tag, int count, MPI_Datatype type) {
  if (dest == MPI_PROC_NULL) return;
  const CommunicatorEntry c = communicator(r.tracer(), comm);
  r.add(point_to_point(OpKind::send, c.index, dest, tag, type_bytes(count, type)));
}

void add_receive(Recording& r, MPI_Comm comm, const MPI_Status& status, std::uint64_t posted) {
  if (status.MPI_SOURCE == MPI_PROC_NULL || status.MPI_SOURCE < 0) return;
  const CommunicatorEntry c = communicator(r.tracer(), comm);
  r.add(point_to_point(OpKind::receive, c.index, status.MPI_SOURCE, status.MPI_TAG,
                       received_bytes(status, posted)));
}

void post_request(Recording& r, OpKind kind, MPI_Comm comm, int peer, int tag, std::uint64_t bytes,
                  MPI_Request request) {
  if (peer == MPI_PROC_NULL) return;
  Tracer& t = r.tracer();
  const CommunicatorEntry c = communicator(t, comm);
  RequestEntry entry;
  entry.id = t.next_request++;
  entry.communicator = c.index;
  entry.receive = kind == OpKind::irecv_request;
  entry.posted_bytes = bytes;
  t.requests.insert(key_of(request), entry);
  // An Irecv's source and tag are known at its completion (OTF2 MpiIrecvRequest has neither).
  OperationRecord op = entry.receive ? point_to_point(kind, c.index, 0, 0, 0)
                                     : point_to_point(kind, c.index, peer, tag, bytes);
  op.request = entry.id;
  r.add(op);
}

// The completion of the request that was `handle` before the wait or test cleared it.
void complete_request(Recording& r, std::uint64_t handle, const MPI_Status& status) {
  RequestEntry entry;
  if (!r.tracer().requests.take(handle, entry)) return;  // MPI_PROC_NULL, persistent, unknown
  if (entry.receive) {
    if (status.MPI_SOURCE == MPI_PROC_NULL || status.MPI_SOURCE < 0) return;
    OperationRecord op = point_to_point(OpKind::irecv, entry.communicator, status.MPI_SOURCE,
                                        status.MPI_TAG, received_bytes(status, entry.posted_bytes));
    op.request = entry.id;
    r.add(op);
  } else {
    OperationRecord op = point_to_point(OpKind::isend_complete, entry.communicator, 0, 0, 0);
    op.request = entry.id;
    r.add(op);
  }
}

// Scratch for the request arrays of MPI_Waitall and MPI_Waitany, per thread, reused.
thread_local std::vector<std::uint64_t> t_handles;
thread_local std::vector<MPI_Status> t_statuses;

// ---- phases ----

void phase_marker(const char* name, bool begin) {
  if (!tracing() || !t_mpi_thread || name == nullptr) return;
  const std::uint64_t now_ns = wall_ns();
  try {
    Tracer& t = *g;
    SpinLock lock(t);
    std::uint32_t id = 0;
    while (id < t.phase_names.size() && t.phase_names[id] != name) ++id;
    if (begin) {
      if (id == t.phase_names.size()) t.phase_names.emplace_back(name);
      PhaseRecord phase;
      phase.begin_ns = now_ns;
      phase.name = id;
      t.phases.push_back(phase);
      return;
    }
    for (auto phase = t.phases.rbegin(); phase != t.phases.rend(); ++phase) {
      if (phase->open != 0 && phase->name == id) {
        phase->end_ns = now_ns;
        phase->open = 0;
        return;
      }
    }
  } catch (...) {
    stop_tracing("out of memory recording a phase");
  }
}

// ---- clock alignment ----

// This rank's clock offset to rank 0's, by ping-pongs over the tracer's communicator with every
// rank whose clock is aligned, one rank at a time.
ClockSample measure_offset(Tracer& t) {
  constexpr int kRounds = 20;
  ClockSample best;
  std::uint64_t best_round_trip_ns = std::numeric_limits<std::uint64_t>::max();
  if (t.world_rank == 0) {
    for (int r = 1; r < t.world_size; ++r) {
      if (t.aligned[static_cast<std::size_t>(r)] == 0) continue;
      for (int k = 0; k < kRounds; ++k) {
        PMPI_Recv(nullptr, 0, MPI_BYTE, r, kTagClock, t.comm, MPI_STATUS_IGNORE);
        const std::uint64_t now = wall_ns();
        PMPI_Send(&now, 1, MPI_UINT64_T, r, kTagClock, t.comm);
      }
    }
    best.at_ns = wall_ns();
  } else if (t.aligned[static_cast<std::size_t>(t.world_rank)] != 0) {
    for (int k = 0; k < kRounds; ++k) {
      const std::uint64_t sent = wall_ns();
      PMPI_Send(nullptr, 0, MPI_BYTE, 0, kTagClock, t.comm);
      std::uint64_t theirs = 0;
      PMPI_Recv(&theirs, 1, MPI_UINT64_T, 0, kTagClock, t.comm, MPI_STATUS_IGNORE);
      const std::uint64_t received = wall_ns();
      if (received - sent < best_round_trip_ns) {
        best_round_trip_ns = received - sent;
        best.at_ns = sent + (received - sent) / 2;
        best.offset_ns = static_cast<std::int64_t>(best.at_ns) - static_cast<std::int64_t>(theirs);
      }
    }
  } else {
    best.at_ns = wall_ns();
  }
  return best;
}

// A time of this rank on rank 0's clock: the offset interpolated between the two samples.
std::uint64_t aligned_ns(const Tracer& t, std::uint64_t time_ns) {
  const ClockSample& a = t.at_init;
  const ClockSample& b = t.at_finalize;
  double offset = static_cast<double>(a.offset_ns);
  if (b.at_ns > a.at_ns) {
    offset += static_cast<double>(b.offset_ns - a.offset_ns) *
              (static_cast<double>(time_ns) - static_cast<double>(a.at_ns)) /
              static_cast<double>(b.at_ns - a.at_ns);
  }
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(time_ns) - std::llround(offset));
}

// ---- start ----

std::string this_host() {
  char host[kHostBytes] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

// The mean cost of recording one call (the clock readings and an append), measured into a
// scratch log: the trace's tracer_overhead_ns. The least of 10 batches' means, so that another
// process taking the processor during one batch (other ranks are still starting) does not count.
double measure_record_cost_ns() {
  constexpr int kBatches = 10, kRecords = 100;
  Log<CallRecord> scratch;
  scratch.prepare();
  double best_ns = std::numeric_limits<double>::max();
  for (int batch = 0; batch < kBatches; ++batch) {
    const std::uint64_t start_ns = wall_ns();
    for (int i = 0; i < kRecords; ++i) append_call(scratch, 0, enter(), Function::Send, 1);
    // The records are never read: without this the compiler may drop the stores it times.
    asm volatile("" ::: "memory");
    best_ns = std::min(best_ns, static_cast<double>(wall_ns() - start_ns) / kRecords);
  }
  return best_ns;
}

// Whether to read process time (see "Cost" above): told, or where any host is oversubscribed,
// more ranks on it than processors in the union of their affinity masks.
bool process_time_needed(Tracer& t) {
  const char* told = std::getenv("SONDE_TRACE_PROCESS_TIME");
  const std::string_view mode = told != nullptr ? told : "auto";
  if (mode == "0") return false;
  if (mode != "auto") return true;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return true;
  std::vector<cpu_set_t> all(static_cast<std::size_t>(t.world_size));
  PMPI_Allgather(&mine, static_cast<int>(sizeof mine), MPI_BYTE, all.data(),
                 static_cast<int>(sizeof mine), MPI_BYTE, t.comm);
  int ranks_here = 0;
  cpu_set_t here;
  CPU_ZERO(&here);
  const char* my_host = &t.hosts[kHostBytes * static_cast<std::size_t>(t.world_rank)];
  for (int r = 0; r < t.world_size; ++r) {
    if (std::strncmp(&t.hosts[kHostBytes * static_cast<std::size_t>(r)], my_host, kHostBytes) !=
        0) {
      continue;
    }
    ++ranks_here;
    CPU_OR(&here, &here, &all[static_cast<std::size_t>(r)]);
  }
  const int oversubscribed = ranks_here > CPU_COUNT(&here) ? 1 : 0;
  int anywhere = 0;
  PMPI_Allreduce(&oversubscribed, &anywhere, 1, MPI_INT, MPI_MAX, t.comm);
  return anywhere != 0;
}

// After PMPI_Init: decides with the other ranks whether to trace, and sets up.
void start(const Enter& e, Function f, int provided) {
  int world_rank = 0, world_size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  const char* output = std::getenv("SONDE_TRACE_OUTPUT");
  const int have_output = output != nullptr && *output != '\0' ? 1 : 0;
  // Every rank or none: rank 0 gathers from all at MPI_Finalize.
  int all_have_output = 0;
  PMPI_Allreduce(&have_output, &all_have_output, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all_have_output == 0) {
    if (world_rank == 0) {
      std::fprintf(stderr, "sonde trace: %s: no trace will be written\n",
                   have_output ? "SONDE_TRACE_OUTPUT is not set on every rank"
                               : "SONDE_TRACE_OUTPUT is not set");
    }
    return;
  }
  // Everything that allocates happens before the ranks agree to trace: after it, only MPI calls.
  int ok = 1;
  try {
    g = new Tracer;
    Tracer& t = *g;
    t.world_rank = world_rank;
    t.world_size = world_size;
    t.output = output;
    t.threaded = provided >= MPI_THREAD_MULTIPLE;
    t.threads_call = provided >= MPI_THREAD_SERIALIZED;
    // The first chunks of records, made now rather than at the first calls.
    t.calls.prepare();
    t.operations.prepare();
    t.phases.reserve(256);
    t.communicators.reserve(16);
    PMPI_Comm_group(MPI_COMM_WORLD, &t.world_group);
    add_communicator(t, MPI_COMM_WORLD, Creator::world);
    t.hosts.assign(kHostBytes * static_cast<std::size_t>(world_size), '\0');
    t.aligned.assign(static_cast<std::size_t>(world_size), 0);
    t.record_cost_ns = measure_record_cost_ns();
  } catch (...) {
    ok = 0;
  }
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all_ok == 0) {
    if (world_rank == 0) std::fprintf(stderr, "sonde trace: out of memory at MPI_Init\n");
    return;  // g stays inactive, without its communicator: MPI_Finalize skips the gather
  }
  Tracer& t = *g;
  PMPI_Comm_dup(MPI_COMM_WORLD, &t.comm);

  // Which clocks to align: those of ranks on another host than rank 0's, unless told.
  char host[kHostBytes] = {};
  gethostname(host, kHostBytes - 1);
  PMPI_Allgather(host, static_cast<int>(kHostBytes), MPI_CHAR, t.hosts.data(),
                 static_cast<int>(kHostBytes), MPI_CHAR, t.comm);
  const char* align = std::getenv("SONDE_TRACE_CLOCK_ALIGN");
  const std::string_view mode = align != nullptr ? align : "auto";
  for (int r = 1; r < world_size; ++r) {
    const bool other_host = std::strncmp(&t.hosts[kHostBytes * static_cast<std::size_t>(r)],
                                         t.hosts.data(), kHostBytes) != 0;
    t.aligned[static_cast<std::size_t>(r)] =
        mode == "always" || (mode != "never" && other_host) ? 1 : 0;
  }
  t.at_init = measure_offset(t);
  g_process_time = process_time_needed(t);

  if (&sonde_phase_collecting != nullptr) sonde_phase_collecting = 1;
  t_mpi_thread = true;
  t.last_thread = this_thread();
  t.active = true;
  // MPI_Init's call includes the tracer's start, so that it is not taken for computation.
  record(e, f);
}

// ---- the end: gather to rank 0, which writes the archive ----

class Buffer {
 public:
  template <typename T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  template <typename T>
  void put_array(const T* values, std::size_t count) {
    static_assert(std::is_trivially_copyable_v<T>);
    put(static_cast<std::uint64_t>(count));
    const auto* p = reinterpret_cast<const char*>(values);
    bytes_.insert(bytes_.end(), p, p + count * sizeof(T));
  }
  void put_string(const std::string& text) { put_array(text.data(), text.size()); }
  // As put_array of the log's records: the count, then the records.
  template <typename T>
  void put_log(const Log<T>& log) {
    put(static_cast<std::uint64_t>(log.size()));
    log.each_part([&](const T* values, std::size_t count) {
      const auto* p = reinterpret_cast<const char*>(values);
      bytes_.insert(bytes_.end(), p, p + count * sizeof(T));
    });
  }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class Cursor {
 public:
  Cursor(const char* begin, const char* end) : at_(begin), end_(end) {}
  template <typename T>
  T get() {
    T value;
    need(sizeof(T));
    std::memcpy(&value, at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  template <typename T>
  std::vector<T> get_array() {
    const auto count = get<std::uint64_t>();
    if (count > static_cast<std::uint64_t>(end_ - at_) / sizeof(T)) throw std::length_error("");
    std::vector<T> values(static_cast<std::size_t>(count));
    if (!values.empty()) std::memcpy(values.data(), at_, values.size() * sizeof(T));
    at_ += values.size() * sizeof(T);
    return values;
  }
  std::string get_string() {
    const std::vector<char> chars = get_array<char>();
    return {chars.begin(), chars.end()};
  }

 private:
  void need(std::size_t bytes) const {
    if (bytes > static_cast<std::size_t>(end_ - at_)) throw std::length_error("");
  }
  const char* at_;
  const char* end_;
};

constexpr std::uint32_t kMagic = 0x534f5452;  // "SOTR"

// This rank's records on rank 0's clock, as bytes.
std::vector<char> serialize(Tracer& t) {
  for (std::size_t k = 0; k < t.calls.size(); ++k) {
    CallRecord& call = t.calls[k];
    call.enter_ns = aligned_ns(t, call.enter_ns);
    call.leave_ns = aligned_ns(t, call.leave_ns);
  }
  std::vector<PhaseRecord> phases;
  for (PhaseRecord phase : t.phases) {
    if (phase.open != 0) {
      std::fprintf(stderr, "sonde trace: rank %d: phase '%s' begun but never ended (left out)\n",
                   t.world_rank, t.phase_names[phase.name].c_str());
      continue;
    }
    phase.begin_ns = aligned_ns(t, phase.begin_ns);
    phase.end_ns = aligned_ns(t, phase.end_ns);
    phases.push_back(phase);
  }
  Buffer b;
  b.put(kMagic);
  b.put(static_cast<std::uint32_t>(t.world_rank));
  b.put(t.record_cost_ns);
  b.put(t.at_init.offset_ns);
  b.put(t.at_finalize.offset_ns);
  b.put(static_cast<std::uint8_t>(g_process_time ? 1 : 0));
  b.put_log(t.calls);
  b.put_log(t.operations);
  b.put(static_cast<std::uint64_t>(t.phase_names.size()));
  for (const std::string& name : t.phase_names) b.put_string(name);
  b.put_array(phases.data(), phases.size());
  b.put(static_cast<std::uint64_t>(t.communicators.size()));
  for (const LocalCommunicator& c : t.communicators) {
    b.put(c.creator);
    b.put(c.occurrence);
    b.put_array(c.members.data(), c.members.size());
  }
  return std::move(b.bytes());
}

// The first line of a library's version, its spaces and tabs made one space each.
std::string first_line(const std::string& text) {
  std::string line;
  for (const char c : text.substr(0, text.find('\n'))) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && (line.empty() || line.back() == ' ')) continue;
    line += space ? ' ' : c;
  }
  if (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string creator_name(Creator creator) {
  switch (creator) {
    case Creator::world:
      return "MPI_COMM_WORLD";
    case Creator::self:
      return "MPI_COMM_SELF";
    case Creator::dup:
      return "MPI_Comm_dup";
    case Creator::split:
      return "MPI_Comm_split";
    case Creator::other:
      break;
  }
  return "communicator";
}

// Rank 0: the Trace of all ranks' records (`all`, emptied once read, to hold less at once).
sonde::trace::Trace build_trace(const Tracer& t, std::vector<char>& all,
                                const std::vector<std::uint64_t>& offsets_bytes) {
  using namespace sonde::trace;
  Trace trace;
  trace.ranks.resize(static_cast<std::size_t>(t.world_size));
  std::map<std::pair<std::vector<std::uint32_t>, std::uint32_t>, std::uint32_t> global;
  double cost_sum_ns = 0;
  std::int64_t largest_offset_ns = 0;
  std::uint64_t epoch_ns = std::numeric_limits<std::uint64_t>::max();
  struct Parsed {
    std::vector<CallRecord> calls;
    std::vector<OperationRecord> operations;
    std::vector<std::string> phase_names;
    std::vector<PhaseRecord> phases;
    std::vector<std::uint32_t> communicator;  // local index -> global
    bool process_time = true;
  };
  bool process_time = true;
  std::vector<Parsed> parsed(trace.ranks.size());
  for (std::size_t r = 0; r < parsed.size(); ++r) {
    Cursor in(all.data() + offsets_bytes[r], all.data() + offsets_bytes[r + 1]);
    Parsed& p = parsed[r];
    if (in.get<std::uint32_t>() != kMagic || in.get<std::uint32_t>() != r)
      throw std::runtime_error("rank " + std::to_string(r) + " sent no records");
    cost_sum_ns += in.get<double>();
    for (int k = 0; k < 2; ++k)
      largest_offset_ns = std::max(largest_offset_ns, std::abs(in.get<std::int64_t>()));
    p.process_time = in.get<std::uint8_t>() != 0;
    process_time = process_time && p.process_time;
    p.calls = in.get_array<CallRecord>();
    p.operations = in.get_array<OperationRecord>();
    const auto names = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < names; ++i) p.phase_names.push_back(in.get_string());
    p.phases = in.get_array<PhaseRecord>();
    const auto communicators = in.get<std::uint64_t>();
    for (std::uint64_t i = 0; i < communicators; ++i) {
      const auto creator = in.get<Creator>();
      const auto occurrence = in.get<std::uint32_t>();
      std::vector<std::uint32_t> members = in.get_array<std::uint32_t>();
      auto [at, added] = global.emplace(std::make_pair(members, occurrence),
                                        static_cast<std::uint32_t>(trace.communicators.size()));
      if (added) {
        Communicator c;
        c.name = creator_name(creator);
        if (creator != Creator::world && creator != Creator::self)
          c.name += " " + std::to_string(trace.communicators.size());
        c.members = std::move(members);
        trace.communicators.push_back(std::move(c));
      }
      p.communicator.push_back(at->second);
    }
    if (p.calls.empty()) throw std::runtime_error("rank " + std::to_string(r) + " has no calls");
    epoch_ns = std::min(epoch_ns, p.calls.front().enter_ns);
  }
  std::vector<char>().swap(all);
  for (std::size_t r = 0; r < parsed.size(); ++r) {
    Parsed& p = parsed[r];
    Rank& rank = trace.ranks[r];
    rank.calls.reserve(p.calls.size());
    for (std::size_t k = 0; k < p.calls.size(); ++k) {
      const CallRecord& record = p.calls[k];
      if (k > 0 && record.enter_ns < p.calls[k - 1].leave_ns) {
        throw std::runtime_error(
            "rank " + std::to_string(r) + ": MPI calls overlap (call " + std::to_string(k) + ", " +
            kFunctionNames[static_cast<std::size_t>(record.function)] +
            "): threads called MPI at the same time, and a trace has one sequence of calls per "
            "rank; no trace is written");
      }
      Call call;
      call.function = kFunctionNames[static_cast<std::size_t>(record.function)];
      call.enter_ns = record.enter_ns - epoch_ns;
      call.leave_ns = record.leave_ns - epoch_ns;
      if (!p.process_time) {
        // wall time only
      } else if (k == 0) {
        call.process_ns_before = 0;
      } else if (record.same_thread != 0 && record.cpu_enter_ns >= p.calls[k - 1].cpu_leave_ns) {
        call.process_ns_before = record.cpu_enter_ns - p.calls[k - 1].cpu_leave_ns;
      }
      if (record.first_operation + std::uint64_t{record.operation_count} > p.operations.size())
        throw std::runtime_error("rank " + std::to_string(r) + ": operations out of range");
      for (std::uint32_t i = 0; i < record.operation_count; ++i) {
        const OperationRecord& o = p.operations[record.first_operation + i];
        Operation op;
        op.kind = o.kind;
        op.communicator = p.communicator.at(o.communicator);
        op.peer = o.peer;
        op.tag = o.tag;
        op.bytes = o.bytes;
        op.bytes_received = o.bytes_received;
        op.request = o.request;
        op.collective = o.collective;
        call.operations.push_back(op);
      }
      rank.calls.push_back(std::move(call));
    }
    rank.start_ns = rank.calls.front().enter_ns;
    rank.end_ns = rank.calls.back().leave_ns;
    if (p.process_time) rank.process_ns_after = 0;  // MPI_Finalize is the last call
    for (const PhaseRecord& phase : p.phases)
      rank.phases.push_back(
          {p.phase_names.at(phase.name), phase.begin_ns - epoch_ns, phase.end_ns - epoch_ns});
    std::stable_sort(rank.phases.begin(), rank.phases.end(),
                     [](const Phase& a, const Phase& b) { return a.begin_ns < b.begin_ns; });
    p = {};
  }

  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  PMPI_Get_library_version(version, &length);
  trace.properties["mpi_library"] = first_line(std::string(version, std::max(length, 0)));
  trace.properties["host"] = this_host();
  if (process_time) trace.properties["process_time"] = "thread CPU time";
  trace.properties["tracer_overhead_ns"] =
      std::to_string(std::llround(cost_sum_ns / static_cast<double>(parsed.size())));
  std::size_t aligned = 0;
  for (std::uint8_t a : t.aligned) aligned += a;
  trace.properties["clock_alignment"] = aligned == 0
                                            ? "none: one host, one CLOCK_MONOTONIC"
                                            : std::to_string(aligned) +
                                                  " ranks aligned to rank 0 by ping-pong, largest "
                                                  "offset " +
                                                  std::to_string(largest_offset_ns) + " ns";
  if (const char* launcher = std::getenv("SONDE_TRACE_LAUNCHER"); launcher && *launcher)
    trace.properties["launcher"] = launcher;
  if (const char* machine = std::getenv("SONDE_TRACE_MACHINE"); machine && *machine)
    trace.properties["machine"] = machine;
  return trace;
}

// Gathers every rank's records to rank 0, which writes the archive. Every rank takes part in
// every collective here whatever fails, so that no rank is left waiting.
void finish(const Enter& e) {
  Tracer& t = *g;
  record(e, Function::Finalize);
  t.active = false;
  t.at_finalize = measure_offset(t);

  std::vector<char> mine;  // empty: rank 0 says which rank failed
  try {
    if (!t.failed) mine = serialize(t);
  } catch (...) {
    mine.clear();
  }
  // Gathered in blocks of 64 bytes, so that displacements (ints) reach 128 GiB.
  constexpr std::size_t kBlock = 64;
  mine.resize((mine.size() + kBlock - 1) / kBlock * kBlock, '\0');
  const std::uint64_t my_blocks = mine.size() / kBlock;
  const auto n = static_cast<std::size_t>(t.world_size);
  std::vector<std::uint64_t> blocks(t.world_rank == 0 ? n : 0);
  PMPI_Gather(&my_blocks, 1, MPI_UINT64_T, blocks.data(), 1, MPI_UINT64_T, 0, t.comm);

  int go = 1;
  std::vector<int> counts, displacements;
  std::vector<char> all;
  std::vector<std::uint64_t> offsets_bytes;
  std::string problem;
  if (t.world_rank == 0) {
    try {
      std::uint64_t total = 0;
      for (std::size_t r = 0; r < n; ++r) {
        if (blocks[r] == 0) problem = "rank " + std::to_string(r) + " could not send its records";
        offsets_bytes.push_back(total * kBlock);
        counts.push_back(static_cast<int>(blocks[r]));
        displacements.push_back(static_cast<int>(total));
        total += blocks[r];
      }
      offsets_bytes.push_back(total * kBlock);
      if (total > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        problem = "the trace is too large to gather (" + std::to_string(total * kBlock) + " bytes)";
      if (problem.empty()) all.resize(total * kBlock);
    } catch (const std::exception& error) {
      problem = std::string("rank 0 cannot hold the trace: ") + error.what();
    }
    go = problem.empty() ? 1 : 0;
  }
  PMPI_Bcast(&go, 1, MPI_INT, 0, t.comm);
  if (go != 0) {
    MPI_Datatype block = MPI_DATATYPE_NULL;
    PMPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &block);
    PMPI_Type_commit(&block);
    PMPI_Gatherv(mine.data(), static_cast<int>(my_blocks), block, all.data(), counts.data(),
                 displacements.data(), block, 0, t.comm);
    PMPI_Type_free(&block);
  }
  if (t.world_rank == 0) {
    try {
      if (!problem.empty()) throw std::runtime_error(problem);
      sonde::trace::Trace trace = build_trace(t, all, offsets_bytes);
      sonde::trace::check_trace(trace);
      sonde::trace::write_otf2(trace, t.output);
    } catch (const std::exception& error) {
      std::fprintf(stderr, "sonde trace: %s\n", error.what());
    } catch (...) {
      std::fprintf(stderr, "sonde trace: an unknown error writing %s\n", t.output.c_str());
    }
  }
  PMPI_Group_free(&t.world_group);
  PMPI_Comm_free(&t.comm);
}

// Resolves libsonde_phase's own markers, when it collects (SONDE_PHASE_RECORD, `sonde counters`),
// so that a marker reaches both.
__attribute__((constructor)) void find_phase_library() {
  const char* record = std::getenv("SONDE_PHASE_RECORD");
  if (record == nullptr || *record == '\0') return;
  g_forward_begin =
      reinterpret_cast<void (*)(const char*)>(dlsym(RTLD_NEXT, "sonde_phase_record_begin"));
  g_forward_end =
      reinterpret_cast<void (*)(const char*)>(dlsym(RTLD_NEXT, "sonde_phase_record_end"));
}

}  // namespace

// ---- the C boundary ----

extern "C" {

void sonde_phase_record_begin(const char* name) {
  phase_marker(name, true);
  if (g_forward_begin != nullptr) g_forward_begin(name);
}

void sonde_phase_record_end(const char* name) {
  phase_marker(name, false);
  if (g_forward_end != nullptr) g_forward_end(name);
}

int MPI_Init(int* argc, char*** argv) {
  const Enter e = enter();
  const int rc = PMPI_Init(argc, argv);
  if (rc != MPI_SUCCESS) return rc;
  try {
    start(e, Function::Init, MPI_THREAD_SINGLE);
  } catch (...) {
    stop_tracing("cannot start");
  }
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const Enter e = enter();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc != MPI_SUCCESS) return rc;
  try {
    start(e, Function::Init_thread, provided != nullptr ? *provided : required);
  } catch (...) {
    stop_tracing("cannot start");
  }
  return rc;
}

int MPI_Finalize(void) {
  const Enter e = enter();
  if (g != nullptr && g->comm != MPI_COMM_NULL) {
    try {
      finish(e);
    } catch (...) {
      std::fprintf(stderr, "sonde trace: an unknown error at MPI_Finalize\n");
    }
  }
  return PMPI_Finalize();
}

#define SONDE_SEND(name)                                                           \
  int MPI_##name(const void* buf, int count, MPI_Datatype type, int dest, int tag, \
                 MPI_Comm comm) {                                                  \
    if (!tracing()) return PMPI_##name(buf, count, type, dest, tag, comm);         \
    const Enter e = enter();                                                       \
    const int rc = PMPI_##name(buf, count, type, dest, tag, comm);                 \
    record(e, Function::name, rc,                                                  \
           [&](Recording& r) { add_send(r, comm, dest, tag, count, type); });      \
    return rc;                                                                     \
  }
SONDE_SEND(Send)
SONDE_SEND(Ssend)
SONDE_SEND(Rsend)
SONDE_SEND(Bsend)
#undef SONDE_SEND

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  if (!tracing()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  const Enter e = enter();
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, s);
  record(e, Function::Recv, rc, [&](Recording& r) {
    if (source != MPI_PROC_NULL) add_receive(r, comm, *s, type_bytes(count, type));
  });
  return rc;
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  if (!tracing()) return PMPI_Isend(buf, count, type, dest, tag, comm, request);
  const Enter e = enter();
  const int rc = PMPI_Isend(buf, count, type, dest, tag, comm, request);
  record(e, Function::Isend, rc, [&](Recording& r) {
    post_request(r, OpKind::isend, comm, dest, tag, type_bytes(count, type), *request);
  });
  return rc;
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  if (!tracing()) return PMPI_Irecv(buf, count, type, source, tag, comm, request);
  const Enter e = enter();
  const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
  record(e, Function::Irecv, rc, [&](Recording& r) {
    post_request(r, OpKind::irecv_request, comm, source, tag, type_bytes(count, type), *request);
  });
  return rc;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (!tracing()) return PMPI_Wait(request, status);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  const std::uint64_t handle = key_of(*request);
  const Enter e = enter();
  const int rc = PMPI_Wait(request, s);
  record(e, Function::Wait, rc, [&](Recording& r) { complete_request(r, handle, *s); });
  return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (!tracing()) return PMPI_Test(request, flag, status);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  const std::uint64_t handle = key_of(*request);
  const Enter e = enter();
  const int rc = PMPI_Test(request, flag, s);
  if (rc == MPI_SUCCESS && *flag != 0)
    record(e, Function::Test, rc, [&](Recording& r) { complete_request(r, handle, *s); });
  return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!tracing() || count < 0) return PMPI_Waitall(count, requests, statuses);
  MPI_Status* s = statuses;
  try {
    const auto n = static_cast<std::size_t>(count);
    t_handles.resize(n);
    for (std::size_t i = 0; i < n; ++i) t_handles[i] = key_of(requests[i]);
    if (statuses == MPI_STATUSES_IGNORE) {
      t_statuses.resize(n);
      s = t_statuses.data();
    }
  } catch (...) {
    stop_tracing("out of memory in MPI_Waitall");
    return PMPI_Waitall(count, requests, statuses);
  }
  const Enter e = enter();
  const int rc = PMPI_Waitall(count, requests, s);
  record(e, Function::Waitall, rc, [&](Recording& r) {
    for (int i = 0; i < count; ++i)
      complete_request(r, t_handles[static_cast<std::size_t>(i)], s[i]);
  });
  return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (!tracing() || count < 0) return PMPI_Waitany(count, requests, index, status);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  try {
    t_handles.resize(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) t_handles[static_cast<std::size_t>(i)] = key_of(requests[i]);
  } catch (...) {
    stop_tracing("out of memory in MPI_Waitany");
    return PMPI_Waitany(count, requests, index, status);
  }
  const Enter e = enter();
  const int rc = PMPI_Waitany(count, requests, index, s);
  record(e, Function::Waitany, rc, [&](Recording& r) {
    if (*index != MPI_UNDEFINED && *index >= 0 && *index < count)
      complete_request(r, t_handles[static_cast<std::size_t>(*index)], *s);
  });
  return rc;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  if (!tracing())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  const Enter e = enter();
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                               recvtype, source, recvtag, comm, s);
  record(e, Function::Sendrecv, rc, [&](Recording& r) {
    add_send(r, comm, dest, sendtag, sendcount, sendtype);
    if (source != MPI_PROC_NULL) add_receive(r, comm, *s, type_bytes(recvcount, recvtype));
  });
  return rc;
}

// ---- collectives: bytes sent and received are what this rank contributes and gets ----

int MPI_Barrier(MPI_Comm comm) {
  if (!tracing()) return PMPI_Barrier(comm);
  const Enter e = enter();
  const int rc = PMPI_Barrier(comm);
  record(e, Function::Barrier, rc, [&](Recording& r) {
    r.add(collective(CollectiveOp::barrier, communicator(r.tracer(), comm).index, kNoRoot, 0, 0));
  });
  return rc;
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (!tracing()) return PMPI_Bcast(buffer, count, type, root, comm);
  const Enter e = enter();
  const int rc = PMPI_Bcast(buffer, count, type, root, comm);
  record(e, Function::Bcast, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const std::uint64_t m = type_bytes(count, type);
    const bool is_root = c.rank == root;
    r.add(collective(CollectiveOp::broadcast, c.index, static_cast<std::uint32_t>(root),
                     is_root ? m : 0, is_root ? 0 : m));
  });
  return rc;
}

// Every rank contributes its m bytes; the root gets the m bytes of the result.
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  if (!tracing()) return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  const Enter e = enter();
  const int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  record(e, Function::Reduce, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const std::uint64_t m = type_bytes(count, type);
    r.add(collective(CollectiveOp::reduce, c.index, static_cast<std::uint32_t>(root), m,
                     c.rank == root ? m : 0));
  });
  return rc;
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  if (!tracing()) return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  const Enter e = enter();
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  record(e, Function::Allreduce, rc, [&](Recording& r) {
    const std::uint64_t m = type_bytes(count, type);
    r.add(collective(CollectiveOp::allreduce, communicator(r.tracer(), comm).index, kNoRoot, m, m));
  });
  return rc;
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
  if (!tracing()) return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  const Enter e = enter();
  const int rc = PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  record(e, Function::Scan, rc, [&](Recording& r) {
    const std::uint64_t m = type_bytes(count, type);
    r.add(collective(CollectiveOp::scan, communicator(r.tracer(), comm).index, kNoRoot, m, m));
  });
  return rc;
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (!tracing()) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  const Enter e = enter();
  const int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  record(e, Function::Reduce_scatter, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    int size = 0;
    PMPI_Type_size(type, &size);
    const auto element = static_cast<std::uint64_t>(std::max(size, 0));
    r.add(collective(CollectiveOp::reduce_scatter, c.index, kNoRoot,
                     sum_counts(recvcounts, c.size) * element,
                     type_bytes(recvcounts[c.rank], type)));
  });
  return rc;
}

// The root gets n contributions (its own among them) and contributes its own.
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!tracing())
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  const Enter e = enter();
  const int rc =
      PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  record(e, Function::Gather, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const bool is_root = c.rank == root;
    const std::uint64_t received = is_root ? type_bytes(recvcount, recvtype) : 0;
    const std::uint64_t sent = sendbuf == MPI_IN_PLACE ? received : type_bytes(sendcount, sendtype);
    r.add(collective(CollectiveOp::gather, c.index, static_cast<std::uint32_t>(root), sent,
                     received * static_cast<std::uint64_t>(c.size)));
  });
  return rc;
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (!tracing())
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
  const Enter e = enter();
  const int rc =
      PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  record(e, Function::Gatherv, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const bool is_root = c.rank == root;
    std::uint64_t received = 0, own = 0;
    if (is_root) {
      received = type_bytes(1, recvtype) * sum_counts(recvcounts, c.size);
      own = type_bytes(recvcounts[c.rank], recvtype);
    }
    const std::uint64_t sent = sendbuf == MPI_IN_PLACE ? own : type_bytes(sendcount, sendtype);
    r.add(collective(CollectiveOp::gather, c.index, static_cast<std::uint32_t>(root), sent,
                     received));
  });
  return rc;
}

// The root sends n parts (its own among them) and gets its own.
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!tracing())
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  const Enter e = enter();
  const int rc =
      PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  record(e, Function::Scatter, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const bool is_root = c.rank == root;
    const std::uint64_t part = is_root ? type_bytes(sendcount, sendtype) : 0;
    const std::uint64_t received = recvbuf == MPI_IN_PLACE ? part : type_bytes(recvcount, recvtype);
    r.add(collective(CollectiveOp::scatter, c.index, static_cast<std::uint32_t>(root),
                     part * static_cast<std::uint64_t>(c.size), received));
  });
  return rc;
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (!tracing())
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
  const Enter e = enter();
  const int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                               root, comm);
  record(e, Function::Scatterv, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const bool is_root = c.rank == root;
    std::uint64_t sent = 0, own = 0;
    if (is_root) {
      sent = type_bytes(1, sendtype) * sum_counts(sendcounts, c.size);
      own = type_bytes(sendcounts[c.rank], sendtype);
    }
    const std::uint64_t received = recvbuf == MPI_IN_PLACE ? own : type_bytes(recvcount, recvtype);
    r.add(collective(CollectiveOp::scatter, c.index, static_cast<std::uint32_t>(root), sent,
                     received));
  });
  return rc;
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!tracing())
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  const Enter e = enter();
  const int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  record(e, Function::Allgather, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const std::uint64_t part = type_bytes(recvcount, recvtype);
    const std::uint64_t sent = sendbuf == MPI_IN_PLACE ? part : type_bytes(sendcount, sendtype);
    r.add(collective(CollectiveOp::allgather, c.index, kNoRoot, sent,
                     part * static_cast<std::uint64_t>(c.size)));
  });
  return rc;
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  if (!tracing())
    return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  const Enter e = enter();
  const int rc =
      PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  record(e, Function::Allgatherv, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const std::uint64_t sent = sendbuf == MPI_IN_PLACE ? type_bytes(recvcounts[c.rank], recvtype)
                                                       : type_bytes(sendcount, sendtype);
    r.add(collective(CollectiveOp::allgather, c.index, kNoRoot, sent,
                     type_bytes(1, recvtype) * sum_counts(recvcounts, c.size)));
  });
  return rc;
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!tracing())
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  const Enter e = enter();
  const int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  record(e, Function::Alltoall, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const auto n = static_cast<std::uint64_t>(c.size);
    const std::uint64_t received = n * type_bytes(recvcount, recvtype);
    const std::uint64_t sent =
        sendbuf == MPI_IN_PLACE ? received : n * type_bytes(sendcount, sendtype);
    r.add(collective(CollectiveOp::alltoall, c.index, kNoRoot, sent, received));
  });
  return rc;
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (!tracing())
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  const Enter e = enter();
  const int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm);
  record(e, Function::Alltoallv, rc, [&](Recording& r) {
    const CommunicatorEntry c = communicator(r.tracer(), comm);
    const std::uint64_t received = type_bytes(1, recvtype) * sum_counts(recvcounts, c.size);
    const std::uint64_t sent = sendbuf == MPI_IN_PLACE
                                   ? received
                                   : type_bytes(1, sendtype) * sum_counts(sendcounts, c.size);
    r.add(collective(CollectiveOp::alltoall, c.index, kNoRoot, sent, received));
  });
  return rc;
}

// ---- communicators: collectives over the parent that make (or free) one ----

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  if (!tracing()) return PMPI_Comm_dup(comm, newcomm);
  const Enter e = enter();
  const int rc = PMPI_Comm_dup(comm, newcomm);
  record(e, Function::Comm_dup, rc, [&](Recording& r) {
    r.add(collective(CollectiveOp::other, communicator(r.tracer(), comm).index, kNoRoot, 0, 0));
    if (*newcomm != MPI_COMM_NULL) add_communicator(r.tracer(), *newcomm, Creator::dup);
  });
  return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  if (!tracing()) return PMPI_Comm_split(comm, color, key, newcomm);
  const Enter e = enter();
  const int rc = PMPI_Comm_split(comm, color, key, newcomm);
  record(e, Function::Comm_split, rc, [&](Recording& r) {
    r.add(collective(CollectiveOp::other, communicator(r.tracer(), comm).index, kNoRoot, 0, 0));
    if (*newcomm != MPI_COMM_NULL) add_communicator(r.tracer(), *newcomm, Creator::split);
  });
  return rc;
}

// Intercepted so that a handle MPI reuses for another communicator is not taken for this one.
int MPI_Comm_free(MPI_Comm* comm) {
  if (!tracing() || comm == nullptr || *comm == MPI_COMM_NULL) return PMPI_Comm_free(comm);
  const MPI_Comm freed = *comm;
  std::uint32_t index = 0;
  try {
    SpinLock lock(*g);
    index = communicator(*g, freed).index;
  } catch (...) {
    stop_tracing("out of memory in MPI_Comm_free");
    return PMPI_Comm_free(comm);
  }
  const Enter e = enter();
  const int rc = PMPI_Comm_free(comm);
  record(e, Function::Comm_free, rc, [&](Recording& r) {
    r.add(collective(CollectiveOp::other, index, kNoRoot, 0, 0));
    CommunicatorEntry gone;
    r.tracer().communicator_of.take(key_of(freed), gone);
  });
  return rc;
}

}  // extern "C"
