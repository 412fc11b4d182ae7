// OTF2 reading and writing with the OTF2 3.0 C API, serially: one process writes (and reads) every
// location of the archive.
//
// The mapping, so that Vampir, Scalasca and otf2-print read what sonde writes, and sonde reads
// what Score-P writes:
//  - one system-tree node (the "host" property, or "localhost"), one location group of type
//    PROCESS per rank, one CPU-thread location per rank whose id is the world rank;
//  - one region per MPI function (paradigm MPI) and one per phase (paradigm USER, role CODE, the
//    PHASE flag and the description "sonde phase": OTF2 3.0 has no phase role, Score-P marks its
//    phases with the flag);
//  - communicators as Score-P writes them: one COMM_LOCATIONS group listing the locations in world
//    rank order, one COMM_GROUP per communicator whose members index that group, one Comm each;
//  - per call: Enter, its MPI events, Leave. Events that begin an operation (MpiSend, MpiIsend,
//    MpiIrecvRequest, MpiCollectiveBegin) are stamped at the call's enter, those that complete one
//    (MpiRecv, MpiIsendComplete, MpiIrecv, MpiCollectiveEnd) at its leave; an operation that
//    follows a completion in the call is stamped at the leave too, so the order of the
//    operations survives. Only the fields OTF2 records for an event are kept: an isend_complete
//    or irecv_request carries its request alone, a collective no tag.
//  - the rank's life: a ProgramBegin at start_ns and a ProgramEnd at end_ns (OTF2 3.0 events that
//    Score-P writes too). The reader takes a rank's start and end as the times of its first and
//    last event, which recovers them here and is what a foreign trace without them gives.
//  - process time: a metric "process_time" (ns, ACCUMULATED_START, UINT64): the rank's process
//    time outside MPI calls summed from its start, recorded just before the Enter of each call
//    that has process_ns_before, and once more at end_ns where process_ns_after is set. The
//    reader takes differences: a call's process time is the value at its Enter minus the value at
//    the previous call's Leave (the last value seen by then), which also reads a Score-P trace
//    that records a CPU-time metric at every Enter and Leave.
//  - Trace::properties as archive properties "SONDE::<key>".
#include "trace/otf2_io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <otf2/otf2.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"

namespace sonde::trace {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// OTF2's errors

// OTF2 reports an error through a process-wide callback (by default a line on standard error)
// before it returns the code. While sonde calls OTF2 the callback keeps the first, innermost
// report, which names the file OTF2 could not read and the system's reason, for sonde's Error.
struct Otf2Report {
  std::string message;
  OTF2_ErrorCode code = OTF2_SUCCESS;
};
thread_local Otf2Report otf2_report;

OTF2_ErrorCode keep_report(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                           const char* format, va_list arguments) {
  if (otf2_report.code == OTF2_SUCCESS && code != OTF2_SUCCESS) {
    char text[1024] = "";
    if (format != nullptr) std::vsnprintf(text, sizeof text, format, arguments);
    otf2_report = {text, code};
  }
  return code;
}

// Installs keep_report for the lifetime of the object; the first holder installs it and the last
// one puts OTF2's default back.
class CaptureOtf2Errors {
 public:
  CaptureOtf2Errors() {
    const std::lock_guard lock(mutex_);
    if (holders_++ == 0) OTF2_Error_RegisterCallback(keep_report, nullptr);
    otf2_report = {};
  }
  CaptureOtf2Errors(const CaptureOtf2Errors&) = delete;
  CaptureOtf2Errors& operator=(const CaptureOtf2Errors&) = delete;
  ~CaptureOtf2Errors() {
    const std::lock_guard lock(mutex_);
    if (--holders_ == 0) OTF2_Error_RegisterCallback(nullptr, nullptr);
  }

 private:
  static inline std::mutex mutex_;
  static inline int holders_ = 0;
};

// "No such file or directory (POSIX: 'run/1.evt')": the innermost report where OTF2 made one,
// else the description of `code`; the report is then forgotten.
std::string otf2_problem(OTF2_ErrorCode code) {
  std::string text;
  if (otf2_report.code != OTF2_SUCCESS) {
    text = OTF2_Error_GetDescription(otf2_report.code);
    if (!otf2_report.message.empty()) text += " (" + otf2_report.message + ")";
  } else {
    text = OTF2_Error_GetDescription(code);
  }
  otf2_report = {};
  return text;
}

// ---------------------------------------------------------------------------------------------
// Mappings shared by the writer and the reader

OTF2_CollectiveOp to_otf2(CollectiveOp op, const std::string& function) {
  std::string lower = function;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool vector_variant = !lower.empty() && lower.back() == 'v';
  const auto has = [&](const char* part) { return lower.find(part) != std::string::npos; };
  switch (op) {
    case CollectiveOp::barrier:
      return OTF2_COLLECTIVE_OP_BARRIER;
    case CollectiveOp::broadcast:
      return OTF2_COLLECTIVE_OP_BCAST;
    case CollectiveOp::gather:
      return vector_variant ? OTF2_COLLECTIVE_OP_GATHERV : OTF2_COLLECTIVE_OP_GATHER;
    case CollectiveOp::scatter:
      return vector_variant ? OTF2_COLLECTIVE_OP_SCATTERV : OTF2_COLLECTIVE_OP_SCATTER;
    case CollectiveOp::allgather:
      return vector_variant ? OTF2_COLLECTIVE_OP_ALLGATHERV : OTF2_COLLECTIVE_OP_ALLGATHER;
    case CollectiveOp::alltoall:
      return vector_variant ? OTF2_COLLECTIVE_OP_ALLTOALLV : OTF2_COLLECTIVE_OP_ALLTOALL;
    case CollectiveOp::reduce:
      return OTF2_COLLECTIVE_OP_REDUCE;
    case CollectiveOp::allreduce:
      return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case CollectiveOp::scan:
      return has("exscan") ? OTF2_COLLECTIVE_OP_EXSCAN : OTF2_COLLECTIVE_OP_SCAN;
    case CollectiveOp::reduce_scatter:
      return has("block") ? OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK
                          : OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    case CollectiveOp::other:
      break;
  }
  // OTF2 has no "other": the operations it has that sonde does not model, by the function's
  // name, and the most general exchange for the rest. All read back as `other`.
  if (has("comm_free") || has("win_free")) return OTF2_COLLECTIVE_OP_DESTROY_HANDLE;
  if (has("comm_") || has("cart_") || has("graph_") || has("win_create") || has("intercomm")) {
    return OTF2_COLLECTIVE_OP_CREATE_HANDLE;
  }
  return OTF2_COLLECTIVE_OP_ALLTOALLW;
}

CollectiveOp from_otf2(OTF2_CollectiveOp op) {
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER:
      return CollectiveOp::barrier;
    case OTF2_COLLECTIVE_OP_BCAST:
      return CollectiveOp::broadcast;
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV:
      return CollectiveOp::gather;
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV:
      return CollectiveOp::scatter;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV:
      return CollectiveOp::allgather;
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
      return CollectiveOp::alltoall;
    case OTF2_COLLECTIVE_OP_REDUCE:
      return CollectiveOp::reduce;
    case OTF2_COLLECTIVE_OP_ALLREDUCE:
      return CollectiveOp::allreduce;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN:
      return CollectiveOp::scan;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return CollectiveOp::reduce_scatter;
    default:
      return CollectiveOp::other;
  }
}

// The role Score-P gives an MPI function's region, by its name; FUNCTION for the rest.
OTF2_RegionRole mpi_role(const std::string& function) {
  std::string name = function;
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (name.rfind("mpi_", 0) == 0) name.erase(0, 4);
  const auto role_of = [](const std::string& n) -> std::optional<OTF2_RegionRole> {
    if (n == "barrier") return OTF2_REGION_ROLE_BARRIER;
    if (n == "bcast" || n == "scatter" || n == "scatterv") return OTF2_REGION_ROLE_COLL_ONE2ALL;
    if (n == "gather" || n == "gatherv" || n == "reduce") return OTF2_REGION_ROLE_COLL_ALL2ONE;
    if (n == "allgather" || n == "allgatherv" || n == "alltoall" || n == "alltoallv" ||
        n == "alltoallw" || n == "allreduce" || n == "reduce_scatter" ||
        n == "reduce_scatter_block") {
      return OTF2_REGION_ROLE_COLL_ALL2ALL;
    }
    if (n == "scan" || n == "exscan") return OTF2_REGION_ROLE_COLL_OTHER;
    return std::nullopt;
  };
  if (auto role = role_of(name)) return *role;
  // The non-blocking collectives: MPI_Iallreduce is an all-to-all too.
  if (name.size() > 1 && name[0] == 'i') {
    if (auto role = role_of(name.substr(1))) return *role;
  }
  if (name.find("send") != std::string::npos || name.find("recv") != std::string::npos) {
    return OTF2_REGION_ROLE_POINT2POINT;
  }
  return OTF2_REGION_ROLE_FUNCTION;
}

constexpr const char* kPhaseDescription = "sonde phase";
constexpr const char* kProcessTimeMetric = "process_time";
constexpr const char* kPropertyNamespace = "SONDE::";

// ---------------------------------------------------------------------------------------------
// Writing

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }

// No post-flush callback: OTF2 would then write a BufferFlush event stamped with its time into a
// large trace, which is not part of the run.
const OTF2_FlushCallbacks flush_callbacks = {pre_flush, nullptr};

// Strings of the global definitions, numbered as they are first asked for.
class Strings {
 public:
  OTF2_StringRef operator()(const std::string& text) {
    const auto [it, added] = refs_.emplace(text, static_cast<OTF2_StringRef>(texts_.size()));
    if (added) texts_.push_back(text);
    return it->second;
  }
  const std::vector<std::string>& texts() const { return texts_; }

 private:
  std::map<std::string, OTF2_StringRef> refs_;
  std::vector<std::string> texts_;
};

// The folder a write goes to, removed with what is left in it: a partial archive after a failure,
// the replaced archive's events after a success.
class TemporaryFolder {
 public:
  TemporaryFolder(const fs::path& beside, const std::string& stem) {
    std::string pattern = (beside / ("." + stem + ".tmp-XXXXXX")).string();
    std::vector<char> name(pattern.begin(), pattern.end());
    name.push_back('\0');
    if (::mkdtemp(name.data()) == nullptr) {
      throw io_error(
          (beside / (stem + ".otf2")).string(),
          fmt::format("cannot create a temporary folder beside it: {}", std::strerror(errno)));
    }
    path_ = name.data();
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Chunk sizes. Events: OTF2's smallest, as every rank's event buffer is allocated and cleared
// whole (larger ones cost the time of the write in page faults). Definitions: room for the
// largest record, the group of every location (at most 9 bytes a member), as a record must fit
// in one chunk.
constexpr std::uint64_t kEventChunkBytes = OTF2_CHUNK_SIZE_MIN;

std::uint64_t definition_chunk_bytes(std::size_t ranks) {
  const std::uint64_t largest_record_bytes = 64 + 10 * static_cast<std::uint64_t>(ranks);
  std::uint64_t bytes = OTF2_CHUNK_SIZE_MIN;
  while (bytes < 2 * largest_record_bytes && bytes < OTF2_CHUNK_SIZE_MAX) bytes *= 2;
  return bytes;
}

// An archive being written, closed (and so flushed) once.
class ArchiveWriter {
 public:
  ArchiveWriter(const fs::path& folder, const std::string& stem, std::size_t ranks,
                std::string target)
      : target_(std::move(target)) {
    archive_ = OTF2_Archive_Open(folder.c_str(), stem.c_str(), OTF2_FILEMODE_WRITE,
                                 kEventChunkBytes, definition_chunk_bytes(ranks),
                                 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive_ == nullptr) {
      throw io_error(target_, "cannot create the OTF2 archive: " +
                                  otf2_problem(OTF2_ERROR_PROCESSED_WITH_FAULTS));
    }
  }
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;
  ~ArchiveWriter() {
    if (archive_ != nullptr) OTF2_Archive_Close(archive_);
  }
  OTF2_Archive* get() const { return archive_; }
  // Every OTF2 call goes through here: an error becomes an io_error naming the archive.
  void check(OTF2_ErrorCode code, const char* doing) const {
    if (code != OTF2_SUCCESS) {
      throw io_error(target_, fmt::format("cannot {}: {}", doing, otf2_problem(code)));
    }
  }
  void close() {
    OTF2_Archive* archive = archive_;
    archive_ = nullptr;
    check(OTF2_Archive_Close(archive), "close the archive");
  }

 private:
  std::string target_;
  OTF2_Archive* archive_ = nullptr;
};

// An OTF2 event of a call, before it is stamped.
struct CallEvent {
  enum class Type { send, receive, isend, isend_complete, irecv_request, irecv, begin, end };
  Type type;
  const Operation* op;
  bool at_leave;
};

// The call's MPI events in the order of its operations; those before the first completion are
// stamped at the enter, the rest at the leave.
std::vector<CallEvent> call_events(const Call& call) {
  using Type = CallEvent::Type;
  std::vector<CallEvent> events;
  bool late = false;
  for (const Operation& op : call.operations) {
    switch (op.kind) {
      case Operation::Kind::send:
        events.push_back({Type::send, &op, late});
        break;
      case Operation::Kind::isend:
        events.push_back({Type::isend, &op, late});
        break;
      case Operation::Kind::irecv_request:
        events.push_back({Type::irecv_request, &op, late});
        break;
      case Operation::Kind::receive:
        late = true;
        events.push_back({Type::receive, &op, true});
        break;
      case Operation::Kind::isend_complete:
        late = true;
        events.push_back({Type::isend_complete, &op, true});
        break;
      case Operation::Kind::irecv:
        late = true;
        events.push_back({Type::irecv, &op, true});
        break;
      case Operation::Kind::collective:
        events.push_back({Type::begin, &op, late});
        late = true;
        events.push_back({Type::end, &op, true});
        break;
    }
  }
  return events;
}

// What goes into a rank's event stream, in the order it is written: by time, and at one time
// (a) the leave of a call entered earlier, (b) the end of phases begun earlier, innermost first,
// (c) the begin of phases, (d) the enter of a call (with its leave if it took no time), (e) the
// end of phases begun at that time. So a phase that begins with a call holds it, and a call that
// ends with a phase lies in it.
struct Step {
  enum class Type { program_begin, call_leave, phase_end, phase_begin, call, program_end };
  std::uint64_t time_ns;
  int order;             // the tie-breaks above, (a) to (e)
  std::uint64_t within;  // the tie-break among steps of one order
  Type type;
  std::size_t index;  // the call or phase
};

std::vector<Step> rank_steps(const Rank& rank) {
  std::vector<Step> steps;
  steps.push_back({rank.start_ns, -1, 0, Step::Type::program_begin, 0});
  for (std::size_t k = 0; k < rank.calls.size(); ++k) {
    const Call& call = rank.calls[k];
    steps.push_back({call.enter_ns, 3, k, Step::Type::call, k});
    if (call.leave_ns > call.enter_ns) {
      steps.push_back({call.leave_ns, 0, k, Step::Type::call_leave, k});
    }
  }
  for (std::size_t p = 0; p < rank.phases.size(); ++p) {
    const Phase& phase = rank.phases[p];
    const std::uint64_t innermost_first = rank.phases.size() - p;
    steps.push_back({phase.begin_ns, 2, p, Step::Type::phase_begin, p});
    steps.push_back({phase.end_ns, phase.end_ns > phase.begin_ns ? 1 : 4, innermost_first,
                     Step::Type::phase_end, p});
  }
  steps.push_back({rank.end_ns, 5, 0, Step::Type::program_end, 0});
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
    if (a.time_ns != b.time_ns) return a.time_ns < b.time_ns;
    if (a.order != b.order) return a.order < b.order;
    return a.within < b.within;
  });
  return steps;
}

struct RegionRefs {
  std::map<std::string, OTF2_RegionRef> functions;
  std::map<std::string, OTF2_RegionRef> phases;
};

class RankWriter {
 public:
  RankWriter(const ArchiveWriter& archive, OTF2_EvtWriter* writer, const RegionRefs& regions,
             OTF2_StringRef program_name)
      : archive_(archive), writer_(writer), regions_(regions), program_name_(program_name) {}

  void write(const Rank& rank) {
    for (const Step& step : rank_steps(rank)) {
      switch (step.type) {
        case Step::Type::program_begin:
          check(OTF2_EvtWriter_ProgramBegin(writer_, nullptr, rank.start_ns, program_name_, 0,
                                            nullptr));
          break;
        case Step::Type::phase_begin: {
          const Phase& phase = rank.phases[step.index];
          check(OTF2_EvtWriter_Enter(writer_, nullptr, phase.begin_ns,
                                     regions_.phases.at(phase.name)));
          break;
        }
        case Step::Type::phase_end: {
          const Phase& phase = rank.phases[step.index];
          check(
              OTF2_EvtWriter_Leave(writer_, nullptr, phase.end_ns, regions_.phases.at(phase.name)));
          break;
        }
        case Step::Type::call:
          enter_call(rank.calls[step.index]);
          if (rank.calls[step.index].leave_ns == rank.calls[step.index].enter_ns) {
            leave_call(rank.calls[step.index]);
          }
          break;
        case Step::Type::call_leave:
          leave_call(rank.calls[step.index]);
          break;
        case Step::Type::program_end:
          if (rank.process_ns_after) {
            process_ns_ += *rank.process_ns_after;
            metric(rank.end_ns);
          }
          check(OTF2_EvtWriter_ProgramEnd(writer_, nullptr, rank.end_ns, OTF2_UNDEFINED_INT64));
          break;
      }
    }
  }

 private:
  void check(OTF2_ErrorCode code) const { archive_.check(code, "write an event"); }

  void metric(std::uint64_t time_ns) {
    const OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue value;
    value.unsigned_int = process_ns_;
    check(OTF2_EvtWriter_Metric(writer_, nullptr, time_ns, 0, 1, &type, &value));
  }

  void enter_call(const Call& call) {
    if (call.process_ns_before) {
      process_ns_ += *call.process_ns_before;
      metric(call.enter_ns);
    }
    check(OTF2_EvtWriter_Enter(writer_, nullptr, call.enter_ns,
                               regions_.functions.at(call.function)));
    for (const CallEvent& event : call_events(call)) {
      if (!event.at_leave) operation(call, event, call.enter_ns);
    }
  }

  void leave_call(const Call& call) {
    for (const CallEvent& event : call_events(call)) {
      if (event.at_leave) operation(call, event, call.leave_ns);
    }
    check(OTF2_EvtWriter_Leave(writer_, nullptr, call.leave_ns,
                               regions_.functions.at(call.function)));
  }

  void operation(const Call& call, const CallEvent& event, std::uint64_t time_ns) {
    const Operation& op = *event.op;
    using Type = CallEvent::Type;
    switch (event.type) {
      case Type::send:
        check(OTF2_EvtWriter_MpiSend(writer_, nullptr, time_ns, op.peer, op.communicator, op.tag,
                                     op.bytes));
        break;
      case Type::receive:
        check(OTF2_EvtWriter_MpiRecv(writer_, nullptr, time_ns, op.peer, op.communicator, op.tag,
                                     op.bytes));
        break;
      case Type::isend:
        check(OTF2_EvtWriter_MpiIsend(writer_, nullptr, time_ns, op.peer, op.communicator, op.tag,
                                      op.bytes, op.request));
        break;
      case Type::isend_complete:
        check(OTF2_EvtWriter_MpiIsendComplete(writer_, nullptr, time_ns, op.request));
        break;
      case Type::irecv_request:
        check(OTF2_EvtWriter_MpiIrecvRequest(writer_, nullptr, time_ns, op.request));
        break;
      case Type::irecv:
        check(OTF2_EvtWriter_MpiIrecv(writer_, nullptr, time_ns, op.peer, op.communicator, op.tag,
                                      op.bytes, op.request));
        break;
      case Type::begin:
        check(OTF2_EvtWriter_MpiCollectiveBegin(writer_, nullptr, time_ns));
        break;
      case Type::end:
        // kNoRoot is OTF2_UNDEFINED_UINT32 (OTF2_COLLECTIVE_ROOT_NONE).
        check(OTF2_EvtWriter_MpiCollectiveEnd(
            writer_, nullptr, time_ns, to_otf2(op.collective, call.function), op.communicator,
            op.peer, op.bytes, op.bytes_received));
        break;
    }
  }

  const ArchiveWriter& archive_;
  OTF2_EvtWriter* writer_;
  const RegionRefs& regions_;
  OTF2_StringRef program_name_;
  std::uint64_t process_ns_ = 0;  // the rank's process time outside calls so far
};

bool has_process_time(const Trace& trace) {
  for (const Rank& rank : trace.ranks) {
    if (rank.process_ns_after) return true;
    for (const Call& call : rank.calls) {
      if (call.process_ns_before) return true;
    }
  }
  return false;
}

// OTF2 property names are case-insensitive letters, digits and '_' (it keeps them in upper
// case), so sonde's keys are lower-case ones, which read back as they were written.
void check_property_name(const std::string& key, const std::string& target) {
  const bool valid = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!valid) {
    throw input_error(target, fmt::format("the trace property name {} cannot be kept in OTF2: it "
                                          "takes lower-case letters, digits and '_'",
                                          shown(key)));
  }
}

// The files OTF2 keeps in an archive's folder; a folder holding anything else is not replaced.
bool holds_only_otf2_files(const fs::path& folder) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() ||
        (extension != ".evt" && extension != ".def" && extension != ".snap" &&
         extension != ".thumb" && extension != ".marker" && extension != ".sion")) {
      return false;
    }
  }
  return !ec;
}

// An archive <stem>.otf2 keeps its events in the folder <stem>: where something else has that
// name (the program "heat" beside "heat.otf2", a folder of results), the write stops.
void check_event_folder(const fs::path& events, const std::string& target) {
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(events, ec);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status) || !holds_only_otf2_files(events)) {
    throw io_error(target, fmt::format("OTF2 keeps the archive's events in the folder {}, and "
                                       "something else has that name: choose another name",
                                       events.string()));
  }
}

// OTF2 leaves its files to the page cache; they are flushed to disk before they replace an
// archive, so that a crash cannot leave a whole-looking archive that lost events.
void sync_to_disk(const fs::path& path, const std::string& target) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    const std::string reason = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw io_error(target, fmt::format("cannot flush {} to disk: {}", path.string(), reason));
  }
  ::close(fd);
}

// File by file for a few ranks; for many, one flush of the whole file system is much faster
// than a journal commit per file.
void sync_tree_to_disk(const fs::path& folder, const std::string& target) {
  constexpr std::size_t kMostFilesSyncedOneByOne = 64;
  std::vector<fs::path> paths;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(folder, ec)) {
    paths.push_back(entry.path());
  }
  if (ec) throw io_error(target, fmt::format("cannot list {}: {}", folder.string(), ec.message()));
  if (paths.size() > kMostFilesSyncedOneByOne) {
    const int fd = ::open(folder.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::syncfs(fd) != 0) {
      const std::string reason = std::strerror(errno);
      if (fd >= 0) ::close(fd);
      throw io_error(target, fmt::format("cannot flush {} to disk: {}", folder.string(), reason));
    }
    ::close(fd);
    return;
  }
  for (const fs::path& path : paths) sync_to_disk(path, target);
  sync_to_disk(folder, target);
}

void rename_or_throw(const fs::path& from, const fs::path& to, const std::string& target) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) {
    throw io_error(
        target, fmt::format("cannot move {} to {}: {}", from.string(), to.string(), ec.message()));
  }
}

// Moves the archive written in `temporary` in place of <folder>/<stem>.otf2, .def and <stem>/:
// the event folder first (the old one set aside, into the temporary folder that is removed
// after), then the definitions, then the anchor file, by which readers find the rest.
void move_in_place(const fs::path& temporary, const fs::path& folder, const std::string& stem,
                   const std::string& target) {
  sync_tree_to_disk(temporary, target);
  const fs::path events = folder / stem;
  check_event_folder(events, target);
  std::error_code ec;
  const bool old_events = fs::exists(fs::symlink_status(events, ec));
  if (old_events) rename_or_throw(events, temporary / "replaced-events", target);
  try {
    rename_or_throw(temporary / stem, events, target);
  } catch (...) {
    if (old_events) fs::rename(temporary / "replaced-events", events, ec);
    throw;
  }
  rename_or_throw(temporary / (stem + ".def"), folder / (stem + ".def"), target);
  rename_or_throw(temporary / (stem + ".otf2"), folder / (stem + ".otf2"), target);
  sync_to_disk(folder, target);
}

void write_archive(const Trace& trace, const fs::path& temporary, const std::string& stem,
                   const std::string& target) {
  const std::uint32_t ranks = static_cast<std::uint32_t>(trace.ranks.size());
  ArchiveWriter archive(temporary, stem, trace.ranks.size(), target);
  archive.check(OTF2_Archive_SetFlushCallbacks(archive.get(), &flush_callbacks, nullptr),
                "set the flush callbacks");
  archive.check(OTF2_Archive_SetSerialCollectiveCallbacks(archive.get()),
                "set the serial collective callbacks");
  archive.check(OTF2_Archive_SetCreator(archive.get(), "sonde"), "set the creator");
  archive.check(OTF2_Archive_SetDescription(archive.get(), "MPI trace written by sonde"),
                "set the description");
  if (const auto machine = trace.properties.find("machine"); machine != trace.properties.end()) {
    archive.check(OTF2_Archive_SetMachineName(archive.get(), machine->second.c_str()),
                  "set the machine name");
  }
  for (const auto& [key, value] : trace.properties) {
    // OTF2 removes a property set to "": an empty value is not kept.
    if (value.empty()) continue;
    const std::string name = kPropertyNamespace + key;
    archive.check(OTF2_Archive_SetProperty(archive.get(), name.c_str(), value.c_str(), true),
                  "set a property");
  }

  // Regions: the MPI functions, then the phases, each in the order first met.
  Strings strings;
  RegionRefs regions;
  OTF2_RegionRef next_region = 0;
  for (const Rank& rank : trace.ranks) {
    for (const Call& call : rank.calls) {
      if (regions.functions.emplace(call.function, next_region).second) ++next_region;
    }
  }
  for (const Rank& rank : trace.ranks) {
    for (const Phase& phase : rank.phases) {
      if (regions.phases.emplace(phase.name, next_region).second) ++next_region;
    }
  }

  // Events, one location per rank.
  const auto program = trace.properties.find("program");
  const OTF2_StringRef program_name =
      strings(program != trace.properties.end() ? program->second : std::string("MPI program"));
  std::vector<std::uint64_t> events(ranks, 0);
  archive.check(OTF2_Archive_OpenEvtFiles(archive.get()), "open the event files");
  for (std::uint32_t r = 0; r < ranks; ++r) {
    OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive.get(), r);
    if (writer == nullptr) {
      throw io_error(target, fmt::format("cannot write the events of rank {}: {}", r,
                                         otf2_problem(OTF2_ERROR_PROCESSED_WITH_FAULTS)));
    }
    RankWriter(archive, writer, regions, program_name).write(trace.ranks[r]);
    archive.check(OTF2_EvtWriter_GetNumberOfEvents(writer, &events[r]), "count the events");
    archive.check(OTF2_Archive_CloseEvtWriter(archive.get(), writer), "close an event file");
  }
  archive.check(OTF2_Archive_CloseEvtFiles(archive.get()), "close the event files");

  // Local definitions: none, but readers look for the files.
  archive.check(OTF2_Archive_OpenDefFiles(archive.get()), "open the local definition files");
  for (std::uint32_t r = 0; r < ranks; ++r) {
    OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(archive.get(), r);
    if (writer == nullptr) {
      throw io_error(target, fmt::format("cannot write the definitions of rank {}: {}", r,
                                         otf2_problem(OTF2_ERROR_PROCESSED_WITH_FAULTS)));
    }
    archive.check(OTF2_Archive_CloseDefWriter(archive.get(), writer),
                  "close a local definition file");
  }
  archive.check(OTF2_Archive_CloseDefFiles(archive.get()), "close the local definition files");

  // Global definitions. Strings are numbered first, so that they can be written before the
  // definitions that refer to them.
  const auto host = trace.properties.find("host");
  const OTF2_StringRef node_name =
      strings(host != trace.properties.end() && !host->second.empty() ? host->second
                                                                      : std::string("localhost"));
  const OTF2_StringRef node_class = strings("node");
  const OTF2_StringRef mpi_name = strings("MPI");
  const OTF2_StringRef empty = strings("");
  const OTF2_StringRef phase_description = strings(kPhaseDescription);
  const OTF2_StringRef thread_name = strings("Master thread");
  std::vector<OTF2_StringRef> rank_names;
  for (std::uint32_t r = 0; r < ranks; ++r)
    rank_names.push_back(strings(fmt::format("MPI Rank {}", r)));
  std::map<OTF2_RegionRef, std::pair<OTF2_StringRef, bool>> region_defs;  // name, phase
  for (const auto& [function, ref] : regions.functions)
    region_defs[ref] = {strings(function), false};
  for (const auto& [phase, ref] : regions.phases) region_defs[ref] = {strings(phase), true};
  std::vector<OTF2_StringRef> comm_names;
  for (const Communicator& comm : trace.communicators) comm_names.push_back(strings(comm.name));
  const bool process_time = has_process_time(trace);
  const OTF2_StringRef metric_name = strings(kProcessTimeMetric);
  const OTF2_StringRef metric_description =
      strings("process (CPU) time of the rank outside MPI calls, summed from its start");
  const OTF2_StringRef metric_unit = strings("ns");

  OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive.get());
  if (defs == nullptr) {
    throw io_error(target, "cannot write the global definitions: " +
                               otf2_problem(OTF2_ERROR_PROCESSED_WITH_FAULTS));
  }
  const auto check = [&](OTF2_ErrorCode code) { archive.check(code, "write a definition"); };
  std::uint64_t trace_length_ns = 0;
  for (const Rank& rank : trace.ranks) trace_length_ns = std::max(trace_length_ns, rank.end_ns);
  check(OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000 /* ticks per second: ns */, 0,
                                                  trace_length_ns, OTF2_UNDEFINED_TIMESTAMP));
  for (std::size_t s = 0; s < strings.texts().size(); ++s) {
    check(OTF2_GlobalDefWriter_WriteString(defs, static_cast<OTF2_StringRef>(s),
                                           strings.texts()[s].c_str()));
  }
  check(OTF2_GlobalDefWriter_WriteParadigm(defs, OTF2_PARADIGM_MPI, mpi_name,
                                           OTF2_PARADIGM_CLASS_PROCESS));
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, node_name, node_class,
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE));
  for (std::uint32_t r = 0; r < ranks; ++r) {
    check(OTF2_GlobalDefWriter_WriteLocationGroup(defs, r, rank_names[r],
                                                  OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                  OTF2_UNDEFINED_LOCATION_GROUP));
  }
  for (std::uint32_t r = 0; r < ranks; ++r) {
    check(OTF2_GlobalDefWriter_WriteLocation(defs, r, thread_name, OTF2_LOCATION_TYPE_CPU_THREAD,
                                             events[r], r));
  }
  for (const auto& [ref, def] : region_defs) {
    const auto [name, phase] = def;
    if (phase) {
      check(OTF2_GlobalDefWriter_WriteRegion(defs, ref, name, name, phase_description,
                                             OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER,
                                             OTF2_REGION_FLAG_PHASE, empty, 0, 0));
    } else {
      const std::string& function = strings.texts()[name];
      check(OTF2_GlobalDefWriter_WriteRegion(defs, ref, name, name, empty, mpi_role(function),
                                             OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty, 0,
                                             0));
    }
  }
  if (!trace.communicators.empty()) {
    // Group 0 lists the locations in world rank order; group 1 + c holds communicator c's
    // members as indices into it, which are world ranks.
    std::vector<std::uint64_t> locations(ranks);
    for (std::uint32_t r = 0; r < ranks; ++r) locations[r] = r;
    check(OTF2_GlobalDefWriter_WriteGroup(defs, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks,
                                          locations.data()));
    for (std::size_t c = 0; c < trace.communicators.size(); ++c) {
      const Communicator& comm = trace.communicators[c];
      const std::vector<std::uint64_t> members(comm.members.begin(), comm.members.end());
      check(OTF2_GlobalDefWriter_WriteGroup(
          defs, static_cast<OTF2_GroupRef>(c + 1), empty, OTF2_GROUP_TYPE_COMM_GROUP,
          OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(members.size()),
          members.data()));
    }
    for (std::size_t c = 0; c < trace.communicators.size(); ++c) {
      check(OTF2_GlobalDefWriter_WriteComm(defs, static_cast<OTF2_CommRef>(c), comm_names[c],
                                           static_cast<OTF2_GroupRef>(c + 1),
                                           c == 0 ? OTF2_UNDEFINED_COMM : 0, OTF2_COMM_FLAG_NONE));
    }
  }
  if (process_time) {
    const OTF2_MetricMemberRef member = 0;
    check(OTF2_GlobalDefWriter_WriteMetricMember(
        defs, member, metric_name, metric_description, OTF2_METRIC_TYPE_USER,
        OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, metric_unit));
    check(OTF2_GlobalDefWriter_WriteMetricClass(defs, 0, 1, &member, OTF2_METRIC_SYNCHRONOUS,
                                                OTF2_RECORDER_KIND_CPU));
  }
  archive.check(OTF2_Archive_CloseGlobalDefWriter(archive.get(), defs),
                "close the global definitions");
  archive.close();
}

// ---------------------------------------------------------------------------------------------
// Reading

// Wraps a callback's body: an exception cannot cross OTF2's C frames, so it is kept and the
// reading interrupted; the caller throws it again.
template <typename Body>
OTF2_CallbackCode guarded(std::exception_ptr& error, Body&& body) {
  if (error) return OTF2_CALLBACK_INTERRUPT;
  try {
    body();
    return OTF2_CALLBACK_SUCCESS;
  } catch (...) {
    error = std::current_exception();
    return OTF2_CALLBACK_INTERRUPT;
  }
}

struct RegionDef {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_StringRef description = OTF2_UNDEFINED_STRING;
  OTF2_RegionRole role = OTF2_REGION_ROLE_UNKNOWN;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  OTF2_RegionFlag flags = OTF2_REGION_FLAG_NONE;
};

struct GroupDef {
  OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  OTF2_GroupFlag flags = OTF2_GROUP_FLAG_NONE;
  std::vector<std::uint64_t> members;
};

struct CommDef {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_GroupRef group = 0;
};

struct MetricMemberDef {
  OTF2_StringRef name = OTF2_UNDEFINED_STRING;
  OTF2_StringRef unit = OTF2_UNDEFINED_STRING;
  OTF2_Base base = OTF2_BASE_DECIMAL;
  std::int64_t exponent = 0;
};

// The global definitions, as OTF2 hands them over.
struct Definitions {
  std::exception_ptr error;
  std::unordered_map<OTF2_StringRef, std::string> strings;
  std::uint64_t ticks_per_second = 1000000000;
  std::uint64_t global_offset = 0;
  std::map<OTF2_LocationRef, std::uint64_t> locations;  // and the number of events each has
  std::unordered_map<OTF2_RegionRef, RegionDef> regions;
  std::map<OTF2_GroupRef, GroupDef> groups;
  std::map<OTF2_CommRef, CommDef> comms;
  std::unordered_map<OTF2_MetricMemberRef, MetricMemberDef> metric_members;
  std::unordered_map<OTF2_MetricRef, std::vector<OTF2_MetricMemberRef>> metric_classes;

  std::string string(OTF2_StringRef ref) const {
    const auto it = strings.find(ref);
    return it == strings.end() ? std::string() : it->second;
  }
};

OTF2_CallbackCode on_string(void* user, OTF2_StringRef self, const char* text) {
  auto& defs = *static_cast<Definitions*>(user);
  return guarded(defs.error, [&] { defs.strings[self] = text != nullptr ? text : ""; });
}

OTF2_CallbackCode on_clock(void* user, uint64_t resolution, uint64_t offset, uint64_t, uint64_t) {
  auto& defs = *static_cast<Definitions*>(user);
  return guarded(defs.error, [&] {
    if (resolution != 0) defs.ticks_per_second = resolution;
    defs.global_offset = offset;
  });
}

OTF2_CallbackCode on_location(void* user, OTF2_LocationRef self, OTF2_StringRef, OTF2_LocationType,
                              uint64_t events, OTF2_LocationGroupRef) {
  auto& defs = *static_cast<Definitions*>(user);
  return guarded(defs.error, [&] { defs.locations[self] = events; });
}

OTF2_CallbackCode on_region(void* user, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef,
                            OTF2_StringRef description, OTF2_RegionRole role,
                            OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef, uint32_t,
                            uint32_t) {
  auto& defs = *static_cast<Definitions*>(user);
  return guarded(defs.error, [&] {
    defs.regions[self] = RegionDef{name, description, role, paradigm, flags};
  });
}

OTF2_CallbackCode on_group(void* user, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type,
                           OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t count,
                           const uint64_t* members) {
  auto& defs = *static_cast<Definitions*>(user);
  return guarded(defs.error, [&] {
    defs.groups[self] =
        GroupDef{type, paradigm, flags, std::vector<std::uint64_t>(members, members + count)};
  });
}

OTF2_CallbackCode on_comm(void* user, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
                          OTF2_CommRef, OTF2_CommFlag) {
  auto& defs = *static_cast<Definitions*>(user);
  return guarded(defs.error, [&] { defs.comms[self] = CommDef{name, group}; });
}

OTF2_CallbackCode on_metric_member(void* user, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                   OTF2_StringRef, OTF2_MetricType, OTF2_MetricMode, OTF2_Type,
                                   OTF2_Base base, int64_t exponent, OTF2_StringRef unit) {
  auto& defs = *static_cast<Definitions*>(user);
  return guarded(defs.error, [&] {
    defs.metric_members[self] = MetricMemberDef{name, unit, base, exponent};
  });
}

OTF2_CallbackCode on_metric_class(void* user, OTF2_MetricRef self, uint8_t count,
                                  const OTF2_MetricMemberRef* members, OTF2_MetricOccurrence,
                                  OTF2_RecorderKind) {
  auto& defs = *static_cast<Definitions*>(user);
  return guarded(defs.error, [&] {
    defs.metric_classes[self] = std::vector<OTF2_MetricMemberRef>(members, members + count);
  });
}

enum class RegionKind { mpi, phase, other };

// What the event reader needs from the definitions, resolved.
struct Model {
  std::string path;
  std::uint64_t ticks_per_second = 1000000000;
  std::uint64_t global_offset = 0;
  struct Region {
    std::string name;
    RegionKind kind = RegionKind::other;
  };
  std::unordered_map<OTF2_RegionRef, Region> regions;
  std::unordered_map<OTF2_CommRef, std::uint32_t> comm_index;  // into Trace::communicators
  std::unordered_map<OTF2_CommRef, std::string> self_comms;    // MPI_COMM_SELF-like, by name
  // The process-time metric: per metric class, the index of the member and ns per unit.
  struct ProcessTime {
    std::size_t member = 0;
    long double ns_per_unit = 1;
  };
  std::unordered_map<OTF2_MetricRef, ProcessTime> process_time;
};

// ns per unit of a metric member, where it measures time; nullopt where it does not.
std::optional<long double> ns_per_unit(const std::string& unit, OTF2_Base base,
                                       std::int64_t exponent) {
  long double scale;
  if (unit == "ns") {
    scale = 1;
  } else if (unit == "us") {
    scale = 1e3L;
  } else if (unit == "ms") {
    scale = 1e6L;
  } else if (unit == "s") {
    scale = 1e9L;
  } else {
    return std::nullopt;
  }
  return scale *
         std::pow(base == OTF2_BASE_BINARY ? 2.0L : 10.0L, static_cast<long double>(exponent));
}

// A rank's events become its calls and phases: Eom and Hollingsworth's (1998) program activity
// graph of the rank, without the edges between ranks.
class RankReader {
 public:
  RankReader(const Model& model, std::size_t rank, Rank& out)
      : model_(model), rank_(rank), out_(out) {}

  std::exception_ptr error;
  std::uint64_t last_position = 0;  // the last event read, for messages

  void enter(OTF2_TimeStamp time, std::uint64_t position, OTF2_RegionRef ref) {
    const std::uint64_t t = note(time, position);
    const Model::Region& region = region_of(ref, position, "an Enter");
    switch (region.kind) {
      case RegionKind::phase:
        open_phases_.push_back({ref, out_.phases.size()});
        out_.phases.push_back(Phase{region.name, t, t});
        return;
      case RegionKind::mpi:
        if (!call_) {
          stack_.push_back({ref, Frame::Kind::call, position});
          call_ = Call{};
          call_->function = region.name;
          call_->enter_ns = t;
          call_->event = position;
          if (metric_fresh_) call_->process_ns_before = difference(position);
          metric_fresh_ = false;
          return;
        }
        // An MPI function called inside another (by the MPI library): part of the outer call.
        stack_.push_back({ref, Frame::Kind::nested, position});
        return;
      case RegionKind::other:
        // Computation, or a region of the tools: only its nesting matters.
        stack_.push_back({ref, Frame::Kind::other, position});
        return;
    }
  }

  void leave(OTF2_TimeStamp time, std::uint64_t position, OTF2_RegionRef ref) {
    const std::uint64_t t = note(time, position);
    const Model::Region& region = region_of(ref, position, "a Leave");
    if (region.kind == RegionKind::phase) {
      // Phases are the program's marks and may straddle the regions of the tools; the innermost
      // open one of that region ends.
      for (auto it = open_phases_.rbegin(); it != open_phases_.rend(); ++it) {
        if (it->region == ref) {
          out_.phases[it->index].end_ns = t;
          open_phases_.erase(std::next(it).base());
          return;
        }
      }
      throw event_error(
          position, fmt::format("a Leave of the phase {} without its Enter", shown(region.name)));
    }
    if (stack_.empty()) {
      throw event_error(position,
                        fmt::format("a Leave of {} without its Enter", shown(region.name)));
    }
    const Frame frame = stack_.back();
    if (frame.region != ref) {
      throw event_error(position,
                        fmt::format("a Leave of {} while {} (entered at event {}) is "
                                    "the region last entered",
                                    shown(region.name), shown(model_.regions.at(frame.region).name),
                                    frame.position));
    }
    stack_.pop_back();
    if (frame.kind != Frame::Kind::call) return;
    if (collective_begun_) {
      throw event_error(position, fmt::format("{} ends inside an MPI collective "
                                              "(MpiCollectiveBegin without its End)",
                                              region.name));
    }
    call_->leave_ns = t;
    out_.calls.push_back(std::move(*call_));
    call_.reset();
    // The process time in the call is not the computation's: the next call's is counted from
    // here, with the value recorded at this Leave where there is one.
    baseline_ = value_;
    metric_fresh_ = false;
  }

  void operation(OTF2_TimeStamp time, std::uint64_t position, const char* event, Operation op,
                 OTF2_CommRef comm) {
    note(time, position);
    Call& call = current_call(position, event);
    if (op.kind != Operation::Kind::isend_complete && op.kind != Operation::Kind::irecv_request) {
      op.communicator = communicator(comm, position, event);
    }
    switch (op.kind) {
      case Operation::Kind::isend:
        pending_[op.request] = Operation::Kind::isend;
        break;
      case Operation::Kind::irecv_request:
        pending_[op.request] = Operation::Kind::irecv_request;
        break;
      case Operation::Kind::isend_complete:
        complete(op.request, Operation::Kind::isend, position, event);
        break;
      case Operation::Kind::irecv:
        complete(op.request, Operation::Kind::irecv_request, position, event);
        break;
      default:
        break;
    }
    call.operations.push_back(op);
  }

  void collective_begin(OTF2_TimeStamp time, std::uint64_t position) {
    note(time, position);
    current_call(position, "an MpiCollectiveBegin");
    if (collective_begun_) {
      throw event_error(position, "an MpiCollectiveBegin inside another collective");
    }
    collective_begun_ = true;
  }

  void collective_end(OTF2_TimeStamp time, std::uint64_t position, OTF2_CollectiveOp type,
                      OTF2_CommRef comm, std::uint32_t root, std::uint64_t sent,
                      std::uint64_t received) {
    note(time, position);
    Call& call = current_call(position, "an MpiCollectiveEnd");
    if (!collective_begun_) {
      throw event_error(position, "an MpiCollectiveEnd without its MpiCollectiveBegin");
    }
    collective_begun_ = false;
    Operation op;
    op.kind = Operation::Kind::collective;
    op.communicator = communicator(comm, position, "an MpiCollectiveEnd");
    // No root, or an inter-communicator's MPI_ROOT or MPI_PROC_NULL, which sonde does not model.
    op.peer = root >= static_cast<std::uint32_t>(OTF2_COLLECTIVE_ROOT_THIS_GROUP) ? kNoRoot : root;
    op.bytes = sent;
    op.bytes_received = received;
    op.collective = from_otf2(type);
    call.operations.push_back(op);
  }

  void request_cancelled(OTF2_TimeStamp time, std::uint64_t position, std::uint64_t request) {
    note(time, position);
    pending_.erase(request);
  }

  void metric(OTF2_TimeStamp time, std::uint64_t position, OTF2_MetricRef ref, std::uint8_t count,
              const OTF2_Type* types, const OTF2_MetricValue* values) {
    note(time, position);
    const auto it = model_.process_time.find(ref);
    if (it == model_.process_time.end() || it->second.member >= count) return;
    const OTF2_MetricValue value = values[it->second.member];
    const long double scale = it->second.ns_per_unit;
    long double ns = 0;
    switch (types[it->second.member]) {
      case OTF2_TYPE_UINT64:
        if (scale == 1) {
          value_ = value.unsigned_int;
          metric_fresh_ = true;
          return;
        }
        ns = static_cast<long double>(value.unsigned_int) * scale;
        break;
      case OTF2_TYPE_INT64:
        ns = static_cast<long double>(value.signed_int) * scale;
        break;
      case OTF2_TYPE_DOUBLE:
        ns = static_cast<long double>(value.floating_point) * scale;
        break;
      default:
        return;
    }
    if (!(ns >= 0)) throw event_error(position, "a negative or undefined process time");
    value_ = static_cast<std::uint64_t>(std::llround(ns));
    metric_fresh_ = true;
  }

  // Any other event: it only bounds the rank's life.
  void other(OTF2_TimeStamp time, std::uint64_t position) { note(time, position); }

  void finish() {
    if (!stack_.empty()) {
      const Frame& frame = stack_.back();
      throw event_error(last_position,
                        fmt::format("the events end inside {}, entered at event {}",
                                    shown(model_.regions.at(frame.region).name), frame.position));
    }
    if (!open_phases_.empty()) {
      throw event_error(last_position,
                        fmt::format("the events end inside the phase {}",
                                    shown(out_.phases[open_phases_.back().index].name)));
    }
    if (metric_fresh_) out_.process_ns_after = difference(last_position);
    out_.start_ns = first_ns_.value_or(0);
    out_.end_ns = last_ns_;
  }

  Error event_error(std::uint64_t position, const std::string& what) const {
    return input_error(fmt::format("{}: rank {}, event {}", model_.path, rank_, position), what);
  }

 private:
  struct Frame {
    enum class Kind { call, nested, other };
    OTF2_RegionRef region;
    Kind kind;
    std::uint64_t position;
  };
  struct OpenPhase {
    OTF2_RegionRef region;
    std::size_t index;
  };

  // The time in ns since the trace's epoch; every event passes here.
  std::uint64_t note(OTF2_TimeStamp time, std::uint64_t position) {
    last_position = position;
    if (time < model_.global_offset) {
      throw event_error(position, fmt::format("time {} is before the trace's start at {}", time,
                                              model_.global_offset));
    }
    std::uint64_t ns = time - model_.global_offset;
    if (model_.ticks_per_second != 1000000000) {
      const unsigned __int128 scaled =
          static_cast<unsigned __int128>(ns) * 1000000000u / model_.ticks_per_second;
      ns = static_cast<std::uint64_t>(scaled);
    }
    if (ns < last_ns_) {
      throw event_error(position,
                        fmt::format("time goes backwards: {} ns after {} ns", ns, last_ns_));
    }
    if (!first_ns_) first_ns_ = ns;
    last_ns_ = ns;
    return ns;
  }

  const Model::Region& region_of(OTF2_RegionRef ref, std::uint64_t position, const char* event) {
    const auto it = model_.regions.find(ref);
    if (it == model_.regions.end()) {
      throw event_error(position,
                        fmt::format("{} of region {}, which the definitions lack", event, ref));
    }
    return it->second;
  }

  Call& current_call(std::uint64_t position, const char* event) {
    if (!call_) throw event_error(position, fmt::format("{} outside any MPI call", event));
    return *call_;
  }

  std::uint32_t communicator(OTF2_CommRef comm, std::uint64_t position, const char* event) {
    const auto it = model_.comm_index.find(comm);
    if (it != model_.comm_index.end()) return it->second;
    const auto self = model_.self_comms.find(comm);
    if (self != model_.self_comms.end()) {
      throw event_error(position, fmt::format("{} on {}, a communicator of the rank alone "
                                              "(MPI_COMM_SELF), which sonde does not replay",
                                              event, shown(self->second)));
    }
    throw event_error(
        position, fmt::format("{} on communicator {}, which the definitions lack", event, comm));
  }

  void complete(std::uint64_t request, Operation::Kind posted_as, std::uint64_t position,
                const char* event) {
    const auto it = pending_.find(request);
    if (it == pending_.end() || it->second != posted_as) {
      throw event_error(
          position,
          fmt::format("{} completes request {}, which was never posted "
                      "by an {}",
                      event, request,
                      posted_as == Operation::Kind::isend ? "MpiIsend" : "MpiIrecvRequest"));
    }
    pending_.erase(it);
  }

  std::uint64_t difference(std::uint64_t position) const {
    if (value_ < baseline_) {
      throw event_error(position, fmt::format("the process time goes backwards: {} ns after {} ns",
                                              value_, baseline_));
    }
    return value_ - baseline_;
  }

  const Model& model_;
  std::size_t rank_;
  Rank& out_;
  std::vector<Frame> stack_;
  std::vector<OpenPhase> open_phases_;
  std::optional<Call> call_;
  bool collective_begun_ = false;
  std::unordered_map<std::uint64_t, Operation::Kind> pending_;
  std::optional<std::uint64_t> first_ns_;
  std::uint64_t last_ns_ = 0;
  // Process time: the last value recorded, the value when the last call left, and whether a
  // value was recorded since the last call's Enter or Leave.
  std::uint64_t value_ = 0;
  std::uint64_t baseline_ = 0;
  bool metric_fresh_ = false;
};

RankReader& reader_of(void* user) { return *static_cast<RankReader*>(user); }

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.enter(time, position, region); });
}

OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.leave(time, position, region); });
}

Operation point_to_point(Operation::Kind kind, std::uint32_t peer, std::uint32_t tag,
                         std::uint64_t bytes, std::uint64_t request) {
  Operation op;
  op.kind = kind;
  op.peer = peer;
  op.tag = tag;
  op.bytes = bytes;
  op.request = request;
  return op;
}

OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                          OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] {
    r.operation(time, position, "an MpiSend",
                point_to_point(Operation::Kind::send, receiver, tag, bytes, 0), comm);
  });
}

OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                          OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                          uint64_t bytes) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] {
    r.operation(time, position, "an MpiRecv",
                point_to_point(Operation::Kind::receive, sender, tag, bytes, 0), comm);
  });
}

OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] {
    r.operation(time, position, "an MpiIsend",
                point_to_point(Operation::Kind::isend, receiver, tag, bytes, request), comm);
  });
}

OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                    void* user, OTF2_AttributeList*, uint64_t request) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] {
    r.operation(time, position, "an MpiIsendComplete",
                point_to_point(Operation::Kind::isend_complete, 0, 0, 0, request), 0);
  });
}

OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                   void* user, OTF2_AttributeList*, uint64_t request) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] {
    r.operation(time, position, "an MpiIrecvRequest",
                point_to_point(Operation::Kind::irecv_request, 0, 0, 0, request), 0);
  });
}

OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, uint64_t request) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] {
    r.operation(time, position, "an MpiIrecv",
                point_to_point(Operation::Kind::irecv, sender, tag, bytes, request), comm);
  });
}

OTF2_CallbackCode on_collective_begin(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                      void* user, OTF2_AttributeList*) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.collective_begin(time, position); });
}

OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                    void* user, OTF2_AttributeList*, OTF2_CollectiveOp type,
                                    OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                    uint64_t received) {
  RankReader& r = reader_of(user);
  return guarded(r.error,
                 [&] { r.collective_end(time, position, type, comm, root, sent, received); });
}

OTF2_CallbackCode on_request_cancelled(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                       void* user, OTF2_AttributeList*, uint64_t request) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.request_cancelled(time, position, request); });
}

OTF2_CallbackCode on_metric(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                            OTF2_AttributeList*, OTF2_MetricRef metric, uint8_t count,
                            const OTF2_Type* types, const OTF2_MetricValue* values) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.metric(time, position, metric, count, types, values); });
}

OTF2_CallbackCode on_program_begin(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                   void* user, OTF2_AttributeList*, OTF2_StringRef, uint32_t,
                                   const OTF2_StringRef*) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.other(time, position); });
}

OTF2_CallbackCode on_program_end(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                 void* user, OTF2_AttributeList*, int64_t) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.other(time, position); });
}

OTF2_CallbackCode on_measurement(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                 void* user, OTF2_AttributeList*, OTF2_MeasurementMode) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.other(time, position); });
}

OTF2_CallbackCode on_request_test(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position,
                                  void* user, OTF2_AttributeList*, uint64_t) {
  RankReader& r = reader_of(user);
  return guarded(r.error, [&] { r.other(time, position); });
}

// An OTF2 anchor file begins with a chunk header (3, then the endianness) and the string "OTF2".
// Other files are turned away before OTF2 sees them: it leaks what it allocated for them.
void check_anchor_signature(const fs::path& path, const std::string& where) {
  std::ifstream in(path, std::ios::binary);
  char head[7] = {};
  in.read(head, sizeof head);
  if (!in || head[0] != 3 || std::memcmp(head + 2, "OTF2", 5) != 0) {
    throw input_error(where,
                      "not an OTF2 archive: the file does not begin as an OTF2 anchor file "
                      "(<name>.otf2) does");
  }
}

// An open OTF2 reader, closed once.
class ArchiveReader {
 public:
  explicit ArchiveReader(std::string path) : path_(std::move(path)) {
    reader_ = OTF2_Reader_Open(path_.c_str());
    if (reader_ == nullptr) {
      throw input_error(path_, "not an OTF2 archive (its anchor file cannot be read): " +
                                   otf2_problem(OTF2_ERROR_INVALID_DATA));
    }
  }
  ArchiveReader(const ArchiveReader&) = delete;
  ArchiveReader& operator=(const ArchiveReader&) = delete;
  ~ArchiveReader() { OTF2_Reader_Close(reader_); }
  OTF2_Reader* get() const { return reader_; }
  void check(OTF2_ErrorCode code, const std::string& where, const char* doing) const {
    if (code != OTF2_SUCCESS) {
      throw input_error(where, fmt::format("cannot {}: {}", doing, otf2_problem(code)));
    }
  }

 private:
  std::string path_;
  OTF2_Reader* reader_ = nullptr;
};

Definitions read_definitions(const ArchiveReader& reader, const std::string& path) {
  Definitions defs;
  OTF2_GlobalDefReader* def_reader = OTF2_Reader_GetGlobalDefReader(reader.get());
  if (def_reader == nullptr) {
    throw input_error(path, "cannot read the global definitions: " +
                                otf2_problem(OTF2_ERROR_PROCESSED_WITH_FAULTS));
  }
  OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, on_string);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, on_location);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, on_region);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(callbacks, on_metric_member);
  OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(callbacks, on_metric_class);
  const OTF2_ErrorCode registered =
      OTF2_Reader_RegisterGlobalDefCallbacks(reader.get(), def_reader, callbacks, &defs);
  OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
  reader.check(registered, path, "read the global definitions");
  uint64_t count = 0;
  const OTF2_ErrorCode code =
      OTF2_Reader_ReadAllGlobalDefinitions(reader.get(), def_reader, &count);
  if (defs.error) std::rethrow_exception(defs.error);
  reader.check(code, path, "read the global definitions");
  reader.check(OTF2_Reader_CloseGlobalDefReader(reader.get(), def_reader), path,
               "close the global definitions");
  return defs;
}

// The ranks (their locations in world rank order), the communicators and the regions.
Model resolve(const Definitions& defs, const std::string& path,
              std::vector<OTF2_LocationRef>& ranks, std::vector<Communicator>& communicators) {
  Model model;
  model.path = path;
  model.ticks_per_second = defs.ticks_per_second;
  model.global_offset = defs.global_offset;

  // World ranks: the MPI COMM_LOCATIONS group lists the locations in MPI_COMM_WORLD's order.
  // Without one (a trace with no communicator), every location in id order.
  const GroupDef* world = nullptr;
  for (const auto& [ref, group] : defs.groups) {
    if (group.type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
        (world == nullptr || group.paradigm == OTF2_PARADIGM_MPI)) {
      world = &group;
    }
  }
  std::unordered_map<std::uint64_t, std::uint32_t> rank_of_location;
  if (world != nullptr) {
    ranks.assign(world->members.begin(), world->members.end());
  } else {
    for (const auto& [location, events] : defs.locations) ranks.push_back(location);
  }
  for (std::uint32_t r = 0; r < ranks.size(); ++r) {
    if (defs.locations.count(ranks[r]) == 0) {
      throw input_error(
          path, fmt::format("rank {} is location {}, which the definitions lack", r, ranks[r]));
    }
    if (!rank_of_location.emplace(ranks[r], r).second) {
      throw input_error(path, fmt::format("location {} is two ranks", ranks[r]));
    }
  }

  // Communicators, with MPI_COMM_WORLD first.
  std::vector<OTF2_CommRef> refs;
  for (const auto& [ref, comm] : defs.comms) {
    const std::string name = defs.string(comm.name);
    const auto group = defs.groups.find(comm.group);
    if (group == defs.groups.end()) {
      throw input_error(path, fmt::format("communicator {} ({}) has group {}, which the "
                                          "definitions lack",
                                          ref, shown(name), comm.group));
    }
    // The communicators of other paradigms (OpenMP thread teams) are not MPI's: operations on
    // them are not sonde's either.
    if (world != nullptr && world->paradigm == OTF2_PARADIGM_MPI &&
        group->second.paradigm != OTF2_PARADIGM_MPI) {
      continue;
    }
    Communicator out;
    out.name = name;
    switch (group->second.type) {
      case OTF2_GROUP_TYPE_COMM_SELF:
        model.self_comms[ref] = name;
        continue;
      case OTF2_GROUP_TYPE_COMM_GROUP:
        if ((group->second.flags & OTF2_GROUP_FLAG_GLOBAL_MEMBERS) == 0) {
          for (std::uint64_t member : group->second.members) {
            if (member >= ranks.size()) {
              throw input_error(path, fmt::format("communicator {} ({}) has member {}, but the "
                                                  "trace has {} ranks",
                                                  ref, shown(name), member, ranks.size()));
            }
            out.members.push_back(static_cast<std::uint32_t>(member));
          }
          break;
        }
        [[fallthrough]];  // members are location ids
      case OTF2_GROUP_TYPE_COMM_LOCATIONS:
        for (std::uint64_t location : group->second.members) {
          const auto it = rank_of_location.find(location);
          if (it == rank_of_location.end()) {
            throw input_error(path, fmt::format("communicator {} ({}) has location {}, which is "
                                                "no rank",
                                                ref, shown(name), location));
          }
          out.members.push_back(it->second);
        }
        break;
      default:
        throw input_error(path, fmt::format("communicator {} ({}) has group {}, which is not a "
                                            "group of communicator members",
                                            ref, shown(name), comm.group));
    }
    refs.push_back(ref);
    communicators.push_back(std::move(out));
  }
  const auto is_world = [&](const Communicator& comm) {
    if (comm.members.size() != ranks.size()) return false;
    for (std::uint32_t r = 0; r < comm.members.size(); ++r) {
      if (comm.members[r] != r) return false;
    }
    return true;
  };
  if (!communicators.empty() && !is_world(communicators.front())) {
    const auto named = std::find_if(
        communicators.begin(), communicators.end(),
        [&](const Communicator& c) { return c.name == "MPI_COMM_WORLD" && is_world(c); });
    const auto any = std::find_if(communicators.begin(), communicators.end(), is_world);
    const auto found = named != communicators.end() ? named : any;
    if (found != communicators.end()) {
      const std::size_t at = static_cast<std::size_t>(found - communicators.begin());
      std::rotate(communicators.begin(), communicators.begin() + at,
                  communicators.begin() + at + 1);
      std::rotate(refs.begin(), refs.begin() + at, refs.begin() + at + 1);
    } else {
      Communicator synthesized{"MPI_COMM_WORLD", {}};
      for (std::uint32_t r = 0; r < ranks.size(); ++r) synthesized.members.push_back(r);
      communicators.insert(communicators.begin(), std::move(synthesized));
      refs.insert(refs.begin(), OTF2_UNDEFINED_COMM);
    }
  }
  for (std::size_t c = 0; c < refs.size(); ++c) {
    if (refs[c] != OTF2_UNDEFINED_COMM) model.comm_index[refs[c]] = static_cast<std::uint32_t>(c);
  }

  // Regions: phases (sonde's, or flagged as phases), MPI functions, computation.
  for (const auto& [ref, region] : defs.regions) {
    Model::Region out;
    out.name = defs.string(region.name);
    if ((region.flags & OTF2_REGION_FLAG_PHASE) != 0 ||
        defs.string(region.description) == kPhaseDescription) {
      out.kind = RegionKind::phase;
    } else if (region.paradigm == OTF2_PARADIGM_MPI || out.name.rfind("MPI_", 0) == 0) {
      out.kind = RegionKind::mpi;
    }
    model.regions[ref] = std::move(out);
  }

  // The process-time metric, in whichever metric classes carry it.
  for (const auto& [ref, members] : defs.metric_classes) {
    for (std::size_t m = 0; m < members.size(); ++m) {
      const auto member = defs.metric_members.find(members[m]);
      if (member == defs.metric_members.end() ||
          defs.string(member->second.name) != kProcessTimeMetric) {
        continue;
      }
      const auto scale = ns_per_unit(defs.string(member->second.unit), member->second.base,
                                     member->second.exponent);
      if (scale) model.process_time[ref] = Model::ProcessTime{m, *scale};
    }
  }
  return model;
}

std::map<std::string, std::string> read_properties(const ArchiveReader& reader,
                                                   const std::string& path) {
  std::map<std::string, std::string> properties;
  uint32_t count = 0;
  char** names = nullptr;
  reader.check(OTF2_Reader_GetPropertyNames(reader.get(), &count, &names), path,
               "read the properties");
  const std::unique_ptr<char*, decltype(&std::free)> names_owner(names, &std::free);
  const std::string prefix = kPropertyNamespace;
  for (uint32_t i = 0; i < count; ++i) {
    std::string name = names[i];
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (upper.rfind(prefix, 0) != 0) continue;
    char* value = nullptr;
    reader.check(OTF2_Reader_GetProperty(reader.get(), name.c_str(), &value), path,
                 "read a property");
    const std::unique_ptr<char, decltype(&std::free)> value_owner(value, &std::free);
    std::string key = name.substr(prefix.size());
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    properties[key] = value != nullptr ? value : "";
  }
  return properties;
}

OTF2_EvtReaderCallbacks* event_callbacks() {
  OTF2_EvtReaderCallbacks* callbacks = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(callbacks, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(callbacks, on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(callbacks, on_send);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(callbacks, on_recv);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(callbacks, on_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(callbacks, on_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(callbacks, on_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(callbacks, on_irecv);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(callbacks, on_collective_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(callbacks, on_collective_end);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(callbacks, on_request_cancelled);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(callbacks, on_request_test);
  OTF2_EvtReaderCallbacks_SetMetricCallback(callbacks, on_metric);
  OTF2_EvtReaderCallbacks_SetProgramBeginCallback(callbacks, on_program_begin);
  OTF2_EvtReaderCallbacks_SetProgramEndCallback(callbacks, on_program_end);
  OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(callbacks, on_measurement);
  return callbacks;
}

// OTF2 ends every definition and event file with its end-of-file record (OTF2_BUFFER_END_OF_FILE,
// 1, internal to OTF2 but written by every writer). A cut file lacks it, and OTF2 would read
// past the bytes it has (uninitialised memory) before it noticed; so a file is checked first.
// Files of other substrates (SIONlib) or compressed ones are left to OTF2.
class WholeFiles {
 public:
  WholeFiles(const ArchiveReader& reader, const fs::path& anchor) {
    OTF2_FileSubstrate substrate = OTF2_SUBSTRATE_UNDEFINED;
    OTF2_Compression compression = OTF2_COMPRESSION_UNDEFINED;
    enabled_ = OTF2_Reader_GetFileSubstrate(reader.get(), &substrate) == OTF2_SUCCESS &&
               OTF2_Reader_GetCompression(reader.get(), &compression) == OTF2_SUCCESS &&
               substrate == OTF2_SUBSTRATE_POSIX && compression == OTF2_COMPRESSION_NONE;
    otf2_report = {};
    folder_ = anchor.parent_path() / anchor.stem();
    definitions_ = fs::path(anchor).replace_extension(".def");
  }
  void check_definitions(const std::string& where) const { check(definitions_, where); }
  void check_location(OTF2_LocationRef location, const char* extension,
                      const std::string& where) const {
    check(folder_ / (std::to_string(location) + extension), where);
  }

 private:
  void check(const fs::path& file, const std::string& where) const {
    if (!enabled_) return;
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return;  // a missing file is OTF2's to report, where it needs one
    const std::streamoff size = in.tellg();
    char last = 0;
    if (size > 0) {
      in.seekg(size - 1);
      in.get(last);
    }
    if (size <= 0 || !in || static_cast<unsigned char>(last) != kOtf2EndOfFile) {
      throw input_error(
          where, fmt::format("{} is truncated: it lacks OTF2's end-of-file record", file.string()));
    }
  }
  static constexpr unsigned char kOtf2EndOfFile = 1;
  bool enabled_ = false;
  fs::path folder_;
  fs::path definitions_;
};

}  // namespace

void write_otf2(const Trace& trace, const std::filesystem::path& path) {
  const std::string target = path.string();
  if (path.extension() != ".otf2" || path.stem().empty()) {
    throw io_error(target, "an OTF2 archive is named by its anchor file, <name>.otf2");
  }
  // What OTF2 would refuse to read back is refused before anything is written.
  check_trace(trace);
  for (const auto& [key, value] : trace.properties) check_property_name(key, target);

  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const std::string stem = path.stem().string();
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) {
    throw io_error(target,
                   fmt::format("cannot create the folder {}: {}", folder.string(), ec.message()));
  }
  check_event_folder(folder / stem, target);
  const CaptureOtf2Errors capture;
  const TemporaryFolder temporary(folder, stem);
  write_archive(trace, temporary.path(), stem, target);
  move_in_place(temporary.path(), folder, stem, target);
}

Trace read_otf2(const std::filesystem::path& path) {
  const std::string where = path.string();
  std::error_code ec;
  if (!fs::exists(path, ec)) throw input_error(where, "no such file");
  if (fs::is_directory(path, ec)) {
    throw input_error(where, "a folder, not an OTF2 archive's anchor file (<name>.otf2)");
  }
  check_anchor_signature(path, where);
  const CaptureOtf2Errors capture;
  const ArchiveReader reader(where);
  reader.check(OTF2_Reader_SetSerialCollectiveCallbacks(reader.get()), where,
               "set the serial collective callbacks");

  const WholeFiles whole(reader, path);
  whole.check_definitions(where);

  Trace trace;
  trace.source = where;
  const Definitions defs = read_definitions(reader, where);
  std::vector<OTF2_LocationRef> locations;
  const Model model = resolve(defs, where, locations, trace.communicators);
  trace.properties = read_properties(reader, where);
  trace.ranks.resize(locations.size());

  const auto rank_where = [&](std::size_t r) { return fmt::format("{}: rank {}", where, r); };
  for (OTF2_LocationRef location : locations) {
    reader.check(OTF2_Reader_SelectLocation(reader.get(), location), where, "select a location");
  }
  // Local definitions are optional; where there are some they map local ids to global ones and
  // correct clocks, which OTF2 applies to the events once they are read.
  if (OTF2_Reader_OpenDefFiles(reader.get()) == OTF2_SUCCESS) {
    for (std::size_t r = 0; r < locations.size(); ++r) {
      whole.check_location(locations[r], ".def", rank_where(r));
      if (OTF2_DefReader* def_reader = OTF2_Reader_GetDefReader(reader.get(), locations[r])) {
        uint64_t count = 0;
        reader.check(OTF2_Reader_ReadAllLocalDefinitions(reader.get(), def_reader, &count),
                     rank_where(r), "read the rank's definitions");
        reader.check(OTF2_Reader_CloseDefReader(reader.get(), def_reader), rank_where(r),
                     "close the rank's definitions");
      }
    }
    reader.check(OTF2_Reader_CloseDefFiles(reader.get()), where, "close the definition files");
  }
  otf2_report = {};

  // One rank's event file open at a time: a trace may have more ranks than a process may open
  // files.
  reader.check(OTF2_Reader_OpenEvtFiles(reader.get()), where, "open the event files");
  const std::unique_ptr<OTF2_EvtReaderCallbacks, decltype(&OTF2_EvtReaderCallbacks_Delete)>
      callbacks(event_callbacks(), &OTF2_EvtReaderCallbacks_Delete);
  for (std::size_t r = 0; r < locations.size(); ++r) {
    whole.check_location(locations[r], ".evt", rank_where(r));
    OTF2_EvtReader* event_reader = OTF2_Reader_GetEvtReader(reader.get(), locations[r]);
    if (event_reader == nullptr) {
      throw input_error(rank_where(r), "cannot open the rank's events: " +
                                           otf2_problem(OTF2_ERROR_PROCESSED_WITH_FAULTS));
    }
    RankReader rank_reader(model, r, trace.ranks[r]);
    reader.check(
        OTF2_Reader_RegisterEvtCallbacks(reader.get(), event_reader, callbacks.get(), &rank_reader),
        rank_where(r), "read the rank's events");
    uint64_t count = 0;
    const OTF2_ErrorCode code = OTF2_Reader_ReadAllLocalEvents(reader.get(), event_reader, &count);
    if (rank_reader.error) std::rethrow_exception(rank_reader.error);
    if (code != OTF2_SUCCESS) {
      const std::string at =
          rank_reader.last_position == 0
              ? rank_where(r)
              : fmt::format("{}, after event {}", rank_where(r), rank_reader.last_position);
      throw input_error(at, "the rank's event file is truncated or damaged: " + otf2_problem(code));
    }
    // A whole file can still hold fewer events than the definitions count (where the writer
    // counted them): a writer that stopped early.
    const std::uint64_t expected = defs.locations.at(locations[r]);
    if (expected != 0 && count != expected) {
      throw input_error(fmt::format("{}, after event {}", rank_where(r), count),
                        fmt::format("the rank's event file is truncated: it holds {} events, its "
                                    "definition {}",
                                    count, expected));
    }
    rank_reader.finish();
    reader.check(OTF2_Reader_CloseEvtReader(reader.get(), event_reader), rank_where(r),
                 "close the rank's events");
  }
  reader.check(OTF2_Reader_CloseEvtFiles(reader.get()), where, "close the event files");
  check_trace(trace);
  return trace;
}

}  // namespace sonde::trace
