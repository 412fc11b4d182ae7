#include "counters/counter_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"

namespace sonde::counters {
namespace {

// A weight's count on one processor: "accesses" are loads plus stores (Amato et al. 1999: C0E2 +
// C0E3).
double count_of(const Counts& counts, const std::string& term, const PhaseCounts& phase,
                int processor, const std::string& weights) {
  const auto one = [&](const std::string& counter) {
    const auto it = counts.find(counter);
    if (it == counts.end()) {
      throw input_error(phase.where,
                        fmt::format("phase '{}' at size {}: processor {} has no {} count, which "
                                    "the profile's {} weighs",
                                    phase.phase, phase.size, processor, counter, weights));
    }
    return it->second.value;
  };
  if (term == "accesses") return one("loads") + one("stores");
  return one(term);
}

// F1: the processor whose weighted counts are largest.
FunctionValue f1_of(const profile::CounterWeights& w, const PhaseCounts& phase) {
  FunctionValue out{"F1", 0, ""};
  for (const auto& [index, counts] : phase.processors) {
    double sum = 0;
    for (const auto& [term, weight] : w)
      sum += weight.value * count_of(counts, term, phase, index, "contention.f1");
    if (out.detail.empty() || sum > out.seconds) {
      out.seconds = sum;
      out.detail = fmt::format("processor {}", index);
    }
  }
  return out;
}

}  // namespace

const FunctionValue* PhasePrediction::function(const std::string& name) const {
  for (const FunctionValue& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

double error_ratio(double measured, double predicted) {
  if (!(measured > 0) || !(predicted > 0)) return std::numeric_limits<double>::infinity();
  return std::max(measured, predicted) / std::min(measured, predicted);
}

PhasePrediction predict_phase(const PhaseCounts& counts, const profile::Profile& profile,
                              const std::string& profile_name) {
  if (!profile.contention || !profile.contention->f1) {
    throw input_error(profile_name,
                      "contention.f1: absent; F needs the F1 weights (sonde fit writes them from "
                      "the contention suite)");
  }
  if (counts.processors.empty()) {
    throw input_error(counts.where, fmt::format("phase '{}' at size {}: no per-processor counts",
                                                counts.phase, counts.size));
  }
  const profile::Contention& c = *profile.contention;
  PhasePrediction out;
  out.phase = counts.phase;
  out.size = counts.size;
  out.processors = static_cast<int>(counts.processors.size());
  out.measured = counts.measured_time();
  const double p = out.processors;

  // Amato et al. (1999), section 4.2: F1, F2 and F3, and F their maximum.
  std::vector<FunctionValue> parts;
  parts.push_back(f1_of(*c.f1, counts));
  if (c.f2) {
    FunctionValue f2{"F2", 0, fmt::format("mean over {} processors", out.processors)};
    for (const auto& [term, weight] : *c.f2) {
      double total = 0;
      for (const auto& [index, pc] : counts.processors)
        total += count_of(pc, term, counts, index, "contention.f2");
      f2.seconds += weight.value * total / p;
    }
    parts.push_back(f2);
  }
  if (c.f3) {
    FunctionValue f3{"F3", 0, ""};
    bool per_bank = !counts.banks.empty();
    for (const auto& [term, weight] : *c.f3)
      // An init-capture: clang before 16 cannot capture a structured binding.
      per_bank = per_bank &&
                 std::all_of(counts.banks.begin(), counts.banks.end(), [&term = term](auto& b) {
                   return b.second.count("bank_" + term) > 0;
                 });
    if (per_bank) {
      for (const auto& [bank, bc] : counts.banks) {
        double sum = 0;
        for (const auto& [term, weight] : *c.f3) sum += weight.value * bc.at("bank_" + term).value;
        if (sum > f3.seconds || f3.detail.empty()) {
          f3.seconds = sum;
          f3.detail = fmt::format("bank {}", bank);
        }
      }
    } else {
      if (!c.banks) {
        throw input_error(profile_name,
                          "contention.banks: absent; F3 needs the number of banks to spread the "
                          "misses over when the counts give none per bank");
      }
      // Amato et al. (1999), section 5.2: misses and write-backs taken as spread evenly over the
      // banks.
      for (const auto& [term, weight] : *c.f3) {
        double total = 0;
        for (const auto& [index, pc] : counts.processors)
          total += count_of(pc, term, counts, index, "contention.f3");
        f3.seconds += weight.value * total / static_cast<double>(*c.banks);
      }
      f3.detail = fmt::format("even spread over {} bank{}", *c.banks, *c.banks == 1 ? "" : "s");
      out.notes.push_back(
          fmt::format("F3: no per-bank counts; misses and write-backs spread evenly "
                      "over the profile's {} bank{} (Amato et al. (1999), section 5.2)",
                      *c.banks, *c.banks == 1 ? "" : "s"));
    }
    parts.push_back(f3);
  }
  const auto top = std::max_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) {
    return a.seconds < b.seconds;
  });
  out.functions.push_back({"F", top->seconds, top->name + " dominates"});
  out.functions.insert(out.functions.end(), parts.begin(), parts.end());

  // Section 4.1: H, M, M_b and K, then the BSP-like functions.
  bool have_accesses = true;
  for (const auto& [index, pc] : counts.processors) {
    if (!pc.count("loads") || !pc.count("stores")) {
      have_accesses = false;
      continue;
    }
    const double a = pc.at("loads").value + pc.at("stores").value;
    out.h = std::max(out.h, a);
    out.m += a;
  }
  if (!have_accesses) {
    out.notes.push_back("QSM, EBSP, DXBSP: need loads and stores of every processor");
    return out;
  }
  if (counts.word_accesses) out.k = counts.word_accesses->value;
  bool bank_accesses = !counts.banks.empty();
  for (const auto& [bank, bc] : counts.banks)
    bank_accesses = bank_accesses && bc.count("bank_accesses");
  if (bank_accesses) {
    for (const auto& [bank, bc] : counts.banks)
      out.m_b = std::max(out.m_b, bc.at("bank_accesses").value);
  } else if (c.banks) {
    out.m_b = out.m / static_cast<double>(*c.banks);
  }
  const auto bsp = [&](const char* name, const std::optional<profile::BspParameters>& g,
                       double second_count, bool have_second) {
    if (!g) return;
    for (const bool pessimistic : {false, true}) {
      const double g1 = (pessimistic ? g->g1_max : g->g1_min).value;
      const double g2 = (pessimistic ? g->g2_max : g->g2_min).value;
      const double first = g1 * out.h;
      const double second = have_second ? g2 * second_count : 0;
      out.functions.push_back({fmt::format("{}.{}", name, pessimistic ? "MAX" : "MIN"),
                               std::max(first, second),
                               have_second && second > first ? "g2 term" : "g1 H"});
    }
  };
  bsp("QSM", c.qsm, out.k.value_or(0), out.k.has_value());
  if (c.qsm && !out.k)
    out.notes.push_back("QSM: no word_accesses (K) given; its g2 K term is left out");
  bsp("EBSP", c.ebsp, out.m / p, true);
  if (c.dxbsp && !bank_accesses && !c.banks) {
    out.notes.push_back(
        "DXBSP: neither bank_accesses nor the profile's contention.banks; not evaluated");
  } else {
    bsp("DXBSP", c.dxbsp, out.m_b, true);
    if (c.dxbsp && !bank_accesses)
      out.notes.push_back("DXBSP: M_b is M spread evenly over the profile's banks");
  }
  return out;
}

std::vector<PhasePrediction> predict_table(const CounterTable& table,
                                           const profile::Profile& profile,
                                           const std::string& profile_name) {
  std::vector<PhasePrediction> out;
  for (const PhaseCounts& phase : table.phases)
    out.push_back(predict_phase(phase, profile, profile_name));
  return out;
}

std::vector<ErrorSummary> summarize_errors(const std::vector<PhasePrediction>& predictions) {
  std::vector<ErrorSummary> out;
  for (const PhasePrediction& p : predictions) {
    if (!p.measured) continue;
    for (const FunctionValue& f : p.functions) {
      auto it = std::find_if(out.begin(), out.end(), [&](const ErrorSummary& s) {
        return s.phase == p.phase && s.function == f.name;
      });
      if (it == out.end()) {
        out.push_back({p.phase, f.name, 0, 0, 0});
        it = std::prev(out.end());
      }
      const double e = error_ratio(*p.measured, f.seconds);
      it->average = (it->average * it->points + e) / (it->points + 1);
      it->maximum = std::max(it->maximum, e);
      ++it->points;
    }
  }
  return out;
}

}  // namespace sonde::counters
