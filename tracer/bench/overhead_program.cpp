// What the tracer adds to an MPI call: run once plainly and once with libsonde_trace.so preloaded
// (bench/overhead.cmake does both), it times N calls of MPI_Test on MPI_REQUEST_NULL (no work in
// MPI, so the difference is the tracer's record: clock readings and an append) and N 0-byte
// MPI_Send/MPI_Recv round trips between ranks 0 and 1, and rank 0 prints ns per call.
//   sonde-tracer-bench [N]      (default 100000; 2 ranks or more for the round trips)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = argc > 1 ? std::atol(argv[1]) : 100000;

  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (long i = 0; i < n; ++i) {
    MPI_Request request = MPI_REQUEST_NULL;
    int flag = 0;
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
  }
  const double test_ns = (MPI_Wtime() - start) * 1e9 / static_cast<double>(n);

  double message_ns = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (size >= 2 && rank < 2) {
    start = MPI_Wtime();
    for (long i = 0; i < n; ++i) {
      if (rank == 0) {
        MPI_Send(nullptr, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(nullptr, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(nullptr, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(nullptr, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    // A round trip is two messages, each one MPI_Send and one MPI_Recv.
    message_ns = (MPI_Wtime() - start) * 1e9 / (2.0 * static_cast<double>(n));
  }
  if (rank == 0) {
    std::printf("MPI_Test(MPI_REQUEST_NULL): %.1f ns per call\n", test_ns);
    if (size >= 2) std::printf("0-byte MPI_Send + MPI_Recv: %.1f ns per message\n", message_ns);
  }
  MPI_Finalize();
  return 0;
}
