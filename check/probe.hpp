// What the machine does now, beside what its profile says it did. A shared VM's memory bandwidth
// and clock move by tens of percent over minutes (a one-thread DRAM triad of 190 MB ran at 26.7
// GB/s during a characterization and at 40 GB/s half an hour later on the same guest), so a
// prediction's error can be the machine's drift as well as the model's. `sonde check` times a
// one-thread DRAM triad and the kernel library's dependent add just before and just after each
// point's runs, records them, and notes where they lie 5% or more off the profile's values. The
// probe runs where `sonde check` runs: under a cluster's launcher that may be another node than the
// program's. It runs on each core in turn (up to 8, spread over the node): the two vCPUs of a
// guest differed by 30% in DRAM bandwidth at one moment, and which was the slower changed. Then on
// all of those cores at once: the bandwidth two processes share moved from 32 to 49 GB/s within
// minutes on another guest, where the profile's two-thread triad had caught 34.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "microbench/machine_probe.hpp"
#include "profile/profile.hpp"

namespace sonde::check {

// The samples and the probing itself live in microbench/machine_probe.hpp: `sonde characterize`
// probes the machine the same way between its parts.
using microbench::MachineSample;
using microbench::probe_core;
using microbench::probe_cores_at_once;
using microbench::probe_machine;
using microbench::ProbeSizes;

// How the probe is taken: probe_machine, or a stand-in in tests.
using Probe = std::function<std::vector<MachineSample>(const ProbeSizes& sizes)>;

// The triad's size (its three arrays together) for a profile: that of its probes' usual state with
// one core (profile::UsualState), where it has one within an eighth of `memory_bytes` (or that is
// 0, unknown), so that the probes now and the profile's read alike; else
// microbench::dram_probe_bytes of the largest capacity its cache levels showed (the capacity the
// latency curve detected, or as reported where none was detected) and `memory_bytes`
// (memory_available()).
std::uint64_t probe_bytes(const profile::Profile& target, std::uint64_t memory_bytes);

// The random chase's size for a profile: the largest working set its one-thread random chase
// measured (the profile's random_chase) of those within an eighth of `memory_bytes` (where that is
// known); 0 where there is none.
std::uint64_t probe_chase_bytes(const profile::Profile& target, std::uint64_t memory_bytes);
// The chase's step: the profile's first level's line, else 64 B.
unsigned probe_line_bytes(const profile::Profile& target);

// The in-core read's buffer for a profile: half its first cache level, the smaller of what the
// system reported and what the latency curve detected (a co-tenant's share of L1 moved the
// detected step between 27 and 45 KiB on a guest of 32 KiB); 0 where the profile has no cache.
std::uint64_t probe_l1_bytes(const profile::Profile& target);

// What the profile's one-thread random chase says at `bytes`: the point measured there; null where
// it measured none.
const profile::Quantity* profile_dram_chase(const profile::Profile& target, std::uint64_t bytes);

// The memory this process may use, as `sonde characterize` sizes its runs by it (MemAvailable,
// the cgroup's limit, hwloc's NUMA memory: the smallest); 0 where none is known.
std::uint64_t memory_available();

// What the profile says of the two: its last memory level's triad bandwidth with `threads`
// threads (triad/<threads>) and the add kernel's latency; null where it has none.
const profile::Quantity* profile_dram_triad(const profile::Profile& target, unsigned threads = 1);
const profile::Quantity* profile_add_latency(const profile::Profile& target);
// Its first cache level's one-thread read bandwidth (read/1); null where it has none.
const profile::Quantity* profile_l1_read(const profile::Profile& target);

// The profile's probes' usual state with `threads` (profile::UsualState) where every sample of that
// thread count was taken at its size (within 1%), and there is one; else null: the samples are set
// against the profile's triad/<threads> instead, a figure of another measurement and size.
const profile::UsualState* usual_state_for(const profile::Profile& target, unsigned threads,
                                           const std::vector<MachineSample>& samples);

// A note for each of the two with a sample 5% or more faster or slower than the profile's value,
// inside its interval or not (one widened to the drift of its characterization holds the machine's
// other states, which still explain an E): "machine
// now: DRAM triad (1 thread) 39.0 GB/s .. 41.0 GB/s, the profile's 27.1 GB/s [25.4 GB/s .. 31.6
// GB/s]: 1.48 times as fast on average". The samples of k cores at once are set against the
// profile's triad/k the same way ("DRAM triad (2 threads at once)"). A triad is set against the
// profile's probes' usual state instead where usual_state_for has one ("the profile's probes'
// usual 21.3 GB/s [19.4 GB/s .. 23.6 GB/s]"); the add latency against the
// one-core samples, and so is the random chase against the profile's at its size ("random chase
// over 64 MiB"), and the in-core read against the first level's read/1 ("L1d read (1 thread)").
// None where the profile lacks it, no sample was taken, or a sample is no positive
// number.
std::vector<std::string> drift_notes(const profile::Profile& target,
                                     const std::vector<MachineSample>& samples);

// The profile in the memory state the probes saw around a point's runs. A shared VM's node
// bandwidth can sit in one of two states for minutes at a time (a guest's two-thread DRAM triad ran
// at 47 or at 83 GB/s, and a prediction priced in one state was 1.8 times off a run in the other),
// so no profile made before a run can know which state the run will meet. The probe's triad with
// k threads, where its samples before and after the runs agree (within 15%), moves every DRAM
// bandwidth the profile holds for k threads (the last level's "kernel/k" and the DRAM sweep's
// points with k threads, values and intervals) as characterize's drift moves a part's figures to
// the run's usual state: by now over the profile's probes' usual state with k threads at the
// probe's size (usual_state_for), or where it has none by now over its triad/k, each kernel only
// as far as the node's memory bounds it (profile::move_between_states). Thread counts the probe did
// not run, and those whose state moved during the runs, stay as profiled. Only DRAM bandwidth
// moves: it is what differed between the states; the clock and the memory latency did not (the
// probe's add chain and chase, within 5% on those guests), and the caches are not probed.
struct StateNow {
  profile::Profile profile;        // the target, its DRAM bandwidths scaled
  std::vector<std::string> notes;  // each thread count: scaled by how much, or why not
  bool scaled = false;             // at least one thread count was scaled
};
StateNow profile_in_state_now(const profile::Profile& target,
                              const std::vector<MachineSample>& samples);

// Where a thread count's triad before the runs and after them lie more than 15% apart (the state
// moved during the runs, so they timed neither state): what moved, "DRAM triad (2 threads) moved
// from 48.3 GB/s before the runs to 84.2 GB/s after"; "" where none did.
std::string state_moved(const std::vector<MachineSample>& samples);

}  // namespace sonde::check
