// What a begin/end pair costs when sonde is not collecting (the program's normal run): it should
// be a load and an untaken branch, a nanosecond or less. And what it costs while sonde collects
// times (`sonde check --components`, `sonde counters --source time`): two clock reads and the
// phase's lookup by name, which a timed step pays.
#include <benchmark/benchmark.h>
#include <sonde/phase.h>

namespace {

void marker_pair_not_collecting(benchmark::State& state) {
  for (auto _ : state) {
    sonde_phase_begin("phase");
    benchmark::ClobberMemory();
    sonde_phase_end("phase");
  }
}
BENCHMARK(marker_pair_not_collecting);

void marker_pair_collecting_times(benchmark::State& state) {
  for (auto _ : state) {
    sonde_phase_record_begin("a phase named as a spreadsheet row");
    benchmark::ClobberMemory();
    sonde_phase_record_end("a phase named as a spreadsheet row");
  }
}
BENCHMARK(marker_pair_collecting_times);

void empty_loop(benchmark::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}
BENCHMARK(empty_loop);

}  // namespace

BENCHMARK_MAIN();
