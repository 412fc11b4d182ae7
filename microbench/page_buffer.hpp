// Memory for the benchmarks, mapped with a chosen page policy: base pages (transparent huge pages
// switched off for the range) or transparent huge pages requested with madvise. What the kernel
// actually gave is read back from /proc/self/smaps, so that a result says what it measured.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <vector>

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

// Memory for std::vector that starts on a page: the MPI suite's messages. Where two buffers lie
// at different offsets in their pages, a copy between them can run several times slower: on a
// 2-core Zen 3 guest (2026-12-06) an MPI_Alltoall of 4 MiB blocks on 2 ranks took 1.0 to 1.6 ms
// between buffers at one offset (both 0 or both 16 B), or with the receive buffer's offset 16 B
// before the send buffer's or 32 to 64 B past it, and 3.6 to 6.5 ms where it lay 8 or 16 B past
// (likely 4K aliasing: a load whose address matches a just-stored one in its low 12 bits waits on
// it). std::vector's buffers from the heap landed at such offsets by chance, run to run. A
// program's large buffers (mapped by malloc, or aligned) share one offset; page-aligned ones too.
template <class T>
struct PageAlignedAllocator {
  using value_type = T;
  PageAlignedAllocator() = default;
  template <class U>
  PageAlignedAllocator(const PageAlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t count) {
    const std::size_t page = base_page_bytes();
    // Room to round up to whole pages without overflowing.
    if (count > (std::numeric_limits<std::size_t>::max() - page) / sizeof(T)) {
      throw std::bad_array_new_length();
    }
    const std::size_t bytes =
        std::max<std::size_t>(1, (count * sizeof(T) + page - 1) / page) * page;
    void* memory = std::aligned_alloc(page, bytes);
    if (memory == nullptr) throw std::bad_alloc();
    return static_cast<T*>(memory);
  }
  void deallocate(T* memory, std::size_t) noexcept { std::free(memory); }
  template <class U>
  bool operator==(const PageAlignedAllocator<U>&) const noexcept {
    return true;
  }
  template <class U>
  bool operator!=(const PageAlignedAllocator<U>&) const noexcept {
    return false;
  }
};
template <class T>
using PageAlignedVector = std::vector<T, PageAlignedAllocator<T>>;

}  // namespace sonde::microbench
