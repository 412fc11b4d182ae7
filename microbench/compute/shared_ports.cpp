#include "microbench/compute/shared_ports.hpp"

namespace sonde::microbench {
namespace {

// One step: y[j] += s b[j] + t c[j] over `width` doubles, two dependent multiply-adds. Compiled
// vectorized (this file is timed code at -O3 with the machine's vector width).
inline void update(double* __restrict y, const double* __restrict b, const double* __restrict c,
                   unsigned width) {
  constexpr double s = 1e-3, t = 2e-3;
  for (unsigned j = 0; j < width; ++j) y[j] = y[j] + s * b[j] + t * c[j];
}

}  // namespace

std::string_view to_string(SharedPortsRole role) {
  switch (role) {
    case SharedPortsRole::chain:
      return "chain";
    case SharedPortsRole::stream:
      return "stream";
    case SharedPortsRole::both:
      return "both";
  }
  return "unknown";
}

double run_shared_ports(SharedPortsRole role, unsigned width, std::uint64_t steps,
                        SharedPortsArrays& arrays) {
  double* y = arrays.y();
  const double* b = arrays.b();
  const double* c = arrays.c();
  if (role == SharedPortsRole::chain) width = kSharedPortsChainDoubles;
  const auto next = [&](unsigned at) {
    return at + 2 * width > kSharedPortsArrayDoubles ? 0 : at + width;
  };
  unsigned at = 0, row = 0, in_row = 0;
  for (std::uint64_t i = 0; i < steps; ++i) {
    update(y + (role == SharedPortsRole::stream ? at : row), b + at, c + at, width);
    // Every step's stores reach memory and its loads are made again: the compiler may neither
    // keep y in registers across steps (which would remove the chain through memory) nor drop a
    // step it could see repeat.
    asm volatile("" : : "r"(y) : "memory");
    at = next(at);
    if (++in_row == kSharedPortsRowSteps) {
      in_row = 0;
      row = next(row);
    }
  }
  return y[0];
}

}  // namespace sonde::microbench
