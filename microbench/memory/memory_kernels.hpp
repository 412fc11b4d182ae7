// The kernels of the memory suite, kept apart from the benchmark harness so that tests can check
// what they compute. This file is compiled without loop-idiom recognition: a copy loop that the
// compiler turned into a call to memcpy would measure the C library (and its non-temporal stores)
// instead of the kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sonde::microbench {

// ---- Streaming kernels (STREAM's and BabelStream's, with a pure read added) ----

enum class StreamKernel { read, write, copy, triad, update, stencil };

// What a kernel does per element, as the kernel counts it: write-allocate traffic and prefetches
// are the hardware's business and are not counted (as STREAM does not).
struct KernelTraffic {
  StreamKernel kernel;
  std::string_view name;
  unsigned arrays;  // arrays of doubles the kernel touches
  unsigned loads;   // 8-byte loads per element
  unsigned stores;  // 8-byte stores per element
  unsigned flops;   // floating-point operations per element
  std::string_view formula;
  unsigned ends = 0;  // points at each end of a thread's slice that it reads but does not compute

  unsigned bytes_per_element() const { return 8 * (loads + stores); }
};

// The table (stream_traffic.cpp, apart from the kernels).
const std::vector<KernelTraffic>& stream_kernels();
const KernelTraffic& traffic_of(StreamKernel kernel);
std::optional<StreamKernel> stream_kernel_named(std::string_view name);

// sum of a[0..n); several independent accumulators so that the add latency does not bound it.
double read_kernel(const double* a, std::size_t n);
// a[i] = value
void write_kernel(double* a, std::size_t n, double value);
// c[i] = a[i]
void copy_kernel(double* __restrict c, const double* __restrict a, std::size_t n);
// a[i] = b[i] + scalar * c[i]
void triad_kernel(double* __restrict a, const double* __restrict b, const double* __restrict c,
                  double scalar, std::size_t n);
// a[i] += scalar * b[i]: an update in place, as an axpy. Its store goes to the line its load just
// brought, so unlike the triad's it costs no write-allocate read: 24 B move for the 24 counted.
void update_kernel(double* __restrict a, const double* __restrict b, double scalar, std::size_t n);
// b[i] = a[i] + scalar * (a[i - 1] - 2 a[i] + a[i + 1]) for 0 < i < n - 1: a three-point stencil
// (one explicit step of the heat equation, a Jacobi sweep). A code pattern of the kernel library
// (Fahringer and Pozgaj (2000) hold pre-measured patterns beside single operations): what it costs
// is what a loop of its neighbour loads (two of them misaligned, all hitting the line the first
// brought) overlapped with its transfers costs, which no sum or maximum of the streaming kernels'
// and the L1 rates gave on three CPUs. STREAM counts it as a copy: 8 B loaded and 8 stored a point.
void stencil_kernel(double* __restrict b, const double* __restrict a, double scalar, std::size_t n);
// ---- Misaligned streams: vector loads and stores at addresses not a multiple of their width ----

// The widest vector this build's kernels use (64 B with AVX-512, 32 with AVX, else 16).
std::size_t vector_bytes();
// sum of a[0..n) and a[0..n) = value, with vectors of vector_bytes() loaded and stored as they lie,
// without any alignment assumed or established (no peeling): given a pointer 8 B past a cache
// line, every access is misaligned, and with 64-byte vectors each crosses a line. What a loop over
// u[i - 1] or u[i + 1], or over a malloc'd array (16 B past a line), pays in L1 beyond aligned
// loads and stores.
double misaligned_read_kernel(const double* a, std::size_t n);
void misaligned_write_kernel(double* a, std::size_t n, double value);

// sum of a[0], a[stride], a[2 stride], ... below n: one scalar load per touched word (Amato et
// al.'s (1999) stride experiments; compiled without vectorization, see strided_kernels.cpp).
double strided_read_kernel(const double* a, std::size_t n, std::size_t stride);

// a[0], a[stride], a[2 stride], ... below n = value: one store per touched word.
void strided_write_kernel(double* a, std::size_t n, std::size_t stride, double value);

// A walk down columns of a row-major matrix of `rows` rows of `row_words` words: for each of the
// `columns` columns from `first_column` on, the word of every row in turn, one scalar load each
// (a transposition's gather). Returns the sum of the loaded words.
double column_read_kernel(const double* a, std::size_t rows, std::size_t row_words,
                          std::size_t first_column, std::size_t columns);

// A gather of whole lines in an order no prefetcher follows: `a` is cut into `blocks` blocks of
// `block_lines` lines of `line_words` words; block b's lines are read in the order
// order[i] ^ masks[b] (order a permutation of 0 .. block_lines - 1, block_lines a power of two, so
// that each block's mask makes its own permutation), the first word of each line, one scalar load
// each, independent of one another. Returns the sum of the loaded words.
double line_gather_kernel(const double* a, std::size_t blocks, std::size_t block_lines,
                          std::size_t line_words, const std::uint32_t* order,
                          const std::uint32_t* masks);

// The same gather with each loaded word stored in order into `out`: a block's i-th word at
// out[i & out_mask], from the start again for every block, as a scratch row or a pack buffer that
// stays in L1 is refilled.
void line_gather_copy_kernel(double* out, std::size_t out_mask, const double* a, std::size_t blocks,
                             std::size_t block_lines, std::size_t line_words,
                             const std::uint32_t* order, const std::uint32_t* masks);

// ---- Indexed loads: a sparse matrix-vector product (a code pattern of the kernel library) ----

// The shape of the sparse matrix the indexed kernel multiplies: the 5-point Laplacian of a
// width x height grid (4 on the diagonal, -1 to each grid neighbour, none past the border) in
// compressed rows with 32-bit column indices, one row per grid point.
struct FivePointShape {
  std::size_t width = 0;
  std::size_t height = 0;
  std::size_t rows() const { return width * height; }
  std::size_t nonzeros() const;  // 5 per row less the 2 (width + height) missing at the border
  // The bytes a product moves as STREAM would count them: per nonzero its value (8) and column
  // index (4); per row its start (4), one load of x (8: its five uses fall in three grid rows that
  // stay in cache) and the store of y (8).
  double counted_bytes() const;
  // Every array the product touches: row starts, columns, values, x and y.
  std::size_t footprint_bytes() const;
};
// The squarest grid whose arrays fill about `bytes` (at least 4 x 4).
FivePointShape five_point_shape(std::uint64_t bytes);
// Fills row (rows + 1 entries), col and val (nonzeros each) with the shape's matrix.
void build_five_point(const FivePointShape& shape, std::int32_t* row, std::int32_t* col,
                      double* val);
// y[i] = sum over k in [row[i], row[i+1]) of val[k] * x[col[k]]: the compressed-row product of a
// sparse solver's inner loop, its loads of x indexed by loaded column numbers and each row's sum a
// short chain of dependent adds.
void csr_product_kernel(const std::int32_t* __restrict row, const std::int32_t* __restrict col,
                        const double* __restrict val, const double* __restrict x,
                        double* __restrict y, std::size_t rows);

// ---- Pointer chase (load-to-use latency) ----

// The order in which a chase visits `lines` cache lines: groups of `lines_per_group` consecutive
// lines are visited in a random order, and the lines of each group in a random order before the
// chase leaves it. lines_per_group == lines gives a uniformly random order over the whole working
// set; lines_per_group == lines per page keeps the chase inside one page at a time, so that it
// needs one TLB entry per page rather than one per load. Deterministic for a given seed.
std::vector<std::uint32_t> chase_visit_order(std::size_t lines, std::size_t lines_per_group,
                                             std::uint64_t seed);

// Links the lines of `buffer` (each `line_bytes` long; the first pointer of each line points to the
// next line to visit) into a single cycle through all lines in `order`. Returns the first line.
void* link_chase(void* buffer, std::size_t line_bytes, const std::vector<std::uint32_t>& order);

// Follows the chain for `steps` dependent loads and returns where it stopped.
const void* chase(const void* start, std::size_t steps);

// Steps until the chain returns to `start`, or 0 if it does not within `max_steps` (tests).
std::size_t chase_cycle_length(const void* start, std::size_t max_steps);

}  // namespace sonde::microbench
