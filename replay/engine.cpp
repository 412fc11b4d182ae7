#include "replay/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"

namespace sonde::replay {

std::uint32_t Placement::nodes() const {
  std::set<std::uint32_t> distinct(node_of_rank.begin(), node_of_rank.end());
  return static_cast<std::uint32_t>(std::max<std::size_t>(1, distinct.size()));
}

Placement block_placement(std::uint32_t ranks, std::uint32_t per_node) {
  if (per_node == 0) throw usage_error("--ranks-per-node", "expected at least 1");
  Placement placement;
  for (std::uint32_t r = 0; r < ranks; ++r) placement.node_of_rank.push_back(r / per_node);
  return placement;
}

Placement round_robin_placement(std::uint32_t ranks, std::uint32_t nodes) {
  if (nodes == 0) throw usage_error("--nodes", "expected at least 1");
  Placement placement;
  for (std::uint32_t r = 0; r < ranks; ++r) placement.node_of_rank.push_back(r % nodes);
  return placement;
}

namespace {

using trace::Operation;
constexpr double kUnknown = -1;
constexpr double kNs = 1e-9;
// Times closer than this are one instant: a picosecond, far below anything MPI does.
constexpr double kTolerance = 1e-12;

struct Message {
  std::uint32_t sender = 0, receiver = 0;
  std::uint32_t send_call = 0, receive_call = 0;
  double bytes = 0;
  Link link = Link::within_node;
  double send_time = kUnknown;
  double arrival = kUnknown;
  double cost = 0;  // the model's time for it, without waiting for a shared link
};

struct Instance {
  std::uint32_t communicator = 0;
  trace::CollectiveOp op = trace::CollectiveOp::other;
  std::string function;
  std::vector<std::uint32_t> members;  // world ranks
  std::vector<std::uint32_t> calls;    // each member's call index
  std::vector<double> sent, received;  // bytes per member
  std::vector<double> join;            // when each member arrived; kUnknown before
  std::vector<double> release;         // per member, once all arrived
  std::uint32_t joined = 0;
  std::uint32_t last = 0;  // index into members of the latest arrival
  double cost = 0;
  std::string how;
};

enum class Cause { local, message, collective };

// What one replayed call did, for the path and the timeline.
struct CallRecord {
  double gap_begin = 0, enter = 0, release = 0;
  double model_cost = 0;  // the part of release - enter that the models account for
  Cause cause = Cause::local;
  std::size_t cause_index = 0;     // message or instance
  std::uint32_t cause_member = 0;  // collective: the member that arrived last
};

enum class State { computing, in_call, done };

struct RankState {
  std::uint32_t call = 0;  // the call being computed toward or inside
  State state = State::computing;
  double remaining = 0;       // processor seconds left of the current gap
  std::uint32_t unknown = 0;  // conditions of the current call not yet timed
  double release = 0;
  Cause cause = Cause::local;
  std::size_t cause_index = 0;
  std::uint32_t cause_member = 0;
};

// One operation's place: rank, call, operation.
using OpKey = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>;

class Replay {
 public:
  Replay(const trace::Trace& trace, const Costs& costs, const Options& options)
      : trace_(trace), costs_(costs), options_(options) {
    const auto n = static_cast<std::uint32_t>(trace.ranks.size());
    node_ = options.placement.node_of_rank;
    if (node_.empty()) node_.assign(n, 0);
    if (node_.size() != n) {
      throw usage_error("--placement",
                        fmt::format("places {} ranks; the trace has {}", node_.size(), n));
    }
    if (!(options.speed_ratio > 0) || !std::isfinite(options.speed_ratio)) {
      throw usage_error("--speed-ratio", "expected a factor above 0");
    }
    for (const auto& [phase, ratio] : options.phase_speed_ratio) {
      if (!(ratio > 0) || !std::isfinite(ratio)) {
        throw usage_error("--phase-ratio", fmt::format("{}: expected a factor above 0", phase));
      }
    }
    span();
    match_messages();
    match_collectives();
  }

  Result run();

 private:
  std::string where(std::uint32_t rank, std::uint32_t call) const {
    const trace::Call& c = trace_.ranks[rank].calls[call];
    return fmt::format("{}: rank {}, call {} ({}, event {})",
                       trace_.source.empty() ? "trace" : trace_.source, rank, call, c.function,
                       c.event);
  }
  std::uint32_t world(const Operation& op, std::uint32_t rank_in_comm) const {
    return trace_.communicators.at(op.communicator).members.at(rank_in_comm);
  }
  Link link(std::uint32_t a, std::uint32_t b) const {
    return node_[a] == node_[b] ? Link::within_node : Link::between_nodes;
  }
  void span();
  void match_messages();
  void match_collectives();
  double gap_work(std::uint32_t rank, std::uint32_t call) const;
  double ratio_of_gap(const trace::Rank& rank, double begin, double end) const;
  void start_gap(std::uint32_t rank, double now);
  void enter_call(std::uint32_t rank, double now);
  void resolve(std::uint32_t rank, double time, Cause cause, std::size_t index,
               std::uint32_t member);
  void post_message(std::size_t index, double now);
  void complete_instance(std::size_t index);
  void finish_call(std::uint32_t rank, double now);
  std::string waiting_for(std::uint32_t rank) const;
  void trace_path(Result& result) const;

  const trace::Trace& trace_;
  const Costs& costs_;
  const Options& options_;
  std::vector<std::uint32_t> node_;
  std::vector<std::uint32_t> first_, end_;  // replayed calls: [first_, end_) per rank
  double measured_ = 0;

  std::vector<Message> messages_;
  std::map<OpKey, std::size_t> message_of_;  // send, isend, receive, irecv, isend_complete ops
  std::vector<std::vector<std::uint32_t>> waiting_receivers_;  // per message: ranks blocked on it
  std::vector<Instance> instances_;
  std::map<OpKey, std::size_t> instance_of_;
  std::map<std::uint32_t, double> link_free_;  // per node: when its outgoing link is free

  std::vector<RankState> state_;
  std::vector<std::vector<CallRecord>> records_;
  std::vector<double> gap_begin_, end_time_;
  std::vector<RankTimes> times_;
  std::vector<std::string> notes_;
  std::set<std::string> noted_;
};

void Replay::span() {
  const std::size_t n = trace_.ranks.size();
  first_.assign(n, 0);
  end_.assign(n, 0);
  double earliest = std::numeric_limits<double>::infinity(), latest = 0;
  for (std::uint32_t r = 0; r < n; ++r) {
    const auto& calls = trace_.ranks[r].calls;
    std::uint32_t first = 0;
    auto end = static_cast<std::uint32_t>(calls.size());
    for (std::uint32_t k = 0; k < calls.size(); ++k) {
      if (calls[k].function == "MPI_Init" || calls[k].function == "MPI_Init_thread") first = k + 1;
      if (calls[k].function == "MPI_Finalize") {
        end = k;
        break;
      }
    }
    first_[r] = first;
    end_[r] = end;
    const trace::Rank& rank = trace_.ranks[r];
    const double start = first > 0 ? calls[first - 1].leave_ns * kNs : rank.start_ns * kNs;
    const double stop = end < calls.size() ? calls[end].enter_ns * kNs : rank.end_ns * kNs;
    earliest = std::min(earliest, start);
    latest = std::max(latest, stop);
  }
  measured_ = n == 0 ? 0 : std::max(0.0, latest - earliest);
}

void Replay::match_messages() {
  // Sends in each sender's program order, receives in each receiver's posting order (an
  // MPI_Irecv is posted where its request was made, though its source and tag are known only at
  // completion): the k-th send and the k-th receive of one (communicator, source, destination,
  // tag) are one message, as MPI's non-overtaking rule makes them.
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint32_t>;
  std::map<Key, std::deque<OpKey>> sends;
  struct Posting {
    OpKey posted, completed;
    Key key;
  };
  std::vector<std::vector<Posting>> postings_of(trace_.ranks.size());
  for (std::uint32_t r = 0; r < trace_.ranks.size(); ++r) {
    const auto& calls = trace_.ranks[r].calls;
    std::map<std::uint64_t, OpKey> open_irecv;
    std::vector<Posting>& postings = postings_of[r];
    for (std::uint32_t k = first_[r]; k < end_[r]; ++k) {
      for (std::uint32_t o = 0; o < calls[k].operations.size(); ++o) {
        const Operation& op = calls[k].operations[o];
        switch (op.kind) {
          case Operation::Kind::send:
          case Operation::Kind::isend:
            sends[{op.communicator, r, world(op, op.peer), op.tag}].push_back({r, k, o});
            break;
          case Operation::Kind::receive:
            postings.push_back(
                {{r, k, o}, {r, k, o}, {op.communicator, world(op, op.peer), r, op.tag}});
            break;
          case Operation::Kind::irecv_request:
            open_irecv[op.request] = {r, k, o};
            break;
          case Operation::Kind::irecv: {
            const auto found = open_irecv.find(op.request);
            const OpKey posted = found == open_irecv.end() ? OpKey{r, k, o} : found->second;
            if (found != open_irecv.end()) open_irecv.erase(found);
            postings.push_back(
                {posted, {r, k, o}, {op.communicator, world(op, op.peer), r, op.tag}});
            break;
          }
          default:
            break;
        }
      }
    }
    std::stable_sort(postings.begin(), postings.end(),
                     [](const Posting& a, const Posting& b) { return a.posted < b.posted; });
  }
  // Every send is known before any receive is matched.
  for (const std::vector<Posting>& postings : postings_of) {
    for (const Posting& posting : postings) {
      auto& queue = sends[posting.key];
      const auto [rr, kk, oo] = posting.completed;
      if (queue.empty()) {
        const auto& [comm, source, destination, tag] = posting.key;
        throw input_error(where(rr, kk),
                          fmt::format("a receive from rank {} (tag {}, communicator {}) that no "
                                      "send in the trace matches",
                                      source, tag, comm));
      }
      const auto [sr, sk, so] = queue.front();
      queue.pop_front();
      Message message;
      message.sender = sr;
      message.receiver = rr;
      message.send_call = sk;
      message.receive_call = kk;
      message.bytes = static_cast<double>(trace_.ranks[sr].calls[sk].operations[so].bytes);
      message.link = link(sr, rr);
      message_of_[{sr, sk, so}] = messages_.size();
      message_of_[posting.completed] = messages_.size();
      messages_.push_back(message);
    }
  }
  for (const auto& [key, queue] : sends) {
    if (!queue.empty()) {
      const auto [r, k, o] = queue.front();
      throw input_error(where(r, k), fmt::format("a send to rank {} (tag {}) that no receive in "
                                                 "the trace matches",
                                                 std::get<2>(key), std::get<3>(key)));
    }
  }
  // A non-blocking send completes when its message arrives: its completion names the message.
  for (std::uint32_t r = 0; r < trace_.ranks.size(); ++r) {
    const auto& calls = trace_.ranks[r].calls;
    std::map<std::uint64_t, std::size_t> open_isend;
    for (std::uint32_t k = first_[r]; k < end_[r]; ++k) {
      for (std::uint32_t o = 0; o < calls[k].operations.size(); ++o) {
        const Operation& op = calls[k].operations[o];
        if (op.kind == Operation::Kind::isend) {
          open_isend[op.request] = message_of_.at({r, k, o});
        } else if (op.kind == Operation::Kind::isend_complete) {
          const auto found = open_isend.find(op.request);
          if (found == open_isend.end()) {
            throw input_error(where(r, k), fmt::format("completes send request {} that was not "
                                                       "posted",
                                                       op.request));
          }
          message_of_[{r, k, o}] = found->second;
          open_isend.erase(found);
        }
      }
    }
  }
  waiting_receivers_.resize(messages_.size());
}

void Replay::match_collectives() {
  // The k-th collective of each member of a communicator is one operation (MPI orders collectives
  // on a communicator the same on every member).
  std::map<std::uint32_t, std::vector<std::vector<OpKey>>> per_comm;  // comm -> member -> ops
  for (std::uint32_t r = 0; r < trace_.ranks.size(); ++r) {
    const auto& calls = trace_.ranks[r].calls;
    for (std::uint32_t k = first_[r]; k < end_[r]; ++k) {
      for (std::uint32_t o = 0; o < calls[k].operations.size(); ++o) {
        const Operation& op = calls[k].operations[o];
        if (op.kind != Operation::Kind::collective) continue;
        const trace::Communicator& comm = trace_.communicators.at(op.communicator);
        auto& lists = per_comm[op.communicator];
        lists.resize(comm.members.size());
        const auto at = std::find(comm.members.begin(), comm.members.end(), r);
        if (at == comm.members.end()) {
          throw input_error(where(r, k), fmt::format("a collective on communicator {} ({}), "
                                                     "which rank {} is not a member of",
                                                     op.communicator, comm.name, r));
        }
        lists[static_cast<std::size_t>(at - comm.members.begin())].push_back({r, k, o});
      }
    }
  }
  for (const auto& [comm_index, lists] : per_comm) {
    const trace::Communicator& comm = trace_.communicators.at(comm_index);
    std::size_t count = 0;
    for (const auto& list : lists) count = std::max(count, list.size());
    for (std::size_t i = 0; i < count; ++i) {
      Instance instance;
      instance.communicator = comm_index;
      instance.members = comm.members;
      for (std::size_t m = 0; m < lists.size(); ++m) {
        if (i >= lists[m].size()) {
          const auto [r, k, o] = lists.front().size() > i ? lists.front()[i] : lists[m].back();
          throw input_error(
              where(r, k),
              fmt::format("collective {} on communicator {} ({}) has no partner on "
                          "rank {}, which made {} collectives there",
                          i + 1, comm_index, comm.name, comm.members[m], lists[m].size()));
        }
        const auto [r, k, o] = lists[m][i];
        const trace::Call& call = trace_.ranks[r].calls[k];
        const Operation& op = call.operations[o];
        if (m == 0) {
          instance.op = op.collective;
          instance.function = call.function;
        } else if (op.collective != instance.op) {
          throw input_error(where(r, k),
                            fmt::format("collective {} on communicator {} is {} here and {} on "
                                        "rank {}",
                                        i + 1, comm_index, trace::name(op.collective),
                                        trace::name(instance.op), comm.members[0]));
        }
        instance.calls.push_back(k);
        instance.sent.push_back(static_cast<double>(op.bytes));
        instance.received.push_back(static_cast<double>(op.bytes_received));
        instance_of_[{r, k, o}] = instances_.size();
      }
      instance.join.assign(instance.members.size(), kUnknown);
      instances_.push_back(std::move(instance));
    }
  }
}

double Replay::gap_work(std::uint32_t rank, std::uint32_t call) const {
  // The computation before `call` (or, at end_, before MPI_Finalize or the rank's end).
  const trace::Rank& r = trace_.ranks[rank];
  const double previous = call == 0 ? r.start_ns * kNs : r.calls[call - 1].leave_ns * kNs;
  std::optional<std::uint64_t> process;
  double wall = 0;
  if (call < r.calls.size()) {
    process = r.calls[call].process_ns_before;
    wall = r.calls[call].enter_ns * kNs - previous;
  } else {
    process = r.process_ns_after;
    wall = r.end_ns * kNs - previous;
  }
  const double seconds = options_.use_process_time && process ? *process * kNs : wall;
  return std::max(0.0, seconds) * ratio_of_gap(r, previous, previous + wall);
}

double Replay::ratio_of_gap(const trace::Rank& rank, double begin, double end) const {
  if (options_.phase_speed_ratio.empty() || end <= begin) return options_.speed_ratio;
  // The phases that overlap [begin, end): they do not nest, and they are in the order they began.
  const auto first =
      std::lower_bound(rank.phases.begin(), rank.phases.end(), begin,
                       [](const trace::Phase& phase, double t) { return phase.end_ns * kNs <= t; });
  double covered = 0, weighted = 0;
  for (auto phase = first; phase != rank.phases.end() && phase->begin_ns * kNs < end; ++phase) {
    const auto found = options_.phase_speed_ratio.find(phase->name);
    if (found == options_.phase_speed_ratio.end()) continue;
    const double overlap =
        std::min(end, phase->end_ns * kNs) - std::max(begin, phase->begin_ns * kNs);
    if (overlap <= 0) continue;
    covered += overlap;
    weighted += overlap * found->second;
  }
  const double span = end - begin;
  return (weighted + std::max(0.0, span - covered) * options_.speed_ratio) / span;
}

void Replay::start_gap(std::uint32_t rank, double now) {
  RankState& s = state_[rank];
  s.state = State::computing;
  s.remaining = gap_work(rank, s.call);
  gap_begin_[rank] = now;
}

void Replay::post_message(std::size_t index, double now) {
  Message& message = messages_[index];
  message.send_time = now;
  message.cost = costs_.message(message.bytes, message.link);
  double start = now;
  if (message.link == Link::between_nodes && costs_.seconds_per_byte_between_nodes) {
    // Messages leaving one node share its link: each holds it for its bytes' time, in the order
    // they were sent.
    double& free = link_free_[node_[message.sender]];
    start = std::max(now, free);
    free = start + costs_.seconds_per_byte_between_nodes(message.bytes) * message.bytes;
  }
  message.arrival = start + message.cost;
  for (std::uint32_t rank : waiting_receivers_[index]) {
    resolve(rank, message.arrival, Cause::message, index, 0);
  }
  waiting_receivers_[index].clear();
}

void Replay::resolve(std::uint32_t rank, double time, Cause cause, std::size_t index,
                     std::uint32_t member) {
  RankState& s = state_[rank];
  if (time > s.release) {
    s.release = time;
    s.cause = cause;
    s.cause_index = index;
    s.cause_member = member;
  }
  --s.unknown;
}

void Replay::complete_instance(std::size_t index) {
  Instance& instance = instances_[index];
  const std::size_t n = instance.members.size();
  std::set<std::uint32_t> nodes;  // the members' nodes
  for (std::uint32_t member : instance.members) nodes.insert(node_[member]);
  const Link where_to = nodes.size() > 1 ? Link::between_nodes : Link::within_node;
  // m per rank from what the members moved (the suite's convention: per pair for alltoall).
  double sent = 0, received = 0;
  for (std::size_t m = 0; m < n; ++m) {
    sent = std::max(sent, instance.sent[m]);
    received = std::max(received, instance.received[m]);
  }
  using trace::CollectiveOp;
  double bytes = sent;
  if (instance.op == CollectiveOp::broadcast) bytes = std::max(sent, received);
  if (instance.op == CollectiveOp::scatter) bytes = received;
  if (instance.op == CollectiveOp::alltoall) bytes = sent / static_cast<double>(n);
  if (instance.op == CollectiveOp::barrier) bytes = 0;

  const auto latest = std::max_element(instance.join.begin(), instance.join.end());
  const double last_join = *latest;
  instance.last = static_cast<std::uint32_t>(latest - instance.join.begin());
  instance.release.assign(n, last_join);
  if (instance.op == CollectiveOp::barrier && costs_.extrap_barrier) {
    // ExtraP's linear barrier: rank 0 of the communicator waits for every entry message, lowers
    // the barrier, and each slave leaves once its release message arrives.
    const ExtrapBarrier& b = *costs_.extrap_barrier;
    auto message = [&](std::size_t m) {
      return b.by_messages
                 ? costs_.message(b.message_bytes, link(instance.members[0], instance.members[m]))
                 : 0.0;
    };
    double lowered = instance.join[0] + b.entry;
    for (std::size_t m = 1; m < n; ++m) {
      lowered = std::max(lowered, instance.join[m] + b.entry + message(m));
    }
    lowered += b.check + b.model;
    instance.release[0] = lowered + b.exit;
    for (std::size_t m = 1; m < n; ++m) {
      instance.release[m] = lowered + message(m) + b.exit_check + b.exit;
    }
    instance.cost = instance.release[0] - last_join;
    instance.how = "ExtraP's linear barrier";
  } else if (instance.op == CollectiveOp::other) {
    // No model: what it took on the traced run, the longest member's time.
    double longest = 0;
    for (std::size_t m = 0; m < n; ++m) {
      const trace::Call& call = trace_.ranks[instance.members[m]].calls[instance.calls[m]];
      longest = std::max(longest, (call.leave_ns - call.enter_ns) * kNs);
    }
    instance.cost = longest;
    instance.how = "no model: its traced time";
    for (double& release : instance.release) release += longest;
  } else {
    const CollectiveCost cost =
        costs_.collective(instance.op, static_cast<std::uint32_t>(n), bytes, where_to,
                          static_cast<std::uint32_t>(nodes.size()));
    instance.cost = cost.seconds;
    instance.how = cost.how;
    for (double& release : instance.release) release += cost.seconds;
  }
  const std::string note =
      fmt::format("{} on {} ranks, {:.0f} B: {}", trace::name(instance.op), n, bytes, instance.how);
  if (noted_.insert(note).second && noted_.size() <= 64) notes_.push_back(note);
  for (std::size_t m = 0; m < n; ++m) {
    resolve(instance.members[m], instance.release[m], Cause::collective, index, instance.last);
  }
}

void Replay::enter_call(std::uint32_t rank, double now) {
  RankState& s = state_[rank];
  const trace::Call& call = trace_.ranks[rank].calls[s.call];
  CallRecord& record = records_[rank][s.call];
  record.gap_begin = gap_begin_[rank];
  record.enter = now;
  s.state = State::in_call;
  s.release = now;
  s.cause = Cause::local;
  s.unknown = 0;
  double model_cost = 0;
  if (call.operations.empty()) {
    // A call the models know nothing of (MPI_Comm_rank, MPI_Comm_split, MPI_Test that found
    // nothing): what it took on the traced run.
    s.release = now + (call.leave_ns - call.enter_ns) * kNs;
    model_cost = s.release - now;
  }
  std::vector<std::size_t> joined;
  for (std::uint32_t o = 0; o < call.operations.size(); ++o) {
    const Operation& op = call.operations[o];
    switch (op.kind) {
      case Operation::Kind::send:
      case Operation::Kind::isend: {
        const std::size_t index = message_of_.at({rank, s.call, o});
        post_message(index, now);
        model_cost = std::max(model_cost, messages_[index].cost);
        // A blocking send returns when its message has arrived (half a round trip, the time
        // the table measures); a non-blocking one at once, and its wait when it arrives.
        if (op.kind == Operation::Kind::send && messages_[index].arrival > s.release) {
          s.release = messages_[index].arrival;
          s.cause = Cause::local;
        }
        break;
      }
      case Operation::Kind::receive:
      case Operation::Kind::irecv:
      case Operation::Kind::isend_complete: {
        const std::size_t index = message_of_.at({rank, s.call, o});
        Message& message = messages_[index];
        ++s.unknown;
        if (message.arrival != kUnknown) {
          resolve(rank, message.arrival, Cause::message, index, 0);
          model_cost = std::max(model_cost, message.cost);
        } else {
          waiting_receivers_[index].push_back(rank);  // resolved when its sender posts it
          model_cost = std::max(model_cost, costs_.message(message.bytes, message.link));
        }
        break;
      }
      case Operation::Kind::irecv_request:
        break;
      case Operation::Kind::collective: {
        const std::size_t index = instance_of_.at({rank, s.call, o});
        Instance& instance = instances_[index];
        const auto at = std::find(instance.members.begin(), instance.members.end(), rank);
        instance.join[static_cast<std::size_t>(at - instance.members.begin())] = now;
        ++instance.joined;
        ++s.unknown;
        if (instance.joined == instance.members.size()) joined.push_back(index);
        break;
      }
    }
  }
  record.model_cost = model_cost;
  for (std::size_t index : joined) complete_instance(index);
}

void Replay::finish_call(std::uint32_t rank, double now) {
  RankState& s = state_[rank];
  CallRecord& record = records_[rank][s.call];
  record.release = now;
  record.cause = s.cause;
  record.cause_index = s.cause_index;
  record.cause_member = s.cause_member;
  if (s.cause == Cause::collective) {
    record.model_cost = std::max(record.model_cost, instances_[s.cause_index].cost);
  } else if (s.cause == Cause::message) {
    record.model_cost = std::max(record.model_cost, messages_[s.cause_index].cost);
  }
  const double elapsed = now - record.enter;
  const double communication = std::min(elapsed, record.model_cost);
  times_[rank].communication += communication;
  times_[rank].wait += elapsed - communication;
  ++times_[rank].calls;
  ++s.call;
  start_gap(rank, now);
}

std::string Replay::waiting_for(std::uint32_t rank) const {
  const RankState& s = state_[rank];
  if (s.state != State::in_call) return "computing";
  const trace::Call& call = trace_.ranks[rank].calls[s.call];
  for (std::uint32_t o = 0; o < call.operations.size(); ++o) {
    const Operation& op = call.operations[o];
    if (op.kind == Operation::Kind::collective) {
      const Instance& instance = instances_[instance_of_.at({rank, s.call, o})];
      std::vector<std::uint32_t> missing;
      for (std::size_t m = 0; m < instance.members.size(); ++m) {
        if (instance.join[m] == kUnknown) missing.push_back(instance.members[m]);
      }
      return fmt::format("{} waits for ranks {}", call.function, fmt::join(missing, ", "));
    }
    const auto found = message_of_.find({rank, s.call, o});
    if (found != message_of_.end() && messages_[found->second].arrival == kUnknown) {
      return fmt::format("{} waits for a message from rank {}", call.function,
                         messages_[found->second].sender);
    }
  }
  return call.function;
}

Result Replay::run() {
  const auto n = static_cast<std::uint32_t>(trace_.ranks.size());
  state_.assign(n, {});
  records_.resize(n);
  gap_begin_.assign(n, 0);
  end_time_.assign(n, 0);
  times_.assign(n, {});
  for (std::uint32_t r = 0; r < n; ++r) {
    records_[r].resize(trace_.ranks[r].calls.size());
    state_[r].call = first_[r];
    start_gap(r, 0);
  }
  const std::uint32_t processors = options_.placement.processors_per_node;
  double now = 0;
  std::uint32_t done = 0;
  while (done < n) {
    // Everything that happens at `now`, until nothing more does: a rank that has computed its
    // gap enters its call (and may post a message or complete a collective that releases
    // another), a rank whose call has ended starts its next gap.
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t r = 0; r < n; ++r) {
        RankState& s = state_[r];
        if (s.state == State::computing && s.remaining <= kTolerance) {
          if (s.call >= end_[r]) {
            s.state = State::done;
            end_time_[r] = now;
            ++done;
          } else {
            enter_call(r, now);
          }
          changed = true;
        } else if (s.state == State::in_call && s.unknown == 0 && s.release <= now + kTolerance) {
          finish_call(r, now);
          changed = true;
        }
      }
    }
    if (done == n) break;
    // Processors shared fairly among a node's computing ranks (Eom and Hollingsworth's groups):
    // each runs at min(1, processors / computing ranks).
    std::map<std::uint32_t, std::uint32_t> computing;
    for (std::uint32_t r = 0; r < n; ++r) {
      if (state_[r].state == State::computing) ++computing[node_[r]];
    }
    auto rate = [&](std::uint32_t r) {
      if (processors == 0) return 1.0;
      return std::min(1.0, static_cast<double>(processors) / computing[node_[r]]);
    };
    double next = std::numeric_limits<double>::infinity();
    for (std::uint32_t r = 0; r < n; ++r) {
      const RankState& s = state_[r];
      if (s.state == State::computing) next = std::min(next, now + s.remaining / rate(r));
      if (s.state == State::in_call && s.unknown == 0) next = std::min(next, s.release);
    }
    if (!std::isfinite(next)) {
      std::vector<std::string> stuck;
      for (std::uint32_t r = 0; r < n; ++r) {
        if (state_[r].state == State::in_call) {
          stuck.push_back(fmt::format("{}: {}", where(r, state_[r].call), waiting_for(r)));
        }
      }
      throw input_error(trace_.source.empty() ? "trace" : trace_.source,
                        fmt::format("the replay deadlocks: {}", fmt::join(stuck, "; ")));
    }
    const double step = next - now;
    for (std::uint32_t r = 0; r < n; ++r) {
      RankState& s = state_[r];
      if (s.state != State::computing) continue;
      s.remaining = std::max(0.0, s.remaining - rate(r) * step);
      times_[r].compute += step;
      if (s.remaining / rate(r) <= kTolerance) s.remaining = 0;
    }
    now = next;
  }

  Result result;
  result.measured_seconds = measured_;
  for (std::uint32_t r = 0; r < n; ++r) {
    times_[r].end = end_time_[r];
    result.predicted_seconds = std::max(result.predicted_seconds, end_time_[r]);
  }
  result.ranks = times_;
  result.notes = notes_;
  if (!node_.empty() && processors > 0) {
    for (const auto& [node, count] : [&] {
           std::map<std::uint32_t, std::uint32_t> per;
           for (std::uint32_t node : node_) ++per[node];
           return per;
         }()) {
      if (count > processors) {
        result.notes.push_back(
            fmt::format("node {}: {} ranks share {} processors", node, count, processors));
      }
    }
  }
  // The timeline: each rank's gaps and calls, waiting before the modelled part of each call.
  for (std::uint32_t r = 0; r < n; ++r) {
    auto add = [&](double begin, double end, Activity activity, const std::string& what) {
      if (end <= begin) return;
      if (!result.timeline.empty()) {
        Interval& last = result.timeline.back();
        if (last.rank == r && last.activity == activity && std::abs(last.end - begin) < 1e-9) {
          last.end = end;
          return;
        }
      }
      result.timeline.push_back({r, begin, end, activity, what});
    };
    for (std::uint32_t k = first_[r]; k < end_[r]; ++k) {
      const CallRecord& record = records_[r][k];
      add(record.gap_begin, record.enter, Activity::compute, "computation");
      const double modelled = std::min(record.release - record.enter, record.model_cost);
      add(record.enter, record.release - modelled, Activity::wait,
          trace_.ranks[r].calls[k].function);
      add(record.release - modelled, record.release, Activity::communication,
          trace_.ranks[r].calls[k].function);
    }
    add(end_[r] > first_[r] ? records_[r][end_[r] - 1].release : 0.0, end_time_[r],
        Activity::compute, "computation");
  }
  trace_path(result);
  return result;
}

void Replay::trace_path(Result& result) const {
  const auto n = static_cast<std::uint32_t>(trace_.ranks.size());
  if (n == 0) return;
  std::uint32_t rank = static_cast<std::uint32_t>(
      std::max_element(end_time_.begin(), end_time_.end()) - end_time_.begin());
  auto step = [&](std::uint32_t r, double begin, double end, const std::string& what,
                  Activity activity) {
    if (end <= begin) return;
    result.critical_path.push_back({r, begin, end, what, activity});
    (activity == Activity::compute ? result.critical_compute : result.critical_communication) +=
        end - begin;
  };
  // The rank that ended last, from its end back: its own time until a call whose end another
  // rank decided, then that rank from where it sent or arrived (Eom and Hollingsworth's
  // critical path, the longest path through the activity graph).
  std::int64_t call = static_cast<std::int64_t>(end_[rank]) - 1;
  double time = end_time_[rank];
  if (call >= static_cast<std::int64_t>(first_[rank])) {
    step(rank, records_[rank][call].release, time, "computation", Activity::compute);
  } else {
    step(rank, 0, time, "computation", Activity::compute);
  }
  while (call >= static_cast<std::int64_t>(first_[rank])) {
    const CallRecord& record = records_[rank][static_cast<std::size_t>(call)];
    const std::string& function = trace_.ranks[rank].calls[call].function;
    std::uint32_t next_rank = rank;
    std::int64_t next_call = call;  // the call whose gap comes next on the path
    if (record.cause == Cause::message) {
      const Message& message = messages_[record.cause_index];
      step(rank, message.send_time, record.release,
           fmt::format("{}: message {} -> {}, {:.0f} B", function, message.sender, message.receiver,
                       message.bytes),
           Activity::communication);
      next_rank = message.sender;
      next_call = message.send_call;
    } else if (record.cause == Cause::collective) {
      const Instance& instance = instances_[record.cause_index];
      const std::uint32_t last = instance.members[record.cause_member];
      step(rank, instance.join[record.cause_member], record.release,
           fmt::format("{} (last to arrive: rank {})", function, last), Activity::communication);
      next_rank = last;
      next_call = instance.calls[record.cause_member];
    } else {
      step(rank, record.enter, record.release, function, Activity::communication);
    }
    const CallRecord& from = records_[next_rank][static_cast<std::size_t>(next_call)];
    step(next_rank, from.gap_begin, from.enter, "computation", Activity::compute);
    // On before the call that sent or arrived last: every step goes back in the activity
    // graph's order, so the walk ends.
    rank = next_rank;
    call = next_call - 1;
  }
}

}  // namespace

Result replay(const trace::Trace& trace, const Costs& costs, const Options& options) {
  return Replay(trace, costs, options).run();
}

}  // namespace sonde::replay
