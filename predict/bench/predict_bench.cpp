// How fast early prediction is: T_n of a ten-component spreadsheet (DOPs, communication sizes and
// counts as expressions in n) on the SP2 profile, one n per evaluation and a sweep of 10^6 n.
#include <benchmark/benchmark.h>

#include <string>

#include "predict/predictor.hpp"
#include "predict/workload.hpp"
#include "profile/profile.hpp"

namespace {

using sonde::predict::Predictor;
using sonde::predict::Scheme;

std::string ten_components() {
  std::string csv =
      "kind,name,value,work [Mflop],time [s],machine,dop,operation,bytes [B],count,after\n"
      "parameter,N,4096,,,,,,,,\n";
  const char* operations[] = {"alltoall", "broadcast", "gather", "shift", "reduce"};
  for (int i = 0; i < 10; ++i) {
    csv += "component,C" + std::to_string(i) + ",," + std::to_string(100 + 10 * i) + "," +
           std::to_string(1.0 + 0.1 * i) + ",ibm-sp2," + (i % 3 == 0 ? "N/4" : "\"min(N, 256)\"") +
           ",,,,\n";
    csv += "communication,m" + std::to_string(i) + ",,,,,," + operations[i % 5] +
           ",N*N*8/n^2,1+(n>64),C" + std::to_string(i) + "\n";
  }
  return csv;
}

const Predictor& predictor() {
  static const Predictor p(sonde::predict::parse_workload(ten_components(), "ten.csv"),
                           sonde::profile::read_profile(SONDE_SOURCE_DIR "/machines/ibm-sp2.yaml"),
                           "ibm-sp2.yaml");
  return p;
}

void one_evaluation(benchmark::State& state) {
  const Predictor& p = predictor();
  double n = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(p.at(n, Scheme::full_overhead).total);
    n = n >= 1048576 ? 1 : n + 1;
  }
  state.counters["seconds_per_evaluation"] =
      benchmark::Counter(static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(one_evaluation);

// The sweep the issue asks for: 10^6 evaluations, n = 1 .. 10^6.
void million_evaluations(benchmark::State& state) {
  const Predictor& p = predictor();
  for (auto _ : state) {
    double sum = 0;
    for (double n = 1; n <= 1e6; ++n) sum += p.at(n, Scheme::full_overhead).total;
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(million_evaluations)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
