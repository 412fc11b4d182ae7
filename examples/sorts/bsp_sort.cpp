// Bulk-synchronous parallel sorts after Amato et al. (1999), section 5.2: radix sort, sample sort
// and column sort on p threads, every superstep a phase marked for `sonde counters`
// (sonde/phase.h). The supersteps and their names follow the paper's Table 2. Keys are 32-bit,
// uniformly random from a seed; the result is checked (order, and sums that a lost or duplicated
// key would change) and a wrong result exits 1.
//
//   sonde-example-sort --algorithm radix --size 200000 --threads 2
#include <fmt/format.h>
#include <sonde/phase.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

namespace {

using Key = std::uint32_t;

struct Team {
  int p;
  std::barrier<> barrier;
  explicit Team(int threads) : p(threads), barrier(threads) {}

  // One superstep: the phase, then the barrier that ends it.
  template <typename Body>
  void superstep(const char* name, Body&& body) {
    sonde_phase_begin(name);
    body();
    sonde_phase_end(name);
    barrier.arrive_and_wait();
  }
};

std::size_t block_begin(std::size_t n, int p, int t) { return n * t / p; }

// Radix sort, 8-bit digits, four passes: SS1 count, SS2 prefix sums over the digits, SS3 add
// the offsets, SS4 move the keys (Amato et al. (1999), Table 2).
void radix_sort(std::vector<Key>& keys, Team& team, int t, std::vector<Key>& other,
                std::vector<std::vector<std::size_t>>& count, std::vector<std::size_t>& digit_total,
                std::vector<std::size_t>& range_total) {
  const std::size_t n = keys.size();
  const int p = team.p;
  const std::size_t lo = block_begin(n, p, t), hi = block_begin(n, p, t + 1);
  const std::size_t d_lo = 256 * t / p, d_hi = 256 * (t + 1) / p;
  std::vector<Key>* src = &keys;
  std::vector<Key>* dst = &other;
  for (int shift = 0; shift < 32; shift += 8) {
    team.superstep("radix.ss1.count", [&] {
      std::fill(count[t].begin(), count[t].end(), 0);
      for (std::size_t i = lo; i < hi; ++i) ++count[t][((*src)[i] >> shift) & 255];
    });
    team.superstep("radix.ss2.prefix", [&] {
      std::size_t range = 0;
      for (std::size_t d = d_lo; d < d_hi; ++d) {
        std::size_t total = 0;
        for (int u = 0; u < p; ++u) total += count[u][d];
        digit_total[d] = total;
        range += total;
      }
      range_total[t] = range;
    });
    team.superstep("radix.ss3.offsets", [&] {
      std::size_t base = 0;
      for (int u = 0; u < t; ++u) base += range_total[u];
      for (std::size_t d = d_lo; d < d_hi; ++d) {
        const std::size_t next = base + digit_total[d];
        for (int u = 0; u < p; ++u) {
          const std::size_t c = count[u][d];
          count[u][d] = base;  // from here on: where thread u puts its keys of digit d
          base += c;
        }
        base = next;
      }
    });
    team.superstep("radix.ss4.move", [&] {
      auto& offset = count[t];
      for (std::size_t i = lo; i < hi; ++i) {
        const Key k = (*src)[i];
        (*dst)[offset[(k >> shift) & 255]++] = k;
      }
    });
    std::swap(src, dst);
  }
  // Four passes: the keys are back in `keys`.
}

// Sample sort: SS1 take a regular sample, SS2 count the keys of each bucket, SS3 prefix sums,
// SS4 fill the buckets, SS5 sort each bucket (Amato et al. (1999), Table 2).
void sample_sort(std::vector<Key>& keys, Team& team, int t, std::vector<Key>& other,
                 std::vector<Key>& samples, std::vector<std::vector<std::size_t>>& count,
                 std::vector<std::vector<std::size_t>>& offset,
                 std::vector<std::size_t>& bucket_start) {
  const std::size_t n = keys.size();
  const int p = team.p;
  const std::size_t lo = block_begin(n, p, t), hi = block_begin(n, p, t + 1);
  const std::size_t per_thread = samples.size() / p;
  std::vector<Key> splitters(p - 1);
  const auto bucket_of = [&](Key k) {
    return static_cast<std::size_t>(std::upper_bound(splitters.begin(), splitters.end(), k) -
                                    splitters.begin());
  };
  team.superstep("sample.ss1.sample", [&] {
    for (std::size_t s = 0; s < per_thread; ++s)
      samples[t * per_thread + s] = keys[lo + (hi - lo) * s / per_thread];
  });
  team.superstep("sample.ss2.count", [&] {
    std::vector<Key> sorted = samples;  // every thread chooses the same splitters
    std::sort(sorted.begin(), sorted.end());
    for (int b = 1; b < p; ++b) splitters[b - 1] = sorted[sorted.size() * b / p];
    std::fill(count[t].begin(), count[t].end(), 0);
    for (std::size_t i = lo; i < hi; ++i) ++count[t][bucket_of(keys[i])];
  });
  team.superstep("sample.ss3.prefix", [&] {
    // Thread t owns bucket t: where it starts, and where each thread's keys of it go.
    std::size_t start = 0;
    for (int b = 0; b < t; ++b)
      for (int u = 0; u < p; ++u) start += count[u][b];
    bucket_start[t] = start;
    for (int u = 0; u < p; ++u) {
      offset[u][t] = start;
      start += count[u][t];
    }
  });
  team.superstep("sample.ss4.fill", [&] {
    auto& next = offset[t];
    for (std::size_t i = lo; i < hi; ++i) {
      const Key k = keys[i];
      other[next[bucket_of(k)]++] = k;
    }
  });
  team.superstep("sample.ss5.sort", [&] {
    const std::size_t end = t + 1 < p ? bucket_start[t + 1] : n;
    std::sort(other.begin() + static_cast<std::ptrdiff_t>(bucket_start[t]),
              other.begin() + static_cast<std::ptrdiff_t>(end));
  });
}

// Column sort (Leighton): p columns of r = n/p keys, r >= 2(p-1)^2 and p dividing r. SS1 copy
// the input into the columns, SS2 sort and transpose, SS3 sort and untranspose, SS4 sort, SS5
// shift by half a column, sort, shift back (Amato et al. (1999), Table 2).
void column_sort(std::vector<Key>& keys, Team& team, int t, std::vector<Key>& a,
                 std::vector<Key>& b) {
  const std::size_t n = keys.size();
  const std::size_t s = static_cast<std::size_t>(team.p);
  const std::size_t r = n / s;
  const std::size_t j = static_cast<std::size_t>(t);
  const auto column = [&](std::vector<Key>& v, std::size_t c) {
    return std::pair{v.begin() + static_cast<std::ptrdiff_t>(c * r),
                     v.begin() + static_cast<std::ptrdiff_t>((c + 1) * r)};
  };
  team.superstep("column.ss1.init", [&] {
    std::copy(keys.begin() + static_cast<std::ptrdiff_t>(j * r),
              keys.begin() + static_cast<std::ptrdiff_t>((j + 1) * r),
              a.begin() + static_cast<std::ptrdiff_t>(j * r));
  });
  team.superstep("column.ss2.sort_transpose", [&] {
    auto [first, last] = column(a, j);
    std::sort(first, last);
    // Picked up in column-major order, laid down in row-major order.
    for (std::size_t i = 0; i < r; ++i) {
      const std::size_t k = j * r + i;
      b[(k % s) * r + k / s] = a[j * r + i];
    }
  });
  team.superstep("column.ss3.sort_untranspose", [&] {
    auto [first, last] = column(b, j);
    std::sort(first, last);
    for (std::size_t i = 0; i < r; ++i) {
      const std::size_t k = i * s + j;
      a[(k / r) * r + k % r] = b[j * r + i];
    }
  });
  team.superstep("column.ss4.sort", [&] {
    auto [first, last] = column(a, j);
    std::sort(first, last);
  });
  team.superstep("column.ss5.shift_sort", [&] {
    // The shifted columns straddle two columns; the half columns at both ends are sorted already.
    if (j + 1 < s) {
      std::sort(a.begin() + static_cast<std::ptrdiff_t>(j * r + r / 2),
                a.begin() + static_cast<std::ptrdiff_t>((j + 1) * r + r / 2));
    }
  });
}

struct Check {
  std::uint64_t sum = 0, xored = 0, squares = 0;
  bool operator==(const Check&) const = default;
};

Check check_of(const std::vector<Key>& keys) {
  Check c;
  for (Key k : keys) {
    c.sum += k;
    c.xored ^= k;
    c.squares += static_cast<std::uint64_t>(k) * k;
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Bulk-synchronous parallel sorts with marked supersteps (Amato et al. (1999), section 5.2)"};
  std::string algorithm = "radix";
  std::size_t size = 200000;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::uint64_t seed = 20261121;
  app.add_option("--algorithm", algorithm, "radix, sample or column")
      ->check(CLI::IsMember({"radix", "sample", "column"}));
  app.add_option("--size", size, "number of keys, n")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 32));
  app.add_option("--threads", threads, "processors, p")->check(CLI::Range(1, 4096));
  app.add_option("--seed", seed, "of the random keys");
  CLI11_PARSE(app, argc, argv);

  const std::size_t p = static_cast<std::size_t>(threads);
  if (algorithm == "column") {
    const std::size_t r = size / p;
    if (size % p != 0 || r % p != 0 || r < 2 * (p - 1) * (p - 1)) {
      fmt::print(stderr,
                 "sonde-example-sort: column sort needs n = r p with p dividing r and r >= "
                 "2 (p-1)^2; n = {} and p = {} give r = {}\n",
                 size, p, r);
      return 2;
    }
  }
  if (algorithm == "sample" && size < 64 * p) {
    fmt::print(stderr, "sonde-example-sort: sample sort needs n >= 64 p ({} keys)\n", 64 * p);
    return 2;
  }

  std::vector<Key> keys(size);
  std::mt19937 random(static_cast<std::mt19937::result_type>(seed));
  for (Key& k : keys) k = static_cast<Key>(random());
  const Check before = check_of(keys);
  std::vector<Key> other(size), extra(algorithm == "column" ? size : 0);
  std::vector<std::vector<std::size_t>> count(
      p, std::vector<std::size_t>(algorithm == "radix" ? 256 : p));
  std::vector<std::vector<std::size_t>> offset(p, std::vector<std::size_t>(p));
  std::vector<std::size_t> digit_total(256), range_total(p), bucket_start(p + 1, size);
  std::vector<Key> samples(64 * p);

  Team team(threads);
  const auto work = [&](int t) {
    sonde_phase_set_processor(t);
    if (algorithm == "radix") radix_sort(keys, team, t, other, count, digit_total, range_total);
    if (algorithm == "sample")
      sample_sort(keys, team, t, other, samples, count, offset, bucket_start);
    if (algorithm == "column") column_sort(keys, team, t, other, extra);
  };
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(work, t);
  work(0);
  for (auto& w : workers) w.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::vector<Key>& sorted = algorithm == "radix" ? keys : other;
  const bool ok = std::is_sorted(sorted.begin(), sorted.end()) && check_of(sorted) == before;
  fmt::print(
      "{{\"algorithm\": \"{}\", \"keys\": {}, \"threads\": {}, \"seconds\": {:.6g}, "
      "\"sorted\": {}}}\n",
      algorithm, size, threads, seconds, ok);
  return ok ? 0 : 1;
}
