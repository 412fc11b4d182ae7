// The STREAM triad of stream.cpp, shared with stream_threads.cpp: the sweep, the arrays' values and
// what a sweep must leave in a.
#pragma once

#include <string>

namespace corpus::stream {

// One sweep. Not inlined, and followed by a memory clobber at the caller, so that -O3 cannot fold
// the K sweeps (which write the same values) into one.
__attribute__((noinline)) inline void triad(double* __restrict a, const double* __restrict b,
                                            const double* __restrict c, double s, long n) {
  for (long i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

// b[i] and c[i] of the process's element `global` (me * N + i): small integers, so every triad
// value is exact in doubles whatever the compiler contracts.
inline long b_value(long global) { return global % 1000; }
inline long c_value(long global) { return (global * 7 + 3) % 1000; }

inline double sum(const double* a, long n) {
  double total = 0;
  for (long i = 0; i < n; ++i) total += a[i];
  return total;
}

// "" if every a[i] of rank `me`'s n elements equals b[i] + 3 c[i] (s = 3), computed in integers;
// else the first that does not.
inline std::string verify(const double* a, long n, int me) {
  for (long i = 0; i < n; ++i) {
    const long global = static_cast<long>(me) * n + i;
    const long expected = b_value(global) + 3 * c_value(global);
    if (a[i] != static_cast<double>(expected)) {
      return "a[" + std::to_string(i) + "] = " + std::to_string(a[i]) + ", expected " +
             std::to_string(expected);
    }
  }
  return "";
}

}  // namespace corpus::stream
