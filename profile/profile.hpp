// The machine profile: what fit/ writes and predict/ reads, the contract between them. A profile
// is a versioned YAML file (machines/<name>.yaml) that a person can read: every number is a
// Quantity with its SI unit, where it came from (measured, fitted, derived or transcribed), the
// experiments behind it, its interval and the quality of its fit; every closed form is a Formula
// in the papers' notation (Xu and Hwang (1995), Eq. 6 and Tables 5 and 6).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result_format.hpp"

namespace sonde::profile {

inline constexpr int kSchemaVersion = 1;
inline constexpr const char* kSchemaName = "sonde-profile";

// How a value came to be: measured (a median of repetitions), fitted (least squares), derived
// (computed from other values), transcribed (copied from a paper's table).
enum class Origin { measured, fitted, derived, transcribed };
std::string to_string(Origin origin);

struct Interval {
  double low = 0;
  double high = 0;
  double level = 0.95;  // bootstrap or repetition coverage; 1 for a min..max range
  bool operator==(const Interval&) const = default;
};

struct FitQuality {
  double mean_relative_error = 0;
  double max_relative_error = 0;
  std::size_t points = 0;
  bool operator==(const FitQuality&) const = default;
};

struct Quantity {
  double value = 0;
  std::string unit;  // "s", "B", "B/s", "flop/s", "Hz", "s/B", "1"
  Origin origin = Origin::measured;
  std::optional<Interval> interval;
  std::optional<FitQuality> quality;
  std::vector<std::string> sources;  // benchmark names or "Xu and Hwang (1995), Table 4"
  std::string note;
  bool operator==(const Quantity&) const = default;
};

// One term of a form in n: coefficient * basis(n); basis "1", "log n" (base 2), "n", "n log n"
// or "n^c" with its exponent.
struct Term {
  std::string basis;
  double coefficient = 0;
  double exponent = 0;  // only for "n^c"
  std::optional<Interval> interval;
  bool operator==(const Term&) const = default;
};

struct Formula {
  std::string unit;  // of the value: "s" for t0(n), "s/B" for 1/r_inf(n)
  std::vector<Term> terms;
  Origin origin = Origin::fitted;
  std::optional<FitQuality> quality;
  std::vector<std::string> sources;
  std::string note;
  bool operator==(const Formula&) const = default;

  double operator()(double n) const;
  // "94 log n + 10" with values scaled by `scale` (1e6 for microseconds), three significant digits.
  std::string text(double scale = 1.0) const;
};

const std::vector<std::string>& known_bases();
double basis_value(const std::string& basis, double n, double exponent);

struct Machine {
  std::string name;
  std::string description;
  std::optional<std::uint64_t> nodes;
  std::optional<std::uint64_t> cores_per_node;
  std::optional<Quantity> clock;  // Hz
  bool operator==(const Machine&) const = default;
};

struct Provenance {
  Origin origin = Origin::measured;  // measured by sonde, or transcribed from papers
  std::string citation;              // for transcribed profiles
  std::string host, cpu_model, topology, compiler, mpi_library, mpi_version;
  std::string date;  // ISO 8601
  std::string sonde_version;
  std::string results;         // the raw result folder it was fitted from
  std::string results_digest;  // SHA-256 of the result files, in name order
  // Parts fitted from an interrupted part's finished benchmarks (`sonde fit --unfinished`), each
  // saying which file and how many benchmarks.
  std::vector<std::string> unfinished_parts;
  bool operator==(const Provenance&) const = default;
};

struct Compute {
  std::optional<Quantity> peak_flops_per_core;  // flop/s
  std::optional<Quantity> peak_flops_per_node;
  std::map<std::string, Quantity> kernels;  // seconds per operation: "add", "divide", ...
  // p of (C^p + M^p)^(1/p): how a chain through memory (store-to-load round trips, C) and the L1
  // loads and stores beside it (M) overlap, fitted to the shared-ports kernel (unit "1").
  std::optional<Quantity> shared_ports_exponent;
  bool operator==(const Compute&) const = default;
};

struct MemoryLevel {
  std::string name;                             // "L1d", "L2", "L3", "DRAM"
  std::optional<std::uint64_t> capacity_bytes;  // as the system reports it (hwloc), per instance
  std::optional<std::uint64_t> line_bytes;
  std::optional<std::uint64_t> ways;  // associativity; a fully associative cache has capacity/line
  std::optional<Quantity> detected_capacity;  // B: where the latency left this level's plateau
  std::optional<Quantity> latency;            // s per dependent load
  std::map<std::string, Quantity> bandwidth;  // B/s by "kernel/threads": "triad/2"
  bool operator==(const MemoryLevel&) const = default;
};

// A walk down the columns of a row-major matrix whose rows span several pages (a transposition's
// gather): seconds per load for one of `threads` threads walking at once, each over a matrix of
// `working_set_bytes`. What it costs follows how many pages and lines one column spans (TLB reach,
// cache reach), so it is a curve over the working set, not a figure per cache level.
struct ColumnWalkPoint {
  std::uint64_t threads = 1;
  std::uint64_t working_set_bytes = 0;  // one thread's matrix
  std::uint64_t row_bytes = 0;
  Quantity seconds;  // s per load
  bool operator==(const ColumnWalkPoint&) const = default;
};

// The line gather (memory suite, part gather): seconds per line for one of `threads` threads
// gathering at once, each from its own buffer of `working_set_bytes` in memory, one word of every
// line, the lines of each block of `span_bytes` in a random order, the loads independent. What
// a scattered read of a whole line costs when no prefetcher can fetch it ahead: the misses a core
// keeps in flight set it, not the latency of one.
struct LineGatherPoint {
  std::string shape = result_format::gather_shape::sum;  // or copy (core/result_format.hpp)
  std::uint64_t threads = 1;
  std::uint64_t working_set_bytes = 0;  // one thread's buffer
  std::uint64_t span_bytes = 0;
  Quantity seconds;  // s per line
  bool operator==(const LineGatherPoint&) const = default;
};

// The dependent random chase on base pages (one load per line, in random order), seconds per load
// for one of `threads` threads chasing at once, each its own chain over `working_set_bytes`. A
// level's latency is the median of its plateau; the curve keeps what the plateau hides: in memory
// the time still grows with the working set as the page walks miss more (the TLB's reach), and it
// grows again when the node's other cores chase too (loaded latency).
struct RandomChasePoint {
  std::uint64_t threads = 1;
  std::uint64_t working_set_bytes = 0;  // one thread's chain
  Quantity seconds;                     // s per load
  bool operator==(const RandomChasePoint&) const = default;
};

// One point of the streaming sweep in memory (working sets beyond four times the last cache): the
// kernel (read, write, copy, triad, update, indexed) run by `threads` threads at once over
// `working_set_bytes` in all, their aggregate rate. DRAM's bandwidth in the level is the plateau of
// the slowest of these sizes; the curve keeps what the plateau hides: on the VMs here the rate with
// two threads at 1.4 to 2 GiB was half of that at 128 MiB to 1 GiB. Measured data only: predictions
// take the plateau (pricing traffic near its working set lost a blind check; docs/methods.md).
struct DramBandwidthPoint {
  std::string kernel;
  std::uint64_t threads = 1;
  std::uint64_t working_set_bytes = 0;  // all threads' arrays together
  Quantity bytes_per_second;            // B/s, all threads together
  bool operator==(const DramBandwidthPoint&) const = default;
};

// What `sonde characterize`'s probes of the machine (microbench/machine_probe.hpp) read in the
// run's usual memory state: the DRAM triad on one core alone (threads 1) or on `threads` cores at
// once, over arrays of `triad_bytes` together. The last level's bandwidths stand in that state
// (characterize's drift moves a figure measured in another state there), so `sonde check` probes at
// this size and sets its probes against these, like against like. Against the suite's triad
// instead, the check's probes on a Zen 3 guest read 0.75 to 0.96 of it (five checks' medians), in
// part because the probe is another measurement, of another size: the state it reported was in
// part the method's. Measured (the median of the usual state's probes); interval: the slowest and
// the fastest probe of the run.
struct UsualState {
  std::uint64_t threads = 1;
  std::uint64_t triad_bytes = 0;  // all threads' arrays together
  Quantity dram_triad;            // B/s, all threads together, STREAM's count
  bool operator==(const UsualState&) const = default;
};

// One point of the streaming sweep where the working set outgrows a cache: sizes above `level`'s
// plateau window (from_bytes, the window's top for `threads` threads) and below the `next` cache's
// (to_bytes, that window's bottom), where the rate falls from one plateau to the other. A working
// set at a cache's capacity is priced there, from what was measured at its size, instead of at
// either plateau (a 1 MiB sweep on a 1 MiB L2 ran at 163 GB/s, between the L2's 236 and the L3's
// 101). Between the last cache and DRAM the plateau stays (see DramBandwidthPoint).
struct CacheEdgePoint {
  std::string level;  // the cache outgrown: "L2"
  std::string next;   // the cache beyond it: "L3"
  std::string kernel;
  std::uint64_t threads = 1;
  std::uint64_t from_bytes = 0;         // the top of level's plateau window, all threads together
  std::uint64_t to_bytes = 0;           // the bottom of next's
  std::uint64_t working_set_bytes = 0;  // all threads' arrays together, from_bytes < it < to_bytes
  Quantity bytes_per_second;            // B/s, all threads together
  bool operator==(const CacheEdgePoint&) const = default;
};

// The memory suite's bandwidth kernels by name, and the bytes its load and store instructions move
// between registers and L1 per byte of its traffic as STREAM counts it: read 1 and 0, write 0 and
// 1, copy 1/2 and 1/2, triad and update 2/3 and 1/3; indexed (a sparse product, 5 nonzeros a row,
// 80 B counted) 108/80 and 8/80: three loads a nonzero (column 4 B, value 8, x 8), two row starts
// and the store of y. Spreadsheets name one as the `access` their traffic resembles. The indexed
// kernel's rate holds more than its loads and stores (each row's dependent adds, loads that wait
// for loaded indices), so even from L1 its traffic is priced at its rate. The stencil (a
// three-point stencil, 16 B counted a point) 3/2 and 1/2: three neighbour loads and one store; its
// rate holds how its neighbour loads overlap its transfers, so from L1 too it is priced at its
// rate. Of those, the part its compiled loop makes with vectors at addresses no multiple of their
// width: none for the others (arrays on a line, swept from their first element), and for the
// stencil 1 of the 3/2 loaded and all the 1/2 stored: swept from a[1], the loads of a[i] and
// a[i + 1] and the store of b[i] lie 8 and 16 B past the vector (GCC 12 -O3, no peeling: its
// disassembly), so its own L1 time is priced at the misaligned kernels' rates for them.
struct StreamingKernel {
  std::string_view name;
  double l1_loaded_per_byte;
  double l1_stored_per_byte;
  bool priced_at_rate_in_l1 = false;
  double l1_misaligned_loaded_per_byte = 0;  // a part of l1_loaded_per_byte
  double l1_misaligned_stored_per_byte = 0;  // a part of l1_stored_per_byte
};
const std::vector<StreamingKernel>& streaming_kernels();
const StreamingKernel* streaming_kernel(std::string_view name);  // nullptr: no such kernel
std::string streaming_kernel_names();                            // "read, write, ... or stencil"

// A bandwidth key "kernel/threads" taken apart: "triad/2" is triad with 2 threads; a key without
// a thread count (a transcribed "bus") is its own kernel, with 0 threads.
std::string bandwidth_kernel(const std::string& key);
int bandwidth_threads(const std::string& key);
// The level's largest positive bandwidth among those measured with `threads` threads, or with the
// most threads it was measured with (threads < 0), and its key; {"", nullptr} where there is none.
std::pair<std::string, const Quantity*> best_bandwidth(const MemoryLevel& level, int threads = -1);

// A last memory level's figure for `kernel` with `threads` threads, measured with the node's memory
// in one state, moved to another whose triad is `scale` times that state's (characterize's drift,
// and sonde check's pricing in the state its probes saw). One thread's figure moves by the ratio.
// With several threads a kernel other than the triad moves only as far as the node's memory bounds
// it. On a Zen 5 guest, in the fast state every kernel's two-thread figure was about twice its
// one-thread figure (each core bound it); in the slow state read, copy and triad fell to 45 to 53
// GB/s, near the triad's figure, and the compressed-row product (37 GB/s) did not move. So in a
// faster state a figure rises at most to `threads` times the kernel's one-thread figure
// (`one_thread`, where known), and in a slower one it falls by the ratio at most, and not below the
// triad's figure there (`triad`: the triad/<threads> of the state measured, where known). The
// triad itself, the kernel the probes time, moves by the ratio: the state is its figure. `bound`
// says which limit held (", at most 2 x its one-thread figure"); "" where none did.
struct StateMove {
  double value = 0;
  std::string bound;
};
StateMove move_between_states(const std::string& kernel, int threads, double measured, double scale,
                              const Quantity* one_thread, const Quantity* triad);

// Amato et al. (1999), section 4.1: g1 and g2 of one BSP-like function, optimistic and pessimistic,
// in seconds per access.
struct BspParameters {
  Quantity g1_min, g1_max, g2_min, g2_max;
  bool operator==(const BspParameters&) const = default;
};

// Amato et al. (1999), section 4.2: a function's weights in seconds per counted event, keyed by the
// count: "accesses" (loads + stores), "l1_misses", "l2_misses", "llc_misses", "l1_writebacks",
// "llc_writebacks".
using CounterWeights = std::map<std::string, Quantity>;
const std::vector<std::string>& known_count_terms();

struct Contention {
  std::string counts;  // "papi" (measured) or "derived": where the F weights' counts came from
  // F3's banks: the memory units whose accesses queue separately (Amato et al. 1999: 8 interleaved
  // banks; today: NUMA nodes). LM(b) and WB(b) are counted per bank.
  std::optional<std::uint64_t> banks;
  std::optional<BspParameters> qsm, ebsp, dxbsp;
  std::optional<CounterWeights> f1, f2, f3;
  bool operator==(const Contention&) const = default;
};

struct Overheads {
  std::map<std::string, Quantity> operations;  // "process_creation": s, "pipe_bandwidth": B/s
  std::map<std::string, Formula> forms;        // t = c n + d or c log n + d in threads or ranks
  bool operator==(const Overheads&) const = default;
};

struct HockneySegment {
  double from_bytes = 0;
  double to_bytes = 0;  // +infinity: every larger message
  Quantity t0;          // s
  Quantity r_inf;       // B/s
  bool operator==(const HockneySegment&) const = default;
};

struct PointToPointMeasurement {
  double bytes = 0;
  std::optional<std::uint64_t> ranks;
  Quantity time;  // s, one way (half a round trip)
  bool operator==(const PointToPointMeasurement&) const = default;
};

// One size of the streaming benchmark: a window of messages sent back to back to another rank
// (unidirectional) or by both at once (bidirectional). Its time per message at a small size is
// LogGP's gap g, the inverse of the message rate (Alexandrov et al. (1995)).
struct StreamingMeasurement {
  std::string direction;  // "unidirectional", "bidirectional"
  double bytes = 0;
  Quantity seconds_per_message;  // measured; interval the repetitions' range
  bool operator==(const StreamingMeasurement&) const = default;
};

// Where the two ranks of a pair are, nearest first.
inline constexpr std::array<const char*, 5> kPairPlacements = {
    "same-core", "same-numa", "same-socket", "same-node", "other-node"};

// The pair map summarized by where the two ranks are (Xu and Hwang (1995) measure each placement
// apart): one of kPairPlacements, each with the
// median over its pairs of the small message's time (latency) and the large message's rate
// (bandwidth), the interval being the range over the pairs.
struct PairClass {
  std::string placement;
  std::uint64_t pairs = 0;
  double latency_bytes = 0;
  double bandwidth_bytes = 0;
  Quantity latency;    // s, one way (half a round trip)
  Quantity bandwidth;  // B/s: bandwidth_bytes over their whole one-way time
  bool operator==(const PairClass&) const = default;

  // The rate of the bytes beyond the latency, with this latency and bandwidth (the measured values
  // or their interval's ends): the large message's time less the latency, over its bytes. A
  // message of m bytes takes latency + m / that rate, the line through both measured sizes. None
  // where the large message took no longer than the latency.
  std::optional<double> transfer_rate(double latency_seconds, double bytes_per_second) const;
};

struct PointToPoint {
  std::vector<HockneySegment> segments;  // t = t0 + m / r_inf, in order of message size
  std::optional<FitQuality> quality;
  std::vector<PointToPointMeasurement> measurements;
  std::vector<StreamingMeasurement> streaming;
  std::vector<PairClass> pair_classes;  // from the pair map, nearest placement first
  bool operator==(const PointToPoint&) const = default;

  double seconds(double bytes) const;  // the segment holding `bytes`, or the nearest
  const PairClass* pair_class(std::string_view placement) const;  // nullptr where the map has none
};

// One measured point of a collective: the median time of one operation on a communicator of
// `ranks` with messages of `bytes` (0 for the barrier), its interval the repetitions' range.
struct CollectiveMeasurement {
  std::uint64_t ranks = 0;
  double bytes = 0;
  Quantity time;  // s, measured; sources: the benchmark
  bool operator==(const CollectiveMeasurement&) const = default;
};

// One term of a model in ranks n and message size m: coefficient * n^a log2(n)^b * m^c log2(m)^d.
struct TwoParameterTerm {
  double coefficient = 0;
  double ranks_exponent = 0;  // a
  int ranks_log = 0;          // b
  double bytes_exponent = 0;  // c
  int bytes_log = 0;          // d
  std::optional<Interval> interval;
  bool operator==(const TwoParameterTerm&) const = default;
};

// t(n, m) as one model in both parameters (Calotoiu et al. (2016), Extra-P's multi-parameter
// models): chosen among additive and multiplicative combinations of one-parameter terms by
// cross-validation over every measured point, beside the forms of Xu and Hwang (1995) that are
// fitted in m at each n first and in n after.
struct TwoParameterFormula {
  std::string unit;  // "s"
  std::vector<TwoParameterTerm> terms;
  Origin origin = Origin::fitted;
  std::optional<FitQuality> quality;
  std::vector<std::string> sources;
  std::string note;
  bool operator==(const TwoParameterFormula&) const = default;

  double operator()(double n, double m) const;
  // "2.1 + 0.34 log n + 0.0001 m" with values scaled by `scale`, three significant digits.
  std::string text(double scale = 1.0) const;
};

// What a collective costs at n ranks and m bytes, and how that figure was reached: from the forms
// in n, or from the measured points at this n.
struct CollectiveEstimate {
  double seconds = 0;
  std::optional<Interval> range;  // from the terms' or the measurements' intervals, where present
  std::string how;                // "form in n", "interpolated between measured sizes ..."
  // Beyond the measured communicators: the largest measured size, which the form's growth scaled.
  std::optional<std::uint64_t> extrapolated_from;
  bool from_form = false;  // the forms' value at (n, m) itself: nothing for a prediction to note
};

// t = t0(n) + m / r_inf(n) (Xu and Hwang (1995), Eq. 6); barrier, reduce and scan may be t = t0(n)
// alone at a fixed message size (Table 6). Where no form in n could be fitted (too few
// communicator sizes) t0 has no terms and the collective holds its measured points only.
struct Collective {
  Formula t0;  // no terms: no form in n was fitted
  std::optional<Formula> seconds_per_byte;
  std::optional<double> message_bytes;                 // the size a size-free form was measured at
  std::vector<std::uint64_t> ranks;                    // the communicator sizes it was fitted on
  std::vector<CollectiveMeasurement> measurements;     // every measured point, fitted or not
  std::optional<TwoParameterFormula> ranks_and_bytes;  // t(n, m) in one model, where fitted
  bool operator==(const Collective&) const = default;

  bool has_forms() const { return !t0.terms.empty(); }
  // The measured points at exactly n where there are any, interpolated piecewise-linearly in m
  // (below the smallest size its time, above the largest extrapolated from the last two). Else
  // the forms: their value at (n, m), or beyond the largest measured communicator N the
  // measurement at N times the forms' growth from N to n. n = 1 is 0 s (one process moves
  // nothing). An input Error when there is no form and no measurement at n, naming the
  // communicator sizes that were measured.
  CollectiveEstimate estimate(double n, double bytes) const;
  double seconds(double n, double bytes) const;  // estimate(n, bytes).seconds
};

struct Profile {
  int version = kSchemaVersion;
  Machine machine;
  Provenance provenance;
  Compute compute;
  std::vector<MemoryLevel> memory;
  std::vector<ColumnWalkPoint> column_walk;        // by threads, then working set
  std::vector<LineGatherPoint> line_gather;        // by shape, threads, then span
  std::vector<RandomChasePoint> random_chase;      // by threads, then working set
  std::vector<DramBandwidthPoint> dram_bandwidth;  // by kernel, threads, then working set
  std::vector<CacheEdgePoint> cache_edges;         // by level, kernel, threads, then working set
  std::vector<UsualState> usual_state;             // by threads
  std::optional<Contention> contention;
  Overheads overheads;
  std::optional<PointToPoint> point_to_point;
  std::map<std::string, Collective> collectives;  // "broadcast", "barrier", ...
  std::vector<std::string> not_fitted;            // "collectives: one communicator size (2)"
  bool operator==(const Profile&) const = default;
};

// Reading checks everything: a malformed file, another schema or version, an unknown key, a
// value of the wrong type, a negative or non-finite quantity, an unknown unit: an input Error
// "<file>: <key path>: <problem>" (with the line where YAML knows it).
Profile read_profile(const std::filesystem::path& path);
Profile parse_profile(const std::string& text, const std::string& where);
std::string to_yaml(const Profile& profile);
void write_profile(const Profile& profile, const std::filesystem::path& path);  // atomically

// The profiles of the machines a prediction's times were measured on, by machine name: those in
// `given` (a later one of the same name replaces an earlier), then for each name in `named` that
// none of them is, <name>.yaml beside `target` when that file exists.
std::map<std::string, Profile> reference_profiles(const std::vector<std::string>& given,
                                                  const std::vector<std::string>& named,
                                                  const std::filesystem::path& target);

// What a prediction can ask a profile for; throws an input Error naming the file and the missing
// key ("machines/x.yaml: collectives.broadcast: absent; the profile has barrier, reduce").
const Collective& require_collective(const Profile& profile, const std::string& operation,
                                     const std::string& where);
const PointToPoint& require_point_to_point(const Profile& profile, const std::string& where);
// The peak rate of one process: per core where the profile has it (one process per core), else
// per node; nullptr when it has neither.
const Quantity* peak_flops(const Profile& profile);
const Quantity& require_peak_flops(const Profile& profile, const std::string& where);
// Xu and Hwang (1995), section 5.3: SCCR = P_peak t0, the flops one process could do in the latency
// of a 0-byte message (derived); nullopt without a peak or a Hockney fit.
std::optional<double> sccr(const Profile& profile);

}  // namespace sonde::profile
