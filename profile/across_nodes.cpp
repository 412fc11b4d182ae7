#include "profile/across_nodes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "model/model_forms.hpp"

namespace sonde::profile {
namespace {

// The time beyond one node as a function of the node count k: a step (constant: a shift between
// neighbours, where one message leaves each node whatever their number), or a growth that is 0
// at one node (k = 1), so that the fit's one coefficient is the time each further node adds.
const std::vector<model::Form>& node_forms() {
  static const std::vector<model::Form> forms = {
      {"1", {{"1", [](double, double) { return 1.0; }, false}}},
      {"log n", {{"log n", [](double k, double) { return std::log2(k); }, false}}},
      {"(n - 1)", {{"(n - 1)", [](double k, double) { return k - 1; }, false}}},
      {"n log n", {{"n log n", [](double k, double) { return k * std::log2(k); }, false}}},
  };
  return forms;
}

}  // namespace

std::optional<CollectiveEstimate> across_nodes(const Collective& collective, double n, double bytes,
                                               std::uint64_t cores_per_node, double nodes_at_n) {
  if (cores_per_node < 2) return std::nullopt;
  const double cores = static_cast<double>(cores_per_node);
  std::set<std::uint64_t> ranks;
  for (const CollectiveMeasurement& m : collective.measurements) ranks.insert(m.ranks);
  if (ranks.empty()) return std::nullopt;
  const double largest = static_cast<double>(*ranks.rbegin());
  if (!(n > largest) || !(largest > cores)) return std::nullopt;
  std::vector<double> spanning;
  double within = 0;  // the largest measured communicator inside one node
  for (const std::uint64_t r : ranks) {
    const double at = static_cast<double>(r);
    if (at > cores) spanning.push_back(at);
    if (at >= 2 && at <= cores) within = at;
  }
  if (spanning.size() < 3 || within == 0) return std::nullopt;
  const double one_node = collective.estimate(within, bytes).seconds;
  std::vector<double> nodes, beyond;
  for (const double at : spanning) {
    const double added = collective.estimate(at, bytes).seconds - one_node;
    if (!(added > 0)) return std::nullopt;
    nodes.push_back(at / cores);
    beyond.push_back(added);
  }
  // Each form has one coefficient, so none is simpler than another: the smallest leave-one-out
  // error wins outright (select_form's preference for the first form not significantly worse
  // would, with three points, always keep the step).
  std::optional<model::FormChoice> growth;
  try {
    for (const model::Form& form : node_forms()) {
      const double error = model::cross_validated_error(form, nodes, beyond);
      if (!std::isfinite(error) || (growth && !(error < growth->cv_error))) continue;
      growth = model::fit_form(form, nodes, beyond, "the time beyond one node");
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!growth) return std::nullopt;
  const CollectiveEstimate at_largest = collective.estimate(largest, bytes);
  const double added = (*growth)(nodes_at_n) - (*growth)(largest / cores);
  CollectiveEstimate out;
  out.seconds = at_largest.seconds + added;
  if (at_largest.range) {
    out.range = Interval{at_largest.range->low + added, at_largest.range->high + added,
                         at_largest.range->level};
  }
  out.extrapolated_from = static_cast<std::uint64_t>(largest);
  model::FormChoice in_us = *growth;
  for (double& coefficient : in_us.fit.coefficients) coefficient *= 1e6;
  const std::string shape =
      growth->form.name == "1"
          ? fmt::format("is a step of {} us whatever the node count", in_us.formula("k"))
          : fmt::format("grows as {} us in k nodes", in_us.formula("k"));
  out.how = fmt::format(
      "extrapolated from the measured n = {:.0f} across nodes of {:.0f} cores: the time beyond "
      "one node (n = {:.0f}) {}, fitted at n = {} (+{:.3g} us; at n = {:.0f}, {})",
      largest, cores, within, shape, fmt::join(spanning, ", "), added * 1e6, largest,
      at_largest.how);
  return out;
}

}  // namespace sonde::profile
