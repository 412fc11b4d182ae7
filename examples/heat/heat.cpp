// The example program whose performance examples/heat/heat.csv predicts: explicit 1-D heat
// diffusion on a ring of N points, split over the MPI ranks in equal blocks; every step each rank
// swaps one boundary value with each neighbour (MPI_Sendrecv, 8 bytes each way) and updates its
// block, u'[i] = u[i] + c (u[i-1] - 2 u[i] + u[i+1]), five flops per point.
//   mpirun -np 2 sonde-example-heat [--points N] [--steps K] [--repetitions R]
// Prints one JSON line per repetition: ranks, seconds (the slowest rank's), and the heat check
// (a ring conserves the sum of u; a wrong exchange breaks it and the program fails).
#include <mpi.h>
#ifndef SONDE_SMPI
#include "sonde/phase.h"  // phases for `sonde check --components`, named after heat.csv's rows
#define HEAT_PHASE(name) const sonde::Phase phase(name)
#else
#define HEAT_PHASE(name)
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

long option_value(int argc, char** argv, const std::string& name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (argv[i] == name) return std::atol(argv[i + 1]);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const long points = option_value(argc, argv, "--points", 65536);
  const long steps = option_value(argc, argv, "--steps", 2000);
  const long repetitions = option_value(argc, argv, "--repetitions", 5);
  if (points % ranks != 0 || points / ranks < 2) {
    if (rank == 0) std::fprintf(stderr, "heat: --points must be a multiple of the ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long local = points / ranks;
  const int left = (rank + ranks - 1) % ranks, right = (rank + 1) % ranks;
  const double c = 0.25;
  int failed = 0;
  for (long repetition = 0; repetition < repetitions; ++repetition) {
    // u[0] and u[local + 1] are the neighbours' boundary values.
    std::vector<double> u(local + 2), next(local + 2);
    for (long i = 1; i <= local; ++i) {
      const long global = rank * local + i - 1;
      u[i] = 1.0 + std::sin(6.283185307179586 * static_cast<double>(global) / points);
    }
    double before = 0;
    for (long i = 1; i <= local; ++i) before += u[i];
    MPI_Allreduce(MPI_IN_PLACE, &before, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (long step = 0; step < steps; ++step) {
      {
        HEAT_PHASE("halo");
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[local + 1], 1, MPI_DOUBLE, right, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[local], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      {
        HEAT_PHASE("sweep");
        for (long i = 1; i <= local; ++i) next[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]);
      }
      std::swap(u, next);
    }
    double seconds = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double after = 0;
    for (long i = 1; i <= local; ++i) after += u[i];
    MPI_Allreduce(MPI_IN_PLACE, &after, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const bool conserved = std::abs(after - before) <= 1e-9 * before;
    failed = failed || !conserved;
    if (rank == 0) {
      std::printf(
          "{\"ranks\": %d, \"points\": %ld, \"steps\": %ld, \"seconds\": %.9g, \"heat_before\": "
          "%.17g, \"heat_after\": %.17g, \"conserved\": %s}\n",
          ranks, points, steps, seconds, before, after, conserved ? "true" : "false");
    }
  }
  MPI_Finalize();
  return failed ? 1 : 0;
}
