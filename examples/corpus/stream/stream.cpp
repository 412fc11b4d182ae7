// Validation corpus: stream, bandwidth-bound. The STREAM triad a[i] = b[i] + s c[i] over N doubles
// per process, K sweeps; the three arrays (24 N bytes, 192 MiB by default) live in DRAM. No
// communication inside the timed region. Predicted by stream.csv.
//   mpirun -np 2 sonde-example-stream [--N 8388608] [--K 40] [--repetitions 5] [--verify]
// Timed run: one JSON line per repetition, {"seconds": <slowest rank>, "checksum": <sum of a>}.
// --verify: every a[i] equals b[i] + 3 c[i], computed in integers (the values are small integers,
// so the doubles are exact whatever the compiler contracts).
#include "../common.hpp"
#include "triad.hpp"

using corpus::stream::b_value;
using corpus::stream::c_value;
using corpus::stream::sum;
using corpus::stream::triad;
using corpus::stream::verify;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const corpus::Options o = corpus::parse(argc, argv, "stream",
                                          {{"N", 8388608, 1, "doubles per array per process"},
                                           {"K", 40, 1, "triad sweeps per repetition"}});
  const long N = o["N"], K = o["K"];
  const int me = corpus::rank();
  const double s = 3.0;
  corpus::Buffer<double> a(N), b(N), c(N);
  // First touch outside the timed region; values differ between ranks.
  for (long i = 0; i < N; ++i) {
    const long global = static_cast<long>(me) * N + i;
    a[i] = 0.0;
    b[i] = static_cast<double>(b_value(global));
    c[i] = static_cast<double>(c_value(global));
  }
  corpus::Program p;
  p.setup = [] {};
  p.region = [&] {
    const corpus::Phase phase("triad");
    for (long k = 0; k < K; ++k) {
      triad(a.data(), b.data(), c.data(), s, N);
      corpus::clobber_memory();
    }
  };
  p.checksum = [&] { return sum(a.data(), N); };
  p.verify = [&] { return verify(a.data(), N, me); };
  const int status = corpus::run(o, p);
  MPI_Finalize();
  return status;
}
