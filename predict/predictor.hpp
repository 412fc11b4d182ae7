// Early prediction (Xu and Hwang (1995), sections 2, 5 and 6): a workload spreadsheet on a machine
// profile.
//   T_n = sum_i T_1(i) / min(DOP_i, n) + T_par + T_comm            (Eq. 2)
// with T_comm from the profile's point-to-point and collective forms (Eq. 5 and 6), the metrics
// T_inf, N_max, P_inf, average parallelism, S_n, E_n, P_n, U_n and SCCR, three schemes
// (theoretical: every flop at the program's average rate; zero-overhead; full-overhead),
// requirement checks, and the sequential times moved from the machine they were measured on to the
// target, by the ratio of the two profiles' rates (Shanmugam et al.'s (1995) MipsRatio) or by the
// target's kernel library (Fahringer and Pozgaj (2000)).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "predict/workload.hpp"
#include "profile/profile.hpp"

namespace sonde::predict {

enum class Scheme { theoretical, zero_overhead, full_overhead };
std::string to_string(Scheme scheme);

struct PredictOptions {
  // Profiles of the machines the spreadsheet's times were measured on, by machine name.
  std::map<std::string, profile::Profile> reference_machines;
  // The cluster's network from another profile (one characterized apart from the node, or a
  // simulated cluster's): its point-to-point model, pair map, collectives and shape (nodes, cores
  // per node) replace the target's; the target keeps its compute and memory. Errors about messages
  // name `network_path`.
  std::optional<profile::Profile> network;
  std::string network_path;
};

// Reads the profile at `path` into options.network (--network); nothing where `path` is empty.
void read_network(PredictOptions& options, const std::string& path);

struct OverheadTerm {
  std::string_view name;       // the spreadsheet row (owned by the predictor's workload)
  std::string_view operation;  // "alltoall"
  double seconds = 0;          // count x cost at this n
};

// A predicted time's range: every measured or fitted profile value it uses taken at the low, then
// at the high end of its interval (the ends move together: a conservative range, not a confidence
// interval of the sum).
struct Range {
  double low = 0;
  double high = 0;
};

// What one component costs at n on the target, and which resource bounds it ("DRAM bandwidth
// (triad, 2 sharing)", "L1d latency", "fma throughput", "peak rate", "given time").
struct ComponentCost {
  std::string_view name;  // the spreadsheet row (owned by the predictor's workload)
  double seconds = 0;     // the slowest process's time
  std::optional<Range> range;
  std::string bound;
  std::string level;  // the memory level its working set falls in, where it gives one
};

struct Point {
  double n = 1;
  double processes_per_node = 1;
  double threads_per_process = 1;
  double compute = 0;        // sum of T_1(i) / min(DOP_i, n), or the slowest share of a loop
  double communication = 0;  // T_comm
  double parallelism = 0;    // T_par
  double total = 0;          // T_n
  double speedup = 0;        // S_n = T_1 / T_n
  double efficiency = 0;     // E_n = S_n / (n t), t the threads per process
  double speed = 0;          // P_n = W / T_n, flop/s
  double utilization = 0;    // U_n = P_n / (n P_peak)
  std::vector<OverheadTerm> overheads;       // full-overhead scheme only
  std::vector<ComponentCost> costs;          // per component, full-overhead scheme only
  std::optional<Range> total_range;          // T_n's range from the profile's intervals
  std::optional<Range> communication_range;  // T_comm's, full-overhead scheme only
  std::vector<std::string> notes;  // "allreduce: interpolated between measured sizes at n = 2"
  std::vector<std::string> communication_notes;  // the notes of T_comm's operations alone
};

struct ComponentTime {
  std::string name;
  double work_flop = 0;
  double seconds = 0;  // T_1(i) on the target
  std::string how;     // "measured on ibm-sp2", "scaled from ibm-sp2 by peak rate 0.41", ...
};

struct Summary {
  double work_flop = 0;            // W
  double t1 = 0;                   // T_1
  double t_inf = 0;                // T_inf (Eq. 3)
  double n_max = 0;                // N_max = max DOP_i
  double p_inf = 0;                // P_inf = W / T_inf
  double average_parallelism = 0;  // T_1 / T_inf
  double p1 = 0;                   // W / T_1
  // A component's degree of parallelism grows with n without bound (DOP = n): N_max, the average
  // parallelism and P_inf are then limits, not figures to plan with.
  bool unbounded_parallelism = false;
  std::optional<double> peak;  // P_peak of one node (one process), flop/s
  std::optional<double> sccr;  // P_peak t0, flops per 0-byte message
  std::vector<ComponentTime> components;
};

// Fahringer and Pozgaj's (2000) program parameters of one component at n processors.
struct ProgramParameters {
  std::string component;
  double n = 1;
  double goodness = 0;   // work distribution goodness: coefficient of variation of the shares
  double transfers = 0;  // messages per run after this component
  double bytes = 0;      // data transferred
  double transfer_seconds = 0;  // alpha transfers + beta bytes, from the profile's Hockney fit
  double computation_seconds = 0;
};

class Predictor {
 public:
  // Throws an input Error naming the spreadsheet row or the profile key when something a
  // prediction needs is missing.
  Predictor(Workload workload, profile::Profile target, std::string target_path,
            const PredictOptions& options = {});

  Point at(double n, Scheme scheme) const;
  const Summary& summary() const { return summary_; }
  std::vector<ProgramParameters> program_parameters(double n) const;
  // The full-overhead T_n as an expression in n, in seconds, as Xu and Hwang's (1995) Table 8
  // writes it: the computation grouped by degree of parallelism, then each operation's form with
  // its count and message length substituted ("0.04 + 14.33/min(n, 256) + ...").
  std::string expression() const;
  // Xu and Hwang (1995), section 5.3: where the grain is too fine for the machine.
  std::vector<std::string> grain_advice(double n) const;
  const Workload& workload() const { return workload_; }
  const profile::Profile& target() const { return target_; }

 private:
  struct Cost {
    double seconds = 0;
    Range range;
    std::string bound;
    std::string level;
    std::vector<std::string> notes;
  };
  Cost operation_cost(std::size_t index, double n) const;
  double operation_seconds(std::size_t index, double n) const {
    return operation_cost(index, n).seconds;
  }
  // The slowest process's time for component i at n: the given T_1(i) shared out, or the cost of
  // the resources it names, taken from the target's profile.
  // `threads`: how many each process runs, where not the spreadsheet's (T_1 is one thread's).
  Cost component_cost(std::size_t i, double n, std::optional<double> threads = std::nullopt) const;
  double component_seconds(std::size_t i, double n, bool uniform) const;
  double processes_per_node(double n) const;
  double threads_per_process(double n) const;

  Workload workload_;
  profile::Profile target_;
  std::string target_path_;
  std::string network_path_;  // the profile messages are costed from: --network's, or the target
  std::vector<double> t1_;    // T_1(i) on the target
  // Components costed from the profile's resources at each n (no given time or rate).
  std::vector<bool> from_resources_;
  // What each operation is costed with, looked up once: a collective, or nullptr for
  // point-to-point and parallelism operations.
  std::vector<const profile::Collective*> collectives_;
  Summary summary_;
};

// Xu and Hwang (1995), section 5.4: "time<=0.5s", "speed>=10Gflop/s", "speedup>=200".
struct Requirement {
  std::string metric;  // time, speed, speedup
  double bound = 0;
  std::string text;
};
Requirement parse_requirement(const std::string& text);

struct RequirementResult {
  Requirement requirement;
  bool met = false;
  std::optional<double> smallest_n;  // the smallest n that meets it, up to max_n
  double best = 0;                   // the best value over the scan
  double best_n = 0;
  std::string why;
};
RequirementResult check_requirement(const Predictor& predictor, const Requirement& requirement,
                                    Scheme scheme, double max_n);

}  // namespace sonde::predict
