// Validation corpus: cg, a mix of sparse bandwidth, reductions that wait on latency, and small
// collectives. Conjugate gradient on the 2-D 5-point Laplacian (4 on the diagonal, -1 to each grid
// neighbour, zero outside the grid) of an N x N grid, the matrix in CSR with 32-bit indices. The
// grid rows are dealt in blocks over the ranks (the first N mod p ranks one more). Every
// iteration:
//   halo:   two MPI_Sendrecv of one grid row of p (N doubles) with the neighbour above and below
//   spmv:   q = A p
//   dot pq: p.q, then MPI_Allreduce of one double; alpha = rr / pq
//   update: x += alpha p; r -= alpha q
//   dot rr: r.r, then MPI_Allreduce of one double; beta = rr' / rr
//   p:      p = r + beta p
// K iterations exactly (no convergence test, so the work is known). Predicted by cg.csv.
//   mpirun -np 2 sonde-example-cg [--N 1024] [--K 50] [--repetitions 5] [--verify]
// --verify: rank 0 runs K iterations of a serial, matrix-free CG on the whole grid and compares x;
// the energy x.A x / 2 - b.x must have fallen below its start (0), and the recurrence's residual
// must match b - A x computed from x.
#include "../common.hpp"

#include <cmath>
#include <cstdint>
#include <string>

namespace {

double rhs(long global) { return 1.0 + static_cast<double>(global % 7) / 7.0; }

// q[i] = sum over row i of val * pe[col]; pe is p with a halo row before and after.
__attribute__((noinline)) void spmv(long m, const std::int32_t* __restrict row,
                                    const std::int32_t* __restrict col,
                                    const double* __restrict val, const double* __restrict pe,
                                    double* __restrict q) {
  for (long i = 0; i < m; ++i) {
    double sum = 0;
    for (std::int32_t k = row[i]; k < row[i + 1]; ++k) sum += val[k] * pe[col[k]];
    q[i] = sum;
  }
}

// In order, as written (without -ffast-math the compiler keeps the order of the additions).
__attribute__((noinline)) double dot(long m, const double* __restrict a,
                                     const double* __restrict b) {
  double sum = 0;
  for (long i = 0; i < m; ++i) sum += a[i] * b[i];
  return sum;
}

__attribute__((noinline)) double dot_self(long m, const double* __restrict a) {
  double sum = 0;
  for (long i = 0; i < m; ++i) sum += a[i] * a[i];
  return sum;
}

// y += alpha x
__attribute__((noinline)) void axpy(long m, double alpha, const double* __restrict x,
                                    double* __restrict y) {
  for (long i = 0; i < m; ++i) y[i] += alpha * x[i];
}

// p = r + beta p
__attribute__((noinline)) void xpay(long m, const double* __restrict r, double beta,
                                    double* __restrict p) {
  for (long i = 0; i < m; ++i) p[i] = r[i] + beta * p[i];
}

double allreduce_sum(double value) {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const corpus::Options o = corpus::parse(argc, argv, "cg",
                                          {{"N", 1024, 2, "grid points per side (N^2 unknowns)"},
                                           {"K", 50, 1, "CG iterations per repetition"}});
  const long N = o["N"], K = o["K"];
  const int me = corpus::rank(), P = corpus::ranks();
  if (N < P) {
    corpus::usage_error("cg", "--N: " + std::to_string(N) + " grid rows for " + std::to_string(P) +
                                  " ranks; expected at least one row per rank");
  }
  if (N > 20000) {
    corpus::usage_error("cg", "--N: " + std::to_string(N) +
                                  " is too large for 32-bit indices; expected at most 20000");
  }
  const long lo = corpus::block_begin(N, P, me), hi = corpus::block_begin(N, P, me + 1);
  const long rows = hi - lo, m = rows * N;  // grid rows, unknowns of this rank
  const int up = me > 0 ? me - 1 : MPI_PROC_NULL;
  const int down = me + 1 < P ? me + 1 : MPI_PROC_NULL;

  // The CSR rows of this rank's unknowns; columns index pe, whose first N entries are the halo
  // row above, then the m local entries of p, then the halo row below.
  corpus::Buffer<std::int32_t> row_start(m + 1), col;
  corpus::Buffer<double> val;
  col.reserve(5 * m);
  val.reserve(5 * m);
  for (long gr = lo; gr < hi; ++gr) {
    for (long gc = 0; gc < N; ++gc) {
      const long local = (gr - lo) * N + gc;  // index into p; N + local into pe
      row_start[local] = static_cast<std::int32_t>(col.size());
      const auto add = [&](long index, double value) {
        col.push_back(static_cast<std::int32_t>(index));
        val.push_back(value);
      };
      if (gr > 0) add(N + local - N, -1.0);
      if (gc > 0) add(N + local - 1, -1.0);
      add(N + local, 4.0);
      if (gc + 1 < N) add(N + local + 1, -1.0);
      if (gr + 1 < N) add(N + local + N, -1.0);
    }
  }
  row_start[m] = static_cast<std::int32_t>(col.size());

  corpus::Buffer<double> x(m), r(m), q(m), pe(m + 2 * N);
  double* p = pe.data() + N;
  double rr = 0;

  corpus::Program program;
  program.setup = [&] {
    for (long i = 0; i < m; ++i) {
      x[i] = 0;
      r[i] = rhs(lo * N + i);  // r = b - A 0
      q[i] = 0;
    }
    for (long i = 0; i < m + 2 * N; ++i) pe[i] = 0;
    for (long i = 0; i < m; ++i) p[i] = r[i];
    rr = allreduce_sum(dot_self(m, r.data()));
  };
  program.region = [&] {
    // Each step a phase named after its spreadsheet row (sonde check --components).
    const auto timed = [](const char* name, auto&& step) {
      const corpus::Phase phase(name);
      return step();
    };
    for (long k = 0; k < K; ++k) {
      timed("halo", [&] {
        MPI_Sendrecv(p, static_cast<int>(N), MPI_DOUBLE, up, 0, p + m, static_cast<int>(N),
                     MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(p + m - N, static_cast<int>(N), MPI_DOUBLE, down, 1, pe.data(),
                     static_cast<int>(N), MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      });
      timed("spmv",
            [&] { spmv(m, row_start.data(), col.data(), val.data(), pe.data(), q.data()); });
      const double pq_local = timed("dot pq", [&] { return dot(m, p, q.data()); });
      const double pq = timed("reduce pq", [&] { return allreduce_sum(pq_local); });
      const double alpha = rr / pq;
      timed("update xr", [&] {
        axpy(m, alpha, p, x.data());
        axpy(m, -alpha, q.data(), r.data());
      });
      const double rr_local = timed("dot rr", [&] { return dot_self(m, r.data()); });
      const double rr_next = timed("reduce rr", [&] { return allreduce_sum(rr_local); });
      const double beta = rr_next / rr;
      rr = rr_next;
      timed("update p", [&] { xpay(m, r.data(), beta, p); });
    }
  };
  program.checksum = [&] {
    double sum = 0;
    for (long i = 0; i < m; ++i) sum += x[i];
    return sum + (me == 0 ? rr : 0.0);
  };
  program.verify = [&]() -> std::string {
    std::vector<int> counts(P), displs(P);
    for (int i = 0; i < P; ++i) {
      counts[i] =
          static_cast<int>((corpus::block_begin(N, P, i + 1) - corpus::block_begin(N, P, i)) * N);
      displs[i] = static_cast<int>(corpus::block_begin(N, P, i) * N);
    }
    std::vector<double> all(me == 0 ? N * N : 0);
    MPI_Gatherv(x.data(), static_cast<int>(m), MPI_DOUBLE, all.data(), counts.data(), displs.data(),
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me != 0) return "";
    const long M = N * N;
    // A v without a matrix: the 5-point stencil with zero outside the grid.
    const auto apply = [&](const std::vector<double>& v, std::vector<double>& out) {
      for (long gr = 0; gr < N; ++gr)
        for (long gc = 0; gc < N; ++gc) {
          double s = 4 * v[gr * N + gc];
          if (gr > 0) s -= v[(gr - 1) * N + gc];
          if (gr + 1 < N) s -= v[(gr + 1) * N + gc];
          if (gc > 0) s -= v[gr * N + gc - 1];
          if (gc + 1 < N) s -= v[gr * N + gc + 1];
          out[gr * N + gc] = s;
        }
    };
    std::vector<double> b(M), xs(M, 0.0), rs(M), ps(M), qs(M);
    for (long i = 0; i < M; ++i) b[i] = rs[i] = ps[i] = rhs(i);
    double rrs = 0;
    for (long i = 0; i < M; ++i) rrs += rs[i] * rs[i];
    const double rr0 = rrs;
    for (long k = 0; k < K; ++k) {
      apply(ps, qs);
      double pq = 0;
      for (long i = 0; i < M; ++i) pq += ps[i] * qs[i];
      const double alpha = rrs / pq;
      double next = 0;
      for (long i = 0; i < M; ++i) {
        xs[i] += alpha * ps[i];
        rs[i] -= alpha * qs[i];
        next += rs[i] * rs[i];
      }
      for (long i = 0; i < M; ++i) ps[i] = rs[i] + next / rrs * ps[i];
      rrs = next;
    }
    double scale = 0, error = 0;
    for (long i = 0; i < M; ++i) {
      scale = std::max(scale, std::abs(xs[i]));
      error = std::max(error, std::abs(all[i] - xs[i]));
    }
    if (!(error <= 1e-9 * scale)) {
      return "x differs from the serial CG by " + std::to_string(error) + " (largest |x| " +
             std::to_string(scale) + ")";
    }
    // The residual from x itself: b - A x.
    std::vector<double> ax(M);
    apply(all, ax);
    double true_rr = 0;
    for (long i = 0; i < M; ++i) true_rr += (b[i] - ax[i]) * (b[i] - ax[i]);
    // CG lowers the energy x.A x / 2 - b.x every iteration (the residual need not fall
    // monotonically); it is 0 at the start, x = 0.
    double energy = 0;
    for (long i = 0; i < M; ++i) energy += 0.5 * all[i] * ax[i] - b[i] * all[i];
    if (!(energy < 0)) {
      return "the energy x.A x / 2 - b.x did not fall below its start, 0: " +
             std::to_string(energy);
    }
    if (!(std::abs(true_rr - rr) <= 1e-6 * rr0 + 1e-6 * true_rr)) {
      return "the recurrence's |r|^2 " + std::to_string(rr) + " is not |b - A x|^2 " +
             std::to_string(true_rr);
    }
    return "";
  };
  const int status = corpus::run(o, program);
  MPI_Finalize();
  return status;
}
