#include "microbench/memory/memory_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace sonde::microbench {

// The streaming loops are unrolled: with one vector per trip, the loop's own compare and branch
// kept L1 bandwidth 10 to 20% below likwid-bench's hand-written kernels on this machine.
void write_kernel(double* a, std::size_t n, double value) {
#pragma GCC unroll 8
  for (std::size_t i = 0; i < n; ++i) a[i] = value;
}

void copy_kernel(double* __restrict c, const double* __restrict a, std::size_t n) {
#pragma GCC unroll 8
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
}

void triad_kernel(double* __restrict a, const double* __restrict b, const double* __restrict c,
                  double scalar, std::size_t n) {
#pragma GCC unroll 8
  for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
}

void update_kernel(double* __restrict a, const double* __restrict b, double scalar, std::size_t n) {
#pragma GCC unroll 8
  for (std::size_t i = 0; i < n; ++i) a[i] += scalar * b[i];
}

void stencil_kernel(double* __restrict b, const double* __restrict a, double scalar,
                    std::size_t n) {
#pragma GCC unroll 8
  for (std::size_t i = 1; i + 1 < n; ++i) b[i] = a[i] + scalar * (a[i - 1] - 2 * a[i] + a[i + 1]);
}

namespace {
#if defined(__AVX512F__)
constexpr std::size_t kVectorBytes = 64;
#elif defined(__AVX__)
constexpr std::size_t kVectorBytes = 32;
#else
constexpr std::size_t kVectorBytes = 16;
#endif
constexpr std::size_t kLanes = kVectorBytes / sizeof(double);
// GCC's and Clang's vector extension: `aligned(8)` on a typedef lets a vector lie at any double's
// address, so each access is one unaligned vector load or store as written (vmovupd), never peeled
// to a line. (Clang ignores the lowered alignment on a `using` alias and stored with vmovaps,
// which faults on a misaligned address.)
typedef double Vector __attribute__((vector_size(kVectorBytes)));
typedef double LooseVector __attribute__((vector_size(kVectorBytes), aligned(8), may_alias));

// values[j] += values[j + Width] for j < Width, then the same for Width / 2, down to 1: a pairwise
// sum into values[0]. Every index is known when compiling: an array indexed by a loop's counter
// was cleared with a call to memset (GCC 12, -march=znver3), which the kernels must not make.
template <std::size_t Width, typename T, std::size_t Count>
void add_pairwise(T (&values)[Count]) {
  if constexpr (Width > 0) {
    [&]<std::size_t... J>(std::index_sequence<J...>) { ((values[J] += values[J + Width]), ...); }
    (std::make_index_sequence<Width>{});
    add_pairwise<Width / 2>(values);
  }
}

// Sets every element to zero, each by its own store (not a loop that becomes memset).
template <typename T, std::size_t Count>
void set_zero(T (&values)[Count]) {
  [&]<std::size_t... J>(std::index_sequence<J...>) { ((values[J] = T{}), ...); }
  (std::make_index_sequence<Count>{});
}

// The sum of a[0 .. n) in Count vector accumulators, each loaded as written (one vector load,
// whatever the address), then the accumulators and one vector's lanes added pairwise, in
// registers; the last n mod (Count x lanes) elements one by one.
template <std::size_t Count>
double sum_in_vectors(const double* a, std::size_t n) {
  constexpr std::size_t kStep = Count * kLanes;
  Vector sums[Count];
  set_zero(sums);
  std::size_t i = 0;
  for (; i + kStep <= n; i += kStep) {
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      ((sums[J] += *reinterpret_cast<const LooseVector*>(a + i + J * kLanes)), ...);
    }
    (std::make_index_sequence<Count>{});
  }
  add_pairwise<Count / 2>(sums);
  double lanes[kLanes];
  [&]<std::size_t... L>(std::index_sequence<L...>) { ((lanes[L] = sums[0][L]), ...); }
  (std::make_index_sequence<kLanes>{});
  add_pairwise<kLanes / 2>(lanes);
  double total = lanes[0];
  for (; i < n; ++i) total += a[i];
  return total;
}

}  // namespace

std::size_t vector_bytes() { return kVectorBytes; }

double read_kernel(const double* a, std::size_t n) {
  // 64 lanes: eight AVX-512 (or sixteen AVX2) registers, enough to cover a 4-cycle add latency at
  // two vector loads per cycle, so that L1 bandwidth and not the adder bounds it. They are added
  // pairwise at the end, six dependent adds deep. Added one after another they were a chain of 64
  // dependent adds a call: on a 16-core Xeon node (4-cycle adds) a pass over 4 KiB took 87 ns
  // (47 GB/s, copy 360), and over 32 KiB read ran at 144 GB/s against copy's 376.
  return sum_in_vectors<64 / kLanes>(a, n);
}

double misaligned_read_kernel(const double* a, std::size_t n) {
  // Eight accumulators, as read_kernel's 64 lanes: the add latency does not bound it.
  return sum_in_vectors<8>(a, n);
}

void misaligned_write_kernel(double* a, std::size_t n, double value) {
  Vector v;
  for (std::size_t lane = 0; lane < kLanes; ++lane) v[lane] = value;
  std::size_t i = 0;
#pragma GCC unroll 8
  for (; i + kLanes <= n; i += kLanes) *reinterpret_cast<LooseVector*>(a + i) = v;
  for (; i < n; ++i) a[i] = value;
}

std::size_t FivePointShape::nonzeros() const { return 5 * rows() - 2 * (width + height); }

double FivePointShape::counted_bytes() const {
  return 12.0 * static_cast<double>(nonzeros()) + 20.0 * static_cast<double>(rows());
}

std::size_t FivePointShape::footprint_bytes() const {
  return 4 * (rows() + 1) + 12 * nonzeros() + 16 * rows();
}

FivePointShape five_point_shape(std::uint64_t bytes) {
  // About 80 B a row (see counted_bytes), so rows ~ bytes / 80 on a square grid.
  const auto rows = static_cast<double>(bytes) / 80.0;
  FivePointShape shape;
  shape.width = std::max<std::size_t>(4, static_cast<std::size_t>(std::sqrt(rows)));
  shape.height = std::max<std::size_t>(4, static_cast<std::size_t>(rows) / shape.width);
  return shape;
}

void build_five_point(const FivePointShape& shape, std::int32_t* row, std::int32_t* col,
                      double* val) {
  const std::size_t w = shape.width, h = shape.height;
  std::size_t k = 0;
  const auto add = [&](std::size_t column, double value) {
    col[k] = static_cast<std::int32_t>(column);
    val[k] = value;
    ++k;
  };
  for (std::size_t r = 0; r < h; ++r) {
    for (std::size_t c = 0; c < w; ++c) {
      const std::size_t i = r * w + c;
      row[i] = static_cast<std::int32_t>(k);
      if (r > 0) add(i - w, -1.0);
      if (c > 0) add(i - 1, -1.0);
      add(i, 4.0);
      if (c + 1 < w) add(i + 1, -1.0);
      if (r + 1 < h) add(i + w, -1.0);
    }
  }
  row[w * h] = static_cast<std::int32_t>(k);
}

void csr_product_kernel(const std::int32_t* __restrict row, const std::int32_t* __restrict col,
                        const double* __restrict val, const double* __restrict x,
                        double* __restrict y, std::size_t rows) {
  for (std::size_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (std::int32_t k = row[i]; k < row[i + 1]; ++k) sum += val[k] * x[col[k]];
    y[i] = sum;
  }
}

const void* chase(const void* start, std::size_t steps) {
  const void* p = start;
  std::size_t i = 0;
  // Sixteen loads per trip around the loop keep the loop's own cost out of the measurement.
  for (; i + 16 <= steps; i += 16) {
#define SONDE_STEP p = *static_cast<const void* const*>(p);
    SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP
        SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP SONDE_STEP
#undef SONDE_STEP
  }
  for (; i < steps; ++i) p = *static_cast<const void* const*>(p);
  return p;
}

}  // namespace sonde::microbench
