#include "counters/collect.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/program.hpp"
#include "core/statistics.hpp"
#include "core/units.hpp"
#include "microbench/hardware_counters.hpp"

namespace sonde::counters {

namespace fs = std::filesystem;

// Reads the records a run left under `prefix`.<pid>.json; several (MPI ranks) are numbered
// rank by rank.
RunRecord read_phase_records(const fs::path& prefix, const std::string& program, int* processes) {
  std::vector<std::pair<fs::path, nlohmann::json>> records;
  const std::string stem = prefix.filename().string() + ".";
  for (const auto& entry : fs::directory_iterator(prefix.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(stem, 0) != 0 || entry.path().extension() != ".json") continue;
    try {
      records.emplace_back(entry.path(), nlohmann::json::parse(read_file(entry.path())));
    } catch (const nlohmann::json::exception& e) {
      throw input_error(entry.path().string(), fmt::format("not a phase record: {}", e.what()));
    }
  }
  if (records.empty()) {
    throw input_error(program,
                      "wrote no phase record: is it linked with -lsonde_phase (sonde/phase.h)? A "
                      "program that exits without returning from main writes none");
  }
  const auto order = [](const nlohmann::json& r) {
    const auto number = [&](const char* key, long otherwise) {
      return r.contains(key) && r[key].is_number_integer() ? r[key].get<long>() : otherwise;
    };
    return std::pair{number("rank", -1), number("pid", 0)};
  };
  std::sort(records.begin(), records.end(),
            [&](const auto& a, const auto& b) { return order(a.second) < order(b.second); });
  RunRecord run;
  int base = 0;
  for (const auto& [path, record] : records) {
    try {
      const auto& errors = record.value("errors", nlohmann::json::array());
      if (!errors.empty()) {
        std::vector<std::string> what;
        for (const auto& e : errors) what.push_back(e.get<std::string>());
        throw input_error(program,
                          fmt::format("its phase markers reported: {}", fmt::join(what, "; ")));
      }
      int highest = -1;
      for (const auto& thread : record.at("threads")) {
        const int processor = base + thread.at("thread").get<int>();
        highest = std::max(highest, thread.at("thread").get<int>());
        for (const auto& phase : thread.at("phases")) {
          PhaseRecord& p = run[{processor, phase.at("name").get<std::string>()}];
          p.seconds = phase.at("seconds").get<double>();
          if (phase.contains("counts"))
            for (const auto& [kind, value] : phase.at("counts").items())
              p.counts[kind] = value.get<double>();
        }
      }
      base += highest + 1;
    } catch (const nlohmann::json::exception& e) {
      throw input_error(path.string(), fmt::format("not a phase record: {}", e.what()));
    }
  }
  if (processes) *processes = static_cast<int>(records.size());
  if (run.empty()) throw input_error(program, "marked no phase (sonde/phase.h)");
  return run;
}

namespace {

std::string program_name(const CollectOptions& o) { return o.command.front(); }

void check_same_phases(const RunRecord& first, const RunRecord& other, int run,
                       const CollectOptions& o) {
  for (const auto* a : {&first, &other}) {
    const auto* b = a == &first ? &other : &first;
    for (const auto& [key, value] : *a) {
      if (!b->count(key)) {
        throw input_error(program_name(o),
                          fmt::format("run {} and run 1 differ: processor {} marked phase '{}' in "
                                      "one of them only; a program must mark the same phases "
                                      "in every run",
                                      run, key.first, key.second));
      }
    }
  }
}

void run_or_fail(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 const CollectOptions& o, const std::string& what, const fs::path& log = {}) {
  const ChildExit exit = run_child(argv, env);
  if (interrupting_signal() != 0) {
    throw Error(ExitCode::interrupted, program_name(o), "interrupted; nothing written");
  }
  if (!exit.ok()) {
    std::string tail;
    if (!log.empty() && fs::exists(log)) {
      const std::string text = read_file(log);
      tail = "; valgrind's log ends: " + text.substr(text.size() > 600 ? text.size() - 600 : 0);
    }
    throw Error(ExitCode::failure, program_name(o),
                fmt::format("{} failed ({}); nothing written{}", what,
                            exit.signaled ? fmt::format("killed by signal {}", exit.code)
                                          : fmt::format("exit {}", exit.code),
                            tail));
  }
}

}  // namespace

Source source_named(const std::string& name) {
  if (name == "auto") return Source::automatic;
  if (name == "papi") return Source::papi;
  if (name == "valgrind") return Source::valgrind;
  if (name == "time") return Source::time;
  throw usage_error("--source", fmt::format("'{}': expected auto, papi, valgrind or time", name));
}

std::string CacheGeometry::valgrind_option() const {
  return fmt::format("{},{},{}", bytes, ways, line);
}

std::vector<ValgrindPass> valgrind_passes(const profile::Profile& machine,
                                          const std::string& machine_name) {
  std::vector<CacheGeometry> caches;
  for (std::size_t i = 0; i < machine.memory.size(); ++i) {
    const profile::MemoryLevel& level = machine.memory[i];
    if (level.name == "DRAM") continue;  // the profile lists data caches, then memory
    for (const auto& [field, value] : {std::pair{"capacity_bytes", level.capacity_bytes},
                                       {"line_bytes", level.line_bytes},
                                       {"ways", level.ways}}) {
      if (!value) {
        throw input_error(machine_name,
                          fmt::format("memory[{}].{}: absent ({}); valgrind's cache simulation "
                                      "needs every cache's capacity_bytes, line_bytes and ways",
                                      i, field, level.name));
      }
    }
    caches.push_back({level.name, *level.capacity_bytes, *level.ways, *level.line_bytes});
  }
  if (caches.size() < 2) {
    throw input_error(machine_name,
                      fmt::format("memory: {} cache level{}; valgrind's simulation needs an L1 "
                                  "and a last level",
                                  caches.size(), caches.size() == 1 ? "" : "s"));
  }
  const CacheGeometry& l1 = caches.front();
  std::vector<ValgrindPass> passes;
  if (caches.size() >= 3) {
    passes.push_back({"l2", l1, caches[1], {"loads", "stores", "l1_misses", "l2_misses"}});
    passes.push_back({"llc", l1, caches.back(), {"llc_misses", "llc_writebacks"}});
  } else {
    passes.push_back({"llc",
                      l1,
                      caches.back(),
                      {"loads", "stores", "l1_misses", "llc_misses", "llc_writebacks"}});
  }
  // A last level shaped like the L1 sees every L1 miss; its write-backs are the L1's.
  passes.push_back({"l1_writebacks", l1, l1, {"l1_writebacks"}});
  return passes;
}

std::optional<CallgrindDump> parse_callgrind_dump(const std::string& text,
                                                  const std::string& file) {
  static const std::string kTrigger = "desc: Trigger: Client Request: sonde phase ";
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> names;
  std::optional<CallgrindDump> dump;
  std::vector<double> summary;
  bool have_summary = false;
  while (std::getline(in, line)) {
    if (line.rfind(kTrigger, 0) == 0) {
      const std::string rest = line.substr(kTrigger.size());
      const std::size_t space = rest.find(' ');
      CallgrindDump d;
      try {
        d.processor = std::stoi(rest.substr(0, space));
      } catch (const std::exception&) {
        throw input_error(file, fmt::format("malformed phase trigger '{}'", line));
      }
      if (space == std::string::npos || space + 1 >= rest.size())
        throw input_error(file, fmt::format("phase trigger without a phase: '{}'", line));
      d.phase = rest.substr(space + 1);
      dump = d;
    } else if (line.rfind("events:", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string w;
      while (words >> w) names.push_back(w);
    } else if (line.rfind("summary:", 0) == 0) {
      std::istringstream words(line.substr(8));
      double v = 0;
      while (words >> v) summary.push_back(v);
      have_summary = true;
    }
  }
  if (!dump) return std::nullopt;
  if (names.empty() || !have_summary || summary.size() > names.size())
    throw input_error(file, "callgrind dump without events and summary lines");
  // Callgrind leaves trailing zero events out of its summary.
  for (std::size_t i = 0; i < names.size(); ++i)
    dump->events[names[i]] = i < summary.size() ? summary[i] : 0;
  return dump;
}

CallgrindCounts callgrind_counts(const CallgrindDump& d, const std::vector<std::string>& counters) {
  static const std::map<std::string, std::vector<std::string>> sums = {
      {"loads", {"Dr"}},
      {"stores", {"Dw"}},
      {"l1_misses", {"D1mr", "D1mw"}},
      {"l2_misses", {"DLmr", "DLmw"}},
      {"llc_misses", {"DLmr", "DLmw"}},
      {"llc_writebacks", {"DLdmr", "DLdmw"}},
      {"l1_writebacks", {"DLdmr", "DLdmw"}}};
  CallgrindCounts out;
  for (const std::string& counter : counters) {
    const auto sum = sums.find(counter);
    if (sum == sums.end()) {
      out.missing[counter] = "callgrind has no event for it";
      continue;
    }
    double total = 0;
    std::vector<std::string> absent;
    for (const std::string& name : sum->second) {
      const auto it = d.events.find(name);
      if (it == d.events.end()) {
        absent.push_back(name);
      } else {
        total += it->second;
      }
    }
    if (absent.empty()) {
      out.counts[counter] = total;
    } else {
      out.missing[counter] = fmt::format("callgrind's dump has no {} event{}: not measured, not 0",
                                         fmt::join(absent, " or "), absent.size() == 1 ? "" : "s");
    }
  }
  return out;
}

Collected collect(const CollectOptions& o) {
  if (o.command.empty()) throw usage_error("--", "no program to run");
  if (!(o.size > 0)) throw usage_error("--size", "expected the problem size, > 0");
  if (o.repetitions < 1) throw usage_error("--repetitions", "expected at least 1");
  const auto say = [&](const std::string& text) {
    if (o.progress) o.progress(text);
  };
  fs::remove_all(o.work_folder);
  fs::create_directories(o.work_folder);

  // Which source counts.
  Source source = o.source;
  std::string papi_events;
  std::vector<std::string> notes;
  if (source == Source::papi && !microbench::papi_built_in()) {
    throw Error(ExitCode::failure, "--source papi",
                "this sonde was built without PAPI (CMake option SONDE_PAPI off, or PAPI not "
                "found when it was configured); use --source valgrind or --source time");
  }
  if (source == Source::automatic || source == Source::papi) {
    microbench::HardwareCounters::open(o.papi_overrides);
    const auto& hardware = microbench::HardwareCounters::get();
    std::vector<std::string> events, missing;
    for (const auto& choice : hardware.choices()) {
      const std::string kind{microbench::name_of(choice.kind)};
      if (choice.event.empty())
        missing.push_back(kind);
      else
        events.push_back(kind + "=" + choice.event);
    }
    papi_events = fmt::format("{}", fmt::join(events, ","));
    const bool complete = hardware.active() && missing.empty();
    // Why PAPI does not count here: the build, or the machine.
    const std::string papi_why =
        microbench::papi_built_in() ? hardware.status() : "sonde was built without PAPI";
    if (source == Source::automatic) {
      if (complete) {
        source = Source::papi;
      } else if (on_path("valgrind")) {
        source = Source::valgrind;
        notes.push_back(
            fmt::format("PAPI: {}; counting with valgrind's cache simulation", papi_why));
      } else {
        throw Error(ExitCode::failure, "counters",
                    fmt::format("PAPI cannot count everything here ({}) and valgrind is not "
                                "installed; install valgrind or pass --source time",
                                papi_why));
      }
    }
    if (source == Source::papi && !hardware.active())
      throw Error(ExitCode::failure, "--source papi", hardware.status());
    if (source == Source::papi && !missing.empty())
      notes.push_back(
          fmt::format("PAPI counts no {} here: absent from the file", fmt::join(missing, ", ")));
  }
  std::vector<ValgrindPass> passes;
  if (source == Source::valgrind) {
    if (!o.machine) {
      throw usage_error("--machine",
                        "valgrind's cache simulation needs the target machine's "
                        "profile for its cache geometry");
    }
    passes = valgrind_passes(*o.machine, o.machine_name);
    if (!on_path("valgrind")) throw Error(ExitCode::failure, "valgrind", "not found on the PATH");
  }

  SignalForwarding forwarding;
  // Native runs: the times, and PAPI's counts.
  std::vector<RunRecord> runs;
  int processes = 1;
  for (int r = 1; r <= o.repetitions; ++r) {
    say(fmt::format("run {}/{}{}", r, o.repetitions, source == Source::papi ? " (PAPI)" : ""));
    const fs::path prefix = o.work_folder / fmt::format("native-{}", r);
    std::vector<std::string> env = {"SONDE_PHASE_RECORD=" + prefix.string()};
    if (source == Source::papi) {
      env.push_back("SONDE_PHASE_MODE=papi");
      env.push_back("SONDE_PHASE_PAPI_EVENTS=" + papi_events);
    }
    run_or_fail(o.command, env, o, fmt::format("run {}", r));
    runs.push_back(read_phase_records(prefix, program_name(o), &processes));
    if (r > 1) check_same_phases(runs.front(), runs.back(), r, o);
  }

  Collected out;
  out.counts_source = source == Source::papi       ? "papi"
                      : source == Source::valgrind ? "callgrind"
                                                   : "none";
  const auto add = [&](int processor, const std::string& phase, const std::string& counter,
                       counters::CountValue value) {
    auto it = std::find_if(out.table.phases.begin(), out.table.phases.end(),
                           [&](const counters::PhaseCounts& p) { return p.phase == phase; });
    if (it == out.table.phases.end()) {
      out.table.phases.push_back({phase, o.size, {}, {}, std::nullopt, program_name(o)});
      it = std::prev(out.table.phases.end());
    }
    value.where = program_name(o);
    it->processors[processor][counter] = value;
  };
  for (const auto& [key, first] : runs.front()) {
    std::vector<double> seconds;
    for (const RunRecord& run : runs) seconds.push_back(run.at(key).seconds);
    add(key.first, key.second, "time",
        {median(seconds), *std::min_element(seconds.begin(), seconds.end()),
         *std::max_element(seconds.begin(), seconds.end()), "clock", ""});
    for (const auto& [kind, value] : first.counts) {
      std::vector<double> counts;
      for (const RunRecord& run : runs) counts.push_back(run.at(key).counts.at(kind));
      add(key.first, key.second, kind,
          {median(counts), *std::min_element(counts.begin(), counts.end()),
           *std::max_element(counts.begin(), counts.end()), "papi", ""});
    }
  }

  // Valgrind: one run per pass; its counts are deterministic up to thread interleaving.
  for (const ValgrindPass& pass : passes) {
    if (processes > 1) {
      throw usage_error("--source valgrind",
                        "the program ran as several processes; valgrind counts threads of one "
                        "process here (count MPI ranks with PAPI)");
    }
    const fs::path folder = o.work_folder / ("callgrind-" + pass.name);
    fs::create_directories(folder);
    say(fmt::format("valgrind {}: D1 {} {}-way, LL {} {}-way ({})", pass.name,
                    format_bytes(static_cast<double>(pass.d1.bytes)), pass.d1.ways,
                    format_bytes(static_cast<double>(pass.ll.bytes)), pass.ll.ways, pass.ll.name));
    std::vector<std::string> argv = {"valgrind",
                                     "--tool=callgrind",
                                     "--cache-sim=yes",
                                     "--simulate-wb=yes",
                                     "--separate-threads=yes",
                                     "--D1=" + pass.d1.valgrind_option(),
                                     "--LL=" + pass.ll.valgrind_option(),
                                     "--callgrind-out-file=" + (folder / "callgrind.%p").string(),
                                     "--log-file=" + (folder / "valgrind.log").string()};
    argv.insert(argv.end(), o.command.begin(), o.command.end());
    run_or_fail(
        argv, {"SONDE_PHASE_RECORD=" + (folder / "record").string(), "SONDE_PHASE_MODE=callgrind"},
        o, "valgrind pass " + pass.name, folder / "valgrind.log");
    std::map<std::pair<int, std::string>, CallgrindDump> sums;
    // Per processor and phase: its dumps, and how many of them have each event.
    std::map<std::pair<int, std::string>, std::pair<int, std::map<std::string, int>>> seen;
    for (const auto& entry : fs::directory_iterator(folder)) {
      if (entry.path().filename().string().rfind("callgrind.", 0) != 0) continue;
      const auto dump = parse_callgrind_dump(read_file(entry.path()), entry.path().string());
      if (!dump) continue;
      const std::pair<int, std::string> key{dump->processor, dump->phase};
      CallgrindDump& sum = sums[key];
      sum.processor = dump->processor;
      sum.phase = dump->phase;
      auto& [dumps, having] = seen[key];
      ++dumps;
      for (const auto& [name, value] : dump->events) {
        sum.events[name] += value;
        ++having[name];
      }
    }
    // An event that some of a phase's dumps lack was not counted over all of it: not an event of
    // the sum, so that the counts it gives are reported missing rather than short.
    for (auto& [key, sum] : sums) {
      const auto& [dumps, having] = seen[key];
      // Init-captures: clang before 16 cannot capture a structured binding.
      std::erase_if(sum.events, [&having = having, dumps = dumps](const auto& e) {
        return having.at(e.first) < dumps;
      });
    }
    for (const auto& [key, value] : runs.front()) {
      if (!sums.count(key)) {
        throw input_error(program_name(o),
                          fmt::format("valgrind pass {}: no callgrind dump for processor {}, "
                                      "phase '{}'",
                                      pass.name, key.first, key.second));
      }
    }
    for (const auto& [key, d] : sums) {
      const CallgrindCounts counts = callgrind_counts(d, pass.counts);
      for (const auto& [counter, value] : counts.counts)
        add(key.first, key.second, counter, {value, std::nullopt, std::nullopt, "callgrind", ""});
      // A count callgrind did not measure stays out of the file; the note says which and why.
      for (const auto& [counter, why] : counts.missing) {
        const std::string note =
            fmt::format("valgrind pass {}: {} absent from the file ({})", pass.name, counter, why);
        if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
      }
    }
  }
  out.notes = notes;
  return out;
}

}  // namespace sonde::counters
