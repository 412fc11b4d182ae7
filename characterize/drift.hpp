// How far the machine wandered while `sonde characterize` measured it. A shared VM's memory
// bandwidth is not one figure: on a 2-core guest the bandwidth its two cores share read 48, 83
// and 53 GB/s in three characterizations on one day, and moved between the two within a
// minute while programs were checked against the profile. A plateau measured over a few seconds
// then carries an interval of a few percent that says nothing of that. So the run probes the
// machine (microbench/machine_probe.hpp: a DRAM triad on the first and the last core, then on up
// to 8 cores at once, the dependent add, and a read that stays in the first cache) at its start,
// around each memory bandwidth part and every minute between the others, into drift.json beside the
// results; the fit widens the intervals of the memory's bandwidths to what the probes saw, moves a
// figure measured in an unusual state to the run's usual one, and says so in each figure's note.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "microbench/machine_probe.hpp"
#include "profile/profile.hpp"

namespace sonde::characterize {

// One probe of the machine during a run.
struct DriftProbe {
  double seconds = 0;  // since the Unix epoch: a resumed run's probes follow its first ones
  std::string utc;     // when it was taken
  std::string after;   // the part just finished, "memory-bandwidth-t1" ("" first in an invocation)
  std::string before;  // the part about to run ("" at the end)
  std::vector<microbench::MachineSample> samples;
};

// The run's drift log, drift.json in its folder.
std::filesystem::path drift_log_path(const std::filesystem::path& run_folder);

// The probes recorded so far; none where there is no log. A malformed log is an input Error
// naming the file and the field.
std::vector<DriftProbe> read_drift_log(const std::filesystem::path& path);

// Adds a probe to the log, rewriting it atomically (a resumed run adds to what it had).
void append_drift_log(const std::filesystem::path& path, const DriftProbe& probe);

// Accounts for the drift in the last memory level's bandwidths (`<kernel>/<q>`), with the probes
// of as many threads (one core at a time for q = 1, all probed cores at once for q > 1). A figure
// was measured with the machine in one state: that of the probe beside its part
// (memory-bandwidth-t<q>, just before or just after) nearest the level's own triad/q (the probe's
// kernel), or where there is no triad/q, between those probes. Its interval widens to what it
// would have read in the slowest and fastest states the run's probes saw: value x slowest / state
// .. value x fastest / state. Where that state lies 5% or more from the run's usual state (the
// probes' median; where they fall into two states, the median of the side with more of them, or
// with as many, of the last probe's side), the value moves to it and becomes derived; the note
// keeps what was measured. One thread's figures move by usual / state. With q threads, in a faster
// usual state a figure rises at most to q times the same kernel's one-thread figure (it may have
// been bound by each core, not by the node's memory); in a slower one it falls by the ratio at
// most and not below the triad's figure in that state. Nothing changes with fewer than two probes,
// or where the interval already holds the range and the state was the run's own. With q threads
// the interval's top is at most q times the best the kernel got with one thread. Where no probe
// beside the part lies within 15% of its triad, the part's kernels tell: if each q-thread figure
// over its one-thread figure lies within the square root of the run's state ratio of the others,
// the part ran in one state, its own triad's; if not, the state changed during the part: nothing
// moves, and the intervals span value x slowest / fastest .. value x fastest / slowest. The first
// cache level's bandwidths (every kernel and thread count) widen to the spread of the probes'
// in-core reads, value x slowest / median .. value x fastest / median, with three reads or more;
// their values stay. Returns a line for each thread count changed and one for the first level.
std::vector<std::string> account_for_drift(profile::Profile& profile,
                                           const std::vector<DriftProbe>& probes);

// The run's usual memory state as its probes read it (profile::UsualState), for one core alone
// and for the most cores probed at once: the usual state of their triads, as account_for_drift
// takes it (the median; where they fall into two states, the median of the usual side), the
// interval the slowest and the fastest probe. None for a thread count with fewer than two probes,
// or whose probes were of more than one size or of none known (a log from before the size was
// kept).
std::vector<profile::UsualState> usual_states(const std::vector<DriftProbe>& probes);

// The probes as a short table for the console: each probe's time, the part it followed, the
// one-core triads, the all-cores triad, the add latency and the in-core reads.
std::string format_drift(const std::vector<DriftProbe>& probes);

}  // namespace sonde::characterize
