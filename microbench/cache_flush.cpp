#include "microbench/cache_flush.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace sonde::microbench {

const char* cache_flush_method() {
#if defined(__x86_64__)
  return "clflush";
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
  for (std::size_t i = 0; i < bytes; i += line) _mm_clflush(bytes_at + i);
  _mm_mfence();
  return true;
#else
  (void)data, (void)bytes, (void)line;
  return false;
#endif
}

}  // namespace sonde::microbench
