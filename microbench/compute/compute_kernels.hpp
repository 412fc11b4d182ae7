// Compute kernels: the peak floating-point rate with the widest fused multiply-add the CPU has,
// and the per-operation costs of Fahringer and Pozgaj's (2000) kernel library (its training phase),
// which also check Xu and Hwang's (1995) flop-counting rules (Table 1) on this machine.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace sonde::microbench {

// ---- Peak rate ----

struct FmaUnit {
  std::string_view name;    // "avx512", "avx2-fma", "scalar-fma", "scalar"
  unsigned vector_doubles;  // doubles per instruction
  bool fused;               // one fused multiply-add, or a multiply and an add
};

// The units this CPU can run, widest first (detected at run time).
std::vector<FmaUnit> available_fma_units();

// Independent accumulators per peak kernel: enough to cover an FMA latency of 4 cycles on two
// pipes (8 in flight) with room to spare.
inline constexpr unsigned kPeakAccumulators = 12;

// Runs `iterations` rounds of kPeakAccumulators independent a = a * m + c on `unit` and returns a
// value that depends on all of them. Flops: iterations * kPeakAccumulators * vector_doubles * 2.
double run_peak_kernel(const FmaUnit& unit, std::uint64_t iterations);

// ---- Kernel library ----

enum class Operation {
  add,
  multiply,
  fma,
  divide,
  sqrt,
  exp,
  log,
  sin,
  int_multiply,
  int_to_double,
  double_to_int,
  indirect_call,
  branch_mispredict,
  store_load
};

// What each mode measures. Latency: one dependent chain, every step needs the one before it, so
// the time per step is the operation's latency (plus the little glue the chain names). Throughput:
// kThroughputChains independent chains interleaved, so the time per operation is the issue rate
// of the unit (or the latency over the chains where that is longer).
//
// branch_mispredict is a conditional branch on precomputed pseudo-random bits (taken half the time
// at random; 2^20 bits, read on from where the last call stopped, so that no predictor learns
// them). Throughput: each branch's condition is a bit loaded from an address known in advance, so
// the branches are independent and the time per branch is the cost of a 50% mispredicted branch
// with the conditions ready early. Latency: the address of the next bit depends on the outcome of
// the branch before it, so nothing of the next step can start before the branch resolves: the
// time per branch is its resolution plus the misprediction penalty, half the time. Either way
// the penalty of one misprediction is about twice the time per branch.
//
// store_load is a double stored to memory and loaded back from the same address: the round trip
// of store-to-load forwarding, which a loop pays where it stores a value and a later step loads it
// again (an accumulator kept in an array, a blocked multiply's row of C updated every k). The
// slots are reached through a pointer the compiler cannot see through, so that it keeps both
// accesses, and not through the stack pointer, which some cores rename to skip the round trip.
struct OperationInfo {
  Operation operation;
  std::string_view name;
  // Xu and Hwang (1995), Table 1: add, subtract, multiply 1; divide and square root 4; exp, sin
  // (and log, an intrinsic function like them) 8; a type conversion 1. A fused multiply-add is a
  // multiply and an add (2). Integer arithmetic, an indirect call and a branch are no
  // floating-point operations (0).
  unsigned counted_flops;
  std::string_view latency_chain;     // what one step of the dependent chain does
  std::string_view throughput_chain;  // what each of the independent chains does
};

const std::vector<OperationInfo>& operations();

// Independent chains in the throughput kernels.
inline constexpr unsigned kThroughputChains = 8;

// `steps` steps of one dependent chain (latency) or of kThroughputChains independent chains each
// (throughput); returns a value that depends on every step.
double run_latency_chain(Operation operation, std::uint64_t steps);
double run_throughput_chains(Operation operation, std::uint64_t steps);

}  // namespace sonde::microbench
