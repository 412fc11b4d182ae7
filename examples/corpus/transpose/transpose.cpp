// Validation corpus: transpose, a distributed 2-D FFT: compute in cache, a copy through memory, and
// an all-to-all. The N x N complex<double> matrix A is dealt in blocks of b = N/p rows. One pass:
//   rows:      every local row: gather it in bit-reversed order into a scratch row, a radix-2
//              iterative FFT there (hand-written, decimation in time), store it into the send
//              buffer as p blocks of b columns (the pack);
//   alltoall:  MPI_Alltoall of b x b complex numbers (16 b^2 bytes) to every rank;
//   columns:   every column of this rank's b columns (now a local row of the transpose): gather it
//              in bit-reversed order from the received blocks (the unpack), FFT, multiply by 1/N
//              (so values keep their size pass after pass), store into A.
// So a pass makes A = FFT2(A)^T / N, and a repetition makes K passes. N a power of two, divisible
// by the ranks. Predicted by transpose.csv.
//   mpirun -np 2 sonde-example-transpose [--N 1024] [--K 20] [--repetitions 5] [--verify]
// --verify: rank 0 applies K passes of a naive O(N^4) DFT (with the same transposition and
// scale) to the whole matrix and compares.
#include "../common.hpp"

#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using complex = std::complex<double>;

std::vector<std::uint32_t> bit_reversal(long n) {
  int bits = 0;
  while ((1L << bits) < n) ++bits;
  std::vector<std::uint32_t> rev(n);
  for (long i = 0; i < n; ++i) {
    std::uint32_t r = 0;
    for (int b = 0; b < bits; ++b)
      if (i & (1L << b)) r |= 1u << (bits - 1 - b);
    rev[i] = r;
  }
  return rev;
}

// In place on a row already in bit-reversed order; twiddle[j] = exp(-2 pi i j / n), j < n/2.
// The complex product is written out (4 multiplies, 2 additions) rather than std::complex's,
// which checks for NaN and calls __muldc3.
__attribute__((noinline)) void fft(complex* __restrict a, const complex* __restrict twiddle,
                                   long n) {
  double* d = reinterpret_cast<double*>(a);
  const double* w = reinterpret_cast<const double*>(twiddle);
  for (long len = 2; len <= n; len <<= 1) {
    const long half = len / 2, stride = n / len;
    for (long start = 0; start < n; start += len) {
      for (long j = 0; j < half; ++j) {
        const double wr = w[2 * j * stride], wi = w[2 * j * stride + 1];
        const long top = 2 * (start + j), bottom = 2 * (start + j + half);
        const double br = d[bottom], bi = d[bottom + 1];
        const double vr = br * wr - bi * wi, vi = br * wi + bi * wr;
        const double ur = d[top], ui = d[top + 1];
        d[top] = ur + vr;
        d[top + 1] = ui + vi;
        d[bottom] = ur - vr;
        d[bottom + 1] = ui - vi;
      }
    }
  }
}

complex initial(long row, long column) {
  return {static_cast<double>((row * 13 + column * 7) % 17) / 17.0 - 0.5,
          static_cast<double>((row * 5 + column * 11) % 19) / 19.0 - 0.5};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const corpus::Options o =
      corpus::parse(argc, argv, "transpose",
                    {{"N", 1024, 2, "matrix side, a power of two divisible by the ranks"},
                     {"K", 20, 1, "2-D FFT passes per repetition"}});
  const long N = o["N"], K = o["K"];
  const int me = corpus::rank(), P = corpus::ranks();
  if ((N & (N - 1)) != 0) {
    corpus::usage_error("transpose", "--N: " + std::to_string(N) + " is not a power of two");
  }
  if (N % P != 0) {
    corpus::usage_error("transpose", "--N: " + std::to_string(N) + " is not divisible by the " +
                                         std::to_string(P) + " ranks");
  }
  if (N > 16384) {
    corpus::usage_error("transpose",
                        "--N: " + std::to_string(N) + " is too large; expected at most 16384");
  }
  const long b = N / P;  // rows per rank, and the side of each exchanged block
  const std::vector<std::uint32_t> rev = bit_reversal(N);
  // Where element rev[j] of a transposed row (column 0 of this rank's) lies in the received
  // blocks: element k = q b + r is A_q[r][c], at q b b + r b + c.
  std::vector<std::uint32_t> unpack(N);
  for (long j = 0; j < N; ++j) {
    const long k = rev[j];
    unpack[j] = static_cast<std::uint32_t>((k / b) * b * b + (k % b) * b);
  }
  corpus::Buffer<complex> twiddle(N / 2);
  for (long j = 0; j < N / 2; ++j) {
    const double angle = -2.0 * M_PI * static_cast<double>(j) / static_cast<double>(N);
    twiddle[j] = {std::cos(angle), std::sin(angle)};
  }
  corpus::Buffer<complex> A(b * N), send(b * N), receive(b * N), scratch(N);
  const double scale = 1.0 / static_cast<double>(N);
  const int block = static_cast<int>(2 * b * b);  // doubles per block

  corpus::Program program;
  program.setup = [&] {
    for (long i = 0; i < b; ++i)
      for (long j = 0; j < N; ++j) A[i * N + j] = initial(me * b + i, j);
  };
  program.region = [&] {
    complex* __restrict s = scratch.data();
    for (long pass = 0; pass < K; ++pass) {
      // Phases named after transpose.csv's rows; the FFTs, the pack and the unpack interleave.
      {
        // rows: gather bit-reversed, FFT, pack block q (columns q b .. q b + b - 1) row-major.
        const corpus::Phase phase("fft + reorder + unpack walk");
        for (long i = 0; i < b; ++i) {
          const complex* row = A.data() + i * N;
          for (long j = 0; j < N; ++j) s[j] = row[rev[j]];
          fft(s, twiddle.data(), N);
          for (long q = 0; q < P; ++q)
            for (long c = 0; c < b; ++c) send[q * b * b + i * b + c] = s[q * b + c];
        }
      }
      {
        const corpus::Phase phase("exchange + self block");  // it copies the rank's own block too
        MPI_Alltoall(send.data(), block, MPI_DOUBLE, receive.data(), block, MPI_DOUBLE,
                     MPI_COMM_WORLD);
      }
      {
        // columns: block q from rank q holds A_q[r][my column c] at q b b + r b + c; element
        // k = q b + r of transposed row c.
        const corpus::Phase phase("fft + reorder + unpack walk");
        for (long c = 0; c < b; ++c) {
          const complex* column = receive.data() + c;
          for (long j = 0; j < N; ++j) s[j] = column[unpack[j]];
          fft(s, twiddle.data(), N);
          complex* out = A.data() + c * N;
          for (long j = 0; j < N; ++j) out[j] = s[j] * scale;
        }
      }
    }
  };
  program.checksum = [&] {
    double sum = 0;
    for (long i = 0; i < b * N; ++i) sum += A[i].real() + A[i].imag();
    return sum;
  };
  program.verify = [&]() -> std::string {
    std::vector<complex> all(me == 0 ? N * N : 0);
    MPI_Gather(A.data(), static_cast<int>(2 * b * N), MPI_DOUBLE, all.data(),
               static_cast<int>(2 * b * N), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me != 0) return "";
    // K passes of the naive DFT: X[u][v] = sum_{r,c} x[r][c] exp(-2 pi i (u r + v c) / N), then
    // A = X^T / N.
    std::vector<complex> x(N * N), X(N * N);
    for (long r = 0; r < N; ++r)
      for (long c = 0; c < N; ++c) x[r * N + c] = initial(r, c);
    for (long pass = 0; pass < K; ++pass) {
      for (long u = 0; u < N; ++u)
        for (long v = 0; v < N; ++v) {
          complex sum = 0;
          for (long r = 0; r < N; ++r)
            for (long c = 0; c < N; ++c) {
              const long phase = (u * r + v * c) % N;
              sum += x[r * N + c] * std::polar(1.0, -2.0 * M_PI * static_cast<double>(phase) /
                                                        static_cast<double>(N));
            }
          X[u * N + v] = sum;
        }
      for (long r = 0; r < N; ++r)
        for (long c = 0; c < N; ++c) x[r * N + c] = X[c * N + r] / static_cast<double>(N);
    }
    double size = 0, error = 0;
    for (long i = 0; i < N * N; ++i) {
      size = std::max(size, std::abs(x[i]));
      error = std::max(error, std::abs(all[i] - x[i]));
    }
    if (!(error <= 1e-9 * size)) {
      return "the FFT differs from the naive DFT by " + std::to_string(error) + " (largest value " +
             std::to_string(size) + ")";
    }
    return "";
  };
  const int status = corpus::run(o, program);
  MPI_Finalize();
  return status;
}
