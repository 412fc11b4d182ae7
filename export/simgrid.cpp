// A SimGrid platform (XML, version 4.1) that reproduces a profile's point-to-point model under
// SMPI, so that programs can be simulated on a machine characterized once. SMPI's time for one
// message between two hosts is lat_factor(m) x L + (m + 16) / (bw_factor(m) x B), L the summed
// latency and B the narrowest bandwidth of the route; the factors are piecewise in m (a segment
// applies where m + 16 is above its threshold, measured on SimGrid 3.32: docs/simulation.md). Each
// Hockney segment of the profile (Xu and Hwang (1995), Eq. 5) becomes one segment of the factors:
// L is the first segment's t0, B the last segment's r_inf.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "export/common.hpp"
#include "export/export.hpp"
#include "publish/publish.hpp"

namespace sonde::exports {

namespace {

// XML comments may not hold "--".
std::string comment_safe(std::string text) {
  for (std::size_t at = text.find("--"); at != std::string::npos; at = text.find("--", at)) {
    text.replace(at, 2, "- -");
  }
  return text;
}

// The same-node class of the pair map as a loopback link: its latency, and the bandwidth that
// leaves its large message's time once the latency is taken out.
std::optional<std::pair<double, double>> loopback_of(const profile::PointToPoint& p2p) {
  const profile::PairClass* c = p2p.pair_class("same-node");
  if (c == nullptr) return std::nullopt;
  const std::optional<double> rate = c->transfer_rate(c->latency.value, c->bandwidth.value);
  if (!rate) return std::nullopt;
  return std::pair(c->latency.value, *rate);
}

}  // namespace

std::string simgrid_platform(const profile::Profile& profile, const std::string& where) {
  const profile::PointToPoint& p2p = profile::require_point_to_point(profile, where);
  if (p2p.segments.empty()) {
    throw input_error(where,
                      "point_to_point.segments: empty; the platform's links come from the "
                      "Hockney fit");
  }
  if (!profile.machine.cores_per_node) {
    throw input_error(where, "machine.cores_per_node: absent; the platform's hosts need it");
  }
  const std::uint64_t cores = *profile.machine.cores_per_node;
  const std::uint64_t nodes = profile.machine.nodes.value_or(1);
  const profile::HockneySegment& first = p2p.segments.front();
  const profile::HockneySegment& last = p2p.segments.back();
  const double latency = first.t0.value;
  const double bandwidth = last.r_inf.value;
  if (!(latency > 0) || !(bandwidth > 0) || !std::isfinite(bandwidth)) {
    throw input_error(where,
                      "point_to_point.segments: the first t0 and the last r_inf must be "
                      "positive to set the links");
  }

  std::vector<std::string> comments, not_expressed;
  comments.push_back(fmt::format("SimGrid platform of {}, exported by sonde from {}.",
                                 profile.machine.name, where));
  comments.push_back(
      "SMPI charges a message of m bytes lat_factor(m) L + (m + 16) / (bw_factor(m) B), L and B "
      "the route's latency and bandwidth; each factor segment applies where m + 16 is above its "
      "threshold, set midway between the profile's segments. The profile's Hockney segments: " +
      detail::segment_list(p2p) + ".");
  std::string lat_factors, bw_factors;
  for (std::size_t i = 0; i < p2p.segments.size(); ++i) {
    const profile::HockneySegment& s = p2p.segments[i];
    // Midway between the segments' measured messages, as the profile's own breakpoints are, plus
    // half the 16-byte envelope: on either side by more than 8 bytes whether SMPI counts it or not.
    const double threshold =
        i == 0 ? 0 : std::floor((p2p.segments[i - 1].to_bytes + s.from_bytes) / 2) + 8;
    const double lat_factor = s.t0.value / latency;
    const double bw_factor = s.r_inf.value / bandwidth;
    lat_factors += fmt::format("{}{}:{}", i == 0 ? "" : ";", detail::shortest(threshold),
                               detail::shortest(lat_factor));
    bw_factors += fmt::format("{}{}:{}", i == 0 ? "" : ";", detail::shortest(threshold),
                              detail::shortest(bw_factor));
    comments.push_back(fmt::format(
        "segment {} ({}): lat_factor {} = t0 {} s / L, bw_factor {} = r_inf {} B/s / B.", i + 1,
        detail::byte_range(s), detail::shortest(lat_factor), detail::shortest(s.t0.value),
        detail::shortest(bw_factor), detail::shortest(s.r_inf.value)));
  }
  comments.push_back(fmt::format(
      "L = {} s, the first segment's t0 ({}); B = {} B/s, the last segment's r_inf ({}). The "
      "per-message overheads smpi/os, smpi/or and smpi/ois are 0: the ping-pong measured them "
      "inside t0.",
      detail::shortest(latency), detail::describe(first.t0), detail::shortest(bandwidth),
      detail::describe(last.r_inf)));
  comments.push_back(
      "The 16 bytes SMPI adds to each message add 16 / B to every time (below 0.01% of any "
      "message the profile measured where B is above 1 GB/s).");

  // Hosts: one per node, the profile's cores each, at the peak rate per core.
  const profile::Quantity* peak = profile::peak_flops(profile);
  double speed = 0;
  if (peak && profile.compute.peak_flops_per_core) {
    speed = peak->value;
    comments.push_back(
        fmt::format("host speed {} flop/s per core: compute.peak_flops_per_core ({}).",
                    detail::shortest(speed), detail::describe(*peak)));
  } else if (peak) {
    speed = peak->value / static_cast<double>(cores);
    comments.push_back(fmt::format(
        "host speed {} flop/s per core: compute.peak_flops_per_node over {} cores ({}).",
        detail::shortest(speed), cores, detail::describe(*peak)));
  } else {
    speed = 1e9;
    comments.push_back(
        "host speed 1 Gflop/s per core: the profile has no peak rate "
        "(compute.peak_flops_per_core), "
        "so this speed is a placeholder, not the machine's. Simulate with "
        "smpi/simulate-computation:no, or set the speed.");
    not_expressed.push_back("the host speed (no peak rate in the profile)");
  }

  // Links. Between nodes: the ping-pong's route, two links of L / 2 and B (each node's link up
  // and the other's down). Inside a node: the pair map's same-node class where the profile has
  // one; a profile of one node measured its ping-pong inside it, so its segments are the loopback.
  const bool one_node = nodes <= 1;
  double loopback_latency = latency, loopback_bandwidth = bandwidth;
  if (one_node) {
    comments.push_back(
        "One node: the ping-pong ran inside it, so its segments describe the loopback link "
        "(loopback_lat L, loopback_bw B) and every message of a simulation on this platform.");
    not_expressed.push_back("messages between nodes (the profile has one node)");
  } else if (const auto loopback = loopback_of(p2p)) {
    loopback_latency = loopback->first;
    loopback_bandwidth = loopback->second;
    comments.push_back(fmt::format(
        "Between nodes: the ping-pong's segments (its first and last rank were on different "
        "nodes). Inside a node: the pair map's same-node class, loopback_lat {} s and "
        "loopback_bw {} B/s. SMPI applies the factors to the loopback too.",
        detail::shortest(loopback_latency), detail::shortest(loopback_bandwidth)));
    not_expressed.push_back("segments of messages inside a node (one latency and bandwidth only)");
  } else {
    comments.push_back(
        "Between nodes: the ping-pong's segments. The profile has no same-node class in its pair "
        "map, so messages inside a node use the same latency and bandwidth.");
    not_expressed.push_back("messages inside a node (not measured apart)");
  }
  not_expressed.push_back(
      "collectives: SMPI runs its own algorithms (smpi/coll-selector) over these links, not the "
      "profile's forms in n");
  not_expressed.push_back("memory levels, contention and overheads: SMPI has no model of them");
  not_expressed.push_back("intervals and fit quality");

  std::string text = "<?xml version='1.0'?>\n";
  text += "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<!--\n";
  for (const std::string& comment : comments) {
    for (const std::string& line : detail::wrap("  ", comment_safe(comment))) text += line + "\n";
  }
  text += "  Not expressed:\n";
  for (const std::string& item : not_expressed) {
    for (const std::string& line : detail::wrap("  - ", comment_safe(item))) text += line + "\n";
  }
  text += "-->\n<platform version=\"4.1\">\n  <config>\n";
  const auto prop = [&](const std::string& id, const std::string& value) {
    text += fmt::format("    <prop id=\"{}\" value=\"{}\"/>\n", id, value);
  };
  prop("smpi/lat-factor", lat_factors);
  prop("smpi/bw-factor", bw_factors);
  prop("smpi/os", "0:0:0");
  prop("smpi/or", "0:0:0");
  prop("smpi/ois", "0:0:0");
  prop("network/TCP-gamma", "0");
  text += "  </config>\n";
  text += fmt::format(
      "  <cluster id=\"{}\" prefix=\"node-\" suffix=\"\" radical=\"0-{}\" core=\"{}\" "
      "speed=\"{}f\"\n           bw=\"{}Bps\" lat=\"{}s\" loopback_bw=\"{}Bps\" "
      "loopback_lat=\"{}s\"/>\n",
      publish::escape(profile.machine.name.empty() ? "machine" : profile.machine.name), nodes - 1,
      cores, detail::shortest(speed), detail::shortest(bandwidth), detail::shortest(latency / 2),
      detail::shortest(loopback_bandwidth), detail::shortest(loopback_latency));
  text += "</platform>\n";
  return text;
}

}  // namespace sonde::exports
