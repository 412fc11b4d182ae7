// Validation corpus: matmul, compute-bound. C += A B for N x N doubles; every rank holds its block
// of rows of A and C (the first N mod p ranks one more row) and all of B, and computes its rows of
// C with no communication inside the timed region. The loops run i-k-j inside BS x BS blocks, so
// the inner j loop is a contiguous multiply-add of a row of B into a row of C (vectorized with
// fused multiply-adds at -O3 -march=native). K multiplications per repetition (C accumulates). Rows
// are stored with a leading dimension of N + 8 doubles: with N a power of two, rows 8 KiB apart
// would all fall in the same few L1 sets, and a BS x BS block of B would not stay in L1. Predicted
// by matmul.csv.
//   mpirun -np 2 sonde-example-matmul [--N 1024] [--BS 64] [--K 8] [--repetitions 5] [--verify]
// --verify: every rank compares its rows of C with K naive triple-loop products (in exact small
// integers, so the order of additions does not matter).
#include "../common.hpp"

#include <algorithm>
#include <string>

namespace {

// C[rows x N] += A[rows x N] B[N x N], blocked; element (i, j) at i ld + j.
__attribute__((noinline)) void multiply(long rows, long N, long ld, long BS,
                                        const double* __restrict A, const double* __restrict B,
                                        double* __restrict C) {
  for (long ii = 0; ii < rows; ii += BS) {
    const long i_end = std::min(ii + BS, rows);
    for (long kk = 0; kk < N; kk += BS) {
      const long k_end = std::min(kk + BS, N);
      for (long jj = 0; jj < N; jj += BS) {
        const long j_end = std::min(jj + BS, N);
        for (long i = ii; i < i_end; ++i) {
          double* __restrict c = C + i * ld;
          for (long k = kk; k < k_end; ++k) {
            const double a = A[i * ld + k];
            const double* __restrict b = B + k * ld;
            for (long j = jj; j < j_end; ++j) c[j] += a * b[j];
          }
        }
      }
    }
  }
}

// Small integers, so that every sum of products is exact.
double a_value(long row, long column) {
  return static_cast<double>((row * 3 + column * 5) % 7 - 3);
}
double b_value(long row, long column) {
  return static_cast<double>((row * 2 + column * 7) % 5 - 2);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const corpus::Options o = corpus::parse(argc, argv, "matmul",
                                          {{"N", 1024, 1, "matrix side"},
                                           {"BS", 64, 1, "block side"},
                                           {"K", 8, 1, "multiplications per repetition"}});
  const long N = o["N"], BS = o["BS"], K = o["K"];
  const int me = corpus::rank(), P = corpus::ranks();
  const long lo = corpus::block_begin(N, P, me), hi = corpus::block_begin(N, P, me + 1);
  const long rows = hi - lo;
  const long ld = N + 8;
  corpus::Buffer<double> A(rows * ld, 0.0), B(N * ld, 0.0), C(rows * ld, 0.0);
  for (long i = 0; i < rows; ++i)
    for (long j = 0; j < N; ++j) A[i * ld + j] = a_value(lo + i, j);
  for (long i = 0; i < N; ++i)
    for (long j = 0; j < N; ++j) B[i * ld + j] = b_value(i, j);

  corpus::Program program;
  program.setup = [&] { std::fill(C.begin(), C.end(), 0.0); };
  program.region = [&] {
    const corpus::Phase phase("multiply");
    for (long k = 0; k < K; ++k) {
      multiply(rows, N, ld, BS, A.data(), B.data(), C.data());
      corpus::clobber_memory();
    }
  };
  program.checksum = [&] {
    double sum = 0;
    for (long i = 0; i < rows * ld; ++i) sum += C[i];  // the padding stays 0
    return sum;
  };
  program.verify = [&]() -> std::string {
    for (long i = 0; i < rows; ++i)
      for (long j = 0; j < N; ++j) {
        long sum = 0;
        for (long k = 0; k < N; ++k)
          sum += static_cast<long>(a_value(lo + i, k)) * static_cast<long>(b_value(k, j));
        const double expected = static_cast<double>(K * sum);
        if (C[i * ld + j] != expected) {
          return "C[" + std::to_string(lo + i) + "][" + std::to_string(j) +
                 "] = " + std::to_string(C[i * ld + j]) + ", the naive product gives " +
                 std::to_string(expected);
        }
      }
    return "";
  };
  const int status = corpus::run(o, program);
  MPI_Finalize();
  return status;
}
