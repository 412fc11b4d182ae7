#include "microbench/cache_flush.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace sonde::microbench {

namespace {

#if defined(__x86_64__)
// CLFLUSHOPT (CPUID leaf 7, EBX bit 23) evicts as CLFLUSH does, but its flushes of different lines
// are not ordered with one another (Intel's and AMD's manuals), so they may overlap.
bool has_clflushopt() {
  static const bool has = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & (1u << 23)) != 0;
  }();
  return has;
}

__attribute__((target("clflushopt"))) void flush_lines_unordered(const char* at, std::size_t bytes,
                                                                 std::size_t line) {
  for (std::size_t i = 0; i < bytes; i += line) _mm_clflushopt(const_cast<char*>(at + i));
}
#endif

}  // namespace

const char* cache_flush_method() {
#if defined(__x86_64__)
  return has_clflushopt() ? "clflushopt" : "clflush";
#else
  return "none: no portable cache flush on this architecture";
#endif
}

bool can_flush_caches() {
#if defined(__x86_64__)
  return true;
#else
  return false;
#endif
}

bool flush_from_caches(const void* data, std::size_t bytes, std::size_t line) {
#if defined(__x86_64__)
  const char* bytes_at = static_cast<const char*>(data);
  if (has_clflushopt()) {
    flush_lines_unordered(bytes_at, bytes, line);
  } else {
    for (std::size_t i = 0; i < bytes; i += line) _mm_clflush(bytes_at + i);
  }
  _mm_mfence();  // orders CLFLUSHOPT and CLFLUSH alike: every eviction done before what follows
  return true;
#else
  (void)data, (void)bytes, (void)line;
  return false;
#endif
}

}  // namespace sonde::microbench
