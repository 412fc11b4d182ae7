// sonde-example-overlap: whether a loop's own time hides under its transfers from memory. Each
// loop runs over a working set that fits in L2 and over one far beyond the last level, one
// thread; beside its time from memory it prints the two simple models: its time in cache or the
// bytes it moves at the read loop's rate, whichever is larger (they overlap), and the two added
// (they do not). The loops are those the validation corpus prices: an in-order dot product (cg's
// dot), the compressed-row product of a 5-point Laplacian (cg's spmv; the memory suite's indexed
// kernel, the same loop) and the heat example's sweep, with its arrays on a cache line and 16 B
// off one (where std::vector puts them).
//   taskset -c 0 sonde-example-overlap [--cache-bytes 262144] [--memory-bytes 268435456]
// Each figure is the fastest of five runs of at least 50 ms (--quick: tiny sizes, one short run,
// to show the program works). Prints ns per element; nothing is written.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "microbench/memory/memory_kernels.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Free {
  void operator()(void* p) const { std::free(p); }
};
// `bytes` on a cache line, plus one more line so that an array may start `offset` bytes into it.
std::unique_ptr<char, Free> lines(std::size_t bytes) {
  void* p = std::aligned_alloc(64, (bytes + 127) / 64 * 64);
  if (p == nullptr) {
    std::fprintf(stderr, "sonde-example-overlap: out of memory (%zu B)\n", bytes);
    std::exit(1);
  }
  std::memset(p, 0, (bytes + 127) / 64 * 64);
  return std::unique_ptr<char, Free>(static_cast<char*>(p));
}

// Keeps the compiler from dropping or merging passes: the arrays may have changed.
void clobber() { asm volatile("" ::: "memory"); }

// A plain read loop, eight sums as a program's own loop would keep (the suite's read kernel keeps
// 64 and reads memory some 15% faster on the Zen 5 guest): the transfer rate the others are set
// against.
__attribute__((noinline)) double read_sum(const double* a, long n) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (long i = 0; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) s[j] += a[i + j];
  return s[0] + s[1] + s[2] + s[3] + s[4] + s[5] + s[6] + s[7];
}

__attribute__((noinline)) double dot(const double* __restrict a, const double* __restrict b,
                                     long n) {
  double sum = 0;
  for (long i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

__attribute__((noinline)) void sweep(const double* __restrict u, double* __restrict next, long n,
                                     double c) {
  for (long i = 1; i <= n; ++i) next[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]);
}

// One loop at one size: `pass` runs it once over `elements` elements.
struct Loop {
  std::string name;
  double bytes_per_element;  // moved to and from memory, a store's write-allocate read included
  std::function<void()> pass;
  long elements;
};

// Seconds per element, the fastest of `runs` runs of enough passes for `least` seconds each.
double seconds_per_element(const Loop& loop, int runs, double least) {
  loop.pass();  // warm: pages touched, caches filled
  long passes = 1;
  for (;;) {
    const auto start = Clock::now();
    for (long p = 0; p < passes; ++p) loop.pass();
    if (std::chrono::duration<double>(Clock::now() - start).count() >= least / 4) break;
    passes *= 2;
  }
  passes *= 4;
  double best = INFINITY;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    for (long p = 0; p < passes; ++p) loop.pass();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best / static_cast<double>(passes * loop.elements);
}

// The loops over arrays that fill about `bytes`, their results summed into `sink`.
std::vector<Loop> loops(std::size_t bytes, double& sink,
                        std::vector<std::unique_ptr<char, Free>>& keep) {
  std::vector<Loop> out;
  const auto doubles = [&](std::size_t count, std::size_t offset = 0) {
    keep.push_back(lines(count * 8 + offset));
    auto* d = reinterpret_cast<double*>(keep.back().get() + offset);
    for (std::size_t i = 0; i < count; ++i) d[i] = 1.0 + static_cast<double>(i % 7) / 8;
    return d;
  };
  const long n = static_cast<long>(bytes / 16);  // two arrays of doubles
  double* a = doubles(static_cast<std::size_t>(n));
  double* b = doubles(static_cast<std::size_t>(n));
  out.push_back({"read", 8,
                 [=, &sink] {
                   sink += read_sum(a, n);
                   clobber();
                 },
                 n});
  out.push_back({"dot (in order)", 16,
                 [=, &sink] {
                   sink += dot(a, b, n);
                   clobber();
                 },
                 n});

  // The memory suite's indexed kernel and matrix: the 5-point Laplacian of the squarest grid that
  // fills the bytes. Moved per nonzero 12 B, per row 28 (row start, x once, y read for its write
  // and written back).
  const sonde::microbench::FivePointShape shape = sonde::microbench::five_point_shape(bytes);
  const long rows = static_cast<long>(shape.rows());
  const std::size_t nonzeros = shape.nonzeros();
  keep.push_back(lines(4 * (shape.rows() + 1)));
  auto* row = reinterpret_cast<std::int32_t*>(keep.back().get());
  keep.push_back(lines(4 * nonzeros));
  auto* col = reinterpret_cast<std::int32_t*>(keep.back().get());
  double* val = doubles(nonzeros);
  double* x = doubles(shape.rows());
  double* y = doubles(shape.rows());
  sonde::microbench::build_five_point(shape, row, col, val);
  out.push_back({"csr product (per nonzero)",
                 (12.0 * static_cast<double>(nonzeros) + 28.0 * static_cast<double>(rows)) /
                     static_cast<double>(nonzeros),
                 [=, &sink] {
                   sonde::microbench::csr_product_kernel(row, col, val, x, y, shape.rows());
                   sink += y[rows / 2];
                   clobber();
                 },
                 static_cast<long>(nonzeros)});

  for (const std::size_t offset : {std::size_t{0}, std::size_t{16}}) {
    double* u = doubles(static_cast<std::size_t>(n + 2), offset);
    double* next = doubles(static_cast<std::size_t>(n + 2), offset);
    // u read, next read for its write and written back: 24 B a point.
    out.push_back({offset == 0 ? "heat sweep, on a line" : "heat sweep, 16 B off", 24,
                   [=, &sink] {
                     sweep(u, next, n, 0.1);
                     sweep(next, u, n, 0.1);
                     sink += u[n / 2];
                     clobber();
                   },
                   2 * n});
  }
  return out;
}

std::size_t size_option(int argc, char** argv, const char* name, std::size_t fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) != 0) continue;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(argv[i + 1], &end, 10);
    if (end == argv[i + 1] || *end != '\0' || v < 4096) {
      std::fprintf(stderr, "sonde-example-overlap: %s '%s'; expected bytes, at least 4096\n", name,
                   argv[i + 1]);
      std::exit(2);
    }
    return static_cast<std::size_t>(v);
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) quick = quick || std::strcmp(argv[i], "--quick") == 0;
  const std::size_t cache = size_option(argc, argv, "--cache-bytes", quick ? 16384 : 262144);
  const std::size_t memory = size_option(argc, argv, "--memory-bytes", quick ? 65536 : 268435456);
  const int runs = quick ? 1 : 5;
  const double least = quick ? 1e-4 : 0.05;
  double sink = 0;
  std::vector<std::unique_ptr<char, Free>> keep_cache, keep_memory;
  const std::vector<Loop> in_cache = loops(cache, sink, keep_cache);
  const std::vector<Loop> from_memory = loops(memory, sink, keep_memory);
  std::vector<double> cached, far;
  for (const Loop& loop : in_cache) cached.push_back(seconds_per_element(loop, runs, least));
  for (const Loop& loop : from_memory) far.push_back(seconds_per_element(loop, runs, least));
  const double read_rate = 8.0 / far[0];  // B/s from memory, the read loop's
  std::printf("ns per element, one thread; cache %zu B, memory %zu B; read from memory %.1f GB/s\n",
              cache, memory, read_rate / 1e9);
  std::printf("%-26s %8s %8s %9s %9s %9s\n", "loop", "B/elem", "cache", "transfer", "memory",
              "overlap?");
  for (std::size_t i = 1; i < in_cache.size(); ++i) {
    const double transfer = in_cache[i].bytes_per_element / read_rate;
    const double overlap = std::max(cached[i], transfer), added = cached[i] + transfer;
    // Where the time from memory lies between the two models, as a fraction: 0 overlap, 1 added.
    const double between = (far[i] - overlap) / (added - overlap);
    std::printf("%-26s %8.1f %8.3f %9.3f %9.3f %9.2f\n", in_cache[i].name.c_str(),
                in_cache[i].bytes_per_element, cached[i] * 1e9, transfer * 1e9, far[i] * 1e9,
                between);
  }
  std::printf(
      "overlap?: 0 where the loop's time from memory is max(cache, transfer), 1 where it "
      "is their sum (checksum %g)\n",
      sink);
  return 0;
}
