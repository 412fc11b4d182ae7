// The parts of the MPI suite, known without MPI: `sonde characterize` plans them, the MPI
// program (microbench/mpi_suite.cpp) runs them.
#pragma once

#include <string>
#include <vector>

namespace sonde::microbench {

inline std::vector<std::string> mpi_part_names() {
  return {"pingpong", "map", "stream", "collectives"};
}

}  // namespace sonde::microbench
