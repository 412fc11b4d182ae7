#include "microbench/compute/compute_kernels.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sonde::microbench {
namespace {

// Multiplier and addend that keep a = a * m + c bounded forever (fixed point c / (1 - m)), so
// that no value becomes infinite or denormal and slows the unit down.
constexpr double kMultiplier = 0.999999;
constexpr double kAddend = 1e-6;

#if defined(__x86_64__)
__attribute__((target("avx512f"))) double peak_avx512(std::uint64_t iterations) {
  const __m512d m = _mm512_set1_pd(kMultiplier), c = _mm512_set1_pd(kAddend);
  __m512d a[kPeakAccumulators];
  for (unsigned j = 0; j < kPeakAccumulators; ++j) a[j] = _mm512_set1_pd(1.0 + j);
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (unsigned j = 0; j < kPeakAccumulators; ++j) a[j] = _mm512_fmadd_pd(a[j], m, c);
  }
  __m512d sum = a[0];
  for (unsigned j = 1; j < kPeakAccumulators; ++j) sum = _mm512_add_pd(sum, a[j]);
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, sum);
  double total = 0;
  for (double lane : lanes) total += lane;
  return total;
}

__attribute__((target("avx2,fma"))) double peak_avx2_fma(std::uint64_t iterations) {
  const __m256d m = _mm256_set1_pd(kMultiplier), c = _mm256_set1_pd(kAddend);
  __m256d a[kPeakAccumulators];
  for (unsigned j = 0; j < kPeakAccumulators; ++j) a[j] = _mm256_set1_pd(1.0 + j);
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (unsigned j = 0; j < kPeakAccumulators; ++j) a[j] = _mm256_fmadd_pd(a[j], m, c);
  }
  __m256d sum = a[0];
  for (unsigned j = 1; j < kPeakAccumulators; ++j) sum = _mm256_add_pd(sum, a[j]);
  alignas(32) double lanes[4];
  _mm256_store_pd(lanes, sum);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

__attribute__((target("fma"))) double peak_scalar_fma(std::uint64_t iterations) {
  const __m128d m = _mm_set_sd(kMultiplier), c = _mm_set_sd(kAddend);
  __m128d a[kPeakAccumulators];
  for (unsigned j = 0; j < kPeakAccumulators; ++j) a[j] = _mm_set_sd(1.0 + j);
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (unsigned j = 0; j < kPeakAccumulators; ++j) a[j] = _mm_fmadd_sd(a[j], m, c);
  }
  double sum = 0;
  for (unsigned j = 0; j < kPeakAccumulators; ++j) sum += _mm_cvtsd_f64(a[j]);
  return sum;
}
#endif

// A multiply and an add, for CPUs without fused multiply-add.
double peak_scalar(std::uint64_t iterations) {
  std::array<double, kPeakAccumulators> a;
  for (unsigned j = 0; j < kPeakAccumulators; ++j) a[j] = 1.0 + j;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    for (unsigned j = 0; j < kPeakAccumulators; ++j) a[j] = a[j] * kMultiplier + kAddend;
  }
  double sum = 0;
  for (double x : a) sum += x;
  return sum;
}

// The called function of the indirect-call kernel; a volatile pointer keeps the compiler from
// seeing through the call.
__attribute__((noinline)) double plus_one(double x) { return x + 1.0; }
double (*volatile g_indirect)(double) = plus_one;

}  // namespace

std::vector<FmaUnit> available_fma_units() {
  std::vector<FmaUnit> units;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) units.push_back({"avx512", 8, true});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    units.push_back({"avx2-fma", 4, true});
  }
  if (__builtin_cpu_supports("fma")) units.push_back({"scalar-fma", 1, true});
#endif
  units.push_back({"scalar", 1, false});
  return units;
}

double run_peak_kernel(const FmaUnit& unit, std::uint64_t iterations) {
#if defined(__x86_64__)
  if (unit.name == "avx512") return peak_avx512(iterations);
  if (unit.name == "avx2-fma") return peak_avx2_fma(iterations);
  if (unit.name == "scalar-fma") return peak_scalar_fma(iterations);
#endif
  return peak_scalar(iterations);
}

const std::vector<OperationInfo>& operations() {
  static const std::vector<OperationInfo> table{
      {Operation::add, "add", 1, "x = x + c", "x[k] = x[k] + c"},
      {Operation::multiply, "multiply", 1, "x = x * c (c = 1 + 1e-12)", "x[k] = x[k] * c"},
      {Operation::divide, "divide", 4, "x = c / x", "x[k] = c / x[k]"},
      {Operation::sqrt, "sqrt", 4, "x = sqrt(x) + c: one square root and one add",
       "x[k] = sqrt(x[k]) + c"},
      {Operation::exp, "exp", 8, "x = exp(-x): one exp (glibc) and one negation",
       "x[k] = exp(-x[k])"},
      {Operation::sin, "sin", 8, "x = sin(x) + c: one sin (glibc) and one add",
       "x[k] = sin(x[k]) + c"},
      {Operation::int_to_double, "int_to_double", 1,
       "x = double(int64(x) + 1): a conversion each way and an integer add",
       "x[k] = x[k] + double(i + k): one conversion and one add"},
      {Operation::indirect_call, "indirect_call", 0, "x = f(x) through a function pointer",
       "x[k] = f(x[k]) through a function pointer"},
  };
  return table;
}

double run_latency_chain(Operation operation, std::uint64_t steps) {
  double x = 0.5;
  const double c = 1.0;
  switch (operation) {
    case Operation::add:
      for (std::uint64_t i = 0; i < steps; ++i) x = x + 1e-9;
      break;
    case Operation::multiply:
      for (std::uint64_t i = 0; i < steps; ++i) x = x * (1.0 + 1e-12);
      break;
    case Operation::divide:
      for (std::uint64_t i = 0; i < steps; ++i) x = c / x;
      break;
    case Operation::sqrt:
      for (std::uint64_t i = 0; i < steps; ++i) x = std::sqrt(x) + c;
      break;
    case Operation::exp:
      for (std::uint64_t i = 0; i < steps; ++i) x = std::exp(-x);
      break;
    case Operation::sin:
      for (std::uint64_t i = 0; i < steps; ++i) x = std::sin(x) + c;
      break;
    case Operation::int_to_double:
      for (std::uint64_t i = 0; i < steps; ++i)
        x = static_cast<double>(static_cast<std::int64_t>(x) + 1);
      break;
    case Operation::indirect_call:
      for (std::uint64_t i = 0; i < steps; ++i) x = g_indirect(x);
      break;
  }
  return x;
}

double run_throughput_chains(Operation operation, std::uint64_t steps) {
  std::array<double, kThroughputChains> x;
  for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = 0.5 + 0.01 * k;
  const double c = 1.0;
  switch (operation) {
    case Operation::add:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = x[k] + 1e-9;
      break;
    case Operation::multiply:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = x[k] * (1.0 + 1e-12);
      break;
    case Operation::divide:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = c / x[k];
      break;
    case Operation::sqrt:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = std::sqrt(x[k]) + c;
      break;
    case Operation::exp:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = std::exp(-x[k]);
      break;
    case Operation::sin:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = std::sin(x[k]) + c;
      break;
    case Operation::int_to_double:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) {
          x[k] = x[k] + static_cast<double>(static_cast<std::int64_t>(i + k));
        }
      break;
    case Operation::indirect_call:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = g_indirect(x[k]);
      break;
  }
  double sum = 0;
  for (double value : x) sum += value;
  return sum;
}

}  // namespace sonde::microbench
