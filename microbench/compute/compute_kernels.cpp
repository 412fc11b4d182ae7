#include "microbench/compute/compute_kernels.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

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

// An odd multiplier (the golden ratio's 64 bits): x * m never reaches 0 and never repeats soon.
constexpr std::uint64_t kIntMultiplier = 0x9E3779B97F4A7C15ull;

// The bits of the double 2^52 + k are those of 2^52 plus k (for k < 2^52): converting 2^52 + k
// to an integer and adding this gives the bits of 2^52 + k + 1, a double again without a second
// conversion (one integer add and a move between register files).
constexpr double kTwo52 = 4503599627370496.0;
constexpr std::uint64_t kTwo52BitsPlusOne = 0x4330000000000000ull - (1ull << 52) + 1;

// The branch kernel's pseudo-random bits: 2^20 of them (128 KiB), drawn once with a fixed seed.
// Each call reads on from where the previous call of its thread stopped, so that a pattern
// repeats only every million branches, far beyond what a branch predictor can learn.
constexpr std::uint64_t kBranchBits = 1ull << 20;
const std::uint8_t* branch_bits() {
  static const std::vector<std::uint8_t> bytes = [] {
    std::vector<std::uint8_t> out(kBranchBits / 8);
    std::mt19937_64 random(20261122);
    for (std::uint8_t& byte : out) byte = static_cast<std::uint8_t>(random() >> 56);
    return out;
  }();
  return bytes.data();
}
thread_local std::uint64_t t_branch_position = 0;

// A branch the compiler must keep: each side holds its own empty volatile statement (of
// different text, so that the two are not merged into one before the branch), which no
// if-conversion may turn into a conditional move.
#define SONDE_TAKEN(var) asm volatile("" : "+r"(var))
#define SONDE_NOT_TAKEN(var) asm volatile(" " : "+r"(var))
static_assert(kThroughputChains == 8, "the branch kernel takes the chains' bits from one byte");

// The store_load kernels' slots, one line per thread, behind a register the compiler knows nothing
// of (compute_kernels.hpp says why).
volatile double* store_load_slots() {
  alignas(64) thread_local double slots[kThroughputChains];
  double* p = slots;
  asm volatile("" : "+r"(p));
  return p;
}

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
      {Operation::fma, "fma", 2,
       "x = fma(x, m, c): one fused multiply-add, the chain through the accumulator",
       "x[k] = fma(x[k], m, c)"},
      {Operation::divide, "divide", 4, "x = c / x", "x[k] = c / x[k]"},
      {Operation::sqrt, "sqrt", 4, "x = sqrt(x) + c: one square root and one add",
       "x[k] = sqrt(x[k]) + c"},
      {Operation::exp, "exp", 8, "x = exp(-x): one exp (glibc) and one negation",
       "x[k] = exp(-x[k])"},
      {Operation::log, "log", 8, "x = log(x) + 2: one log (glibc) and one add",
       "x[k] = log(x[k]) + 2"},
      {Operation::sin, "sin", 8, "x = sin(x) + c: one sin (glibc) and one add",
       "x[k] = sin(x[k]) + c"},
      {Operation::int_multiply, "int_multiply", 0, "x = x * m: one 64-bit integer multiply",
       "x[k] = x[k] * m"},
      {Operation::int_to_double, "int_to_double", 1,
       "x = double(int64(x) + 1): a conversion each way and an integer add",
       "x[k] = x[k] + double(i + k): one conversion and one add"},
      {Operation::double_to_int, "double_to_int", 1,
       "x = bits_as_double(int64(x) + b): one conversion to int64, an integer add and a move "
       "of the bits back (no second conversion)",
       "y[k] = y[k] + 1.0; n[k] = n[k] + int64(y[k]): one conversion and one add of each kind"},
      {Operation::indirect_call, "indirect_call", 0, "x = f(x) through a function pointer",
       "x[k] = f(x[k]) through a function pointer"},
      {Operation::branch_mispredict, "branch_mispredict", 0,
       "a branch on a random bit whose address depends on the previous branch's outcome",
       "a branch on each of 8 random bits loaded independently"},
      {Operation::store_load, "store_load", 0,
       "x stored to a slot and loaded back from it: one store-to-load forwarding round trip",
       "x[k] stored to slot k and loaded back: 8 round trips in flight"},
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
    case Operation::fma:
      for (std::uint64_t i = 0; i < steps; ++i) x = std::fma(x, kMultiplier, kAddend);
      break;
    case Operation::log:
      for (std::uint64_t i = 0; i < steps; ++i) x = std::log(x) + 2.0;
      break;
    case Operation::int_multiply: {
      std::uint64_t n = 1;
      for (std::uint64_t i = 0; i < steps; ++i) {
        n = n * kIntMultiplier;
        asm volatile("" : "+r"(n));  // no algebra across steps
      }
      return static_cast<double>(n >> 11);
    }
    case Operation::double_to_int: {
      x = kTwo52;
      for (std::uint64_t i = 0; i < steps; ++i) {
        x = std::bit_cast<double>(static_cast<std::uint64_t>(static_cast<std::int64_t>(x)) +
                                  kTwo52BitsPlusOne);
      }
      return x - kTwo52;  // the steps
    }
    case Operation::branch_mispredict: {
      // The bit of each step is found at the position the previous outcome leads to.
      const std::uint8_t* bits = branch_bits();
      const std::uint64_t start = t_branch_position;
      std::uint64_t n = 0;
      for (std::uint64_t i = 0; i < steps; ++i) {
        const std::uint64_t at = (start + i + n) & (kBranchBits - 1);
        if ((bits[at >> 3] >> (at & 7)) & 1) {
          SONDE_TAKEN(n);
          n += 1;
        } else {
          SONDE_NOT_TAKEN(n);
          n += 2;
        }
      }
      t_branch_position = (start + steps + n) & (kBranchBits - 1);
      return static_cast<double>(n);  // steps plus those not taken
    }
    case Operation::store_load: {
      volatile double* slot = store_load_slots();
      for (std::uint64_t i = 0; i < steps; ++i) {
        slot[0] = x;
        x = slot[0];
      }
      break;
    }
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
    case Operation::fma:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k)
          x[k] = std::fma(x[k], kMultiplier, kAddend);
      break;
    case Operation::log:
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = std::log(x[k]) + 2.0;
      break;
    case Operation::int_multiply: {
      std::array<std::uint64_t, kThroughputChains> n;
      for (unsigned k = 0; k < kThroughputChains; ++k) n[k] = 1 + 2 * k;
      for (std::uint64_t i = 0; i < steps; ++i) {
        for (unsigned k = 0; k < kThroughputChains; ++k) {
          n[k] = n[k] * kIntMultiplier;
          asm volatile("" : "+r"(n[k]));
        }
      }
      for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = static_cast<double>(n[k] >> 11);
      break;
    }
    case Operation::double_to_int: {
      std::array<std::int64_t, kThroughputChains> n{};
      for (std::uint64_t i = 0; i < steps; ++i) {
        for (unsigned k = 0; k < kThroughputChains; ++k) {
          x[k] = x[k] + 1.0;
          n[k] = n[k] + static_cast<std::int64_t>(x[k]);
        }
      }
      for (unsigned k = 0; k < kThroughputChains; ++k) x[k] = static_cast<double>(n[k]);
      break;
    }
    case Operation::branch_mispredict: {
      // Eight branches a step, each on its own bit of one byte: their conditions do not depend
      // on one another's outcomes.
      const std::uint8_t* bits = branch_bits();
      const std::uint64_t start = t_branch_position / 8;
      constexpr std::uint64_t bytes = kBranchBits / 8;
      std::uint64_t taken = 0, not_taken = 0;
      for (std::uint64_t i = 0; i < steps; ++i) {
        const unsigned byte = bits[(start + i) & (bytes - 1)];
        for (unsigned k = 0; k < kThroughputChains; ++k) {
          if ((byte >> k) & 1) {
            SONDE_TAKEN(taken);
            ++taken;
          } else {
            SONDE_NOT_TAKEN(not_taken);
            ++not_taken;
          }
        }
      }
      t_branch_position = ((start + steps) & (bytes - 1)) * 8;
      return static_cast<double>(taken);  // of steps * kThroughputChains branches
    }
    case Operation::store_load: {
      volatile double* slot = store_load_slots();
      for (std::uint64_t i = 0; i < steps; ++i)
        for (unsigned k = 0; k < kThroughputChains; ++k) {
          slot[k] = x[k];
          x[k] = slot[k];
        }
      break;
    }
  }
  double sum = 0;
  for (double value : x) sum += value;
  return sum;
}

}  // namespace sonde::microbench
