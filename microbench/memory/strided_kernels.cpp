// The strided kernels of Amato et al.'s (1999) experiments, compiled without vectorization: each
// touched word is one scalar load or store, at every stride alike (a vectorized stride-1 loop would
// move eight words per instruction and make stride 1 incomparable with the others).
#include "microbench/memory/memory_kernels.hpp"

#include <array>

namespace sonde::microbench {

double strided_read_kernel(const double* a, std::size_t n, std::size_t stride) {
  // Eight accumulators: at stride 1 from L1 the loads, not the add latency, should set the time.
  constexpr std::size_t kLanes = 8;
  std::array<double, kLanes> sums{};
  std::size_t i = 0;
  const std::size_t block = kLanes * stride;
  for (; i + block <= n; i += block) {
    for (std::size_t j = 0; j < kLanes; ++j) sums[j] += a[i + j * stride];
  }
  double total = 0;
  for (; i < n; i += stride) total += a[i];
  for (double s : sums) total += s;
  return total;
}

void strided_write_kernel(double* a, std::size_t n, std::size_t stride, double value) {
  for (std::size_t i = 0; i < n; i += stride) a[i] = value;
}

double column_read_kernel(const double* a, std::size_t rows, std::size_t row_words,
                          std::size_t first_column, std::size_t columns) {
  // Four accumulators over consecutive rows: the loads are independent, as in a gather, and the
  // add latency does not hide what they cost.
  constexpr std::size_t kLanes = 4;
  std::array<double, kLanes> sums{};
  for (std::size_t c = first_column; c < first_column + columns; ++c) {
    const double* column = a + c;
    std::size_t r = 0;
    for (; r + kLanes <= rows; r += kLanes) {
      for (std::size_t j = 0; j < kLanes; ++j) sums[j] += column[(r + j) * row_words];
    }
    for (; r < rows; ++r) sums[0] += column[r * row_words];
  }
  double total = 0;
  for (double s : sums) total += s;
  return total;
}

double line_gather_kernel(const double* a, std::size_t blocks, std::size_t block_lines,
                          std::size_t line_words, const std::uint32_t* order,
                          const std::uint32_t* masks) {
  // Four accumulators: the loads are independent, so how many misses the core keeps in flight,
  // not the add latency, sets the time.
  constexpr std::size_t kLanes = 4;
  std::array<double, kLanes> sums{};
  for (std::size_t b = 0; b < blocks; ++b) {
    const double* block = a + b * block_lines * line_words;
    const std::uint32_t mask = masks[b];
    std::size_t i = 0;
    for (; i + kLanes <= block_lines; i += kLanes) {
      for (std::size_t j = 0; j < kLanes; ++j)
        sums[j] += block[static_cast<std::size_t>(order[i + j] ^ mask) * line_words];
    }
    for (; i < block_lines; ++i)
      sums[0] += block[static_cast<std::size_t>(order[i] ^ mask) * line_words];
  }
  double total = 0;
  for (double s : sums) total += s;
  return total;
}

void line_gather_copy_kernel(double* out, std::size_t out_mask, const double* a, std::size_t blocks,
                             std::size_t block_lines, std::size_t line_words,
                             const std::uint32_t* order, const std::uint32_t* masks) {
  for (std::size_t b = 0; b < blocks; ++b) {
    const double* block = a + b * block_lines * line_words;
    const std::uint32_t mask = masks[b];
    for (std::size_t i = 0; i < block_lines; ++i)
      out[i & out_mask] = block[static_cast<std::size_t>(order[i] ^ mask) * line_words];
  }
}

}  // namespace sonde::microbench
