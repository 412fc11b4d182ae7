// The streaming kernels' table: what each counts per element. Kept out of memory_kernels.cpp,
// whose object must hold nothing but kernels: a test checks that it calls no memcpy or memset, and
// clang copies and compares these entries with them.
#include "microbench/memory/memory_kernels.hpp"

#include <stdexcept>

namespace sonde::microbench {

const std::vector<KernelTraffic>& stream_kernels() {
  static const std::vector<KernelTraffic> table{
      {StreamKernel::read, "read", 1, 1, 0, 1, "s += a[i]"},
      {StreamKernel::write, "write", 1, 0, 1, 0, "a[i] = s"},
      {StreamKernel::copy, "copy", 2, 1, 1, 0, "c[i] = a[i]"},
      {StreamKernel::triad, "triad", 3, 2, 1, 2, "a[i] = b[i] + s * c[i]"},
      {StreamKernel::update, "update", 2, 2, 1, 2, "a[i] += s * b[i]"},
      {StreamKernel::stencil, "stencil", 2, 1, 1, 5,
       "b[i] = a[i] + s * (a[i - 1] - 2 a[i] + a[i + 1])", 1},
  };
  return table;
}

const KernelTraffic& traffic_of(StreamKernel kernel) {
  for (const KernelTraffic& entry : stream_kernels()) {
    if (entry.kernel == kernel) return entry;
  }
  throw std::logic_error("unknown stream kernel");
}

std::optional<StreamKernel> stream_kernel_named(std::string_view name) {
  for (const KernelTraffic& entry : stream_kernels()) {
    if (entry.name == name) return entry.kernel;
  }
  return std::nullopt;
}

}  // namespace sonde::microbench
