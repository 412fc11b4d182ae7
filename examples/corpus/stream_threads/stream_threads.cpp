// Validation corpus: stream_threads, bandwidth-bound and hybrid. The STREAM triad of stream.cpp,
// a[i] = b[i] + s c[i] over N doubles per process, K sweeps, each process's arrays split over T
// threads (contiguous slices, each a whole number of 64-byte lines), as an OpenMP static schedule
// splits a loop. No communication inside the timed region. Predicted by stream_threads.csv.
//   mpirun -np 1 sonde-example-stream_threads [--N 8388608] [--K 40] [--T 2] [--repetitions 5]
// Timed run: one JSON line per repetition, {"seconds": <slowest rank>, "checksum": <sum of a>}.
// The timed region starts the T - 1 threads besides the main one and joins them: a program that
// forks and joins a team around its loop pays that too. Each thread first touches its own slice
// outside the timed region, so that its pages lie on its NUMA node.
// --verify: every a[i] equals b[i] + 3 c[i], computed in integers.
#include "../common.hpp"
#include "../stream/triad.hpp"

#include <thread>
#include <vector>

using corpus::stream::b_value;
using corpus::stream::c_value;
using corpus::stream::sum;
using corpus::stream::triad;
using corpus::stream::verify;

namespace {

// Runs work(t) for t = 0 .. threads - 1, t = 0 on the calling thread, the others on threads started
// now and joined before it returns.
template <class Work>
void on_threads(long threads, const Work& work) {
  std::vector<std::thread> team;
  team.reserve(static_cast<std::size_t>(threads - 1));
  for (long t = 1; t < threads; ++t) team.emplace_back(work, t);
  work(0);
  for (std::thread& thread : team) thread.join();
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const corpus::Options o = corpus::parse(argc, argv, "stream_threads",
                                          {{"N", 8388608, 8, "doubles per array per process"},
                                           {"K", 40, 1, "triad sweeps per repetition"},
                                           {"T", 2, 1, "threads per process"}});
  const long N = o["N"], K = o["K"], T = o["T"];
  const int me = corpus::rank();
  const double s = 3.0;
  corpus::Buffer<double> a(N), b(N), c(N);
  // Thread t's slice [begin(t), begin(t + 1)): whole 64-byte lines (8 doubles) dealt in blocks,
  // the last slice taking the N mod 8 doubles left over.
  const long lines = N / 8;
  const auto begin = [&](long t) { return t == T ? N : 8 * corpus::block_begin(lines, T, t); };
  on_threads(T, [&](long t) {
    for (long i = begin(t); i < begin(t + 1); ++i) {
      const long global = static_cast<long>(me) * N + i;
      a[i] = 0.0;
      b[i] = static_cast<double>(b_value(global));
      c[i] = static_cast<double>(c_value(global));
    }
  });
  corpus::Program p;
  p.setup = [] {};
  p.region = [&] {
    on_threads(T, [&](long t) {
      const corpus::Phase phase("triad");
      const long from = begin(t), count = begin(t + 1) - from;
      for (long k = 0; k < K; ++k) {
        triad(a.data() + from, b.data() + from, c.data() + from, s, count);
        corpus::clobber_memory();
      }
    });
  };
  p.checksum = [&] { return sum(a.data(), N); };
  p.verify = [&] { return verify(a.data(), N, me); };
  const int status = corpus::run(o, p);
  MPI_Finalize();
  return status;
}
