// A run's results read once into typed records per suite: what the fitters (fit/), the console
// summaries (characterize/) and the plots (plot/) all take. Reading is strict: a parameter a
// record needs that is missing or of the wrong type is an input Error naming the file, the
// benchmark and the key, never a default (a renamed key must not silently become 0 threads).
// The names come from core/result_format.hpp.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/results.hpp"

namespace sonde {

// One benchmark's headline over its repetitions: the median of its headline counter and the
// spread of the repetitions.
struct Measurement {
  std::string name;     // the registered name, e.g. "overhead.pipe.latency"
  std::string file;     // the result file it was read from
  std::string counter;  // the headline counter: "seconds_per_load", "flops_per_second", ...
  double median = 0;
  double min = 0;
  double max = 0;
  double cv = 0;
  std::map<std::string, double> counters;  // every counter of the median entry (counts, rates)
  nlohmann::json params;  // as written, for display only: read through the typed fields
};

// memory: a dependent chase (the sweep's variants and the latency probe).
struct LatencyRecord : Measurement {
  std::string part;  // "probe" for the probe that sized the run
  std::string pattern;
  std::string page_policy;
  std::uint64_t working_set_bytes = 0;  // one thread's chain
  unsigned threads = 1;                 // threads chasing at once, each its own chain
};

// memory, part column: a walk down the columns of a matrix with rows of several pages, one thread
// of `threads` walking its own.
struct ColumnWalkRecord : Measurement {
  unsigned threads = 0;
  std::uint64_t working_set_bytes = 0;  // one thread's matrix
  std::uint64_t row_bytes = 0;
};

// memory, part gather: the line gather, seconds per line of one of `threads` threads.
struct LineGatherRecord : Measurement {
  unsigned threads = 0;
  std::uint64_t working_set_bytes = 0;  // one thread's buffer
  std::uint64_t span_bytes = 0;         // the block whose lines are read in a random order
  std::string shape;                    // sum or copy: what the loop does with a loaded word
};

// contention, part access: Amato et al.'s (1999) pX.sS.<level>.{L,S}{E,C} experiments.
struct ContentionAccessRecord : Measurement {
  unsigned threads = 0;
  unsigned stride_words = 0;
  std::string level_target;  // l1, l2, l3, dram
  bool store = false;
  bool concurrent = false;
};

// contention, part one-word: all threads on one word.
struct OneWordRecord : Measurement {
  unsigned threads = 0;
  std::string operation;
};

// overhead: every benchmark; `threads` for the synchronisation measured over thread counts.
struct OverheadRecord : Measurement {
  std::string part;
  std::string operation;
  std::optional<unsigned> threads;
};

// compute, part peak: the rate of one fused multiply-add unit on `threads` cores.
struct PeakRecord : Measurement {
  std::string unit;
  unsigned threads = 0;
};

// compute, part kernels: one operation of the kernel library.
struct KernelRecord : Measurement {
  std::string operation;
  std::string mode;  // latency or throughput
  unsigned counted_flops = 0;
};

// compute, part shared_ports: a store-to-load chain beside an L1 triad of `width_doubles` a step
// (microbench/compute/shared_ports.hpp); the headline is the two together, seconds per step.
struct SharedPortsRecord : Measurement {
  unsigned width_doubles = 0;
  double chain_over_stream = 0;  // the chain alone over the triad alone, the same iteration's
  double both_over_stream = 0;   // the two together over the triad alone
};

// mpi, part pingpong: half a round trip between two ranks.
struct PingPongRecord : Measurement {
  std::uint64_t message_bytes = 0;
  std::vector<std::uint64_t> ranks;  // the pair
};

// mpi, part collectives: one operation on a communicator of `communicator_ranks`.
struct CollectiveRecord : Measurement {
  std::string operation;
  unsigned communicator_ranks = 0;
  std::uint64_t message_bytes = 0;
};

struct RunRecords {
  // The suites whose results are here; the latency probe alone is not the memory suite.
  std::vector<std::string> suites;
  // Each suite's first run context (context.sonde of its first file).
  std::map<std::string, nlohmann::json> contexts;
  // The files read, in order (the memory summary reads each repetition, not only headlines).
  std::vector<ResultFile> files;

  std::vector<LatencyRecord> latency;
  std::vector<ColumnWalkRecord> column_walks;
  std::vector<LineGatherRecord> line_gathers;
  std::vector<ContentionAccessRecord> contention_access;
  std::vector<OneWordRecord> one_word;
  std::vector<Measurement> contention_other;  // false sharing, coherence, NUMA
  std::vector<OverheadRecord> overheads;
  std::vector<PeakRecord> peaks;
  std::vector<KernelRecord> kernels;
  std::vector<SharedPortsRecord> shared_ports;
  std::vector<PingPongRecord> pingpong;
  std::vector<CollectiveRecord> collectives;
  std::vector<Measurement> mpi_other;  // streaming bandwidth, the pair map

  bool has(const std::string& suite) const;
  // The run context of a suite; an input Error when the run has none.
  const nlohmann::json& context(const std::string& suite) const;
  // Every headline of a suite, in the order read.
  std::vector<const Measurement*> measurements(const std::string& suite) const;
};

// Reads the files of a run. A file whose suite is unknown, an entry without "params", a record
// lacking a key its part needs: input Errors naming the file, the benchmark and the key.
RunRecords read_run_records(std::vector<ResultFile> files);

// The parameter `key` of a benchmark entry, strictly: an input Error naming `where` (the file),
// the benchmark and the key when it is missing or not of type T.
template <class T>
T required_param(const nlohmann::json& params, const char* key, const std::string& benchmark,
                 const std::string& where);

}  // namespace sonde
