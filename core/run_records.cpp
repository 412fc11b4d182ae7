#include "core/run_records.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "core/error.hpp"
#include "core/result_format.hpp"

namespace sonde {

namespace param = result_format::param;
namespace counter = result_format::counter;

template <class T>
T required_param(const nlohmann::json& params, const char* key, const std::string& benchmark,
                 const std::string& where) {
  auto it = params.find(key);
  for (const auto& [name, earlier] : param::earlier_names) {
    if (it == params.end() && std::string_view(key) == name) it = params.find(earlier);
  }
  if (it == params.end()) {
    throw input_error(where, fmt::format("benchmark '{}': params lack '{}' (see docs/formats.md, "
                                         "Result files)",
                                         benchmark, key));
  }
  const auto type_error = [&](const char* expected) {
    return input_error(where, fmt::format("benchmark '{}': params.{} is {} where {} is expected",
                                          benchmark, key, it->dump(), expected));
  };
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) throw type_error("a string");
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) throw type_error("true or false");
  } else if constexpr (std::is_integral_v<T>) {
    if (!it->is_number_integer() || (std::is_unsigned_v<T> && it->get<std::int64_t>() < 0)) {
      throw type_error(std::is_unsigned_v<T> ? "a whole number, not negative" : "a whole number");
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!it->is_number()) throw type_error("a number");
  } else {
    if (!it->is_array()) throw type_error("an array");
  }
  return it->get<T>();
}

template std::string required_param<std::string>(const nlohmann::json&, const char*,
                                                 const std::string&, const std::string&);
template unsigned required_param<unsigned>(const nlohmann::json&, const char*, const std::string&,
                                           const std::string&);
template std::uint64_t required_param<std::uint64_t>(const nlohmann::json&, const char*,
                                                     const std::string&, const std::string&);
template double required_param<double>(const nlohmann::json&, const char*, const std::string&,
                                       const std::string&);
template std::vector<std::uint64_t> required_param<std::vector<std::uint64_t>>(
    const nlohmann::json&, const char*, const std::string&, const std::string&);

namespace {

const std::set<std::string>& known_suites() {
  static const std::set<std::string> suites{
      result_format::suite::memory, result_format::suite::contention,
      result_format::suite::overhead, result_format::suite::compute, result_format::suite::mpi};
  return suites;
}

// The headline counter of each suite's benchmarks: the first of these an entry has.
const std::vector<std::string>& headline_counters(const std::string& suite) {
  static const std::map<std::string, std::vector<std::string>> by_suite{
      {result_format::suite::memory, {counter::seconds_per_load}},
      {result_format::suite::contention,
       {counter::seconds_per_access, counter::seconds_per_operation, counter::seconds_per_load}},
      // The pipe latency's headline is the round trip (Xu and Hwang's (1995) Table 2 column),
      // the context switch's is per switch (its round trip is two).
      {result_format::suite::overhead,
       {counter::seconds_per_switch, counter::seconds_per_round_trip,
        counter::seconds_per_operation, counter::bytes_per_second}},
      {result_format::suite::compute, {counter::flops_per_second, counter::seconds_per_operation}},
      {result_format::suite::mpi,
       {counter::seconds_per_message, counter::seconds_per_operation, counter::bytes_per_second}}};
  return by_suite.at(suite);
}

// The registered name: the run name without Google Benchmark's suffixes (/repeats:, /real_time).
std::string registered_name(const std::string& run_name) {
  std::string name = run_name;
  for (const char* suffix : {"/manual_time", "/real_time"}) {
    if (const auto at = name.find(suffix); at != std::string::npos) name.erase(at);
  }
  for (const char* field : {"/repeats:", "/min_time:"}) {
    if (const auto at = name.find(field); at != std::string::npos) name.erase(at);
  }
  return name;
}

// The headlines of one file: one per benchmark, from its median, min, max and cv aggregates.
std::vector<Measurement> headlines(const ResultFile& file, const std::string& suite) {
  std::vector<Measurement> rows;
  std::map<std::string, std::size_t> index;
  const std::vector<std::string>& counters = headline_counters(suite);
  for (const BenchmarkRecord& record : file.benchmarks) {
    if (record.run_type != "aggregate" || !record.error_message.empty()) continue;
    const auto found = std::find_if(counters.begin(), counters.end(), [&](const std::string& c) {
      return record.counter(c).has_value();
    });
    if (found == counters.end()) continue;
    if (!record.params.is_object()) {
      throw input_error(file.path.string(),
                        fmt::format("benchmark '{}' has no \"params\" object: not written by "
                                    "sonde's {} program",
                                    record.name, suite));
    }
    auto [it, inserted] = index.try_emplace(record.run_name, rows.size());
    if (inserted) {
      Measurement m;
      m.name = registered_name(record.run_name);
      m.file = file.path.string();
      m.counter = *found;
      m.params = record.params;
      rows.push_back(std::move(m));
    }
    Measurement& row = rows[it->second];
    const auto value = record.counter(row.counter);
    if (!value) continue;  // another aggregate of the same benchmark without the headline
    if (record.aggregate_name == "median") {
      row.median = *value;
      row.counters = record.counters;
    }
    if (record.aggregate_name == "min") row.min = *value;
    if (record.aggregate_name == "max") row.max = *value;
    if (record.aggregate_name == "cv") row.cv = *value;
  }
  return rows;
}

// A suite's record with the headline filled in; its own fields follow.
template <class Record>
Record record_of(const Measurement& m) {
  Record record;
  static_cast<Measurement&>(record) = m;
  return record;
}

template <class T>
T get(const Measurement& m, const char* key) {
  return required_param<T>(m.params, key, m.name, m.file);
}

// Whether a file holds a suite's results: the latency probe that sized a run is written by the
// memory program, but is no memory-suite result.
bool holds_suite_results(const ResultFile& file, const std::string& suite) {
  const nlohmann::json& sonde = file.sonde_context();
  const auto plan = sonde.find(suite + "_suite");
  if (plan == sonde.end() || !plan->is_object() || !plan->contains("parts")) return true;
  return (*plan)["parts"] != nlohmann::json::array({result_format::part::probe});
}

}  // namespace

RunRecords read_run_records(std::vector<ResultFile> files) {
  RunRecords run;
  for (const ResultFile& file : files) {
    const std::string where = file.path.string();
    const nlohmann::json& sonde = file.sonde_context();
    const auto suite_it = sonde.find(param::suite);
    if (suite_it == sonde.end() || !suite_it->is_string()) {
      throw input_error(where, "context.sonde lacks 'suite' (the program that wrote the file)");
    }
    const std::string suite = suite_it->get<std::string>();
    if (!known_suites().contains(suite)) {
      throw input_error(where, fmt::format("context.sonde.suite is '{}'; expected one of memory, "
                                           "contention, overhead, compute, mpi",
                                           suite));
    }
    run.contexts.try_emplace(suite, sonde);
    if (holds_suite_results(file, suite) &&
        std::find(run.suites.begin(), run.suites.end(), suite) == run.suites.end()) {
      run.suites.push_back(suite);
    }
    for (Measurement& m : headlines(file, suite)) {
      const std::string part = get<std::string>(m, param::part);
      if (suite == result_format::suite::memory) {
        if (part == result_format::part::column) {
          auto r = record_of<ColumnWalkRecord>(m);
          r.threads = get<unsigned>(m, param::threads);
          r.working_set_bytes = get<std::uint64_t>(m, param::working_set_bytes);
          r.row_bytes = get<std::uint64_t>(m, "row_bytes");
          run.column_walks.push_back(std::move(r));
          continue;
        }
        if (part == result_format::part::gather) {
          auto r = record_of<LineGatherRecord>(m);
          r.threads = get<unsigned>(m, param::threads);
          r.working_set_bytes = get<std::uint64_t>(m, param::working_set_bytes);
          r.span_bytes = get<std::uint64_t>(m, "span_bytes");
          // The first gathers (2026-11-27) had one shape, the sum, and no parameter naming it.
          r.shape = m.params.contains("shape") ? get<std::string>(m, "shape")
                                               : result_format::gather_shape::sum;
          if (!result_format::gather_shape::known(r.shape)) {
            throw input_error(m.file, fmt::format("benchmark '{}': params.shape is '{}'; expected "
                                                  "sum or copy",
                                                  m.name, r.shape));
          }
          run.line_gathers.push_back(std::move(r));
          continue;
        }
        if (get<std::string>(m, param::kernel) != result_format::kernel::pointer_chase &&
            part != result_format::part::probe) {
          continue;  // bandwidth: read from every repetition by the memory summary
        }
        auto r = record_of<LatencyRecord>(m);
        r.part = part;
        r.pattern = get<std::string>(m, param::pattern);
        r.page_policy = get<std::string>(m, param::page_policy);
        r.working_set_bytes = get<std::uint64_t>(m, param::working_set_bytes);
        r.threads = get<unsigned>(m, param::threads);
        run.latency.push_back(std::move(r));
      } else if (suite == result_format::suite::contention) {
        if (part == result_format::part::access) {
          auto r = record_of<ContentionAccessRecord>(m);
          r.threads = get<unsigned>(m, param::threads);
          r.stride_words = get<unsigned>(m, param::stride_words);
          r.level_target = get<std::string>(m, param::level_target);
          const std::string access = get<std::string>(m, param::access);
          const std::string sharing = get<std::string>(m, param::sharing);
          if (access != "load" && access != "store") {
            throw input_error(m.file, fmt::format("benchmark '{}': params.access is '{}'; "
                                                  "expected load or store",
                                                  m.name, access));
          }
          if (sharing != "exclusive" && sharing != "concurrent") {
            throw input_error(m.file, fmt::format("benchmark '{}': params.sharing is '{}'; "
                                                  "expected exclusive or concurrent",
                                                  m.name, sharing));
          }
          r.store = access == "store";
          r.concurrent = sharing == "concurrent";
          run.contention_access.push_back(std::move(r));
        } else if (part == result_format::part::one_word) {
          auto r = record_of<OneWordRecord>(m);
          r.threads = get<unsigned>(m, param::threads);
          r.operation = get<std::string>(m, param::operation);
          run.one_word.push_back(std::move(r));
        } else {
          run.contention_other.push_back(std::move(m));
        }
      } else if (suite == result_format::suite::overhead) {
        auto r = record_of<OverheadRecord>(m);
        r.part = part;
        r.operation = get<std::string>(m, param::operation);
        if (part == result_format::part::sync && m.params.contains(param::threads)) {
          r.threads = get<unsigned>(m, param::threads);
        }
        run.overheads.push_back(std::move(r));
      } else if (suite == result_format::suite::compute) {
        if (part == result_format::part::peak) {
          auto r = record_of<PeakRecord>(m);
          r.unit = get<std::string>(m, param::unit);
          r.threads = get<unsigned>(m, param::threads);
          run.peaks.push_back(std::move(r));
        } else if (part == result_format::part::kernels) {
          auto r = record_of<KernelRecord>(m);
          r.operation = get<std::string>(m, param::operation);
          r.mode = get<std::string>(m, param::mode);
          r.counted_flops = get<unsigned>(m, param::counted_flops);
          run.kernels.push_back(std::move(r));
        } else if (part == result_format::part::shared_ports) {
          auto r = record_of<SharedPortsRecord>(m);
          r.width_doubles = get<unsigned>(m, param::width_doubles);
          for (const auto& [key, field] :
               {std::pair{result_format::counter::chain_over_stream, &r.chain_over_stream},
                std::pair{result_format::counter::both_over_stream, &r.both_over_stream}}) {
            const auto it = m.counters.find(key);
            if (it == m.counters.end()) {
              throw input_error(m.file, fmt::format("benchmark '{}': no counter {}", m.name, key));
            }
            *field = it->second;
          }
          run.shared_ports.push_back(std::move(r));
        } else {
          throw input_error(m.file, fmt::format("benchmark '{}': params.part is '{}'; the compute "
                                                "suite writes peak, kernels or shared_ports",
                                                m.name, part));
        }
      } else {  // mpi
        if (part == result_format::part::pingpong) {
          auto r = record_of<PingPongRecord>(m);
          r.message_bytes = get<std::uint64_t>(m, param::message_bytes);
          r.ranks = get<std::vector<std::uint64_t>>(m, param::ranks);
          if (r.ranks.size() != 2) {
            throw input_error(m.file, fmt::format("benchmark '{}': params.ranks holds {} ranks; "
                                                  "a ping-pong is between two",
                                                  m.name, r.ranks.size()));
          }
          run.pingpong.push_back(std::move(r));
        } else if (part == result_format::part::collectives) {
          auto r = record_of<CollectiveRecord>(m);
          r.operation = get<std::string>(m, param::operation);
          r.communicator_ranks = get<unsigned>(m, param::communicator_ranks);
          if (m.params.contains(param::message_bytes)) {
            r.message_bytes = get<std::uint64_t>(m, param::message_bytes);
          }
          run.collectives.push_back(std::move(r));
        } else {
          run.mpi_other.push_back(std::move(m));
        }
      }
    }
  }
  run.files = std::move(files);
  return run;
}

bool RunRecords::has(const std::string& suite) const {
  return std::find(suites.begin(), suites.end(), suite) != suites.end();
}

const nlohmann::json& RunRecords::context(const std::string& suite) const {
  const auto it = contexts.find(suite);
  if (it == contexts.end()) throw input_error(suite, "the run has no results of this suite");
  return it->second;
}

std::vector<const Measurement*> RunRecords::measurements(const std::string& suite) const {
  std::vector<const Measurement*> out;
  const auto add = [&](const auto& list) {
    for (const auto& r : list) out.push_back(&r);
  };
  if (suite == result_format::suite::memory) add(latency), add(column_walks), add(line_gathers);
  if (suite == result_format::suite::contention)
    add(contention_access), add(one_word), add(contention_other);
  if (suite == result_format::suite::overhead) add(overheads);
  if (suite == result_format::suite::compute) add(peaks), add(kernels);
  if (suite == result_format::suite::mpi) add(pingpong), add(collectives), add(mpi_other);
  return out;
}

}  // namespace sonde
