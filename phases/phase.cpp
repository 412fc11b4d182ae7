// The collecting side of sonde/phase.h. Each thread keeps its own record (wall time per phase
// and, with PAPI, its own event counts), so that markers in different threads never contend; the
// records are written as one JSON file when the process exits. Under valgrind's callgrind the
// markers also zero the thread's simulated counts at a phase's start and dump them at its end,
// labelled with the thread and the phase, for `sonde counters` to read. Built without PAPI, the
// papi mode records times only and says so in the record's errors.
#include "sonde/phase.h"

#include <unistd.h>
#include <valgrind/callgrind.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#if SONDE_HAVE_PAPI
#include <papi.h>
#include <pthread.h>
#endif

int sonde_phase_collecting = 0;

namespace {

enum class Mode { time, papi, callgrind };

using Events = std::vector<std::pair<std::string, std::string>>;  // kind, PAPI event name

struct PhaseTotals {
  long long occurrences = 0;
  double seconds = 0;
  std::vector<long long> counts;  // one per event, PAPI mode only
};

struct ThreadRecord {
  int index = 0;       // in the order of first markers
  int processor = -1;  // as the program named it, if it did
  int event_set = -1;  // PAPI_NULL
  bool counting = false;
  std::string open_phase;  // empty between phases
  double opened_at = 0;
  std::vector<long long> at_open;
  std::map<std::string, PhaseTotals, std::less<>> phases;  // found by name without a copy
};

struct Recorder {
  std::string record_prefix;
  Mode mode = Mode::time;
  Events events;
  std::mutex mutex;
  std::deque<ThreadRecord> threads;  // a deque: records never move once a thread holds one
  std::vector<std::string> errors;
};

Recorder& recorder() {
  static Recorder* r = new Recorder;  // never destroyed: threads may mark phases during exit
  return *r;
}

thread_local ThreadRecord* t_record = nullptr;

double now_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void add_error(const std::string& what) {
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  if (r.errors.size() < 20) r.errors.push_back(what);
}

// ---- PAPI, where it is built in ----
#if SONDE_HAVE_PAPI
unsigned long thread_id() { return static_cast<unsigned long>(pthread_self()); }

// Starts PAPI in this process: empty, or why it cannot count.
std::string start_papi() {
  int rc = PAPI_library_init(PAPI_VER_CURRENT);
  if (rc != PAPI_VER_CURRENT) return std::string("PAPI_library_init failed: ") + PAPI_strerror(rc);
  if ((rc = PAPI_thread_init(thread_id)) != PAPI_OK)
    return std::string("PAPI_thread_init failed: ") + PAPI_strerror(rc);
  return "";
}

// Makes the calling thread's event set of `events` and starts it; false, with the reasons added
// to `errors`, when it cannot count.
bool start_event_set(int& set, const Events& events, const std::string& thread,
                     std::vector<std::string>& errors) {
  int rc = PAPI_create_eventset(&set);
  for (const auto& [kind, event] : events) {
    if (rc != PAPI_OK) break;
    rc = PAPI_add_named_event(set, event.c_str());
    if (rc != PAPI_OK) {
      errors.push_back(thread + ": PAPI cannot count " + event + " (" + kind +
                       "): " + PAPI_strerror(rc));
    }
  }
  if (rc == PAPI_OK) rc = PAPI_start(set);
  if (rc != PAPI_OK && !events.empty())
    errors.push_back(thread + ": PAPI counting failed: " + PAPI_strerror(rc));
  return rc == PAPI_OK;
}

void read_event_set(int set, long long* values) { PAPI_read(set, values); }
#else
std::string start_papi() { return "sonde_phase built without PAPI: papi mode records times only"; }
bool start_event_set(int&, const Events&, const std::string&, std::vector<std::string>&) {
  return false;
}
void read_event_set(int, long long*) {}
#endif

ThreadRecord& this_thread() {
  if (t_record != nullptr) return *t_record;
  Recorder& r = recorder();
  {
    std::lock_guard lock(r.mutex);
    r.threads.emplace_back();
    t_record = &r.threads.back();
    t_record->index = static_cast<int>(r.threads.size()) - 1;
  }
  ThreadRecord& t = *t_record;
  if (r.mode == Mode::papi) {
    std::vector<std::string> errors;
    t.counting =
        start_event_set(t.event_set, r.events, "thread " + std::to_string(t.index), errors);
    for (const std::string& error : errors) add_error(error);
    t.at_open.assign(r.events.size(), 0);
  }
  return t;
}

void write_record() {
  Recorder& r = recorder();
  std::lock_guard lock(r.mutex);
  nlohmann::json threads = nlohmann::json::array();
  for (const ThreadRecord& t : r.threads) {
    nlohmann::json phases = nlohmann::json::array();
    for (const auto& [name, totals] : t.phases) {
      nlohmann::json phase = {
          {"name", name}, {"occurrences", totals.occurrences}, {"seconds", totals.seconds}};
      if (t.counting) {
        nlohmann::json counts = nlohmann::json::object();
        for (std::size_t e = 0; e < r.events.size() && e < totals.counts.size(); ++e)
          counts[r.events[e].first] = totals.counts[e];
        phase["counts"] = counts;
      }
      phases.push_back(phase);
    }
    if (!t.open_phase.empty())
      r.errors.push_back("thread " + std::to_string(t.index) + ": phase '" + t.open_phase +
                         "' begun but never ended");
    threads.push_back({{"thread", t.processor >= 0 ? t.processor : t.index},
                       {"named", t.processor >= 0},
                       {"phases", phases}});
  }
  nlohmann::json events = nlohmann::json::object();
  for (const auto& [kind, event] : r.events) events[kind] = event;
  const char* modes[] = {"time", "papi", "callgrind"};
  // An MPI launcher says which rank this process is.
  long rank = -1;
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    if (const char* value = std::getenv(name); value != nullptr && rank < 0)
      rank = std::atol(value);
  }
  const nlohmann::json record = {{"pid", static_cast<long>(getpid())},
                                 {"rank", rank},
                                 {"mode", modes[static_cast<int>(r.mode)]},
                                 {"events", events},
                                 {"errors", r.errors},
                                 {"threads", threads}};
  // Written whole or not at all: a temporary name, then a rename.
  const std::string path = r.record_prefix + "." + std::to_string(getpid()) + ".json";
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary);
    out << record.dump(1) << '\n';
    if (!out) {
      std::fprintf(stderr, "sonde phase: cannot write %s\n", temporary.c_str());
      return;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    std::fprintf(stderr, "sonde phase: cannot rename %s to %s\n", temporary.c_str(), path.c_str());
}

// Reads the environment before main: SONDE_PHASE_RECORD (where to write), SONDE_PHASE_MODE
// (time, papi or callgrind) and SONDE_PHASE_PAPI_EVENTS ("loads=PAPI_LD_INS,stores=...").
__attribute__((constructor)) void start_collecting() {
  const char* prefix = std::getenv("SONDE_PHASE_RECORD");
  if (prefix == nullptr || *prefix == '\0') return;
  Recorder& r = recorder();
  r.record_prefix = prefix;
  const std::string mode = std::getenv("SONDE_PHASE_MODE") ? std::getenv("SONDE_PHASE_MODE") : "";
  if (mode == "papi") r.mode = Mode::papi;
  if (mode == "callgrind") r.mode = Mode::callgrind;
  if (r.mode == Mode::papi) {
    const char* list = std::getenv("SONDE_PHASE_PAPI_EVENTS");
    std::string text = list ? list : "";
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      const std::string item = text.substr(start, end - start);
      const std::size_t eq = item.find('=');
      if (eq != std::string::npos) r.events.emplace_back(item.substr(0, eq), item.substr(eq + 1));
      start = end + 1;
    }
    if (const std::string why = start_papi(); !why.empty()) {
      r.errors.push_back(why);
      r.events.clear();
    }
  }
  std::atexit(write_record);
  sonde_phase_collecting = 1;
}

}  // namespace

extern "C" void sonde_phase_set_processor(int processor) {
  if (!sonde_phase_collecting) return;
  this_thread().processor = processor;
}

extern "C" void sonde_phase_record_begin(const char* name) {
  ThreadRecord& t = this_thread();
  if (!t.open_phase.empty()) {
    add_error("thread " + std::to_string(t.index) + ": phase '" + name + "' begun inside '" +
              t.open_phase + "' (phases do not nest)");
    return;
  }
  t.open_phase = name;
  if (t.counting) read_event_set(t.event_set, t.at_open.data());
  if (recorder().mode == Mode::callgrind) CALLGRIND_ZERO_STATS;
  t.opened_at = now_seconds();
}

extern "C" void sonde_phase_record_end(const char* name) {
  const double closed_at = now_seconds();
  ThreadRecord& t = this_thread();
  if (t.open_phase != name) {
    add_error("thread " + std::to_string(t.index) + ": phase '" + name + "' ended " +
              (t.open_phase.empty() ? std::string("without a begin")
                                    : "while '" + t.open_phase + "' is open"));
    return;
  }
  if (recorder().mode == Mode::callgrind) {
    const int processor = t.processor >= 0 ? t.processor : t.index;
    const std::string label = "sonde phase " + std::to_string(processor) + " " + name;
    CALLGRIND_DUMP_STATS_AT(label.c_str());
  }
  auto found = t.phases.find(std::string_view(name));
  if (found == t.phases.end()) found = t.phases.emplace(name, PhaseTotals{}).first;
  PhaseTotals& totals = found->second;
  if (t.counting) {
    std::vector<long long> now(t.at_open.size(), 0);
    read_event_set(t.event_set, now.data());
    totals.counts.resize(now.size(), 0);
    for (std::size_t e = 0; e < now.size(); ++e) totals.counts[e] += now[e] - t.at_open[e];
  }
  totals.occurrences += 1;
  totals.seconds += closed_at - t.opened_at;
  t.open_phase.clear();
}
