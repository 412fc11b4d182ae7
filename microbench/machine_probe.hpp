// What the machine's memory and clock do at one moment: a one-thread DRAM triad on each core, the
// kernel library's dependent add, a random chase, and the triad on all of those cores at once.
// `sonde check` probes just before and just after each point's runs; `sonde characterize` probes
// every minute or so between its parts, so that the profile says how far the machine wandered
// while it was being measured. A shared VM's memory bandwidth and clock move by tens of percent
// over minutes (a one-thread DRAM triad of 190 MB ran at 26.7 GB/s during a characterization and
// at 40 GB/s half an hour later on the same guest; the bandwidth two cores share moved from 48 to
// 83 GB/s and back within minutes on another).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sonde::microbench {

// One probe of the machine: on one core (threads 1), or on every probed core at once (threads
// > 1; a program of several processes on the node shares its memory as they do, and a guest's
// node-wide bandwidth moved by half within minutes while each core alone did not).
struct MachineSample {
  unsigned core = 0;                       // hwloc's logical index (with threads > 1: the first)
  unsigned threads = 1;                    // how many cores ran the triad at once
  std::string when;                        // "before" or "after" the runs
  double dram_triad_bytes_per_second = 0;  // all threads together, STREAM's count (24 B an element)
  double add_latency_seconds = 0;          // one step of a dependent chain of adds; 0: not timed
  // A dependent load of a random chase (one line each, base pages) over chase_bytes, as the memory
  // suite's; 0: not timed (one core alone only). Memory latency drifts as bandwidth does: a
  // program of random updates took 170 and 228 ns an update on one guest within an hour.
  double dram_chase_seconds = 0;
  std::uint64_t chase_bytes = 0;
  // The memory suite's read kernel over l1_bytes (half the first cache level): one core's in-core
  // rate; 0: not timed (one core alone only). On a 2-core Zen 3 guest a read within L1 went from
  // 124 to 205 GB/s from one second to the next while the add chain and an FMA chain mostly held,
  // and a blocked multiply bound by L1 took 0.96 to 1.43 s a repetition: a co-tenant the guest
  // cannot see shares the core's L1.
  double l1_read_bytes_per_second = 0;
  std::uint64_t l1_bytes = 0;
  // The triad's three arrays together, all threads' (0: not known, a log from before it was kept).
  // Probes of one size read alike: set against another size's, a state may be its size.
  std::uint64_t triad_bytes = 0;
};

// Two triads this many times apart or less saw the machine's memory in one state. The memory
// suite's triad plateau and the probe's triad in one state differ by up to 10% (their sizes
// differ), and one state's probes by as much; the two states of the 2-core Zen 5 guests were 1.8
// times apart. characterize's drift and sonde check's state now both judge by it.
constexpr double kOneMemoryState = 1.15;

// How large the probe's buffers are: the triad's three arrays together, and the random chase's
// (0: no chase).
struct ProbeSizes {
  std::uint64_t triad_bytes = 0;
  std::uint64_t chase_bytes = 0;
  unsigned line_bytes = 64;  // the chase's step: one load a line, as the memory suite's
  // How many cores are probed one at a time (spread over the machine, at most 8). All cores at
  // once are up to 8 whatever this says. `sonde characterize` probes two alone: on a node of 16
  // cores and a 2 GiB triad a core alone takes a second or two.
  unsigned cores_alone = 8;
  std::uint64_t l1_bytes = 0;  // the in-core read's buffer (0: not timed): half the first level
};

// The triad's size (its three arrays together) beyond caches whose largest holds
// `largest_cache_bytes`: 8 times that, at least 192 MiB (STREAM's rule of 4 times the caches, on
// machines with small ones) and at most 2 GiB, and never more than an eighth of `memory_bytes`
// (nor less than 24 MiB: with the memory unknown, 0, that is the size).
std::uint64_t dram_probe_bytes(double largest_cache_bytes, std::uint64_t memory_bytes);

// The in-core read's buffer for a first data cache of `first_cache_bytes`: half of it, so that the
// read stays in L1 beside the stack and the code's own lines, in whole doubles; 0 (not timed) where
// that is under 1 KiB (no cache known).
std::uint64_t l1_probe_bytes(double first_cache_bytes);

// Probes one core (the calling thread, as it is bound), the triad over three arrays of
// `triad_bytes` together (about a quarter of a second at 30 GB/s and 192 MiB), the add chain, and
// with chase_bytes a random chase over them (five runs of 2^16 loads, about 60 ms in DRAM), and
// with l1_bytes the read kernel over a buffer that size (five runs of 64 MiB read, a few ms).
MachineSample probe_core(const ProbeSizes& sizes);

// The triad on several cores at once, a thread bound to each, the `triad_bytes` shared among
// them: the rate of all together over five sweeps that start together (each sweep's time from the
// first start to the last end), their median. No add chain (add_latency_seconds 0).
MachineSample probe_cores_at_once(const std::vector<unsigned>& cores, std::uint64_t triad_bytes);

// Probes the machine: each of up to `cores_alone` cores spread over it (all of them on a machine
// of that many or fewer), one after another, from a thread bound to it, then (with two or more)
// up to 8 cores spread over it at once; the calling thread stays where it is.
std::vector<MachineSample> probe_machine(const ProbeSizes& sizes);

}  // namespace sonde::microbench
