// What the six programs of the validation corpus (examples/corpus) share: the command line
// (`--NAME value` with the names of the program's spreadsheet, `--repetitions R`, `--verify`),
// aligned buffers, and the timed loop that prints one JSON line per repetition.
//
// A timed run: per repetition the program's setup (outside the timed region), MPI_Barrier, the
// region timed with MPI_Wtime, the slowest rank's time (MPI_Reduce MAX) and the sum of the ranks'
// checksums; rank 0 prints {"seconds": <max>, "checksum": <sum>}. A --verify run: the region once,
// then the program's own check against an independent computation; rank 0 prints "verify: ok" or
// "verify: FAILED <why>" (exit 1) and never a time. Bad arguments: exit 2 with the option named.
#pragma once

#include <mpi.h>
#ifndef SONDE_SMPI
#include "sonde/phase.h"
#endif

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <new>
#include <string>
#include <vector>

namespace corpus {

// Allocates with 64-byte alignment (one cache line, one 512-bit vector).
template <class T>
struct AlignedAllocator {
  using value_type = T;
  AlignedAllocator() = default;
  template <class U>
  AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = ((n * sizeof(T) + 63) / 64) * 64;
    void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }
  template <class U>
  bool operator==(const AlignedAllocator<U>&) const noexcept {
    return true;
  }
};
template <class T>
using Buffer = std::vector<T, AlignedAllocator<T>>;

inline int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int ranks() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

// Rank 0 says what is wrong; every rank leaves with exit status 2 (every rank parses the same
// command line, so all of them get here).
[[noreturn]] inline void usage_error(const char* program, const std::string& message) {
  if (rank() == 0) std::fprintf(stderr, "%s: %s\n", program, message.c_str());
  MPI_Finalize();
  std::exit(2);
}

struct Parameter {
  std::string name;  // without the dashes: "N"
  long value;        // the default, then what the command line says
  long minimum;      // the least value allowed
  std::string meaning;
};

struct Options {
  std::vector<Parameter> parameters;
  long repetitions = 5;
  bool verify = false;
  long operator[](const std::string& name) const {
    for (const Parameter& p : parameters)
      if (p.name == name) return p.value;
    std::fprintf(stderr, "internal error: no parameter %s\n", name.c_str());
    std::abort();
  }
};

inline long parse_whole(const char* program, const std::string& option, const char* text,
                        long minimum) {
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (text[0] == '\0' || *end != '\0' || errno == ERANGE) {
    usage_error(program,
                option + ": '" + text +
                    "' is not a whole number; expected an integer >= " + std::to_string(minimum));
  }
  if (value < minimum) {
    usage_error(program, option + ": " + std::to_string(value) + " is too small; expected an " +
                             "integer >= " + std::to_string(minimum));
  }
  return value;
}

// Reads `--NAME value` for each parameter, `--repetitions R` and `--verify`; anything else is an
// error naming the option.
inline Options parse(int argc, char** argv, const char* program,
                     std::vector<Parameter> parameters) {
  Options o;
  o.parameters = std::move(parameters);
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--verify") {
      o.verify = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      if (rank() == 0) {
        std::printf("usage: %s", program);
        for (const Parameter& p : o.parameters) std::printf(" [--%s %ld]", p.name.c_str(), p.value);
        std::printf(" [--repetitions 5] [--verify]\n");
        for (const Parameter& p : o.parameters)
          std::printf("  --%s: %s (default %ld)\n", p.name.c_str(), p.meaning.c_str(), p.value);
      }
      MPI_Finalize();
      std::exit(0);
    }
    long* target = nullptr;
    long minimum = 1;
    if (arg == "--repetitions") {
      target = &o.repetitions;
    } else {
      for (Parameter& p : o.parameters) {
        if (arg == "--" + p.name) {
          target = &p.value;
          minimum = p.minimum;
        }
      }
    }
    if (target == nullptr) {
      std::string known;
      for (const Parameter& p : o.parameters) known += " --" + p.name;
      usage_error(program,
                  "unknown option '" + arg + "'; expected" + known + " --repetitions --verify");
    }
    if (i + 1 >= argc) {
      usage_error(program, arg + ": no value; expected an integer >= " + std::to_string(minimum));
    }
    *target = parse_whole(program, arg, argv[++i], minimum);
  }
  return o;
}

// Marks a phase of the timed region for `sonde check --components`, named after the spreadsheet
// rows it covers ("spmv", or "fft + reorder" where the program interleaves rows). Outside a check
// it costs a load and an untaken branch; under SMPI (simulated time) it is nothing.
#ifdef SONDE_SMPI
struct Phase {
  explicit Phase(const char*) {}
};
#else
using Phase = sonde::Phase;
#endif

// Keeps the compiler from assuming memory unchanged across this point (or unused before it).
inline void clobber_memory() { asm volatile("" : : : "memory"); }

struct Program {
  std::function<void()> setup;       // outside the timed region, before each repetition
  std::function<void()> region;      // the timed work
  std::function<double()> checksum;  // this rank's part, after the region
  // --verify: this rank's verdict ("" if right, else why), after one region; may communicate.
  std::function<std::string()> verify;
};

// Runs the program as the options say; returns the exit status.
inline int run(const Options& o, const Program& p) {
  const int me = rank();
  if (o.verify) {
    p.setup();
    MPI_Barrier(MPI_COMM_WORLD);
    p.region();
    const std::string why = p.verify();
    int bad = why.empty() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    // The first failing rank's reason reaches rank 0.
    int first = why.empty() ? std::numeric_limits<int>::max() : me;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    std::string reason = why;
    if (bad && first != 0) {
      char text[512] = {0};
      if (me == first) {
        std::snprintf(text, sizeof text, "%s", why.c_str());
        MPI_Send(text, sizeof text, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
      } else if (me == 0) {
        MPI_Recv(text, sizeof text, MPI_CHAR, first, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        reason = text;
      }
    }
    if (me == 0) {
      if (bad) {
        std::printf("verify: FAILED (rank %d) %s\n", first, reason.c_str());
      } else {
        std::printf("verify: ok\n");
      }
    }
    return bad ? 1 : 0;
  }
  for (long repetition = 0; repetition < o.repetitions; ++repetition) {
    p.setup();
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    p.region();
    const double seconds = MPI_Wtime() - start;
    double slowest = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    const double mine = p.checksum();
    double sum = 0;
    MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
      std::printf("{\"seconds\": %.9g, \"checksum\": %.17g}\n", slowest, sum);
      std::fflush(stdout);
    }
  }
  return 0;
}

// The first row of a block distribution of `count` rows over `parts` processes (the first
// count mod parts processes one more).
inline long block_begin(long count, int parts, int part) {
  const long base = count / parts, extra = count % parts;
  return part * base + (part < extra ? part : extra);
}

}  // namespace corpus
