// The Empirical Roofline Toolkit's roofline.json. Its shape comes from ERT 1.1.0's
// Python/ert_core.py (build_database: {"empirical": {"metadata", "gflops": {"data": [[name,
// GFLOP/s]], "metadata"}, "gbytes": {"data": [[level, GB/s], ...], "metadata"}}, "spec":
// {"gflops": {"data"}, "gbytes": {"data"}}}) and Scripts/roofline.py (the names "GFLOPs" and
// one per memory level), as in github.com/ebugger/Empirical-Roofline-Toolkit, a copy of
// bitbucket.org/berkeleylab/cs-roofline-toolkit. ERT measures the whole node (all processes and
// threads), so the node's peak and each level's bandwidth with the most threads are taken.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "export/common.hpp"
#include "export/export.hpp"

namespace sonde::exports {

namespace {

struct Choice {
  std::string key;  // "triad/2"
  const profile::Quantity* quantity = nullptr;
};

// The bandwidth ERT's triad-like kernel would see: triad with the most threads; else the kernel
// that ERT's is closest to (copy, then read, then write) with the most threads; else any key.
Choice choose_bandwidth(const profile::MemoryLevel& level) {
  for (const std::string kernel : {"triad", "copy", "read", "write"}) {
    Choice best;
    int most = -1;
    for (const auto& [key, quantity] : level.bandwidth) {
      if (key.rfind(kernel + "/", 0) != 0) continue;
      if (profile::bandwidth_threads(key) > most) {
        most = profile::bandwidth_threads(key);
        best = {key, &quantity};
      }
    }
    if (best.quantity) return best;
  }
  if (!level.bandwidth.empty()) {
    return {level.bandwidth.begin()->first, &level.bandwidth.begin()->second};
  }
  return {};
}

}  // namespace

std::string roofline_json(const profile::Profile& profile, const std::string& where) {
  nlohmann::ordered_json flops_meta, bytes_meta, meta;
  std::vector<std::string> not_expressed;

  double peak = 0;
  if (profile.compute.peak_flops_per_node) {
    peak = profile.compute.peak_flops_per_node->value;
    flops_meta["sonde_source"] = "compute.peak_flops_per_node";
    flops_meta["sonde_origin"] = detail::describe(*profile.compute.peak_flops_per_node);
  } else if (profile.compute.peak_flops_per_core && profile.machine.cores_per_node) {
    peak = profile.compute.peak_flops_per_core->value *
           static_cast<double>(*profile.machine.cores_per_node);
    flops_meta["sonde_source"] = fmt::format(
        "compute.peak_flops_per_core x machine.cores_per_node ({}): derived, the profile has no "
        "peak per node",
        *profile.machine.cores_per_node);
  } else if (profile.compute.peak_flops_per_core) {
    peak = profile.compute.peak_flops_per_core->value;
    flops_meta["sonde_source"] =
        "compute.peak_flops_per_core: ONE core (the profile has neither a peak per node nor the "
        "cores per node)";
  } else {
    throw input_error(where,
                      "compute.peak_flops_per_node: absent (and no peak_flops_per_core); a "
                      "roofline needs the peak floating-point rate");
  }
  flops_meta["sonde_unit"] = "GFLOP/s = 1e9 flop/s";

  nlohmann::ordered_json bytes_data = nlohmann::ordered_json::array();
  nlohmann::ordered_json bytes_sources = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < profile.memory.size(); ++i) {
    const profile::MemoryLevel& level = profile.memory[i];
    const Choice choice = choose_bandwidth(level);
    if (!choice.quantity) {
      not_expressed.push_back(
          fmt::format("memory level {}: no bandwidth measured (memory[{}].bandwidth), so no "
                      "ceiling",
                      level.name, i));
      continue;
    }
    bytes_data.push_back({level.name, choice.quantity->value / 1e9});
    bytes_sources[level.name] = fmt::format("memory[{}].bandwidth.{} ({})", i, choice.key,
                                            detail::describe(*choice.quantity));
  }
  if (bytes_data.empty()) {
    throw input_error(where,
                      "memory[*].bandwidth: absent; a roofline needs the bandwidth of at least "
                      "one memory level");
  }
  bytes_meta["sonde_sources"] = bytes_sources;
  bytes_meta["sonde_unit"] = "GB/s = 1e9 B/s, as STREAM counts bytes (no write-allocate traffic)";

  not_expressed.push_back(
      "intervals and fit qualities: ERT's data are single values (each source above gives its "
      "interval)");
  not_expressed.push_back(
      "the memory levels' latencies, capacities and the other kernels' bandwidths");
  not_expressed.push_back("the kernel library (per-operation latency and throughput)");
  not_expressed.push_back(
      "spec: sonde measures, it does not know the vendor's nominal peaks; spec.gflops and "
      "spec.gbytes are left empty, as ERT leaves them without ERT_SPEC_* settings");

  meta["sonde_profile"] = where;
  meta["sonde_machine"] = profile.machine.name;
  if (!profile.provenance.date.empty()) meta["sonde_date"] = profile.provenance.date;
  if (!profile.provenance.citation.empty()) meta["sonde_citation"] = profile.provenance.citation;
  meta["sonde_not_expressed"] = not_expressed;

  nlohmann::ordered_json root;
  root["empirical"]["metadata"] = meta;
  root["empirical"]["gflops"]["data"] = nlohmann::ordered_json::array({{"GFLOPs", peak / 1e9}});
  root["empirical"]["gflops"]["metadata"] = flops_meta;
  root["empirical"]["gbytes"]["data"] = bytes_data;
  root["empirical"]["gbytes"]["metadata"] = bytes_meta;
  root["spec"]["gflops"]["data"] = nlohmann::ordered_json::array();
  root["spec"]["gbytes"]["data"] = nlohmann::ordered_json::array();
  return root.dump(3) + "\n";
}

Roofline read_roofline_json(const std::string& text, const std::string& where) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw input_error(where, std::string("not JSON: ") + e.what());
  }
  const auto pair_list = [&](const nlohmann::json& node, const std::string& key) {
    if (!node.is_object() || !node.contains("data") || !node["data"].is_array()) {
      throw input_error(where, key + ".data: absent or not a list");
    }
    std::vector<std::pair<std::string, double>> pairs;
    for (const auto& item : node["data"]) {
      if (!item.is_array() || item.size() != 2 || !item[0].is_string() || !item[1].is_number()) {
        throw input_error(where, key + ".data: an entry is not [name, number]");
      }
      pairs.emplace_back(item[0].get<std::string>(), item[1].get<double>());
    }
    return pairs;
  };
  if (!root.is_object() || !root.contains("empirical") || !root.contains("spec")) {
    throw input_error(where, "expected the keys empirical and spec");
  }
  const auto flops =
      pair_list(root["empirical"].value("gflops", nlohmann::json()), "empirical.gflops");
  Roofline roofline;
  if (flops.size() != 1) throw input_error(where, "empirical.gflops.data: expected one entry");
  roofline.flops_name = flops[0].first;
  roofline.gflops = flops[0].second;
  roofline.gbytes =
      pair_list(root["empirical"].value("gbytes", nlohmann::json()), "empirical.gbytes");
  pair_list(root["spec"].value("gflops", nlohmann::json()), "spec.gflops");
  pair_list(root["spec"].value("gbytes", nlohmann::json()), "spec.gbytes");
  return roofline;
}

}  // namespace sonde::exports
