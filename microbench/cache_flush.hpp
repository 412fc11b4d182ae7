// Evicting a buffer from every cache of the machine: the contention suite's "memory" baseline, and
// the MPI suite's large collectives, which a program sends from buffers it has not touched for a
// while (a transpose's blocks of megabytes, written long before the exchange).
#pragma once

#include <cstddef>

namespace sonde::microbench {

// How buffers are flushed here: "clflushopt" or "clflush" (x86, coherent across the machine's
// caches; the first where the CPU has it), or a
// sentence saying there is no portable way on this architecture.
const char* cache_flush_method();
bool can_flush_caches();

// Evicts `bytes` from `data` on from every cache, a line of `line` bytes at a time, and waits for
// the evictions; false (nothing done) where the architecture has no portable way.
bool flush_from_caches(const void* data, std::size_t bytes, std::size_t line = 64);

}  // namespace sonde::microbench
