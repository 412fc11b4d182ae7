// Amato et al.'s (1999) cost functions fitted on the contention suite: the g1/g2 values of QSM,
// EBSP and DXBSP, optimistic (the cheapest case the paper names) and pessimistic (the dearest),
// each from the experiment section 4.1 names; and the weights of F1, F2 and F3 (section 4.2) by
// relative least squares on the experiments where each function should dominate.
//
// Today's analogue of the paper's memory banks: the SGI had 8 interleaved banks on one bus; a
// NUMA machine has memory controllers, one set per NUMA node, and no visible banks. So the
// paper's b0 (in cache) is our l1/l2/l3 level, its b1/8..b8 (in memory, more or less bank
// contention) is our dram level, and "the accesses of one bank" are the accesses served by one
// NUMA node. The paper's s32 (one R10000 L2 line per access) is our stride of one line.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "profile/profile.hpp"

namespace sonde::fit {

// One px.sy.<level>.{L,S}{E,C} experiment: time per access seen by one thread, with the spread of
// its repetitions and the counts per access (all threads' counts over all threads' accesses).
struct AccessPoint {
  std::string name;  // the benchmark, for the profile's sources
  unsigned threads = 1;
  unsigned stride_words = 1;
  std::string level;  // "l1", "l2", "l3", "dram"
  bool store = false;
  bool concurrent = false;
  double seconds = 0;  // median per access of one thread
  double seconds_min = 0, seconds_max = 0;
  std::map<std::string, double> counts;  // "loads", "stores", "l1_misses", ... per access
};

// All threads on one word (QSM's K term): time per operation of one thread.
struct OneWordPoint {
  std::string name;
  unsigned threads = 1;
  std::string operation;  // "load", "store", "fetch_add"
  double seconds = 0, seconds_min = 0, seconds_max = 0;
};

struct ContentionInput {
  std::vector<AccessPoint> access;
  std::vector<OneWordPoint> one_word;
  std::string counts_source;           // "papi" or "derived"
  unsigned line_words = 8;             // words (8 B) per cache line
  unsigned threads_per_numa_node = 0;  // 0: all threads share one node
};

struct ContentionFit {
  profile::Contention contention;
  std::vector<std::string> not_fitted;  // what could not be fitted, and why
};

ContentionFit fit_contention(const ContentionInput& input);

// Relative least squares with non-negative weights: a weight that comes out negative is left out
// and the rest refitted (it says the data cannot tell that cost from zero). Returns the weights
// by term; `dropped` receives the terms left out.
std::map<std::string, double> fit_weights(const std::vector<std::map<std::string, double>>& rows,
                                          const std::vector<double>& seconds,
                                          const std::vector<std::string>& terms,
                                          const std::string& what,
                                          std::vector<std::string>& dropped,
                                          profile::FitQuality& quality);

}  // namespace sonde::fit
