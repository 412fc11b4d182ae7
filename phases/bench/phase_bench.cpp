// What a begin/end pair costs when sonde is not collecting (the program's normal run): it should
// be a load and an untaken branch, a nanosecond or less.
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

void empty_loop(benchmark::State& state) {
  for (auto _ : state) benchmark::ClobberMemory();
}
BENCHMARK(empty_loop);

}  // namespace

BENCHMARK_MAIN();
