#include "trace/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/error.hpp"

namespace sonde::trace {
namespace {

std::string source_of(const Trace& trace) {
  return trace.source.empty() ? std::string("trace") : trace.source;
}

// "<source>: rank R, call K (MPI_Recv, event E)": the event is left out where it is not known
// (0: a trace built in memory; OTF2 counts positions from 1).
std::string call_where(const Trace& trace, std::size_t rank, std::size_t index, const Call& call) {
  std::string where = fmt::format("{}: rank {}, call {} ({}", source_of(trace), rank, index,
                                  call.function.empty() ? "unnamed" : call.function);
  if (call.event != 0) where += fmt::format(", event {}", call.event);
  return where + ")";
}

const char* kind_name(Operation::Kind kind) {
  switch (kind) {
    case Operation::Kind::send:
      return "send";
    case Operation::Kind::receive:
      return "receive";
    case Operation::Kind::isend:
      return "isend";
    case Operation::Kind::isend_complete:
      return "isend_complete";
    case Operation::Kind::irecv_request:
      return "irecv_request";
    case Operation::Kind::irecv:
      return "irecv";
    case Operation::Kind::collective:
      return "collective";
  }
  return "unknown";
}

void check_communicators(const Trace& trace) {
  const std::size_t ranks = trace.ranks.size();
  for (std::size_t c = 0; c < trace.communicators.size(); ++c) {
    const Communicator& comm = trace.communicators[c];
    const std::string where =
        fmt::format("{}: communicator {} ('{}')", source_of(trace), c, comm.name);
    std::unordered_set<std::uint32_t> seen;
    for (std::uint32_t member : comm.members) {
      if (member >= ranks) {
        throw input_error(
            where, fmt::format("member {} is not a rank of the trace (it has {})", member, ranks));
      }
      if (!seen.insert(member).second) {
        throw input_error(where, fmt::format("rank {} is a member twice", member));
      }
    }
    // Communicator 0 is MPI_COMM_WORLD: every rank, in world rank order.
    if (c == 0) {
      bool world = comm.members.size() == ranks;
      for (std::size_t i = 0; world && i < ranks; ++i) world = comm.members[i] == i;
      if (!world) {
        throw input_error(where,
                          "communicator 0 is MPI_COMM_WORLD: its members are every rank, in order");
      }
    }
  }
}

// What a pending non-blocking request was posted as.
enum class Posted { isend, irecv };

void check_operation(const Trace& trace, const std::string& where, const Operation& op,
                     std::unordered_map<std::uint64_t, Posted>& pending,
                     std::unordered_set<std::uint64_t>& completed) {
  using Kind = Operation::Kind;
  const bool has_communicator = op.kind == Kind::send || op.kind == Kind::receive ||
                                op.kind == Kind::isend || op.kind == Kind::irecv ||
                                op.kind == Kind::collective;
  if (has_communicator) {
    if (op.communicator >= trace.communicators.size()) {
      throw input_error(
          where, fmt::format("{} on communicator {}, which the trace does not define "
                             "(it has {})",
                             kind_name(op.kind), op.communicator, trace.communicators.size()));
    }
    const Communicator& comm = trace.communicators[op.communicator];
    const std::size_t size = comm.members.size();
    if (op.kind == Kind::collective) {
      if (op.peer != kNoRoot && op.peer >= size) {
        throw input_error(
            where, fmt::format("{} with root {}, out of range of communicator {} "
                               "('{}', {} ranks)",
                               name(op.collective), op.peer, op.communicator, comm.name, size));
      }
    } else if (op.peer >= size) {
      throw input_error(where,
                        fmt::format("{} with peer {}, out of range of communicator {} ('{}', "
                                    "{} ranks)",
                                    kind_name(op.kind), op.peer, op.communicator, comm.name, size));
    }
  }
  // Requests: posted once while pending, completed once after being posted, by the completion
  // of their own kind.
  const auto post = [&](Posted as) {
    if (pending.count(op.request) != 0) {
      throw input_error(where, fmt::format("{} posts request {}, which is still pending",
                                           kind_name(op.kind), op.request));
    }
    pending.emplace(op.request, as);
    completed.erase(op.request);
  };
  const auto complete = [&](Posted as) {
    const auto it = pending.find(op.request);
    if (it == pending.end()) {
      if (completed.count(op.request) != 0) {
        throw input_error(where, fmt::format("{} of request {}, which was completed before",
                                             kind_name(op.kind), op.request));
      }
      throw input_error(where, fmt::format("{} of request {}, which was never posted",
                                           kind_name(op.kind), op.request));
    }
    if (it->second != as) {
      throw input_error(
          where,
          fmt::format("{} of request {}, which was posted by {}", kind_name(op.kind), op.request,
                      it->second == Posted::isend ? "an isend" : "an irecv_request"));
    }
    pending.erase(it);
    completed.insert(op.request);
  };
  switch (op.kind) {
    case Kind::isend:
      post(Posted::isend);
      break;
    case Kind::irecv_request:
      post(Posted::irecv);
      break;
    case Kind::isend_complete:
      complete(Posted::isend);
      break;
    case Kind::irecv:
      complete(Posted::irecv);
      break;
    default:
      break;
  }
}

void check_rank(const Trace& trace, std::size_t r) {
  const Rank& rank = trace.ranks[r];
  const std::string rank_where = fmt::format("{}: rank {}", source_of(trace), r);
  if (rank.end_ns < rank.start_ns) {
    throw input_error(rank_where, fmt::format("ends at {} ns, before it starts at {} ns",
                                              rank.end_ns, rank.start_ns));
  }
  std::unordered_map<std::uint64_t, Posted> pending;
  std::unordered_set<std::uint64_t> completed;
  std::uint64_t previous_ns = rank.start_ns;
  for (std::size_t k = 0; k < rank.calls.size(); ++k) {
    const Call& call = rank.calls[k];
    const std::string where = call_where(trace, r, k, call);
    if (call.function.empty()) throw input_error(where, "the call has no function name");
    if (call.enter_ns < previous_ns) {
      throw input_error(
          where,
          fmt::format("entered at {} ns, before {} at {} ns: time goes "
                      "backwards",
                      call.enter_ns, k == 0 ? "the rank's start" : "the previous call's leave",
                      previous_ns));
    }
    if (call.leave_ns < call.enter_ns) {
      throw input_error(where, fmt::format("left at {} ns, before it was entered at {} ns",
                                           call.leave_ns, call.enter_ns));
    }
    if (call.leave_ns > rank.end_ns) {
      throw input_error(where, fmt::format("left at {} ns, after the rank's end at {} ns",
                                           call.leave_ns, rank.end_ns));
    }
    previous_ns = call.leave_ns;
    for (const Operation& op : call.operations) {
      check_operation(trace, where, op, pending, completed);
    }
  }
  std::uint64_t previous_begin_ns = rank.start_ns;
  for (std::size_t p = 0; p < rank.phases.size(); ++p) {
    const Phase& phase = rank.phases[p];
    const std::string where = fmt::format("{}, phase {} ('{}')", rank_where, p, phase.name);
    if (phase.end_ns < phase.begin_ns) {
      throw input_error(where, fmt::format("ends at {} ns, before it begins at {} ns", phase.end_ns,
                                           phase.begin_ns));
    }
    if (phase.begin_ns < previous_begin_ns) {
      throw input_error(
          where, fmt::format("begins at {} ns, before {} at {} ns: phases are kept "
                             "in the order they began, within the rank's life",
                             phase.begin_ns, p == 0 ? "the rank's start" : "the previous phase",
                             previous_begin_ns));
    }
    if (phase.end_ns > rank.end_ns) {
      throw input_error(where, fmt::format("ends at {} ns, after the rank's end at {} ns",
                                           phase.end_ns, rank.end_ns));
    }
    previous_begin_ns = phase.begin_ns;
  }
}

}  // namespace

const char* name(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::barrier:
      return "barrier";
    case CollectiveOp::broadcast:
      return "broadcast";
    case CollectiveOp::gather:
      return "gather";
    case CollectiveOp::scatter:
      return "scatter";
    case CollectiveOp::allgather:
      return "allgather";
    case CollectiveOp::alltoall:
      return "alltoall";
    case CollectiveOp::reduce:
      return "reduce";
    case CollectiveOp::allreduce:
      return "allreduce";
    case CollectiveOp::scan:
      return "scan";
    case CollectiveOp::reduce_scatter:
      return "reduce_scatter";
    case CollectiveOp::other:
      return "other";
  }
  return "other";
}

double Trace::measured_seconds() const {
  if (ranks.empty()) return 0.0;
  std::uint64_t start_ns = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t end_ns = 0;
  for (const Rank& rank : ranks) {
    start_ns = std::min(start_ns, rank.start_ns);
    end_ns = std::max(end_ns, rank.end_ns);
  }
  return end_ns > start_ns ? static_cast<double>(end_ns - start_ns) * 1e-9 : 0.0;
}

void check_trace(const Trace& trace) {
  check_communicators(trace);
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) check_rank(trace, r);
}

}  // namespace sonde::trace
