// Heat's sweep against the suite's stencil kernel at heat's size (N = 65536 points, two arrays
// of 512 KiB: L3 on the Zen 3 guest), K = 2000 sweeps, seven times each variant in turn, the
// median. The kernel is the suite's loop (restrict, unrolled by 8); heat's is the example's loop
// as written (no restrict: GCC loads u[i] twice). Offsets are bytes past a 4 KiB page for both.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>
using Clock = std::chrono::steady_clock;
__attribute__((noinline)) void kernel(double* __restrict b, const double* __restrict a, double s,
                                      std::size_t n) {
#pragma GCC unroll 8
  for (std::size_t i = 1; i + 1 < n; ++i) b[i] = a[i] + s * (a[i - 1] - 2 * a[i] + a[i + 1]);
}
__attribute__((noinline)) void heat(double* next, const double* u, double c, long local) {
  for (long i = 1; i <= local; ++i) next[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]);
}
int main(int argc, char** argv) {
  const long N = argc > 1 ? atol(argv[1]) : 65536;
  const int K = 2000;
  char* pool = static_cast<char*>(std::aligned_alloc(4096, 4 * (N + 2) * 8 + 8192));
  std::memset(pool, 0, 4 * (N + 2) * 8 + 8192);
  auto arrays = [&](int offset) {
    double* a = reinterpret_cast<double*>(pool + offset);
    double* b =
        reinterpret_cast<double*>(pool + offset + ((N + 2) * 8 + 4096) / 4096 * 4096 + 4096);
    for (long i = 0; i < N + 2; ++i) a[i] = b[i] = 1.0 + (i % 7) * 0.01;
    return std::pair<double*, double*>(a, b);
  };
  struct V {
    const char* name;
    int offset;
    bool heat_loop;
    bool swap;
  };
  V vs[] = {{"kernel aligned noswap", 0, false, false}, {"kernel aligned swap", 0, false, true},
            {"kernel +16B swap", 16, false, true},      {"heat aligned swap", 0, true, true},
            {"heat +16B swap", 16, true, true},         {"heat +8B swap", 8, true, true}};
  const int nv = sizeof vs / sizeof vs[0];
  std::vector<std::vector<double>> t(nv);
  double sink = 0;
  for (int rep = 0; rep < 7; ++rep)
    for (int v = 0; v < nv; ++v) {
      auto [a, b] = arrays(vs[v].offset);
      auto start = Clock::now();
      for (int k = 0; k < K; ++k) {
        if (vs[v].heat_loop)
          heat(b, a, 0.1, N);
        else
          kernel(b, a, 0.1, N + 2);
        if (vs[v].swap) std::swap(a, b);
      }
      t[v].push_back(std::chrono::duration<double>(Clock::now() - start).count());
      sink += a[N / 2];
    }
  for (int v = 0; v < nv; ++v) {
    std::sort(t[v].begin(), t[v].end());
    std::printf("%-24s median %.2f ms (%.2f .. %.2f)  %.1f GB/s as STREAM counts (16 B a point)\n",
                vs[v].name, t[v][3] * 1e3, t[v][0] * 1e3, t[v][6] * 1e3,
                16.0 * N * K / t[v][3] / 1e9);
  }
  return sink == 12345.678;
}
