// `sonde check`: the predict-measure-compare loop as one command. For each problem size (a --set of
// the spreadsheet's parameters) and each rank count n, it predicts T_n from the workload
// spreadsheet on the machine profile (the full-overhead scheme), runs the program under the MPI
// launcher, takes the median of the times it prints ({"seconds": ...} lines, one per repetition),
// and compares the two: Amato et al.'s (1999) E = max(T, P) / min(T, P), and whether the median
// lies in the prediction's interval. The records go to a table, and to CSV and JSON files written
// whole after every point, so that a failure or an interrupt loses nothing measured.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "check/probe.hpp"
#include "core/program.hpp"
#include "predict/predictor.hpp"

namespace sonde::check {

// The options of `sonde check`, as given.
struct CheckOptions {
  std::string spreadsheet;  // the workload (CSV)
  std::string machine;      // the target's profile
  std::string network;      // the cluster's network from another profile; "": none
  // What the measurement is set against: T_n, or T_comm alone for a run whose computation costs
  // nothing (a simulated one with SMPI's computation off).
  bool communication_only = false;
  std::vector<std::string> references;  // profiles the spreadsheet's times were measured on
  std::string ranks;                    // "1,2,4": the rank counts n
  std::vector<std::string> sets;        // one problem size each: "N=4096", "N=8192,K=10"
  int repetitions = 5;                  // the value of {repetitions}
  // How long one run may take before it is stopped, in seconds (0: no limit); the runner stops
  // it, and the failure names the limit.
  double time_limit_seconds = 0;
  // The launcher's words ("mpiexec", "srun --mpi=pmix"); "" runs the program directly;
  // nullopt: $SONDE_MPIEXEC, or mpiexec.
  std::optional<std::string> launcher;
  std::string csv, json;  // record files; empty: none
  // A record file (JSON) that `sonde check` wrote: each point takes the probe samples recorded
  // for its setting and n instead of probing (a revised model scored in the states the recorded
  // measurements met). "": none.
  std::string machine_now_from;
  // Time the program's phases as well (it marks them with sonde/phase.h, named after the
  // spreadsheet's rows) and set each beside the rows' predicted time.
  bool components = false;
  // The program and its arguments, with {NAME} (a parameter), {n} and {repetitions} placeholders.
  std::vector<std::string> command;
};

// What one run of the program gave.
struct RunOutput {
  ChildExit exit;
  std::string output;             // everything it wrote on its standard output
  std::vector<std::string> tail;  // its last lines of output (standard output and error)
  bool interrupted = false;       // SIGINT or SIGTERM came while it ran (or before)
  bool timed_out = false;         // it ran past the runner's time limit and was stopped
};

// Runs a command (launcher words included) and returns what it printed. Throws an io Error when the
// command cannot be started.
using Runner = std::function<RunOutput(const std::vector<std::string>& argv)>;

// The real runner: starts the command with this process's environment, in a process group of its
// own with nothing on its standard input, passes SIGINT and SIGTERM on to the group while it runs,
// and passes every line it prints on `pass_through`, save the {"seconds": ...} lines of its
// standard output. A run past `time_limit_seconds` (0: none) is stopped: SIGTERM to its group, then
// SIGKILL `grace_seconds` later. The signal handlers live as long as the runner.
Runner process_runner(std::ostream& pass_through, double time_limit_seconds = 0,
                      double grace_seconds = 5);

// "1,2,4" as rank counts; a usage Error naming --ranks for anything but whole numbers > 0.
std::vector<int> parse_ranks(const std::string& text);

// One --set: "N=8192,K=10" as (name, value) pairs in the order given; a usage Error naming --set,
// the text and what was expected for a malformed one (a pair without '=', an empty name, a value
// that is no number, a name given twice).
std::vector<std::pair<std::string, double>> parse_setting(const std::string& text);

// A parameter's value as a program argument: whole numbers without a decimal point ("4096").
std::string format_value(double value);

// `command` with every {NAME} replaced by values[NAME]. A {NAME} (letters, digits and
// underscores) with no value is a usage Error naming it and the names there are; other braces are
// left as they are.
std::vector<std::string> substitute(const std::vector<std::string>& command,
                                    const std::map<std::string, std::string>& values);

// The launcher's words: `launcher` split at blanks; nullopt: $SONDE_MPIEXEC where set and not
// empty, else "mpiexec".
std::vector<std::string> launcher_words(const std::optional<std::string>& launcher);

// Whether a line of output carries a time: it has a "seconds" key.
bool has_seconds(const std::string& line);
// The values of every "seconds" key in `output`, in order. A value that is no finite number >= 0 is
// a failure Error naming `program` and the line.
std::vector<double> seconds_in(const std::string& output, const std::string& program);

// The repetitions' times: the median, the fastest and the slowest, and how many.
struct Measured {
  double median = 0;
  double min = 0;
  double max = 0;
  std::size_t count = 0;
};
Measured summarize(std::vector<double> seconds);  // at least one value

// A phase the program marked, set against the spreadsheet rows it covers. A phase is named after
// one row ("spmv") or several joined by " + " ("fft + reorder") where the program interleaves
// them; its prediction is the sum of theirs. A row no phase covers is listed without a
// measurement, a phase that names no row without a prediction.
struct ComponentCheck {
  std::string name;                   // the phase's name, or the unmarked row's
  std::string bound;                  // the predictor's bounding resources, "; " between rows
  bool communication = false;         // it covers a communication row
  std::optional<double> predicted;    // seconds per repetition, the slowest process
  std::optional<double> measured;     // seconds per repetition, see PhaseTime
  std::optional<double> error_ratio;  // where both are > 0
};

// A phase's seconds per repetition over the processes that marked it. A computation is set
// against its slowest process; a communication against its fastest, since a process that
// arrives early waits in the operation for the last one, which waits least.
struct PhaseTime {
  double slowest = 0;
  double fastest = 0;
};

// A spreadsheet row's predicted time at a point: a component's, or a communication row's (count x
// cost), in the spreadsheet's order.
struct RowPrediction {
  std::string name;
  double seconds = 0;
  std::string bound;  // the component's bounding resource, or the operation
  bool communication = false;
};
std::vector<RowPrediction> row_predictions(const predict::Point& point);

// Matches the phases' times per repetition (by name) with the rows' predictions.
std::vector<ComponentCheck> match_components(const std::vector<RowPrediction>& rows,
                                             const std::map<std::string, PhaseTime>& phases);

// One point: a problem size at n ranks, predicted, measured and compared.
struct Record {
  std::string spreadsheet;
  std::string machine;             // the profile's path
  std::string machine_name;        // the profile's machine name
  std::string network;             // the network's profile, where one was given
  std::string compared = "total";  // the predicted part: "total" (T_n) or "communication"
  std::string setting;             // "N=8192,K=10" as given; empty: the spreadsheet's own values
  std::map<std::string, double> parameters;  // every parameter's value at this point
  int n = 1;
  double predicted = 0;  // P: T_n (or T_comm, as `compared` says), full-overhead scheme
  std::optional<predict::Range> interval;  // P's interval, where the prediction has one
  std::vector<std::string> notes;          // the prediction's notes
  Measured measured;                       // T: the median
  double error_ratio = 0;                  // E = max(T, P) / min(T, P); inf where one is 0
  std::optional<bool> in_interval;         // whether T lies in [low, high]; nullopt: no interval
  std::vector<std::string> command;        // as run, the launcher included
  std::string date;                        // when it was measured, ISO 8601 UTC
  std::string host;
  // The machine just before and just after the runs (probe.hpp); empty: not probed. Their notes
  // follow the prediction's in `notes`.
  std::vector<MachineSample> machine_now;
  std::optional<profile::Quantity> profile_dram_triad;  // what the profile said of the two
  std::optional<profile::Quantity> profile_add_latency;
  // triad/k of the profile, k the cores the probe ran on at once (the samples with threads k)
  std::optional<profile::Quantity> profile_dram_triad_at_once;
  // the profile's one-thread random chase at the size the probe chased
  std::optional<profile::Quantity> profile_dram_chase;
  // the first cache level's one-thread read, set against the probe's in-core read
  std::optional<profile::Quantity> profile_l1_read;
  // the profile's probes' usual state with one core and with k at once, where the samples were of
  // its size (probe.hpp, usual_state_for): what their triads are set against instead
  std::optional<profile::Quantity> profile_usual_triad;
  std::optional<profile::Quantity> profile_usual_triad_at_once;
  std::vector<ComponentCheck> components;  // with --components, where the program marked phases
  // P priced again in the memory state the probes saw around the runs (probe.hpp,
  // profile_in_state_now), and its E: what the model gives where the machine's state is known.
  // Beside P and E, never in their place; nullopt where no thread count could be scaled.
  std::optional<double> predicted_in_state_now;
  std::optional<double> error_ratio_in_state_now;
  std::vector<std::string> state_now_notes;
  // The machine's load over the kept runs (/proc/stat, as characterize records it per part): the
  // share of the CPU time the hypervisor stole, and the CPUs busy beyond this process and the
  // program it ran. nullopt: not read (no /proc here).
  struct Load {
    double seconds = 0;
    double steal_fraction = 0;
    double other_busy_cpus = 0;
  };
  std::optional<Load> load;
};

// E and the interval's verdict for a measured median against a prediction (and E in the state
// now, where there is a prediction in it).
void compare(Record& record);

// The probe samples of each point of a record file (JSON) that `sonde check` wrote, by setting
// ("" for the spreadsheet's values) and n. An input Error naming the file and the record for a file
// that is no such record, or a sample without its fields.
std::map<std::pair<std::string, int>, std::vector<MachineSample>> recorded_machine_now(
    const std::string& path);

// The records as a table, one row per point, and the summary line (mean and max E, how many lie in
// their interval).
std::string format_table(const std::vector<Record>& records);
std::string format_summary(const std::vector<Record>& records);
// Per point, its phases against the rows they cover; "" where no record has components.
std::string format_components(const std::vector<Record>& records);
// The record files: CSV, one row per point; JSON, {"records": [...], "summary": {...},
// "complete": bool, "error": text where the check failed}.
std::string records_csv(const std::vector<Record>& records);
nlohmann::json records_json(const std::vector<Record>& records, bool complete,
                            const std::string& error = "");

// Predicts and checks every point, writes the table and the summary on `out`, progress on `log`,
// and the record files after every point; returns the exit code. Everything the options ask for
// (rank counts, settings, the spreadsheet's parameters, placeholders, the launcher and the program)
// is checked before the first run. A run that fails, exits non-zero or prints no time is a failure
// Error naming the command, its exit status and its last lines of output; an interrupt is an
// interrupted Error; in both, the points measured before stay in the files and the table.
// With a `probe`, the machine is probed just before and just after each point's runs, and the
// record holds both samples, with notes where they lie 5% or more off the profile's values.
int check_command(const CheckOptions& options, std::ostream& out, std::ostream& log,
                  const Runner& runner, const Probe& probe = {});

}  // namespace sonde::check
