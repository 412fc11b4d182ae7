// Validation corpus: stencil, bandwidth-bound with nearest-neighbour communication. Jacobi sweeps
// of the 2-D 5-point stencil on an N x N grid of doubles, u'[i][j] = 0.25 (u[i-1][j] + u[i+1][j] +
// u[i][j-1] + u[i][j+1]) at the (N-2)^2 interior points (the border is held fixed). The rows are
// dealt in blocks over the ranks (the first N mod p ranks one more); every step each rank swaps
// its first and last row (N doubles) with the neighbour above and below by two MPI_Sendrecv
// (MPI_PROC_NULL past the ends: the grid is not periodic, and one rank does no communication),
// then sweeps; the two arrays are swapped. K steps per repetition. Predicted by stencil.csv.
//   mpirun -np 2 sonde-example-stencil [--N 4096] [--K 30] [--repetitions 5] [--verify]
// --verify: rank 0 repeats the K steps serially on the whole grid and compares every point.
#include "../common.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

namespace {

double initial(long row, long column) {
  return static_cast<double>((row * 31 + column * 17) % 101) / 100.0;
}

// One sweep of the local rows first..last (indices into u including its halo row 0).
__attribute__((noinline)) void sweep(const double* __restrict u, double* __restrict v, long N,
                                     long first, long last) {
  for (long i = first; i <= last; ++i) {
    const double* up = u + (i - 1) * N;
    const double* here = u + i * N;
    const double* down = u + (i + 1) * N;
    double* out = v + i * N;
    for (long j = 1; j < N - 1; ++j) out[j] = 0.25 * (up[j] + down[j] + here[j - 1] + here[j + 1]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const corpus::Options o = corpus::parse(
      argc, argv, "stencil",
      {{"N", 4096, 3, "grid points per side"}, {"K", 30, 1, "Jacobi steps per repetition"}});
  const long N = o["N"], K = o["K"];
  const int me = corpus::rank(), p = corpus::ranks();
  if (N < p) {
    corpus::usage_error("stencil", "--N: " + std::to_string(N) + " rows for " + std::to_string(p) +
                                       " ranks; expected at least one row per rank");
  }
  const long lo = corpus::block_begin(N, p, me), hi = corpus::block_begin(N, p, me + 1);
  const long rows = hi - lo;
  const int up = me > 0 ? me - 1 : MPI_PROC_NULL;
  const int down = me + 1 < p ? me + 1 : MPI_PROC_NULL;
  // Local row i (1..rows) is global row lo + i - 1; rows 0 and rows + 1 are the halo.
  corpus::Buffer<double> u((rows + 2) * N), v((rows + 2) * N);
  // The rows this rank updates: global rows 1..N-2 only.
  const long first = std::max<long>(1, 1 - lo + 1), last = std::min<long>(rows, N - 2 - lo + 1);

  corpus::Program program;
  program.setup = [&] {
    std::fill(u.begin(), u.end(), 0.0);
    for (long i = 1; i <= rows; ++i)
      for (long j = 0; j < N; ++j) u[i * N + j] = initial(lo + i - 1, j);
    v = u;  // the border, which no step writes, is the same in both
  };
  program.region = [&] {
    for (long k = 0; k < K; ++k) {
      {
        const corpus::Phase phase("halo");  // named after stencil.csv's rows
        MPI_Sendrecv(&u[1 * N], static_cast<int>(N), MPI_DOUBLE, up, 0, &u[(rows + 1) * N],
                     static_cast<int>(N), MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[rows * N], static_cast<int>(N), MPI_DOUBLE, down, 1, &u[0],
                     static_cast<int>(N), MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      {
        const corpus::Phase phase("sweep");
        sweep(u.data(), v.data(), N, first, last);
      }
      std::swap(u, v);
    }
  };
  program.checksum = [&] {
    double sum = 0;
    for (long i = 1; i <= rows; ++i)
      for (long j = 0; j < N; ++j) sum += u[i * N + j];
    return sum;
  };
  program.verify = [&]() -> std::string {
    // Gather the result on rank 0, in global row order.
    std::vector<int> counts(p), displs(p);
    for (int r = 0; r < p; ++r) {
      counts[r] =
          static_cast<int>((corpus::block_begin(N, p, r + 1) - corpus::block_begin(N, p, r)) * N);
      displs[r] = static_cast<int>(corpus::block_begin(N, p, r) * N);
    }
    std::vector<double> all(me == 0 ? N * N : 0);
    MPI_Gatherv(&u[N], static_cast<int>(rows * N), MPI_DOUBLE, all.data(), counts.data(),
                displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me != 0) return "";
    // The serial reference: the same update on the whole grid, written without halos.
    std::vector<double> a(N * N), b(N * N);
    for (long r = 0; r < N; ++r)
      for (long c = 0; c < N; ++c) a[r * N + c] = initial(r, c);
    b = a;
    for (long k = 0; k < K; ++k) {
      for (long r = 1; r + 1 < N; ++r)
        for (long c = 1; c + 1 < N; ++c)
          b[r * N + c] =
              (a[(r - 1) * N + c] + a[(r + 1) * N + c] + a[r * N + c - 1] + a[r * N + c + 1]) / 4.0;
      std::swap(a, b);
    }
    for (long i = 0; i < N * N; ++i) {
      if (std::abs(all[i] - a[i]) > 1e-12 * (1 + std::abs(a[i]))) {
        return "point (" + std::to_string(i / N) + ", " + std::to_string(i % N) + ") is " +
               std::to_string(all[i]) + ", the serial sweep gives " + std::to_string(a[i]);
      }
    }
    return "";
  };
  const int status = corpus::run(o, program);
  MPI_Finalize();
  return status;
}
