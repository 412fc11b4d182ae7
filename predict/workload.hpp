// The workload spreadsheet (Xu and Hwang (1995), section 5.1, steps 1 and 3): a CSV file, as any
// spreadsheet program exports one, with one row per program parameter, component, communication and
// parallelism operation. Columns are found by their header, in any order; quantities carry their
// unit in the header ("time [s]", "work [Mflop]", "bytes [KiB]"). Numbers may be expressions in
// n (the number of nodes) and the program parameters, evaluated by muparser.
//
//   kind,          name,  value, work [Mflop], time [s], machine, dop, operation, bytes [B], count,
//   after parameter,     N,     1024 component,     DP,    ,      84,           4.12,     ibm-sp2,
//   256 communication, xchg,  ,      ,             ,         ,        ,    alltoall,  17e6/n^2,  1,
//   DP
//
// Errors name the file, the line and the column (and the character, inside an expression).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result_format.hpp"

namespace sonde::predict {

// Where a cell came from, for error messages: "apt.csv:4:7 (dop)".
struct Cell {
  std::string file;
  std::size_t line = 0;
  std::size_t column = 0;
  std::string header;
  std::string where() const;
};

// An expression in n and the program parameters. Evaluation is cheap: muparser's bytecode, and an
// expression without n is evaluated once when read.
class Expression {
 public:
  Expression() = default;
  double operator()(double n) const;
  bool depends_on_n() const { return !constant_.has_value(); }
  const std::string& text() const { return text_; }
  const Cell& cell() const { return cell_; }

 private:
  friend class ExpressionCompiler;
  std::string text_;
  Cell cell_;
  double scale_ = 1;  // the unit of the column
  std::optional<double> constant_;
  std::shared_ptr<void> parser_;  // mu::Parser, hidden from the header
  std::shared_ptr<double> n_;     // the variable n the parser reads
};

// Fahringer and Pozgaj 2000: how a loop's iterations are spread over the processors. BLOCK: in
// contiguous blocks, the first N mod p processors one iteration more; CYCLIC: one at a time.
enum class Distribution { block, cyclic };
// What iteration i of 1..N costs: the same for all; i (a triangular loop, for (j = 0; j < i; ++j));
// or N + 1 - i (for (j = i; j <= N; ++j)).
enum class IterationCost { uniform, increasing, decreasing };

struct Component {
  std::string name;
  Cell row;
  // W_i: an expression in n where the problem grows with n (sizes per process); work_flop is its
  // value at n = 1, which the summary's metrics use.
  Expression work;
  double work_flop = 0;
  std::optional<double> time_seconds;          // T_1(i) on `machine`
  std::optional<double> rate_flop_per_second;  // or the sustained rate on `machine`
  std::string machine;                         // the profile the time was measured on
  Expression dop;                              // degree of parallelism, >= 1
  // Fahringer and Pozgaj 2000: a loop of `loop` iterations (a whole number >= 1, constant in n)
  // spread BLOCK or CYCLIC, each iteration costing as `iteration_cost` says; the slowest
  // processor's share of the loop's work sets the time.
  std::optional<double> loop;
  Distribution distribution = Distribution::block;
  IterationCost iteration_cost = IterationCost::uniform;
  // Fahringer and Pozgaj 2000: operation counts ("add", "multiply", ...), costed with the target's
  // kernel library.
  std::map<std::string, Expression> operations;  // per run, >= 0, expressions in n
  // Operations that form a dependent chain (a recurrence, an in-order reduction): costed at the
  // kernel's latency, not its throughput.
  std::map<std::string, Expression> chains;
  // What it moves and where it lives, costed from the target's memory levels at each n: bytes its
  // loads and stores name (STREAM's count, all processes), which bandwidth kernel they resemble,
  // the bytes one process touches repeatedly (the level it falls in), and dependent random
  // accesses (costed at that level's latency).
  std::optional<Expression> traffic_bytes;
  std::string access = "triad";
  std::optional<Expression> working_set_bytes;
  std::optional<Expression> random_accesses;
  // Loads that walk down the columns of a row-major array whose rows span pages (a
  // transposition's gather): each a new page and a new line, costed at the column walk the
  // profile measured down as many rows.
  std::optional<Expression> column_accesses;
  // The bytes from one of them to the next (the array's row): the walk spans working set / stride
  // rows. Absent: the row of the profile's walk.
  std::optional<Expression> column_stride_bytes;
  // Whole lines read from memory in an order no prefetcher follows (a bit-reversed reorder, an
  // indexed gather), all processes together, each line once however many of its words the loop
  // reads while it stays in cache; costed at the line gather the profile measured with lines
  // scattered as far as the gather span (absent: the widest span measured), added to the
  // component's time. Their bytes are not also traffic.
  std::optional<Expression> gathered_lines;
  std::optional<Expression> gather_span_bytes;
  // What the loop does with a gathered word, naming the gather the profile measured in that shape:
  // sum (it feeds a reduction; the default) or copy (it is stored in order, as a pack does).
  std::string gather_access = result_format::gather_shape::sum;
  // Bytes its load and store instructions move between registers and L1 (every access, hits
  // included): the in-core part of the ECM model (Treibig and Hager (2010)), which does not
  // overlap with the transfers from beyond L1.
  std::optional<Expression> load_bytes;
  std::optional<Expression> store_bytes;
  // Of those, the bytes of vector loads and stores whose address is not a multiple of the vector's
  // width (u[i - 1], a malloc'd array): at the L1 rates the profile measured for misaligned
  // streams (read-misaligned/1, write-misaligned/1) instead of the aligned ones.
  std::optional<Expression> misaligned_load_bytes;
  std::optional<Expression> misaligned_store_bytes;
};

struct Operation {
  std::string name;
  Cell row;
  std::string kind;       // "communication" or "parallelism"
  std::string operation;  // "broadcast", "alltoall", "point_to_point", "process_creation", ...
  Expression bytes;       // message length m of Xu and Hwang's (1995) forms
  Expression count;       // how many times per run
  std::string after;      // the component it follows
};

struct Workload {
  std::filesystem::path path;
  std::map<std::string, double> parameters;
  std::vector<Component> components;
  std::vector<Operation> operations;
  // How many processes share a node, an expression in n; absent: nodes are filled (the profile's
  // cores per node, over the threads per process).
  std::optional<Expression> processes_per_node;
  // How many threads each process runs, an expression in n; absent: one. The threads share their
  // process's components: its work, traffic and working set split evenly over them.
  std::optional<Expression> threads_per_process;
  std::shared_ptr<double> n;  // the variable every expression reads
};

// The operations a spreadsheet may name, and what each is costed with in a profile.
const std::vector<std::string>& communication_operations();  // collectives and point_to_point
const std::vector<std::string>& parallelism_operations();    // profile overheads

// `overrides` replaces parameter rows' values by name ("N" = 4096), as a problem size asked for on
// the command line; a name that is no parameter of the spreadsheet is an input Error.
Workload read_workload(const std::filesystem::path& path,
                       const std::map<std::string, double>& overrides = {});

// Measured run times to set beside a prediction: a CSV with columns "n" and "time [<unit>]".
std::vector<std::pair<double, double>> read_measurements(const std::filesystem::path& path);
std::vector<std::pair<double, double>> parse_measurements(const std::string& text,
                                                          const std::string& file);
Workload parse_workload(const std::string& text, const std::string& file,
                        const std::map<std::string, double>& overrides = {});

}  // namespace sonde::predict
