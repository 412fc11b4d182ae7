#include "microbench/mpi/mpi_suite.hpp"

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "core/error.hpp"
#include "core/result_format.hpp"
#include "microbench/cache_flush.hpp"
#include "microbench/run_context.hpp"

namespace sonde::microbench {

namespace param = result_format::param;  // the keys readers rely on
namespace {

using benchmark::Counter;

#if SONDE_SMPI
constexpr bool kSimulatedRun = true;
#else
constexpr bool kSimulatedRun = false;
#endif
constexpr int kTag = 7;
constexpr unsigned kHaloSteps = 16;  // the fewest halo steps timed back to back
constexpr int kAlignTag = 9;  // the empty round trip that aligns a pair before its clock starts
// Buffers of one benchmark stay under this: the window shrinks for large messages.
constexpr std::uint64_t kWindowBytesCap = 64u << 20;

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

// One timed iteration: a barrier, `body` on this rank, and the slowest rank's time (when
// `counts` is false this rank's time does not count: ping-pong is timed on its initiator). Every
// rank gets the same number back, so Google Benchmark decides the same on every rank.
// `align`, when given, runs between the barrier and the clock: ranks leave a barrier up to a
// message latency apart, and a ping-pong timed from its initiator's exit would count the partner's
// late exit as part of the first round trip (SMPI's exact network model showed it: 4 MiB and
// longer messages, one round trip per iteration, came out about 1 us too slow).
//
// Under SMPI the clock is global (simulated time): the iteration's time is then exactly the
// replay's definition of a collective, from the last rank's start to the last rank's end, free of
// the skew with which ranks leave the barrier.
double timed_iteration(const std::function<void()>& body, bool counts,
                       const std::function<void()>& align = {},
                       const std::function<void()>& prepare = {}) {
  if (prepare) prepare();  // untimed, before the barrier: e.g. the buffers flushed from the caches
  MPI_Barrier(MPI_COMM_WORLD);
  if (align) align();
  const double start = MPI_Wtime();
  body();
  const double end = MPI_Wtime();
#if SONDE_SMPI
  const double lowest = -std::numeric_limits<double>::infinity();
  const double mine[2] = {counts ? start : lowest, counts ? end : lowest};
  double last[2] = {0, 0};
  MPI_Allreduce(mine, last, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return last[1] - last[0];
#else
  const double local = counts ? end - start : 0.0;
  double slowest = 0;
  MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
#endif
}

// The benchmark loop of every MPI benchmark: `body` once untimed (connections made, buffers
// touched), then once per iteration. `before_timing`, when given, runs between the two (to set a
// receive buffer apart from what the timed messages must leave in it); `prepare`, when given,
// before every iteration's barrier, untimed (to flush the buffers from the caches). `check` runs on
// every rank after the loop; a failure on any rank fails the benchmark on all, so that rank 0
// reports it.
void mpi_loop(benchmark::State& state, const std::string& part, const std::function<void()>& body,
              bool counts, const std::function<bool()>& check,
              const std::function<void()>& before_timing = {},
              const std::function<void()>& align = {}, const std::function<void()>& prepare = {}) {
  // A test hook: SONDE_TEST_KILL_RANK=r (or r:part) kills rank r in its first benchmark (of that
  // part), as a node failure would, so that the tests can check what a failed run leaves behind.
  static const std::string kill =
      std::getenv("SONDE_TEST_KILL_RANK") ? std::getenv("SONDE_TEST_KILL_RANK") : "";
  if (!kill.empty() && std::atoi(kill.c_str()) == world_rank() &&
      (kill.find(':') == std::string::npos || kill.substr(kill.find(':') + 1) == part)) {
    std::raise(SIGKILL);
  }
  body();
  if (before_timing) before_timing();
  for (auto _ : state) state.SetIterationTime(timed_iteration(body, counts, align, prepare));
  int ok = check() ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all_ok == 0) state.SkipWithError("a rank received wrong data");
}

// An empty round trip from a to b: when a gets it back, b is past the barrier and waiting.
void align_pair(int a, int b) {
  const int rank = world_rank();
  if (rank == a) {
    MPI_Send(nullptr, 0, MPI_BYTE, b, kAlignTag, MPI_COMM_WORLD);
    MPI_Recv(nullptr, 0, MPI_BYTE, b, kAlignTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == b) {
    MPI_Recv(nullptr, 0, MPI_BYTE, a, kAlignTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(nullptr, 0, MPI_BYTE, a, kAlignTag, MPI_COMM_WORLD);
  }
}

unsigned char pattern_byte(std::uint64_t i, int salt) {
  // SplitMix64's finalizer over (salt, i): two salts agree on a byte one time in 256, so a block
  // from the wrong rank or the wrong place fails the check (a linear mix of the salt repeated
  // every 4 ranks of blocks 64 apart).
  std::uint64_t h = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(salt)) << 40) ^ i;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return static_cast<unsigned char>(h ^ (h >> 31));
}

// Registers an MPI benchmark: manual time (the slowest rank's), repetitions with their median
// and spread, and a warm-up of its own length before the measured runs: the first tens of
// milliseconds of an exchange of large messages run slower (pages mapped, the library's
// registration caches filled, the cores' clocks up). Its timings are manual too, so every rank
// warms up alike.
void register_mpi(ParamRegistry& registry, const MpiSuitePlan& plan, const std::string& name,
                  std::function<void(benchmark::State&)> run, nlohmann::json params) {
  register_benchmark(registry, name, std::move(run), std::move(params), plan.repetitions,
                     plan.min_time_seconds)
      ->UseManualTime()
      ->MinWarmUpTime(plan.warm_up_seconds);
}

// Round trips between ranks a and b with m-byte messages; b echoes what it receives.
void register_pingpong(const MpiSuitePlan& plan, const std::string& name, int a, int b,
                       std::uint64_t bytes, unsigned batch, nlohmann::json params,
                       ParamRegistry& registry) {
  const std::string part = params.value("part", "");
  auto run = [a, b, bytes, batch, part](benchmark::State& state) {
    const int rank = world_rank();
    // Only the pair holds the message: the other ranks may be thousands, simulated in one process.
    MessageBuffer buffer(rank == a || rank == b ? std::max<std::uint64_t>(bytes, 1) : 1);
    // Rank a sends its pattern; b starts from another, so that b holding a's pattern afterwards
    // (and a getting it back) shows the messages arrived whole.
    for (std::uint64_t i = 0; i < buffer.size(); ++i)
      buffer[i] = pattern_byte(i, rank == a ? a : a + 1);
    const auto holds_a_pattern = [&] {
      for (std::uint64_t i = 0; i < bytes; ++i) {
        if (buffer[i] != pattern_byte(i, a)) return false;
      }
      return true;
    };
    const int count = static_cast<int>(bytes);
    const auto body = [&] {
      if (rank == a) {
        for (unsigned i = 0; i < batch; ++i) {
          MPI_Send(buffer.data(), count, MPI_BYTE, b, kTag, MPI_COMM_WORLD);
          MPI_Recv(buffer.data(), count, MPI_BYTE, b, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
      } else if (rank == b) {
        for (unsigned i = 0; i < batch; ++i) {
          MPI_Recv(buffer.data(), count, MPI_BYTE, a, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buffer.data(), count, MPI_BYTE, a, kTag, MPI_COMM_WORLD);
        }
      }
    };
    mpi_loop(
        state, part, body, rank == a, [&] { return (rank != a && rank != b) || holds_a_pattern(); },
        {}, [a, b] { align_pair(a, b); });
    // Xu and Hwang's (1995) ping-pong time: half the round trip.
    state.counters["seconds_per_message"] =
        Counter(2.0 * batch, Counter::kIsIterationInvariantRate | Counter::kInvert);
    state.counters["bytes_per_second"] =
        Counter(2.0 * batch * static_cast<double>(bytes), Counter::kIsIterationInvariantRate);
  };
  params[param::message_bytes] = bytes;
  params["round_trips_per_iteration"] = batch;
  params[param::ranks] = {a, b};
  params["time"] = "half a round trip, timed on the first rank";
  register_mpi(registry, plan, name, run, std::move(params));
}

unsigned batch_for(std::uint64_t bytes, std::uint64_t budget, unsigned most) {
  return static_cast<unsigned>(
      std::clamp<std::uint64_t>(budget / std::max<std::uint64_t>(bytes, 1), 1, most));
}

// Windows of non-blocking sends from a to b (one way; b acknowledges each window, as the OSU
// bandwidth test does) or both ways at once.
void register_stream(const MpiSuitePlan& plan, int a, int b, std::uint64_t bytes, unsigned window,
                     bool both_ways, ParamRegistry& registry) {
  const unsigned windows = batch_for(bytes * window, 8u << 20, 20);
  const std::string name =
      fmt::format("mpi.stream.{}/bytes:{}", both_ways ? "bidirectional" : "unidirectional", bytes);
  auto run = [a, b, bytes, window, windows, both_ways](benchmark::State& state) {
    const int rank = world_rank();
    const int peer = rank == a ? b : a;
    const bool involved = rank == a || rank == b;
    const std::size_t slot = std::max<std::uint64_t>(bytes, 1);
    MessageBuffer out(involved ? slot * window : 0), in(involved ? slot * window : 0);
    if (involved) fill_stream_window(out, bytes, window, rank);
    const int count = static_cast<int>(bytes);
    std::vector<MPI_Request> requests(2 * window);
    const auto body = [&] {
      if (!involved) return;
      for (unsigned w = 0; w < windows; ++w) {
        int posted = 0;
        const bool receives = both_ways || rank == b;
        const bool sends = both_ways || rank == a;
        if (receives) {
          for (unsigned j = 0; j < window; ++j) {
            MPI_Irecv(in.data() + j * slot, count, MPI_BYTE, peer, kTag, MPI_COMM_WORLD,
                      &requests[posted++]);
          }
        }
        if (sends) {
          for (unsigned j = 0; j < window; ++j) {
            MPI_Isend(out.data() + j * slot, count, MPI_BYTE, peer, kTag, MPI_COMM_WORLD,
                      &requests[posted++]);
          }
        }
        MPI_Waitall(posted, requests.data(), MPI_STATUSES_IGNORE);
        if (!both_ways) {
          char ack = 0;
          if (rank == a) {
            MPI_Recv(&ack, 1, MPI_CHAR, b, kTag + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          } else {
            MPI_Send(&ack, 1, MPI_CHAR, a, kTag + 1, MPI_COMM_WORLD);
          }
        }
      }
    };
    // Every message of the last timed window is checked after timing. Before timing the receive
    // buffer is set to the complement of what the peer sends, so that a message of that window
    // that did not arrive (or arrived short) fails the check as surely as a corrupted one or one
    // in another's place: the timed loop itself does no work for the check.
    const bool receives_messages = involved && (both_ways || rank == b);
    const auto set_apart = [&] {
      if (!receives_messages) return;
      fill_stream_window(in, bytes, window, peer);
      for (unsigned char& byte : in) byte = static_cast<unsigned char>(~byte);
    };
    const auto check = [&] {
      if (!receives_messages || bytes == 0) return true;
      return first_wrong_stream_message(in, bytes, window, peer) < 0;
    };
    mpi_loop(state, "stream", body, involved, check, set_apart, [a, b] { align_pair(a, b); });
    const double moved = static_cast<double>(bytes) * window * windows * (both_ways ? 2 : 1);
    state.counters["bytes_per_second"] = Counter(moved, Counter::kIsIterationInvariantRate);
    state.counters["seconds_per_message"] =
        Counter(static_cast<double>(window) * windows,
                Counter::kIsIterationInvariantRate | Counter::kInvert);
  };
  register_mpi(registry, plan, name, run,
               {{param::suite, "mpi"},
                {param::part, "stream"},
                {param::kernel, both_ways ? "bidirectional" : "unidirectional"},
                {param::message_bytes, bytes},
                {"window", window},
                {"windows_per_iteration", windows},
                {param::ranks, {a, b}}});
}

// Byte i of message j of a stream window from `sender`: the sender's pattern, crossed with the
// message's place in the window (37 is odd: places 0 to 255 give 256 different masks), so that no
// two messages of a window are alike.
unsigned char stream_byte(std::uint64_t i, unsigned j, int sender) {
  return static_cast<unsigned char>(pattern_byte(i, sender) ^ ((j * 37u + 11u) & 0xffu));
}

}  // namespace

void fill_stream_window(MessageBuffer& buffer, std::uint64_t bytes, unsigned window, int sender) {
  const std::size_t slot = std::max<std::uint64_t>(bytes, 1);
  buffer.resize(slot * window);
  for (unsigned j = 0; j < window; ++j)
    for (std::size_t i = 0; i < slot; ++i) buffer[j * slot + i] = stream_byte(i, j, sender);
}

int first_wrong_stream_message(const MessageBuffer& buffer, std::uint64_t bytes, unsigned window,
                               int sender) {
  const std::size_t slot = std::max<std::uint64_t>(bytes, 1);
  for (unsigned j = 0; j < window; ++j) {
    if (buffer.size() < (j + 1) * slot) return static_cast<int>(j);
    for (std::size_t i = 0; i < bytes; ++i) {
      if (buffer[j * slot + i] != stream_byte(i, j, sender)) return static_cast<int>(j);
    }
  }
  return -1;
}

namespace {

// The collectives, each as it runs on `comm` (k ranks) with m bytes per rank (per pair for
// alltoall), and how its result is checked.
struct CollectiveBuffers {
  MessageBuffer send, receive;
  PageAlignedVector<double> values, sums;
};

void run_collective(const std::string& op, MPI_Comm comm, int k, int me, std::uint64_t m,
                    CollectiveBuffers& buffers) {
  const int count = static_cast<int>(m);
  const int doubles = static_cast<int>(m / 8);
  unsigned char* send = buffers.send.data();
  unsigned char* receive = buffers.receive.data();
  if (op == "barrier") {
    MPI_Barrier(comm);
  } else if (op == "bcast") {
    MPI_Bcast(send, count, MPI_BYTE, 0, comm);
  } else if (op == "gather") {
    MPI_Gather(send, count, MPI_BYTE, receive, count, MPI_BYTE, 0, comm);
  } else if (op == "scatter") {
    MPI_Scatter(send, count, MPI_BYTE, receive, count, MPI_BYTE, 0, comm);
  } else if (op == "alltoall") {
    MPI_Alltoall(send, count, MPI_BYTE, receive, count, MPI_BYTE, comm);
  } else if (op == "shift") {
    MPI_Sendrecv(send, count, MPI_BYTE, (me + 1) % k, kTag, receive, count, MPI_BYTE,
                 (me + k - 1) % k, kTag, comm, MPI_STATUS_IGNORE);
  } else if (op == "halo") {
    // One step of a 1-D decomposition's halo exchange as a grid code with fixed borders does it:
    // to the rank below while receiving from the one above, then the other way (MPI_PROC_NULL
    // past the ends). Block 0 of the send buffer goes down, block 1 up; block 0 of the receive
    // buffer comes from below, block 1 from above.
    const int below = me > 0 ? me - 1 : MPI_PROC_NULL;
    const int above = me + 1 < k ? me + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(send, count, MPI_BYTE, below, kTag, receive + m, count, MPI_BYTE, above, kTag,
                 comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(send + m, count, MPI_BYTE, above, kTag + 1, receive, count, MPI_BYTE, below,
                 kTag + 1, comm, MPI_STATUS_IGNORE);
  } else if (op == "allgather") {
    MPI_Allgather(send, count, MPI_BYTE, receive, count, MPI_BYTE, comm);
  } else if (op == "reduce") {
    MPI_Reduce(buffers.values.data(), buffers.sums.data(), doubles, MPI_DOUBLE, MPI_SUM, 0, comm);
  } else if (op == "allreduce") {
    MPI_Allreduce(buffers.values.data(), buffers.sums.data(), doubles, MPI_DOUBLE, MPI_SUM, comm);
  } else if (op == "scan") {
    MPI_Scan(buffers.values.data(), buffers.sums.data(), doubles, MPI_DOUBLE, MPI_SUM, comm);
  }
}

// Fills the buffers with what each rank contributes: block j of rank r's send buffer holds
// pattern (r, j); every reduction value is r + 1.
void fill_collective(CollectiveBuffers& buffers, int me, std::uint64_t m) {
  // As many blocks as the operation sends (collective_blocks).
  const std::size_t blocks = m > 0 ? buffers.send.size() / m : 0;
  for (std::size_t j = 0; j < blocks; ++j) {
    for (std::uint64_t i = 0; i < m; ++i) {
      buffers.send[j * m + i] = pattern_byte(i, me * 64 + j);
    }
  }
  std::fill(buffers.receive.begin(), buffers.receive.end(), 0);
  std::fill(buffers.values.begin(), buffers.values.end(), me + 1.0);
  std::fill(buffers.sums.begin(), buffers.sums.end(), 0.0);
}

bool block_is(const unsigned char* block, std::uint64_t m, int salt) {
  for (std::uint64_t i = 0; i < m; ++i) {
    if (block[i] != pattern_byte(i, salt)) return false;
  }
  return true;
}

// What the collective must have delivered on this rank after fill_collective().
bool collective_right(const std::string& op, const CollectiveBuffers& b, int k, int me,
                      std::uint64_t m) {
  const unsigned char* in = b.receive.data();
  if (op == "bcast") return block_is(b.send.data(), m, 0);  // root's block 0
  if (op == "gather" && me == 0) {
    for (int j = 0; j < k; ++j) {
      if (!block_is(in + j * m, m, j * 64)) return false;
    }
  }
  if (op == "scatter") return block_is(in, m, me);  // root's block `me`
  if (op == "alltoall" || op == "allgather") {
    for (int j = 0; j < k; ++j) {
      if (!block_is(in + j * m, m, j * 64 + (op == "alltoall" ? me : 0))) return false;
    }
  }
  if (op == "shift") return block_is(in, m, ((me + k - 1) % k) * 64);
  if (op == "halo") {
    // From below: its block 1 (sent up); from above: its block 0 (sent down).
    if (me > 0 && !block_is(in, m, (me - 1) * 64 + 1)) return false;
    if (me + 1 < k && !block_is(in + m, m, (me + 1) * 64)) return false;
    return true;
  }
  const double all = k * (k + 1) / 2.0, upto = (me + 1) * (me + 2) / 2.0;
  if ((op == "reduce" && me == 0) || op == "allreduce") {
    return std::all_of(b.sums.begin(), b.sums.end(), [&](double v) { return v == all; });
  }
  if (op == "scan") {
    return std::all_of(b.sums.begin(), b.sums.end(), [&](double v) { return v == upto; });
  }
  return true;
}

// Communicators of the first k ranks, made once (collectively, in the same order everywhere).
MPI_Comm first_ranks(int k) {
  static std::map<int, MPI_Comm> made;
  if (const auto it = made.find(k); it != made.end()) return it->second;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() < k ? 0 : MPI_UNDEFINED, world_rank(), &comm);
  made[k] = comm;
  return comm;
}

void register_collective(const MpiSuitePlan& plan, const std::string& op, int k, std::uint64_t m,
                         ParamRegistry& registry) {
  MPI_Comm comm = first_ranks(k);
  // Batches keep the clock's resolution and the barrier out of a short operation's time, but they
  // pipeline: an eager broadcast's next operation starts before the last leaf has the previous
  // one. Simulated time needs neither: one operation per iteration, its latency alone.
  // A large collective runs from cold buffers (plan.cold_collective_bytes): on 2 ranks of a 2-core
  // guest an alltoall of 4 MiB blocks took 0.59 ms from buffers used the iteration before and
  // 1.5 ms from buffers not touched since, as a distributed FFT's transpose runs it (1.6 ms).
  // (The plan sets no threshold where nothing can flush: simulated, or no clflush.)
  // (A halo's rows were just written by the sweep: never cold.)
  const bool cold = op != "barrier" && op != "halo" && plan.cold_collective_bytes > 0 &&
                    m >= plan.cold_collective_bytes;
  // A halo exchange is timed in steps back to back, as a grid code runs it, also where simulated:
  // a step's exchanges wait on the neighbours' previous ones, which one step after a barrier does
  // not show. Under SMPI, the corpus's stencil on 64 ranks of a fat tree of 8-core nodes (32 KiB
  // each way) took 16.9 us for its first step, 11.7 for its second and 13.1 a step from the
  // eighth on; a single shift of 32 KiB there comes to 4.9 us.
  unsigned batch =
      plan.simulated || cold ? 1u : batch_for(m * static_cast<std::uint64_t>(k), 1u << 20, 100);
  if (op == "halo") {
    batch = std::max(kHaloSteps, batch_for(collective_blocks(op, k) * m, 1u << 20, 100));
  }
  const std::string name = op == "barrier"
                               ? fmt::format("mpi.collective.barrier/ranks:{}", k)
                               : fmt::format("mpi.collective.{}/ranks:{}/bytes:{}", op, k, m);
  auto run = [op, comm, k, m, batch, cold](benchmark::State& state) {
    const bool member = comm != MPI_COMM_NULL;
    int me = 0;
    if (member) MPI_Comm_rank(comm, &me);
    CollectiveBuffers buffers;
    // Only the buffers the operation uses are sized (the reductions' values and sums, the others'
    // bytes); the ranks outside the communicator hold none.
    const bool reduction = op == "reduce" || op == "allreduce" || op == "scan";
    const std::uint64_t bytes = member && !reduction ? m * collective_blocks(op, k) : 0;
    const std::uint64_t doubles = member && reduction ? m / 8 : 0;
    buffers.send.resize(std::max<std::uint64_t>(1, bytes));
    buffers.receive.resize(std::max<std::uint64_t>(1, bytes));
    buffers.values.resize(std::max<std::uint64_t>(1, doubles));
    buffers.sums.resize(std::max<std::uint64_t>(1, doubles));
    if (member) fill_collective(buffers, me, m);
    const auto body = [&] {
      if (!member) return;
      for (unsigned i = 0; i < batch; ++i) run_collective(op, comm, k, me, m, buffers);
    };
    // Checked once more, untimed, from fresh buffers (a bcast's root and receivers share one).
    const auto check = [&] {
      if (!member) return true;
      fill_collective(buffers, me, m);
      if (op == "bcast" && me != 0) std::fill(buffers.send.begin(), buffers.send.end(), 0);
      run_collective(op, comm, k, me, m, buffers);
      return collective_right(op, buffers, k, me, m);
    };
    const auto flush = [&] {
      if (!member) return;
      flush_from_caches(buffers.send.data(), buffers.send.size());
      flush_from_caches(buffers.receive.data(), buffers.receive.size());
      flush_from_caches(buffers.values.data(), buffers.values.size() * sizeof(double));
      flush_from_caches(buffers.sums.data(), buffers.sums.size() * sizeof(double));
    };
    mpi_loop(state, "collectives", body, member, check, {}, {},
             cold ? std::function<void()>(flush) : std::function<void()>());
    state.counters["seconds_per_operation"] =
        Counter(batch, Counter::kIsIterationInvariantRate | Counter::kInvert);
  };
  nlohmann::json params = {{param::suite, "mpi"},
                           {param::part, "collectives"},
                           {param::kernel, "collective"},
                           {param::operation, op},
                           {param::communicator_ranks, k},
                           {"operations_per_iteration", batch},
                           {"time", "slowest rank of the communicator, after a barrier"}};
  if (op != "barrier") {
    params[param::message_bytes] = m;
    params["buffers"] =
        cold ? fmt::format("cold: flushed from every cache ({}) before each operation",
                           cache_flush_method())
             : std::string("warm: used again operation after operation");
  }
  if (op == "alltoall") params["message_bytes_meaning"] = "to each other rank";
  if (op == "halo") {
    params["message_bytes_meaning"] =
        "to each neighbour: two MPI_Sendrecv a step (down, then up), no neighbour past the ends";
  }
  register_mpi(registry, plan, name, run, std::move(params));
}

nlohmann::json place_json(const RankPlace& place) {
  return {{"rank", place.rank},
          {"host", place.host},
          {"cpus", place.place.cpus},
          {"core", place.place.core},
          {"package", place.place.package},
          {"numa_node", place.place.numa_node}};
}

}  // namespace

std::string pair_class(const RankPlace& a, const RankPlace& b) {
  if (a.host != b.host) return "other-node";
  if (a.place.core >= 0 && a.place.core == b.place.core) return "same-core";
  if (a.place.numa_node >= 0 && a.place.numa_node == b.place.numa_node) return "same-numa";
  if (a.place.package >= 0 && a.place.package == b.place.package) return "same-socket";
  return "same-node";
}

std::vector<RankPlace> gather_places(const Topology& topology, MPI_Comm world) {
  struct Wire {
    char host[256];
    char cpus[256];
    int core, package, numa_node;
  };
  Wire mine{};
#if SONDE_SMPI
  // Under SMPI every simulated rank is a thread of one process on the machine that simulates: its
  // node is the simulated host MPI names, and hwloc's place (the simulating process's) says
  // nothing about where the rank runs.
  (void)topology;
  Placement place;
  int length = 0;
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  MPI_Get_processor_name(name, &length);
  std::snprintf(mine.host, sizeof mine.host, "%s", name);
#else
  const Placement place = topology.placement();
  std::snprintf(mine.host, sizeof mine.host, "%s", host_name().c_str());
#endif
  std::snprintf(mine.cpus, sizeof mine.cpus, "%s", place.cpus.c_str());
  mine.core = place.core;
  mine.package = place.package;
  mine.numa_node = place.numa_node;
  int size = 1;
  MPI_Comm_size(world, &size);
  std::vector<Wire> all(static_cast<std::size_t>(size));
  MPI_Allgather(&mine, sizeof(Wire), MPI_BYTE, all.data(), sizeof(Wire), MPI_BYTE, world);
  std::vector<RankPlace> places;
  for (int r = 0; r < size; ++r) {
    const Wire& w = all[static_cast<std::size_t>(r)];
    places.push_back({r, w.host, {w.cpus, w.core, w.package, w.numa_node}});
  }
  return places;
}

void register_mpi_suite(const MpiSuitePlan& plan, const std::vector<RankPlace>& places,
                        ParamRegistry& registry) {
  const auto selected = [&](const char* part) { return has_part(plan.parts, part); };
  const int last = plan.ranks - 1;
  if (selected("pingpong")) {
    for (std::uint64_t m : plan.pingpong_bytes) {
      register_pingpong(plan, fmt::format("mpi.pingpong/bytes:{}", m), 0, last, m,
                        batch_for(m, 4u << 20, 1000),
                        {{param::suite, "mpi"},
                         {param::part, "pingpong"},
                         {param::kernel, "pingpong"},
                         {"pair_class", pair_class(places[0], places[last])}},
                        registry);
    }
  }
  if (selected("map")) {
    for (const auto& [a, b] : plan.map_pairs) {
      for (const bool latency : {true, false}) {
        const std::uint64_t m = latency ? plan.map_latency_bytes : plan.map_bandwidth_bytes;
        register_pingpong(
            plan, fmt::format("mpi.map.{}/a:{}/b:{}", latency ? "latency" : "bandwidth", a, b), a,
            b, m, latency ? 200 : batch_for(m, 16u << 20, 20),
            {{param::suite, "mpi"},
             {param::part, "map"},
             {param::kernel, "pingpong"},
             {"measure", latency ? "latency" : "bandwidth"},
             {"pair_class", pair_class(places[a], places[b])},
             {"a", place_json(places[a])},
             {"b", place_json(places[b])}},
            registry);
      }
    }
  }
  if (selected("stream")) {
    for (std::uint64_t m : plan.stream_bytes) {
      const unsigned window = static_cast<unsigned>(std::clamp<std::uint64_t>(
          kWindowBytesCap / std::max<std::uint64_t>(m, 1), 1, plan.window));
      for (const bool both : {false, true})
        register_stream(plan, 0, last, m, window, both, registry);
    }
  }
  if (selected("collectives")) {
    for (const PlannedCollective& c : planned_collectives(plan)) {
      register_collective(plan, c.op, c.ranks, c.bytes, registry);
    }
  }
}

nlohmann::json mpi_context(const std::vector<RankPlace>& places) {
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(library, &length);
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  std::string text(library, static_cast<std::size_t>(std::max(length, 0)));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\0')) {
    text.pop_back();
  }
  std::map<std::string, std::vector<int>> hosts;
  for (const RankPlace& place : places) hosts[place.host].push_back(place.rank);
  std::size_t most = 0, fewest = places.size();
  nlohmann::json host_list = nlohmann::json::array();
  for (const auto& [host, ranks] : hosts) {
    host_list.push_back({{"host", host}, {param::ranks, ranks}});
    most = std::max(most, ranks.size());
    fewest = std::min(fewest, ranks.size());
  }
  nlohmann::json rank_places = nlohmann::json::array();
  for (const RankPlace& place : places) rank_places.push_back(place_json(place));
  return {{"simulated", kSimulatedRun},  // under SMPI: hosts and times are the simulated machine's
          {"library", text.substr(0, text.find('\n'))},
          {"library_version", text},
          {"standard", fmt::format("{}.{}", version, subversion)},
          {param::ranks, places.size()},
          {"hosts", host_list},
          {"ranks_per_node", {{"most", most}, {"fewest", fewest}}},
          {"placement", rank_places}};
}

}  // namespace sonde::microbench
