// The result format, written down once: the names that sonde's benchmark programs (microbench/)
// write into each benchmark entry's "params" and counters, and that the readers (core/run_records,
// fit/, plot/, characterize/) take out again. A writer and a reader that both spell a key through
// this header cannot drift apart; docs/formats.md ("Result files") says the same for people.
//
// A result file is Google Benchmark's JSON with two additions: context.sonde (the run context:
// suite, host, topology, clock, sizing, noise, MPI) and, in every benchmark entry, "params" (the
// benchmark's parameters as data, so that nobody parses names).
#pragma once

#include <string_view>

namespace sonde::result_format {

// context.sonde.suite and params.suite: which program wrote the file.
namespace suite {
inline constexpr const char* memory = "memory";
inline constexpr const char* contention = "contention";
inline constexpr const char* overhead = "overhead";
inline constexpr const char* compute = "compute";
inline constexpr const char* mpi = "mpi";
}  // namespace suite

// Keys of a benchmark entry's "params" that readers rely on. Every entry has `suite` and `part`;
// the others are required of the parts named beside them.
namespace param {
inline constexpr const char* suite = "suite";
inline constexpr const char* part = "part";
inline constexpr const char* kernel = "kernel";                        // memory
inline constexpr const char* pattern = "pattern";                      // memory, pointer chase
inline constexpr const char* page_policy = "page_policy";              // memory
inline constexpr const char* working_set_bytes = "working_set_bytes";  // memory
inline constexpr const char* bytes_per_element = "bytes_per_element";  // memory, bandwidth
inline constexpr const char* threads = "threads";  // memory, contention, compute peak, sync
inline constexpr const char* stride_words = "stride_words";  // contention access
inline constexpr const char* level_target = "level_target";  // contention access: l1 .. dram
inline constexpr const char* access = "access";              // contention access: load, store
inline constexpr const char* sharing = "sharing";      // contention access: exclusive, concurrent
inline constexpr const char* operation = "operation";  // contention one-word, overhead, compute
inline constexpr const char* mode = "mode";            // compute kernels: latency, throughput
inline constexpr const char* counted_flops = "counted_flops";  // compute kernels (Xu and Hwang)
inline constexpr const char* unit = "unit";                    // compute peak: the FMA unit
inline constexpr const char* width_doubles = "width_doubles";  // compute shared_ports
inline constexpr const char* message_bytes = "message_bytes";  // mpi pingpong, collectives
inline constexpr const char* ranks = "ranks";                  // mpi pingpong: [first, last]
inline constexpr const char* communicator_ranks = "communicator_ranks";  // mpi collectives

// Keys written under another name by earlier versions of sonde, read in their place so that
// older runs can still be fitted: {key, earlier name}.
inline constexpr const char* earlier_names[][2] = {{counted_flops, "paper003_flops"}};
}  // namespace param

// The parts whose entries readers take apart.
namespace part {
inline constexpr const char* probe = "probe";                // memory: the latency probe
inline constexpr const char* column = "column";              // memory: the column walk
inline constexpr const char* gather = "gather";              // memory: the line gather
inline constexpr const char* access = "access";              // contention
inline constexpr const char* one_word = "one-word";          // contention
inline constexpr const char* sync = "sync";                  // overhead
inline constexpr const char* peak = "peak";                  // compute
inline constexpr const char* kernels = "kernels";            // compute
inline constexpr const char* shared_ports = "shared_ports";  // compute: a chain beside L1 traffic
inline constexpr const char* pingpong = "pingpong";          // mpi
inline constexpr const char* collectives = "collectives";    // mpi
// memory: the random chase on base pages with every core chasing at once (loaded latency)
inline constexpr const char* latency_loaded = "latency-random-loaded";
}  // namespace part

// Memory kernels readers tell apart.
namespace kernel {
inline constexpr const char* pointer_chase = "pointer_chase";
}  // namespace kernel

// The loop shapes of the line gather (params "shape"; a profile's line_gather shape; a
// spreadsheet's gather access): the loaded words added, or each stored in order into a buffer.
namespace gather_shape {
inline constexpr const char* sum = "sum";
inline constexpr const char* copy = "copy";
inline bool known(std::string_view name) { return name == sum || name == copy; }
}  // namespace gather_shape

// Counters (Google Benchmark user counters): the time or rate of one unit of a benchmark.
namespace counter {
inline constexpr const char* seconds_per_load = "seconds_per_load";
inline constexpr const char* cycles_per_load = "cycles_per_load";
inline constexpr const char* bytes_per_second = "bytes_per_second";
inline constexpr const char* seconds_per_access = "seconds_per_access";
inline constexpr const char* seconds_per_operation = "seconds_per_operation";
inline constexpr const char* seconds_per_switch = "seconds_per_switch";
inline constexpr const char* seconds_per_round_trip = "seconds_per_round_trip";
inline constexpr const char* seconds_per_message = "seconds_per_message";
inline constexpr const char* flops_per_second = "flops_per_second";
// compute shared_ports: medians of the chain's and of the two together's time over the stream's
inline constexpr const char* chain_over_stream = "chain_over_stream";
inline constexpr const char* both_over_stream = "both_over_stream";
}  // namespace counter

}  // namespace sonde::result_format
