// Building a pointer chase: the visit order and the links. Kept out of memory_kernels.cpp, whose
// object must not call the C library (a test checks it), since this set-up code may.
#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

#include "microbench/memory/memory_kernels.hpp"

namespace sonde::microbench {

std::vector<std::uint32_t> chase_visit_order(std::size_t lines, std::size_t lines_per_group,
                                             std::uint64_t seed) {
  if (lines == 0) throw std::invalid_argument("a chase needs at least one line");
  if (lines > UINT32_MAX) throw std::invalid_argument("too many lines for one chase");
  lines_per_group = std::clamp<std::size_t>(lines_per_group, 1, lines);
  std::mt19937_64 random(seed);
  const std::size_t groups = (lines + lines_per_group - 1) / lines_per_group;
  std::vector<std::uint32_t> group_order(groups);
  std::iota(group_order.begin(), group_order.end(), 0u);
  std::shuffle(group_order.begin(), group_order.end(), random);

  std::vector<std::uint32_t> order;
  order.reserve(lines);
  for (std::uint32_t group : group_order) {
    const std::size_t first = group * lines_per_group;
    const std::size_t last = std::min(lines, first + lines_per_group);
    const std::size_t begin = order.size();
    for (std::size_t line = first; line < last; ++line)
      order.push_back(static_cast<std::uint32_t>(line));
    std::shuffle(order.begin() + static_cast<std::ptrdiff_t>(begin), order.end(), random);
  }
  return order;
}

void* link_chase(void* buffer, std::size_t line_bytes, const std::vector<std::uint32_t>& order) {
  if (order.empty()) throw std::invalid_argument("a chase needs at least one line");
  if (line_bytes < sizeof(void*)) throw std::invalid_argument("a line must hold a pointer");
  auto* base = static_cast<char*>(buffer);
  const auto line = [&](std::uint32_t index) { return base + std::size_t{index} * line_bytes; };
  for (std::size_t i = 0; i < order.size(); ++i) {
    char* next = line(order[(i + 1) % order.size()]);
    *reinterpret_cast<void**>(line(order[i])) = next;
  }
  return line(order.front());
}

std::size_t chase_cycle_length(const void* start, std::size_t max_steps) {
  const void* p = start;
  for (std::size_t steps = 1; steps <= max_steps; ++steps) {
    p = *static_cast<const void* const*>(p);
    if (p == start) return steps;
  }
  return 0;
}

}  // namespace sonde::microbench
