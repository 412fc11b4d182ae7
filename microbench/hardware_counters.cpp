#include "microbench/hardware_counters.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <mutex>

#include "core/error.hpp"
#include "microbench/page_buffer.hpp"

#if SONDE_HAVE_PAPI
#include <papi.h>
#include <pthread.h>
#endif

namespace sonde::microbench {
namespace {

HardwareCounters& instance() {
  static HardwareCounters counters;
  return counters;
}

// The candidates of each kind, `overrides` ("loads=EVENT") in place of the built-in ones; a
// malformed override or an unknown kind is a usage Error naming --papi-event.
struct Candidates {
  std::map<CountKind, std::vector<std::string>> events;
  std::map<CountKind, bool> overridden;
};
Candidates candidates_with(const std::vector<std::string>& overrides) {
  Candidates c;
  for (CountKind kind : all_count_kinds()) c.events[kind] = candidate_events(kind);
  for (const std::string& text : overrides) {
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
      throw usage_error("--papi-event", fmt::format("'{}' is not KIND=EVENT", text));
    }
    const std::string kind_name = text.substr(0, equals);
    const std::optional<CountKind> kind = count_kind_named(kind_name);
    if (!kind) {
      std::vector<std::string_view> names;
      for (CountKind k : all_count_kinds()) names.push_back(name_of(k));
      throw usage_error("--papi-event", fmt::format("unknown kind '{}'; the kinds are {}",
                                                    kind_name, fmt::join(names, ", ")));
    }
    if (!c.overridden[*kind]) c.events[*kind].clear();
    c.overridden[*kind] = true;
    c.events[*kind].push_back(text.substr(equals + 1));
  }
  return c;
}

}  // namespace

bool papi_built_in() { return SONDE_HAVE_PAPI != 0; }

std::vector<std::string> candidate_events(CountKind kind) {
  // Presets where PAPI has them; then native names (libpfm4) of Intel cores and AMD Zen cores.
  // No preset counts write-backs, and the native events differ per CPU generation: a CPU not
  // listed here reports them missing until --papi-event names its event.
  switch (kind) {
    case CountKind::loads:
      return {"PAPI_LD_INS", "MEM_INST_RETIRED:ALL_LOADS", "ls_dispatch:ld_dispatch"};
    case CountKind::stores:
      return {"PAPI_SR_INS", "MEM_INST_RETIRED:ALL_STORES", "ls_dispatch:store_dispatch"};
    case CountKind::l1_misses:
      return {"PAPI_L1_DCM", "L1D:REPLACEMENT"};
    case CountKind::l2_misses:
      return {"PAPI_L2_DCM", "PAPI_L2_TCM"};
    case CountKind::llc_misses:
      return {"PAPI_L3_TCM", "PAPI_L3_DCM", "perf::LLC-LOAD-MISSES"};
    case CountKind::l1_writebacks:
      return {"L2_TRANS:L1D_WB", "L1D:M_EVICT"};
    case CountKind::llc_writebacks:
      return {"L2_LINES_OUT:NON_SILENT", "L2_TRANS:L2_WB"};
  }
  return {};
}

std::vector<EventChoice> choose_events(
    const std::vector<std::string>& overrides,
    const std::function<std::string(const std::string& event)>& try_add) {
  Candidates candidates = candidates_with(overrides);
  std::vector<EventChoice> choices;
  for (CountKind kind : all_count_kinds()) {
    EventChoice choice{kind, "", ""};
    std::vector<std::string> refusals;
    for (const std::string& event : candidates.events[kind]) {
      const std::string why = try_add(event);
      if (why.empty()) {
        choice.event = event;
        break;
      }
      refusals.push_back(fmt::format("{}: {}", event, why));
    }
    if (choice.event.empty()) {
      choice.missing_reason = refusals.empty() ? "no event known for this CPU"
                                               : fmt::format("{}", fmt::join(refusals, "; "));
    }
    choices.push_back(choice);
  }
  return choices;
}

EventTotals& EventTotals::operator+=(const EventTotals& other) {
  for (std::size_t i = 0; i < kCountKinds; ++i) values[i] += other.values[i];
  failed = failed || other.failed;
  return *this;
}

// ---- PAPI, where it is built in; else every kind is missing "built without PAPI" ----
#if SONDE_HAVE_PAPI
namespace {

unsigned long thread_id() { return static_cast<unsigned long>(::pthread_self()); }

std::string papi_error(int code) { return PAPI_strerror(code); }

// One event set per thread, made on the thread's first start() with the chosen events.
struct ThreadEventSet {
  int set = PAPI_NULL;
  bool ready = false;
  bool failed = false;
  ~ThreadEventSet() {
    if (!ready) return;
    long long ignored[kCountKinds];
    PAPI_stop(set, ignored);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    PAPI_unregister_thread();
  }
};
thread_local ThreadEventSet thread_events;

}  // namespace

void HardwareCounters::open(const std::vector<std::string>& overrides) {
  static std::once_flag once;
  std::call_once(once, [&] {
    HardwareCounters& counters = instance();
    const int version = PAPI_library_init(PAPI_VER_CURRENT);
    if (version != PAPI_VER_CURRENT) {
      counters.unavailable_why_ = fmt::format("PAPI did not start: {}", papi_error(version));
      counters.choices_ =
          choose_events(overrides, [&](const std::string&) { return counters.unavailable_why_; });
      return;
    }
    counters.library_ =
        fmt::format("PAPI {}.{}.{}.{}", PAPI_VERSION_MAJOR(version), PAPI_VERSION_MINOR(version),
                    PAPI_VERSION_REVISION(version), PAPI_VERSION_INCREMENT(version));
    PAPI_thread_init(thread_id);
    const int components = PAPI_num_components();
    for (int c = 0; c < components; ++c) {
      const PAPI_component_info_t* info = PAPI_get_component_info(c);
      if (info != nullptr && std::string(info->name) == "perf_event" && info->disabled != 0) {
        counters.unavailable_why_ = fmt::format("perf_event: {}", info->disabled_reason);
      }
    }
    // Events are added to one probe set in turn, so that two that cannot count together show.
    int probe = PAPI_NULL;
    PAPI_create_eventset(&probe);
    counters.choices_ = choose_events(overrides, [&](const std::string& event) -> std::string {
      const int code = PAPI_add_named_event(probe, event.c_str());
      return code == PAPI_OK ? "" : papi_error(code);
    });
    PAPI_cleanup_eventset(probe);
    PAPI_destroy_eventset(&probe);
    for (const EventChoice& choice : counters.choices_) {
      if (!choice.event.empty()) counters.active_ = true;
    }
    if (!counters.active_ && counters.unavailable_why_.empty()) {
      counters.unavailable_why_ = "no requested event is available";
    }
  });
}

void HardwareCounters::start() const {
  if (!active_) return;
  ThreadEventSet& events = thread_events;
  if (!events.ready && !events.failed) {
    PAPI_register_thread();
    bool ok = PAPI_create_eventset(&events.set) == PAPI_OK;
    for (const EventChoice& choice : choices_) {
      if (ok && !choice.event.empty()) {
        ok = PAPI_add_named_event(events.set, choice.event.c_str()) == PAPI_OK;
      }
    }
    events.ready = ok;
    events.failed = !ok;
  }
  if (events.ready && PAPI_start(events.set) != PAPI_OK) events.failed = true;
}

void HardwareCounters::stop(EventTotals& totals) const {
  if (!active_) return;
  ThreadEventSet& events = thread_events;
  long long values[kCountKinds] = {};
  if (events.failed || !events.ready || PAPI_stop(events.set, values) != PAPI_OK) {
    totals.failed = true;
    return;
  }
  // The set holds the chosen events in the order of the kinds, skipping the missing ones.
  std::size_t slot = 0;
  for (const EventChoice& choice : choices_) {
    if (choice.event.empty()) continue;
    totals.values[static_cast<std::size_t>(choice.kind)] += values[slot++];
  }
}

#else

namespace {
constexpr const char* kWithoutPapi = "built without PAPI";
}  // namespace

void HardwareCounters::open(const std::vector<std::string>& overrides) {
  static std::once_flag once;
  std::call_once(once, [&] {
    HardwareCounters& counters = instance();
    counters.unavailable_why_ = kWithoutPapi;
    // --papi-event is checked as in a build with PAPI, and then has no effect.
    Candidates candidates = candidates_with(overrides);
    for (CountKind kind : all_count_kinds()) {
      std::string why = kWithoutPapi;
      if (candidates.overridden[kind]) {
        why += fmt::format(": --papi-event {}={} has no effect", name_of(kind),
                           fmt::join(candidates.events[kind], ","));
        counters.unavailable_why_ = fmt::format("{}: --papi-event has no effect", kWithoutPapi);
      }
      counters.choices_.push_back({kind, "", why});
    }
  });
}

void HardwareCounters::start() const {}

void HardwareCounters::stop(EventTotals&) const {}

#endif

const HardwareCounters& HardwareCounters::get() { return instance(); }

std::string HardwareCounters::status() const {
  std::vector<std::string> counted, missing;
  for (const EventChoice& choice : choices_) {
    if (choice.event.empty()) {
      missing.push_back(std::string(name_of(choice.kind)));
    } else {
      counted.push_back(fmt::format("{} ({})", name_of(choice.kind), choice.event));
    }
  }
  if (!active_) {
    return fmt::format(
        "counters: no hardware events ({}{}); the counts each benchmark's access pattern and the "
        "cache sizes imply are recorded as derived.*",
        library_.empty() ? "" : library_ + ": ", unavailable_why_);
  }
  std::string line = fmt::format("counters: {} counts {}", library_, fmt::join(counted, ", "));
  if (!missing.empty()) {
    line += fmt::format("; missing {} (see context.sonde.counters)", fmt::join(missing, ", "));
  }
  return line;
}

nlohmann::json HardwareCounters::to_json() const {
  nlohmann::json events = nlohmann::json::object(), missing = nlohmann::json::object();
  for (const EventChoice& choice : choices_) {
    if (choice.event.empty()) {
      missing[std::string(name_of(choice.kind))] = choice.missing_reason;
    } else {
      events[std::string(name_of(choice.kind))] = choice.event;
    }
  }
  nlohmann::json json = {
      {"measured", active_ ? "papi" : "none"},
      {"papi_built_in", papi_built_in()},
      {"library", library_.empty() ? nlohmann::json() : nlohmann::json(library_)},
      {"events", events},
      {"missing", missing},
      {"derived",
       "derived.* counters come from each benchmark's access pattern and the "
       "cache geometry (microbench/derived_counts.hpp); they are a model, not "
       "a measurement"}};
  if (!active_) json["why_not_measured"] = unavailable_why_;
  return json;
}

const EventTotals& ScopedCounting::stop() {
  if (!stopped_) HardwareCounters::get().stop(totals_);
  stopped_ = true;
  return totals_;
}

void record_counts(benchmark::State& state, const EventTotals& measured, const std::string& unit,
                   double per_iteration, const std::optional<Counts>& derived) {
  const HardwareCounters& counters = HardwareCounters::get();
  const double units = static_cast<double>(state.iterations()) * per_iteration;
  // A count that broke part way is left out, and says so, rather than recorded short.
  if (counters.active() && measured.failed) state.counters["papi.counting_failed"] = 1;
  if (counters.active() && !measured.failed && units > 0) {
    for (const EventChoice& choice : counters.choices()) {
      if (choice.event.empty()) continue;
      const auto value =
          static_cast<double>(measured.values[static_cast<std::size_t>(choice.kind)]);
      state.counters[fmt::format("papi.{}_per_{}", name_of(choice.kind), unit)] = value / units;
    }
  }
  if (derived) {
    for (CountKind kind : all_count_kinds()) {
      const std::optional<double>& value = (*derived)[static_cast<std::size_t>(kind)];
      if (value) state.counters[fmt::format("derived.{}_per_{}", name_of(kind), unit)] = *value;
    }
  }
}

std::optional<Counts> derive_on(const Topology& topology, const AccessPattern& pattern) {
  const std::vector<CacheGeometry> caches = cache_geometry(topology);
  if (caches.empty()) return std::nullopt;
  return to_counts(derive_counts(pattern, caches, base_page_bytes()));
}

nlohmann::json count_sources(const std::optional<AccessPattern>& pattern,
                             const std::string& not_derived_why) {
  const HardwareCounters& counters = HardwareCounters::get();
  nlohmann::json json = {{"measured", counters.active() ? "papi" : "none"}};
  if (pattern) {
    json["derived"] = to_json(*pattern);
  } else {
    json["derived"] = nullptr;
    json["not_derived"] = not_derived_why;
  }
  return json;
}

}  // namespace sonde::microbench
