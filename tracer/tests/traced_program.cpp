// The MPI program the tracer's tests trace: a known sequence of calls, so that the test can check
// the trace call by call (tests/tracer_test.cpp, expected_functions). An even number of ranks:
// ranks pair up as r and r ^ 1. Every rank prints nothing unless something is wrong.
#include <mpi.h>

#include <cstdio>
#include <ctime>
#include <vector>

#include "sonde/phase.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// About 2.5 ms of this thread's CPU time, whatever else shares the processor: the test checks
// that the call after it has at least 1.5 ms of process time before it.
void compute() {
  volatile double sink = 0;
  const double start = cpu_seconds();
  while (cpu_seconds() - start < 2.5e-3)
    for (int i = 0; i < 1000; ++i) sink = sink + 1.0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size % 2 != 0) {
    if (rank == 0) std::fprintf(stderr, "traced program: needs an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int partner = rank ^ 1, right = (rank + 1) % size, left = (rank + size - 1) % size;

  // Ping-pong, 3 times, 8 bytes, tag 7; the odd ranks receive from any source.
  double word = rank;
  for (int i = 0; i < 3; ++i) {
    if (rank % 2 == 0) {
      MPI_Send(&word, 1, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD);
      MPI_Recv(&word, 1, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Status status;
      MPI_Recv(&word, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &status);
      MPI_Send(&word, 1, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD);
    }
  }

  // A ring: 16 bytes to the right, tag 11.
  int four[4] = {rank, rank, rank, rank}, got_four[4] = {};
  MPI_Sendrecv(four, 4, MPI_INT, right, 11, got_four, 4, MPI_INT, left, 11, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);

  // Non-blocking, 32 bytes to the right, tag 12.
  int eight[8] = {}, got_eight[8] = {};
  MPI_Request requests[2];
  MPI_Irecv(got_eight, 8, MPI_INT, left, 12, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(eight, 8, MPI_INT, right, 12, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);

  sonde_phase_begin("compute");
  compute();
  sonde_phase_end("compute");

  double sum = 0;
  MPI_Allreduce(&word, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  double block[8] = {};
  MPI_Bcast(block, 8, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  long long mine = rank;
  std::vector<long long> all(static_cast<std::size_t>(size));
  MPI_Gather(&mine, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  std::vector<int> out(static_cast<std::size_t>(size), rank), in(static_cast<std::size_t>(size));
  MPI_Alltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, MPI_COMM_WORLD);

  sonde_phase_begin("exchange");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm parity;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &parity);
  int one = 1, count = 0;
  MPI_Allreduce(&one, &count, 1, MPI_INT, MPI_SUM, parity);
  sonde_phase_end("exchange");

  // Nothing to nobody: a call without an operation.
  MPI_Send(&one, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD);

  // Completed by MPI_Wait and by MPI_Test (recorded once, when it completes); 4 bytes, tag 13.
  int token = rank, got_token = -1;
  MPI_Request receive, send;
  MPI_Irecv(&got_token, 1, MPI_INT, right, 13, MPI_COMM_WORLD, &receive);
  MPI_Isend(&token, 1, MPI_INT, left, 13, MPI_COMM_WORLD, &send);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  int done = 0;
  while (!done) MPI_Test(&receive, &done, MPI_STATUS_IGNORE);

  // Completed by MPI_Waitany, in whichever order; tag 14.
  MPI_Irecv(&got_token, 1, MPI_INT, left, 14, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(&token, 1, MPI_INT, right, 14, MPI_COMM_WORLD, &requests[1]);
  int index = 0;
  MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
  MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);

  // The other collectives, each with the bytes it sends and receives (tracer_test checks them).
  long long total = 0;
  MPI_Reduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  int prefix = 0;
  MPI_Scan(&one, &prefix, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  std::vector<int> ones(static_cast<std::size_t>(size), 1), twos(ones.size(), 2);
  std::vector<int> displacements(ones.size()), pair_displacements(ones.size());
  for (int q = 0; q < size; ++q) {
    displacements[static_cast<std::size_t>(q)] = q;
    pair_displacements[static_cast<std::size_t>(q)] = 2 * q;
  }
  int reduced = 0;
  MPI_Reduce_scatter(out.data(), &reduced, ones.data(), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allgather(&one, 1, MPI_INT, in.data(), 1, MPI_INT, MPI_COMM_WORLD);
  MPI_Allgatherv(&one, 1, MPI_INT, in.data(), ones.data(), displacements.data(), MPI_INT,
                 MPI_COMM_WORLD);
  int pair[2] = {rank, rank};
  std::vector<int> pairs(2 * ones.size());
  MPI_Gatherv(pair, 2, MPI_INT, pairs.data(), twos.data(), pair_displacements.data(), MPI_INT, 1,
              MPI_COMM_WORLD);
  int part = 0;
  MPI_Scatter(out.data(), 1, MPI_INT, &part, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Scatterv(pairs.data(), twos.data(), pair_displacements.data(), MPI_INT, pair, 2, MPI_INT, 1,
               MPI_COMM_WORLD);
  MPI_Alltoallv(out.data(), ones.data(), displacements.data(), MPI_INT, in.data(), ones.data(),
                displacements.data(), MPI_INT, MPI_COMM_WORLD);
  all[0] = mine;
  MPI_Gather(rank == 0 ? MPI_IN_PLACE : &mine, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, 0,
             MPI_COMM_WORLD);
  MPI_Comm copy;
  MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  MPI_Barrier(copy);
  MPI_Comm_free(&copy);

  MPI_Comm_free(&parity);
  const bool right_values = count == size / 2 && got_four[0] == left && got_token == left &&
                            in[static_cast<std::size_t>(left)] == left && prefix == rank + 1 &&
                            reduced == size * (size - 1) / 2 && part == 0 && pair[0] == rank &&
                            (rank != 0 || total == size * (size - 1) / 2);
  if (!right_values) std::fprintf(stderr, "traced program: rank %d got wrong values\n", rank);
  MPI_Finalize();
  return right_values ? 0 : 1;
}
