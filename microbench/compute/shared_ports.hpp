// A chain through memory beside the L1 loads and stores of its own loop: how far the two overlap
// on this core.
//
// A loop that keeps values in memory and updates them every step (accumulators in an array, the
// row of C a blocked multiply loads, multiply-adds and stores for every k) runs chains of
// store-to-load round trips, one per vector, through the same L1 ports as its other loads and
// stores. Where the chains alone take C and the loads and stores alone M, the loop takes between
// max(C, M) (they overlap fully) and C + M (not at all). The predictor takes the p-norm
// (C^p + M^p)^(1/p) for such a loop (docs/methods.md, Compute); this kernel measures the three
// times at several ratios of M to C so that the profile can carry p as this machine shows it.
//
// The loop is the blocked multiply's, a pair of k at a time: y[j] = y[j] + s * b[j] + t * c[j]
// (two dependent multiply-adds) over a row segment of `width` doubles a step, b and c walking
// arrays in L1 (compiled vectorized, as the loops it stands for are), in rows of
// kSharedPortsRowSteps steps:
//   both:   y stays put for a row's steps, so each vector of it is a chain: its load waits for the
//           store of the step before (store-to-load forwarding), then a multiply-add, then the
//           store; the next row starts a new segment, as the multiply's next (i, kk, jj) does.
//   stream: y walks an array as b does, so no load waits for a store: the loads and stores alone.
//   chain:  as both, but only kSharedPortsChainDoubles wide: the chains with next to no loads and
//           stores beside them (as many chains run side by side as at any width, so the time a
//           step is their latency).
// The rows matter: with chains that never end the two overlapped fully on the Zen 3 guest (the
// loop took the larger of the two alone within 1 to 8%), with rows of 32 steps they did not (1.36
// times the larger where the two were within 7% of each other): where a row's chain ends and the
// next begins, the core runs loads and stores without a chain beside them, or the other way round.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace sonde::microbench {

enum class SharedPortsRole { chain, stream, both };

std::string_view to_string(SharedPortsRole role);

// The widths (doubles a step): on cores that store one to two vectors a cycle, from the loads and
// stores well below the chains' latency to well above it.
inline constexpr std::array<unsigned, 7> kSharedPortsWidths = {16, 24, 32, 48, 64, 96, 128};
inline constexpr unsigned kSharedPortsChainDoubles = 8;
// Steps a row: the multiply's rows at block sides 48 to 64 run 25 to 33 (BS / 2 + 1 pairs of k).
inline constexpr unsigned kSharedPortsRowSteps = 32;

// The arrays y, b and c walk: kSharedPortsArrayDoubles doubles each (three of them, 18 KiB, in
// any L1d), each begun 192 B past the one before (modulo 4 KiB): arrays a multiple of 4 KiB apart
// would alias in the core's store-to-load check (a load of b[j] held for the store to y[j],
// whose address matches in its low 12 bits), a stall the loops this kernel stands for do not have.
inline constexpr unsigned kSharedPortsArrayDoubles = 768;
struct SharedPortsArrays {
  static constexpr unsigned kStaggerDoubles = 24;
  static constexpr unsigned kStrideDoubles = kSharedPortsArrayDoubles + kStaggerDoubles;
  alignas(64) std::array<double, 3 * kStrideDoubles> storage{};
  double* y() { return storage.data(); }
  double* b() { return storage.data() + kStrideDoubles; }
  double* c() { return storage.data() + 2 * kStrideDoubles; }
};

// Runs `steps` steps of `role` at `width` (a multiple of 8, at most kSharedPortsArrayDoubles / 2;
// the chain alone is kSharedPortsChainDoubles wide whatever `width` says) and returns y[0].
double run_shared_ports(SharedPortsRole role, unsigned width, std::uint64_t steps,
                        SharedPortsArrays& arrays);

}  // namespace sonde::microbench
