#include "predict/workload.hpp"

#include "core/csv_table.hpp"

#include <fmt/format.h>
#include <muParser.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "profile/profile.hpp"

namespace sonde::predict {

std::string Cell::where() const {
  if (column == 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{} ({})", file, line, column, header);
}

double Expression::operator()(double n) const {
  if (constant_) return *constant_ * scale_;
  *n_ = n;
  return static_cast<mu::Parser*>(parser_.get())->Eval() * scale_;
}

const std::vector<std::string>& communication_operations() {
  static const std::vector<std::string> names = {
      "point_to_point", "broadcast", "gather",  "scatter", "alltoall",  "shift",
      "halo",           "allgather", "barrier", "reduce",  "allreduce", "scan"};
  return names;
}

const std::vector<std::string>& parallelism_operations() {
  static const std::vector<std::string> names = {"process_creation", "thread_creation",
                                                 "context_switch", "thread_lock"};
  return names;
}

namespace {

const std::map<std::string, double>& byte_units() {
  static const std::map<std::string, double> table = {
      {"B", 1},    {"kB", 1e3},      {"KB", 1e3}, {"KiB", 1024},
      {"MB", 1e6}, {"MiB", 1048576}, {"GB", 1e9}, {"GiB", 1073741824}};
  return table;
}

// The columns a spreadsheet may have, and the units each quantity column takes.
const std::map<std::string, std::map<std::string, double>>& units() {
  static const std::map<std::string, std::map<std::string, double>> table = {
      {"work", {{"flop", 1}, {"kflop", 1e3}, {"Mflop", 1e6}, {"Gflop", 1e9}, {"Tflop", 1e12}}},
      {"time", {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"min", 60}}},
      {"rate",
       {{"flop/s", 1}, {"kflop/s", 1e3}, {"Mflop/s", 1e6}, {"Gflop/s", 1e9}, {"Tflop/s", 1e12}}},
      {"bytes", byte_units()},
      {"traffic", byte_units()},
      {"loads", byte_units()},
      {"stores", byte_units()},
      {"misaligned loads", byte_units()},
      {"misaligned stores", byte_units()},
      {"working set", byte_units()},
      {"column stride", byte_units()},
      {"gather span", byte_units()}};
  return table;
}

const std::vector<std::string> kPlainColumns = {"kind",
                                                "name",
                                                "value",
                                                "machine",
                                                "dop",
                                                "operation",
                                                "count",
                                                "after",
                                                "loop",
                                                "distribution",
                                                "iteration cost",
                                                "access",
                                                "random accesses",
                                                "column accesses",
                                                "gathered lines",
                                                "gather access"};

struct Column {
  std::string name;  // "time", or "ops.add" for an operation count
  double scale = 1;
  std::string header;  // as written
};

Column parse_header(const std::string& raw, const std::string& where) {
  const std::string header = trimmed(raw);
  Column column;
  column.header = header;
  const auto open = header.find('[');
  std::string name = trimmed(header.substr(0, open));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  column.name = name;
  const bool quantity = units().count(name) > 0;
  if (open != std::string::npos) {
    const auto close = header.find(']', open);
    if (close == std::string::npos) throw input_error(where, shown(header) + ": no closing ']'");
    if (close + 1 != header.size()) {
      throw input_error(where, fmt::format("{}: {} after the unit; expected nothing after ']'",
                                           shown(header), shown(header.substr(close + 1))));
    }
    const std::string unit = trimmed(header.substr(open + 1, close - open - 1));
    if (!quantity) {
      throw input_error(where,
                        fmt::format("{}: column {} takes no unit", shown(header), shown(name)));
    }
    const auto& known = units().at(name);
    const auto it = known.find(unit);
    if (it == known.end()) {
      std::vector<std::string> names;
      for (const auto& [u, scale] : known) names.push_back(u);
      throw input_error(where,
                        fmt::format("{}: unknown unit {} for {}; expected one of {}", shown(header),
                                    shown(unit), name, fmt::join(names, ", ")));
    }
    column.scale = it->second;
  } else if (quantity) {
    throw input_error(where, fmt::format("column '{}' needs its unit, e.g. '{} [{}]'", name, name,
                                         units().at(name).begin()->first));
  }
  // ops.<kernel> and chain.<kernel>: a kernel of the profile's library, "add", "divide".
  const auto kernel_column = [&](const std::string& prefix) {
    return name.size() > prefix.size() && name.rfind(prefix, 0) == 0 &&
           std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                       [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '-'; });
  };
  const bool operation_count = kernel_column("ops.") || kernel_column("chain.");
  if (!quantity && !operation_count &&
      std::find(kPlainColumns.begin(), kPlainColumns.end(), name) == kPlainColumns.end()) {
    throw input_error(
        where, fmt::format("unknown column {}; expected {}, work, time, rate, bytes, "
                           "traffic, loads, stores, working set, ops.<kernel>, chain.<kernel>",
                           shown(header), fmt::join(kPlainColumns, ", ")));
  }
  return column;
}

}  // namespace

// Compiles expressions against the workload's parameters (constants) and n (a variable).
class ExpressionCompiler {
 public:
  explicit ExpressionCompiler(Workload& workload) : workload_(workload) {}

  // `decimal_comma`: the file is semicolon-separated, so a comma in a failed expression may have
  // been meant as a decimal comma; the message says where those are read.
  Expression compile(const std::string& text, const Cell& cell, double scale, bool allow_n,
                     bool decimal_comma = false) {
    Expression e;
    e.text_ = text;
    e.cell_ = cell;
    e.scale_ = scale;
    e.n_ = workload_.n;
    auto parser = std::make_shared<mu::Parser>();
    try {
      for (const auto& [name, value] : workload_.parameters) parser->DefineConst(name, value);
      if (allow_n) parser->DefineVar("n", workload_.n.get());
      parser->SetExpr(text);
      *workload_.n = 1;
      const double value = parser->Eval();
      // muparser reads "4,12" as two expressions and gives the last: a decimal comma read as 12.
      if (parser->GetNumResults() > 1) {
        throw input_error(
            cell.where(),
            fmt::format("{} is {} values separated by commas; expected one ({})", shown(text),
                        parser->GetNumResults(),
                        decimal_comma ? "a decimal comma is read only in a cell that is one "
                                        "number, not inside an expression: write a decimal point"
                                      : "a comma-separated file takes a decimal point: 4.12"));
      }
      const auto& used = parser->GetUsedVar();
      if (used.find("n") == used.end()) e.constant_ = value;
    } catch (const mu::Parser::exception_type& error) {
      std::string why = error.GetMsg();
      if (!allow_n && error.GetToken() == "n")
        why = "n is not known here (a parameter is constant)";
      if (decimal_comma && text.find(',') != std::string::npos) {
        why +=
            "; a decimal comma is read only in a cell that is one number (1,5), not inside an "
            "expression: write a decimal point there";
      }
      throw input_error(cell.where(), fmt::format("in {} at character {}: {}", shown(text),
                                                  error.GetPos() + 1, why));
    }
    e.parser_ = parser;
    return e;
  }

 private:
  Workload& workload_;
};

namespace {

class RowReader {
 public:
  RowReader(const CsvRow& row, const CsvTable& table, const std::vector<Column>& columns,
            const std::string& file, ExpressionCompiler& compiler)
      : row_(row), table_(table), columns_(columns), file_(file), compiler_(compiler) {}

  Cell cell(const std::string& name) const {
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].name == name) return Cell{file_, row_.line, i + 1, columns_[i].header};
    }
    return Cell{file_, row_.line, 0, name};
  }
  Cell row_cell() const { return Cell{file_, row_.line, 0, ""}; }

  std::string text(const std::string& name) const {
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].name == name && i < row_.cells.size()) return trimmed(row_.cells[i]);
    }
    return "";
  }
  double scale(const std::string& name) const {
    for (const Column& c : columns_)
      if (c.name == name) return c.scale;
    return 1;
  }
  bool has(const std::string& name) const { return !text(name).empty(); }

  std::string required_text(const std::string& name, const std::string& kind) const {
    const std::string value = text(name);
    if (value.empty()) {
      const Cell c = cell(name);
      throw input_error(c.column ? c.where() : row_cell().where(),
                        fmt::format("a {} row needs {}", kind,
                                    c.column ? "a value here" : "a '" + name + "' column"));
    }
    return value;
  }

  Expression expression(const std::string& name, const std::string& kind, bool allow_n,
                        const std::string& fallback = "") const {
    std::string value = text(name);
    if (value.empty()) value = fallback;
    if (value.empty()) value = required_text(name, kind);  // throws: there is no value
    return compiler_.compile(numeric_cell(value, table_), cell(name), scale(name), allow_n,
                             table_.decimal_comma);
  }

  // A constant quantity: finite and not negative.
  double constant(const std::string& name, const std::string& kind) const {
    const Expression e = expression(name, kind, false);
    const double value = e(1);
    if (!std::isfinite(value) || value < 0) {
      throw input_error(cell(name).where(),
                        fmt::format("'{}' is {}; expected a value >= 0", e.text(), value));
    }
    return value;
  }

  // An expression's value at n, which must be finite and not negative.
  double non_negative(const Expression& e, double n) const {
    const double value = e(n);
    if (!std::isfinite(value) || value < 0) {
      throw input_error(e.cell().where(), fmt::format("'{}' is {} at n = {}; expected a value >= 0",
                                                      e.text(), value, n));
    }
    return value;
  }

  const std::vector<Column>& columns() const { return columns_; }

 private:
  const CsvRow& row_;
  const CsvTable& table_;
  const std::vector<Column>& columns_;
  const std::string& file_;
  ExpressionCompiler& compiler_;
};

void check_dop(const Expression& dop) {
  for (double n : {1.0, 2.0, 1024.0, 1048576.0}) {
    const double value = dop(n);
    if (!std::isfinite(value) || value < 1) {
      throw input_error(dop.cell().where(),
                        fmt::format("degree of parallelism '{}' is {} at n = {}; it must be at "
                                    "least 1",
                                    dop.text(), value, n));
    }
  }
}

}  // namespace

Workload parse_workload(const std::string& text, const std::string& file,
                        const std::map<std::string, double>& overrides) {
  const CsvTable table = parse_csv_table(text, file);
  const std::vector<CsvRow>& rows = table.rows;
  if (rows.empty()) throw input_error(file, "empty; expected a header row and workload rows");
  std::vector<Column> columns;
  for (std::size_t i = 0; i < rows.front().cells.size(); ++i) {
    columns.push_back(parse_header(rows.front().cells[i],
                                   fmt::format("{}:{}:{}", file, rows.front().line, i + 1)));
  }
  for (const char* required : {"kind", "name"}) {
    if (std::none_of(columns.begin(), columns.end(),
                     [&](const Column& c) { return c.name == required; })) {
      throw input_error(fmt::format("{}:{}", file, rows.front().line),
                        fmt::format("the header has no '{}' column", required));
    }
  }
  Workload w;
  w.path = file;
  w.n = std::make_shared<double>(1);
  ExpressionCompiler compiler(w);
  std::set<std::string> names;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (!row.cells.empty() && trimmed(row.cells[0]).rfind('#', 0) == 0) continue;  // a comment
    if (row.cells.size() > columns.size()) {
      bool extra = false;
      for (std::size_t i = columns.size(); i < row.cells.size(); ++i)
        extra = extra || !trimmed(row.cells[i]).empty();
      if (extra) {
        throw input_error(fmt::format("{}:{}:{}", file, row.line, columns.size() + 1),
                          "a value beyond the last column of the header");
      }
    }
    const RowReader reader(row, table, columns, file, compiler);
    const std::string kind = reader.text("kind");
    if (kind.empty()) {
      for (const std::string& cell : row.cells) {
        if (!trimmed(cell).empty()) {
          throw input_error(reader.cell("kind").where(),
                            "a row with values needs its kind: parameter, component, "
                            "communication or parallelism");
        }
      }
      continue;  // a blank row
    }
    if (kind != "parameter" && kind != "component" && kind != "communication" &&
        kind != "parallelism" && kind != "placement") {
      throw input_error(reader.cell("kind").where(),
                        "unknown kind " + shown(kind) +
                            "; expected parameter, component, communication, parallelism or "
                            "placement");
    }
    const std::string name = reader.required_text("name", kind);
    if (kind == "placement") {
      if (name != "processes per node" && name != "threads per process") {
        throw input_error(reader.cell("name").where(),
                          "unknown placement " + shown(name) +
                              "; expected 'processes per node' or 'threads per process'");
      }
      std::optional<Expression>& placement =
          name == "processes per node" ? w.processes_per_node : w.threads_per_process;
      if (placement) {
        throw input_error(reader.cell("name").where(),
                          "the placement " + shown(name) + " appears twice");
      }
      placement = reader.expression("value", kind, true);
      for (double n : {1.0, 2.0, 1024.0}) {
        const double value = (*placement)(n);
        if (!std::isfinite(value) || value < 1) {
          throw input_error(reader.cell("value").where(),
                            fmt::format("{} '{}' is {} at n = {}; expected at least 1", name,
                                        placement->text(), value, n));
        }
      }
      continue;
    }
    if (kind == "parameter") {
      const auto given = overrides.find(name);
      const double value =
          given != overrides.end() ? given->second : reader.expression("value", kind, false)(1);
      if (!std::isfinite(value)) {
        throw input_error(reader.cell("value").where(), "the parameter is not a finite number");
      }
      if (!w.parameters.emplace(name, value).second) {
        throw input_error(reader.cell("name").where(),
                          "parameter " + shown(name) + " appears twice");
      }
      continue;
    }
    if (kind == "component") {
      if (!names.insert(name).second) {
        throw input_error(reader.cell("name").where(),
                          "component " + shown(name) + " appears twice");
      }
      Component c;
      c.name = name;
      c.row = reader.row_cell();
      c.work = reader.expression("work", kind, true, "0");
      c.work_flop = reader.non_negative(c.work, 1);
      if (reader.has("time") && reader.has("rate")) {
        throw input_error(reader.cell("rate").where(), "give the time or the rate, not both");
      }
      if (reader.has("time")) {
        c.time_seconds = reader.constant("time", kind);
        if (*c.time_seconds <= 0)
          throw input_error(reader.cell("time").where(), "a time must be > 0");
      } else if (reader.has("rate")) {
        c.rate_flop_per_second = reader.constant("rate", kind);
        if (*c.rate_flop_per_second <= 0) {
          throw input_error(reader.cell("rate").where(), "a rate must be > 0");
        }
      }
      c.machine = reader.text("machine");
      c.dop = reader.expression("dop", kind, true);
      check_dop(c.dop);
      if (reader.has("loop")) {
        c.loop = reader.constant("loop", kind);
        if (*c.loop < 1 || *c.loop != std::floor(*c.loop)) {
          throw input_error(
              reader.cell("loop").where(),
              fmt::format("a loop of {} iterations; expected a whole number >= 1", *c.loop));
        }
        const std::string d = reader.text("distribution");
        if (d.empty() || d == "BLOCK" || d == "block") {
          c.distribution = Distribution::block;
        } else if (d == "CYCLIC" || d == "cyclic") {
          c.distribution = Distribution::cyclic;
        } else {
          throw input_error(reader.cell("distribution").where(),
                            "unknown distribution " + shown(d) + "; expected BLOCK or CYCLIC");
        }
        std::string cost = reader.text("iteration cost");
        std::transform(cost.begin(), cost.end(), cost.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        if (cost.empty() || cost == "uniform") {
          c.iteration_cost = IterationCost::uniform;
        } else if (cost == "increasing") {
          c.iteration_cost = IterationCost::increasing;
        } else if (cost == "decreasing") {
          c.iteration_cost = IterationCost::decreasing;
        } else {
          throw input_error(reader.cell("iteration cost").where(),
                            "unknown iteration cost '" + reader.text("iteration cost") +
                                "'; expected uniform, increasing (iteration i of 1..N costs i) "
                                "or decreasing (N + 1 - i)");
        }
      } else if (reader.has("distribution")) {
        throw input_error(reader.cell("distribution").where(),
                          "a distribution needs the loop it distributes (a 'loop' value)");
      } else if (reader.has("iteration cost")) {
        throw input_error(reader.cell("iteration cost").where(),
                          "an iteration cost needs the loop it describes (a 'loop' value)");
      }
      for (const Column& column : columns) {
        if (column.name.rfind("ops.", 0) == 0 && reader.has(column.name)) {
          c.operations[column.name.substr(4)] = reader.expression(column.name, kind, true);
          reader.non_negative(c.operations[column.name.substr(4)], 1);
        }
        if (column.name.rfind("chain.", 0) == 0 && reader.has(column.name)) {
          c.chains[column.name.substr(6)] = reader.expression(column.name, kind, true);
          reader.non_negative(c.chains[column.name.substr(6)], 1);
        }
      }
      // The resources it uses, costed from the target's profile at each n.
      if (reader.has("traffic")) c.traffic_bytes = reader.expression("traffic", kind, true);
      if (reader.has("working set")) {
        c.working_set_bytes = reader.expression("working set", kind, true);
      }
      if (reader.has("loads")) c.load_bytes = reader.expression("loads", kind, true);
      if (reader.has("stores")) c.store_bytes = reader.expression("stores", kind, true);
      for (const auto& [column, whole, part] :
           {std::tuple{"misaligned loads", "loads", &c.misaligned_load_bytes},
            std::tuple{"misaligned stores", "stores", &c.misaligned_store_bytes}}) {
        if (!reader.has(column)) continue;
        if (!reader.has(whole)) {
          throw input_error(
              reader.cell(column).where(),
              fmt::format("{} are a part of the {}; give the {} [B] too", column, whole, whole));
        }
        *part = reader.expression(column, kind, true);
      }
      if (reader.has("random accesses")) {
        c.random_accesses = reader.expression("random accesses", kind, true);
      }
      if (reader.has("column accesses")) {
        c.column_accesses = reader.expression("column accesses", kind, true);
        if (!c.working_set_bytes) {
          throw input_error(reader.cell("column accesses").where(),
                            "column accesses are costed by the size of the matrix they walk; "
                            "give its bytes per process as the 'working set'");
        }
      }
      if (reader.has("column stride")) {
        if (!c.column_accesses) {
          throw input_error(reader.cell("column stride").where(),
                            "a column stride is the row of a column walk; this component gives "
                            "no column accesses");
        }
        c.column_stride_bytes = reader.expression("column stride", kind, true);
      }
      if (reader.has("gathered lines")) {
        c.gathered_lines = reader.expression("gathered lines", kind, true);
      }
      if (reader.has("gather span")) {
        if (!c.gathered_lines) {
          throw input_error(reader.cell("gather span").where(),
                            "a gather span is how far a line gather scatters its reads; this "
                            "component gives no gathered lines");
        }
        c.gather_span_bytes = reader.expression("gather span", kind, true);
      }
      if (reader.has("gather access")) {
        if (!c.gathered_lines) {
          throw input_error(reader.cell("gather access").where(),
                            "a gather access says what a line gather's loop does with a word; "
                            "this component gives no gathered lines");
        }
        c.gather_access = reader.text("gather access");
        if (!result_format::gather_shape::known(c.gather_access)) {
          throw input_error(reader.cell("gather access").where(),
                            "unknown gather access " + shown(c.gather_access) +
                                "; expected sum or copy (the shapes the line gather measures)");
        }
      }
      if (reader.has("access")) {
        c.access = reader.text("access");
        if (!profile::streaming_kernel(c.access)) {
          throw input_error(reader.cell("access").where(),
                            "unknown access " + shown(c.access) + "; expected " +
                                profile::streaming_kernel_names() + " (the bandwidth kernels)");
        }
        if (!c.traffic_bytes) {
          throw input_error(reader.cell("access").where(),
                            "an access kind needs the traffic it describes (a 'traffic' value)");
        }
      }
      const bool resources = c.traffic_bytes || c.random_accesses || c.column_accesses ||
                             c.gathered_lines || !c.chains.empty() || c.load_bytes || c.store_bytes;
      if (resources && (c.time_seconds || c.rate_flop_per_second)) {
        throw input_error(reader.cell(c.time_seconds ? "time" : "rate").where(),
                          "a component is costed from its measured time or rate, or from the "
                          "resources it uses (traffic, loads, stores, random or column "
                          "accesses, gathered lines, chain.<kernel>), not both");
      }
      if (c.working_set_bytes && !c.traffic_bytes && !c.random_accesses && !c.column_accesses) {
        throw input_error(reader.cell("working set").where(),
                          "a working set places traffic, random or column accesses in a memory "
                          "level; this component gives none of them");
      }
      if (!c.time_seconds && !c.rate_flop_per_second && c.operations.empty() && !resources &&
          !(c.work_flop > 0)) {
        throw input_error(reader.row_cell().where(),
                          "component '" + name +
                              "' needs a time [s], a rate [flop/s], work [flop] (at the peak "
                              "rate), operation counts (ops.<kernel>, chain.<kernel>), traffic "
                              "[B], loads [B], stores [B], random or column accesses, gathered "
                              "lines");
      }
      w.components.push_back(std::move(c));
      continue;
    }
    if (kind == "communication" || kind == "parallelism") {
      Operation o;
      o.name = name;
      o.row = reader.row_cell();
      o.kind = kind;
      o.operation = reader.required_text("operation", kind);
      const auto& known =
          kind == "communication" ? communication_operations() : parallelism_operations();
      if (std::find(known.begin(), known.end(), o.operation) == known.end()) {
        throw input_error(reader.cell("operation").where(),
                          fmt::format("unknown {} operation {}; expected one of {}", kind,
                                      shown(o.operation), fmt::join(known, ", ")));
      }
      o.bytes = reader.expression("bytes", kind, true, "0");
      o.count = reader.expression("count", kind, true, "1");
      o.after = reader.text("after");
      w.operations.push_back(std::move(o));
      continue;
    }
  }
  if (w.components.empty()) throw input_error(file, "no component rows");
  for (const auto& [name, value] : overrides) {
    if (!w.parameters.count(name)) {
      throw input_error(file,
                        fmt::format("no parameter named {} to set to {}", shown(name), value));
    }
  }
  for (const Operation& o : w.operations) {
    if (!o.after.empty() && !names.count(o.after)) {
      throw input_error(o.row.where(),
                        fmt::format("'after' names {}, which is not a component", shown(o.after)));
    }
  }
  return w;
}

Workload read_workload(const std::filesystem::path& path,
                       const std::map<std::string, double>& overrides) {
  return parse_workload(read_file(path), path.string(), overrides);
}

}  // namespace sonde::predict

namespace sonde::predict {

std::vector<std::pair<double, double>> read_measurements(const std::filesystem::path& path) {
  return parse_measurements(read_file(path), path.string());
}

std::vector<std::pair<double, double>> parse_measurements(const std::string& text,
                                                          const std::string& file) {
  const CsvTable table = parse_csv_table(text, file);
  const std::vector<CsvRow>& rows = table.rows;
  if (rows.empty()) throw input_error(file, "empty; expected columns n and time [s]");
  std::optional<std::size_t> n_column, time_column;
  double scale = 1;
  for (std::size_t i = 0; i < rows.front().cells.size(); ++i) {
    const std::string header = trimmed(rows.front().cells[i]);
    const std::string where = fmt::format("{}:{}:{}", file, rows.front().line, i + 1);
    if (header == "n") {
      n_column = i;
    } else {
      const Column column = parse_header(header, where);
      if (column.name != "time") throw input_error(where, "expected the columns n and time [s]");
      time_column = i;
      scale = column.scale;
    }
  }
  if (!n_column || !time_column) {
    throw input_error(fmt::format("{}:{}", file, rows.front().line),
                      "expected the columns n and time [s]");
  }
  std::vector<std::pair<double, double>> out;
  for (std::size_t r = 1; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (!row.cells.empty() && trimmed(row.cells[0]).rfind('#', 0) == 0) continue;
    const auto number = [&](std::size_t column) {
      const std::string cell =
          column < row.cells.size() ? trimmed(numeric_cell(row.cells[column], table)) : "";
      char* end = nullptr;
      const double value = std::strtod(cell.c_str(), &end);
      if (cell.empty() || *end != '\0' || !std::isfinite(value) || value <= 0) {
        throw input_error(fmt::format("{}:{}:{}", file, row.line, column + 1),
                          fmt::format("{}: expected a number > 0", shown(cell)));
      }
      return value;
    };
    out.emplace_back(number(*n_column), number(*time_column) * scale);
  }
  return out;
}

}  // namespace sonde::predict
