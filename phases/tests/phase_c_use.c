/* The phase markers from C: this file must compile as C. */
#include <sonde/phase.h>

long sonde_phase_c_use(long n) {
  long sum = 0;
  sonde_phase_begin("c.loop");
  for (long i = 0; i < n; ++i) sum += i;
  sonde_phase_end("c.loop");
  return sum;
}
