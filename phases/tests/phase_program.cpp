// A program that marks phases, run by phase_test under several environments.
#include <sonde/phase.h>

#include <cstdio>
#include <cstring>
#include <thread>

extern "C" long sonde_phase_c_use(long n);

namespace {

volatile long g_sink = 0;

void work(int repetitions) {
  for (int r = 0; r < repetitions; ++r) {
    sonde::Phase phase("work");
    for (long i = 0; i < 100000; ++i) g_sink = g_sink + i;
  }
  sonde_phase_begin("sum");
  g_sink = g_sink + 1;
  sonde_phase_end("sum");
}

}  // namespace

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "threads";
  if (std::strcmp(which, "threads") == 0) {
    std::thread other(work, 2);
    work(2);
    other.join();
    g_sink = g_sink + sonde_phase_c_use(1000);
  } else if (std::strcmp(which, "nested") == 0) {
    sonde_phase_begin("outer");
    sonde_phase_begin("inner");
    sonde_phase_end("inner");
    sonde_phase_end("outer");
  } else if (std::strcmp(which, "report") == 0) {
    return sonde_phase_collecting ? 3 : 0;  // whether the markers would record
  } else if (std::strcmp(which, "unended") == 0) {
    sonde_phase_begin("open");
  }
  std::printf("done %d\n", sonde_phase_collecting);
  return 0;
}
