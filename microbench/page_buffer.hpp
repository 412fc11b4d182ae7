// Memory for the benchmarks, mapped with a chosen page policy: base pages (transparent huge pages
// switched off for the range) or transparent huge pages requested with madvise. What the kernel
// actually gave is read back from /proc/self/smaps, so that a result says what it measured.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sonde::microbench {

enum class PagePolicy { base, huge };

std::string_view name_of(PagePolicy policy);  // "base", "huge"
std::size_t base_page_bytes();
// The transparent huge page size (hpage_pmd_size), or 0 when the system has none.
std::size_t huge_page_bytes();
// "always", "madvise" or "never" (from /sys/kernel/mm/transparent_hugepage/enabled), or
// "unavailable" when the file does not exist.
std::string transparent_huge_page_mode();
bool huge_pages_available();

class PageBuffer {
 public:
  PageBuffer() = default;
  // Maps `bytes` (rounded up to whole pages), aligned to the huge page size for PagePolicy::huge.
  // The memory is not touched: the thread that first writes a page decides its NUMA node.
  PageBuffer(std::size_t bytes, PagePolicy policy);
  PageBuffer(PageBuffer&& other) noexcept;
  PageBuffer& operator=(PageBuffer&& other) noexcept;
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  ~PageBuffer();

  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }
  PagePolicy policy() const { return policy_; }
  // The share of the buffer that the kernel backs with huge pages now (0 to 1); call after the
  // pages were touched. From the smaps entry that holds the buffer.
  double huge_page_fraction() const;

 private:
  void release();
  void* mapping_ = nullptr;
  std::size_t mapping_bytes_ = 0;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  PagePolicy policy_ = PagePolicy::base;
};

}  // namespace sonde::microbench
