// Validation corpus: random_update, latency-bound. Every process owns a table of T 64-bit words
// (T a power of two; 2^23 words = 64 MiB by default, in DRAM) and makes K dependent random
// read-modify-write updates:
//   v = table[idx]; table[idx] = v + i; idx = ((v ^ i) * 0x9E3779B97F4A7C15) >> (64 - log2 T)
// The next index is a function of the word just read, so each access waits for the one before
// (unlike GUPS, whose indices come from an independent generator). No communication inside the
// timed region. Predicted by random_update.csv.
//   mpirun -np 2 sonde-example-random_update [--T 8388608] [--K 2000000] [--repetitions 5]
//   [--verify]
// --verify: the table's sum must have grown by exactly 0 + 1 + ... + (K-1) (mod 2^64), and the
// table must equal a replay of the updates with a std::map of the changed words.
#include "../common.hpp"

#include <cstdint>
#include <map>
#include <string>

namespace {

constexpr std::uint64_t kMultiplier = 0x9E3779B97F4A7C15ULL;  // odd

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Returns the last index, so that nothing of the chain is dead.
__attribute__((noinline)) std::uint64_t updates(std::uint64_t* __restrict table, long K,
                                                int shift) {
  std::uint64_t idx = 0;
  for (long i = 0; i < K; ++i) {
    const std::uint64_t v = table[idx];
    const std::uint64_t step = static_cast<std::uint64_t>(i);
    table[idx] = v + step;
    idx = ((v ^ step) * kMultiplier) >> shift;
  }
  return idx;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const corpus::Options o =
      corpus::parse(argc, argv, "random_update",
                    {{"T", 8388608, 2, "64-bit words in each process's table, a power of two"},
                     {"K", 2000000, 1, "dependent updates per repetition"}});
  const long T = o["T"], K = o["K"];
  if ((T & (T - 1)) != 0) {
    corpus::usage_error("random_update", "--T: " + std::to_string(T) + " is not a power of two");
  }
  int bits = 0;
  while ((1L << bits) < T) ++bits;
  const int shift = 64 - bits;
  const int me = corpus::rank();
  corpus::Buffer<std::uint64_t> table(T);
  std::uint64_t last = 0;

  const auto fill = [&](corpus::Buffer<std::uint64_t>& t) {
    std::uint64_t state = 12345 + static_cast<std::uint64_t>(me) * 1000003ULL;
    for (long i = 0; i < T; ++i) t[i] = splitmix(state);
  };
  corpus::Program program;
  program.setup = [&] { fill(table); };
  program.region = [&] {
    const corpus::Phase phase("updates");
    last = updates(table.data(), K, shift);
  };
  program.checksum = [&] {
    std::uint64_t sum = last;
    for (long i = 0; i < T; ++i) sum += table[i];
    // An integer below 2^53, exact as a double.
    return static_cast<double>(sum & ((1ULL << 53) - 1));
  };
  program.verify = [&]() -> std::string {
    corpus::Buffer<std::uint64_t> initial(T);
    fill(initial);
    std::uint64_t before = 0, after = 0;
    for (long i = 0; i < T; ++i) {
      before += initial[i];
      after += table[i];
    }
    const std::uint64_t k = static_cast<std::uint64_t>(K);
    const std::uint64_t added = (k % 2 == 0) ? (k / 2) * (k - 1) : k * ((k - 1) / 2);
    if (after - before != added) {
      return "the table's sum grew by " + std::to_string(after - before) + ", expected " +
             std::to_string(added);
    }
    // Replay: the changed words in a map, read through to the initial table.
    std::map<std::uint64_t, std::uint64_t> changed;
    std::uint64_t index = 0;
    for (std::uint64_t i = 0; i < k; ++i) {
      const auto it = changed.find(index);
      const std::uint64_t value = it == changed.end() ? initial[index] : it->second;
      changed[index] = value + i;
      index = ((value ^ i) * kMultiplier) >> shift;
    }
    if (index != last) return "the last index differs from the replay";
    for (long i = 0; i < T; ++i) {
      const auto it = changed.find(static_cast<std::uint64_t>(i));
      const std::uint64_t expected = it == changed.end() ? initial[i] : it->second;
      if (table[i] != expected) return "word " + std::to_string(i) + " differs from the replay";
    }
    return "";
  };
  const int status = corpus::run(o, program);
  MPI_Finalize();
  return status;
}
