#include "plot/profile_plots.hpp"

#include <fmt/format.h>

#include <gnuplot-iostream.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <tuple>

#include "core/error.hpp"
#include "core/program.hpp"
#include "core/result_format.hpp"

namespace sonde::plot {

namespace {

using Series = std::vector<std::tuple<double, double>>;
using ErrorSeries = std::vector<std::tuple<double, double, double, double>>;  // x y low high

// One line of a plot command and its data, sent inline ('-').
struct Layer {
  std::string style;  // "with points pt 7 title 'measured'"
  ErrorSeries data;   // x, y, low, high (low/high used only by error-bar styles)
};

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

// Runs `draw` into <folder>/<stem>.png and .svg of `size` pixels, each written to a temporary
// name and renamed when gnuplot has finished, so that a failed plot never leaves half a file.
std::vector<std::filesystem::path> render(const std::filesystem::path& folder,
                                          const std::string& stem, const std::string& size,
                                          const std::function<void(Gnuplot&)>& draw) {
  std::vector<std::filesystem::path> written;
  for (const auto& [extension, terminal] : {std::pair{"png", "pngcairo font 'sans,11'"},
                                            {"svg", "svg font 'sans,11' background '#ffffff'"}}) {
    const std::filesystem::path target = folder / (stem + "." + extension);
    const std::filesystem::path partial = folder / (stem + ".partial." + extension);
    {
      Gnuplot gp("gnuplot");
      gp << "set terminal " << terminal << " size " << size << "\n";
      gp << "set output " << quoted(partial.string()) << "\nset termoption noenhanced\n";
      draw(gp);
      gp << "unset output\n";
    }  // gnuplot exits here: the file is complete
    std::error_code error;
    if (!std::filesystem::exists(partial) || std::filesystem::file_size(partial, error) == 0) {
      std::filesystem::remove(partial, error);
      throw Error(ExitCode::failure, target.string(),
                  "gnuplot did not draw it (see its message above)");
    }
    std::filesystem::rename(partial, target);
    written.push_back(target);
  }
  return written;
}

// One plot command over inline data layers, under `settings`.
std::vector<std::filesystem::path> render(const std::filesystem::path& folder,
                                          const std::string& stem, const std::string& settings,
                                          const std::vector<Layer>& layers) {
  return render(folder, stem, "1000,650", [&](Gnuplot& gp) {
    gp << settings << "\nplot ";
    for (std::size_t i = 0; i < layers.size(); ++i) {
      gp << (i ? ", " : "") << "'-' " << layers[i].style;
    }
    gp << "\n";
    for (const Layer& layer : layers) gp.send1d(layer.data);
  });
}

ErrorSeries points_of(const Series& series) {
  ErrorSeries out;
  for (const auto& [x, y] : series) out.emplace_back(x, y, y, y);
  return out;
}

std::string us(double seconds) { return fmt::format("{:.3g}", seconds * 1e6); }

// --- latency against working set ---

std::vector<std::filesystem::path> latency_plot(const profile::Profile& p, const RunRecords& run,
                                                const std::filesystem::path& folder) {
  std::map<std::string, Series> curves;  // by variant
  for (const LatencyRecord& r : run.latency) {
    const std::string variant =
        r.part == result_format::part::probe
            ? "the probe that sized the run"
            : r.pattern + ", " + r.page_policy + " pages" +
                  (r.threads > 1 ? fmt::format(", {} threads at once", r.threads) : "");
    curves[variant].emplace_back(static_cast<double>(r.working_set_bytes), r.median * 1e9);
  }
  if (curves.empty()) return {};
  std::vector<Layer> layers;
  for (auto& [variant, series] : curves) {
    std::sort(series.begin(), series.end());
    layers.push_back({"with linespoints pt 7 ps 0.6 title " + quoted("measured: " + variant),
                      points_of(series)});
  }
  // Each level's plateau from where the previous level ends to where this one does.
  double from = std::get<0>(curves.begin()->second.front());
  double last = 0;
  for (const auto& [v, s] : curves) last = std::max(last, std::get<0>(s.back()));
  std::string arrows;
  for (const profile::MemoryLevel& level : p.memory) {
    const double to = level.detected_capacity ? level.detected_capacity->value
                      : level.capacity_bytes  ? static_cast<double>(*level.capacity_bytes)
                                              : last;
    if (level.latency) {
      const double y = level.latency->value * 1e9;
      layers.push_back(
          {"with lines lw 3 title " + quoted(fmt::format("{} plateau {:.3g} ns", level.name, y)),
           {{from, y, y, y}, {std::min(to, last), y, y, y}}});
    }
    if (level.capacity_bytes) {
      arrows += fmt::format(
          "set arrow from {0},graph 0 to {0},graph 1 nohead dt 2 lc rgb 'gray40'\n"
          "set label {1} at {0},graph 0.97 left offset 0.3,0 font ',9'\n",
          static_cast<double>(*level.capacity_bytes), quoted(level.name + " (hwloc)"));
    }
    if (level.detected_capacity) {
      arrows += fmt::format("set arrow from {0},graph 0 to {0},graph 0.9 nohead lc rgb 'red'\n",
                            level.detected_capacity->value);
    }
    from = to;
  }
  const std::string settings =
      "set title " + quoted(p.machine.name + ": load-to-use latency (dependent random chase)") +
      "\nset logscale xy\nset xlabel 'working set (bytes)'\nset ylabel 'ns per load'\n"
      "set key bottom right\nset grid\n" +
      arrows +
      "set label 'dashed: hwloc capacity; red: where the latency curve steps' at graph 0.02,0.95";
  return render(folder, "latency", settings, layers);
}

// --- bandwidth against threads ---

std::vector<std::filesystem::path> bandwidth_plot(const profile::Profile& p,
                                                  const std::filesystem::path& folder) {
  // One colour per level, one point and dash type per kernel.
  std::vector<Layer> layers;
  std::vector<std::string> kernels;
  for (std::size_t level_index = 0; level_index < p.memory.size(); ++level_index) {
    const profile::MemoryLevel& level = p.memory[level_index];
    std::map<std::string, ErrorSeries> lines;
    for (const auto& [key, q] : level.bandwidth) {
      if (key.find('/') == std::string::npos) continue;
      const double threads = profile::bandwidth_threads(key);
      const double low = q.interval ? q.interval->low : q.value;
      const double high = q.interval ? q.interval->high : q.value;
      lines[profile::bandwidth_kernel(key)].emplace_back(threads, q.value / 1e9, low / 1e9,
                                                         high / 1e9);
    }
    for (auto& [kernel, series] : lines) {
      auto known = std::find(kernels.begin(), kernels.end(), kernel);
      if (known == kernels.end()) known = kernels.insert(kernels.end(), kernel);
      const auto k = known - kernels.begin();
      std::sort(series.begin(), series.end());
      layers.push_back({fmt::format("with yerrorlines lc {} pt {} dt {} title {}", level_index + 1,
                                    4 + 2 * k, k + 1, quoted(level.name + " " + kernel)),
                        series});
    }
  }
  if (layers.empty()) return {};
  const std::string settings =
      "set title " +
      quoted(p.machine.name +
             ": bandwidth against threads (plateau medians, "
             "bars: range over the level's working sets)") +
      "\nset xlabel 'threads'\nset ylabel 'GB/s'\nset logscale y\nset key outside right\n"
      "set grid\nset xtics 1\nset offsets 0.2,0.2,0,0";
  return render(folder, "bandwidth", settings, layers);
}

// --- ping-pong against message size ---

std::vector<std::filesystem::path> pingpong_plot(const profile::Profile& p,
                                                 const std::filesystem::path& folder) {
  if (!p.point_to_point ||
      (p.point_to_point->measurements.empty() && p.point_to_point->segments.empty())) {
    return {};
  }
  const profile::PointToPoint& pp = *p.point_to_point;
  // A transcribed profile may give the fit alone: it is drawn from 1 B to 4 MiB.
  const bool fit_only = pp.measurements.empty();
  ErrorSeries measured;
  for (const auto& m : pp.measurements) {
    const double x = std::max(m.bytes, 1.0);
    const double low = m.time.interval ? m.time.interval->low : m.time.value;
    const double high = m.time.interval ? m.time.interval->high : m.time.value;
    measured.emplace_back(x, m.time.value * 1e6, low * 1e6, high * 1e6);
  }
  std::vector<Layer> layers;
  if (!fit_only) {
    layers.push_back(
        {"with yerrorbars pt 7 ps 0.7 title 'measured (median, bars: range of repetitions)'",
         measured});
  }
  std::string arrows;
  for (std::size_t i = 0; i < pp.segments.size(); ++i) {
    const auto& s = pp.segments[i];
    const double a = std::max(s.from_bytes, 1.0);
    const double b = std::isfinite(s.to_bytes) ? std::max(s.to_bytes, a)
                     : fit_only                ? std::max(a * 16, 4194304.0)
                                               : a * 16;
    ErrorSeries curve;
    for (int k = 0; k <= 40; ++k) {
      const double m = a * std::pow(b / a, k / 40.0);
      const double t = (s.t0.value + m / s.r_inf.value) * 1e6;
      curve.emplace_back(m, t, t, t);
    }
    layers.push_back({"with lines lw 2 title " +
                          quoted(fmt::format("t = {} + m / {:.3g} GB/s", us(s.t0.value) + " us",
                                             s.r_inf.value / 1e9)),
                      curve});
    if (i > 0) {
      const double breakpoint = 0.5 * (pp.segments[i - 1].to_bytes + s.from_bytes);
      arrows += fmt::format(
          "set arrow from {0},graph 0 to {0},graph 1 nohead dt 2 lc rgb 'gray40'\n", breakpoint);
    }
  }
  const std::string settings =
      "set title " +
      quoted(p.machine.name + (fit_only ? ": point-to-point time, the Hockney fit as given "
                                          "(no measured points in the profile)"
                                        : ": MPI ping-pong, half a round trip, with the "
                                          "piecewise Hockney fit (dashed: breakpoints)")) +
      "\nset logscale xy\nset xlabel 'message size m (bytes; 0 drawn at 1)'\n"
      "set ylabel 'microseconds'\nset key top left\nset grid\n" +
      arrows;
  return render(folder, "pingpong", settings, layers);
}

// --- collectives against message size, where no form in n was fitted ---

std::vector<std::filesystem::path> collectives_by_size_plot(const profile::Profile& p,
                                                            const std::filesystem::path& folder) {
  std::vector<Layer> layers;
  int color = 1;
  std::uint64_t most_ranks = 0;
  for (const auto& [op, c] : p.collectives) {
    std::map<std::uint64_t, ErrorSeries> by_ranks;
    for (const profile::CollectiveMeasurement& m : c.measurements) {
      const double low = m.time.interval ? m.time.interval->low : m.time.value;
      const double high = m.time.interval ? m.time.interval->high : m.time.value;
      by_ranks[m.ranks].emplace_back(std::max(m.bytes, 1.0), m.time.value * 1e6, low * 1e6,
                                     high * 1e6);
      most_ranks = std::max(most_ranks, m.ranks);
    }
    for (auto& [n, series] : by_ranks) {
      std::sort(series.begin(), series.end());
      const std::string title = by_ranks.size() == 1 ? op : fmt::format("{} (n = {})", op, n);
      layers.push_back(
          {fmt::format("with yerrorlines lc {} pt 7 ps 0.6 title {}", color, quoted(title)),
           series});
    }
    ++color;
  }
  if (layers.empty()) return {};
  const std::string settings =
      "set title " +
      quoted(p.machine.name + fmt::format(": collectives as measured (no form in n fitted; "
                                          "n = {} ranks; bars: range of repetitions)",
                                          most_ranks)) +
      "\nset logscale xy\nset xlabel 'message size m (bytes; 0 drawn at 1)'\n"
      "set ylabel 'microseconds'\nset key outside right font ',9'\nset grid";
  return render(folder, "collectives", settings, layers);
}

// --- collectives against n ---

std::vector<std::filesystem::path> collectives_plot(const profile::Profile& p,
                                                    const RunRecords& run,
                                                    const std::filesystem::path& folder) {
  if (p.collectives.empty()) return {};
  // The sized collectives are drawn at the measured message size nearest 1 KiB (in ratio), so
  // that the points beside the lines are measurements, whatever sizes the suite chose.
  // The points come from the run, or from the profile alone where there is no run.
  std::vector<double> sizes;
  for (const CollectiveRecord& r : run.collectives) {
    if (r.message_bytes != 0) sizes.push_back(static_cast<double>(r.message_bytes));
  }
  if (run.collectives.empty()) {
    for (const auto& [op, c] : p.collectives) {
      for (const profile::CollectiveMeasurement& m : c.measurements) {
        if (m.bytes != 0) sizes.push_back(static_cast<double>(m.bytes));
      }
    }
  }
  double bytes = 1024;
  const auto distance = [](double b) { return std::abs(std::log(b / 1024)); };
  if (!sizes.empty()) {
    bytes = *std::min_element(sizes.begin(), sizes.end(), [&](double a, double b) {
      return distance(a) < distance(b) || (distance(a) == distance(b) && a < b);
    });
  }
  std::map<std::string, Series> measured;
  for (const CollectiveRecord& r : run.collectives) {
    std::string op = r.operation;
    if (op == "bcast") op = "broadcast";
    // The barrier moves no message (0 bytes); every other operation is drawn at `bytes`.
    if (r.message_bytes != 0 && static_cast<double>(r.message_bytes) != bytes) continue;
    measured[op].emplace_back(static_cast<double>(r.communicator_ranks), r.median * 1e6);
  }
  if (run.collectives.empty()) {  // a profile alone: the points it kept
    for (const auto& [op, c] : p.collectives) {
      for (const profile::CollectiveMeasurement& m : c.measurements) {
        if (m.bytes != 0 && m.bytes != bytes) continue;
        measured[op].emplace_back(static_cast<double>(m.ranks), m.time.value * 1e6);
      }
    }
  }
  const bool any_form = std::any_of(p.collectives.begin(), p.collectives.end(),
                                    [](const auto& entry) { return entry.second.has_forms(); });
  if (!any_form) return collectives_by_size_plot(p, folder);
  std::vector<Layer> layers;
  int color = 1;
  for (const auto& [op, c] : p.collectives) {
    // A collective measured at too few communicator sizes has no curve in n to draw.
    if (!c.has_forms()) continue;
    // Up to the largest n it was fitted on; a transcribed form names none: up to the machine's
    // nodes (the paper's machine), else 256.
    double most = 2;
    for (auto n : c.ranks) most = std::max(most, static_cast<double>(n));
    if (c.ranks.empty()) {
      most = p.machine.nodes && *p.machine.nodes > 2 ? static_cast<double>(*p.machine.nodes) : 256;
    }
    ErrorSeries curve;
    for (double n = 2; n <= most * 1.001; n *= std::pow(2.0, 0.25)) {
      const double t = c.seconds(n, bytes) * 1e6;
      curve.emplace_back(n, t, t, t);
    }
    layers.push_back(
        // gnuplot cycles eight colours: the ninth line on is dashed to stay apart.
        {fmt::format("with lines lc {} dt {} lw 2 title {}", color, 1 + (color - 1) / 8,
                     quoted(op + ": " +
                            (c.seconds_per_byte ? "(" + c.t0.text(1e6) + ") + (" +
                                                      c.seconds_per_byte->text(1e6) + ") m"
                                                : c.t0.text(1e6)))),
         curve});
    if (measured.count(op)) {
      std::sort(measured[op].begin(), measured[op].end());
      layers.push_back(
          {fmt::format("with points lc {} pt 7 notitle", color), points_of(measured[op])});
    }
    ++color;
  }
  if (layers.empty()) return {};
  const std::string settings =
      "set title " +
      quoted(p.machine.name +
             fmt::format(": collectives against n (points measured, lines fitted; sized ones "
                         "at m = {} B)",
                         bytes)) +
      "\nset logscale xy\nset xlabel 'ranks n'\nset ylabel 'microseconds'\n"
      "set key outside below font ',9'\nset grid";
  return render(folder, "collectives", settings, layers);
}

}  // namespace

std::vector<std::filesystem::path> plot_profile(const profile::Profile& profile,
                                                const RunRecords& run,
                                                const std::filesystem::path& folder) {
  if (!on_path("gnuplot")) {
    std::cerr << "plots: gnuplot is not on the PATH; the profile was written without plots\n";
    return {};
  }
  std::filesystem::create_directories(folder);
  std::vector<std::filesystem::path> written;
  for (auto part : {latency_plot(profile, run, folder), bandwidth_plot(profile, folder),
                    pingpong_plot(profile, folder), collectives_plot(profile, run, folder)}) {
    written.insert(written.end(), part.begin(), part.end());
  }
  return written;
}

std::optional<Roofline> roofline_of(const profile::Profile& p) {
  Roofline out;
  const bool node = p.compute.peak_flops_per_node.has_value();
  if (node) {
    out.scope = "node";
    out.peak_flops = p.compute.peak_flops_per_node->value;
  } else if (p.compute.peak_flops_per_core) {
    out.scope = "core";
    out.peak_flops = p.compute.peak_flops_per_core->value;
  } else {
    return std::nullopt;
  }
  for (const profile::MemoryLevel& level : p.memory) {
    // The thread count to take: the most measured (node) or one (core).
    const auto [key, best] = profile::best_bandwidth(level, node ? -1 : 1);
    if (best) out.ceilings.push_back({level.name, key, best->value});
  }
  if (out.ceilings.empty() || !(out.peak_flops > 0)) return std::nullopt;
  return out;
}

std::vector<std::filesystem::path> plot_roofline(const std::string& title, const Roofline& roofline,
                                                 const std::filesystem::path& folder,
                                                 const std::string& stem) {
  if (!on_path("gnuplot")) {
    std::cerr << "plots: gnuplot is not on the PATH; no roofline plot\n";
    return {};
  }
  std::filesystem::create_directories(folder);
  double low = std::numeric_limits<double>::infinity(), high = 0;
  double slowest = std::numeric_limits<double>::infinity();
  for (const RooflineCeiling& c : roofline.ceilings) {
    slowest = std::min(slowest, c.bytes_per_second);
    low = std::min(low, roofline.ridge(c));
    high = std::max(high, roofline.ridge(c));
  }
  low = std::pow(2.0, std::floor(std::log2(low / 16)));
  high = std::pow(2.0, std::ceil(std::log2(high * 16)));
  const double peak = roofline.peak_flops / 1e9;
  std::vector<Layer> layers;
  std::string labels;
  int color = 1;
  for (const RooflineCeiling& c : roofline.ceilings) {
    const double ridge = roofline.ridge(c);
    ErrorSeries line;
    for (const double x : {low, ridge, high}) {
      const double y = std::min(peak, x * c.bytes_per_second / 1e9);
      line.emplace_back(x, y, y, y);
    }
    layers.push_back(
        // gnuplot cycles eight colours: the ninth line on is dashed to stay apart.
        {fmt::format("with lines lc {} dt {} lw 2 title {}", color, 1 + (color - 1) / 8,
                     quoted(fmt::format("{} ({}): {:.3g} GB/s, ridge at {:.3g} flop/B", c.level,
                                        c.kernel, c.bytes_per_second / 1e9, ridge))),
         line});
    layers.push_back(
        {fmt::format("with points lc {} pt 7 ps 1 notitle", color), {{ridge, peak, peak, peak}}});
    ++color;
  }
  const std::string settings =
      "set title " + quoted(title) +
      "\nset logscale xy 2\nset format x '%g'\nset format y '%g'\n"
      "set xlabel 'arithmetic intensity (flop/B)'\nset ylabel 'attainable Gflop/s'\n" +
      fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", low, high,
                  std::min(peak, low * slowest / 1e9) / 2, peak * 2) +
      fmt::format("set label {} at graph 0.02, first {} offset 0,0.7 font ',9'\n",
                  quoted(fmt::format("peak per {}: {:.3g} Gflop/s", roofline.scope, peak)), peak) +
      "set key bottom right font ',9'\nset grid";
  return render(folder, stem, settings, layers);
}

std::vector<std::filesystem::path> plot_prediction(
    const std::string& title, const std::vector<PredictionSeries>& series,
    const std::vector<std::pair<double, double>>& measured, const std::filesystem::path& folder,
    const std::string& stem) {
  if (!on_path("gnuplot")) {
    std::cerr << "plots: gnuplot is not on the PATH; no prediction plot\n";
    return {};
  }
  std::filesystem::create_directories(folder);
  // Three panels in one figure, each a plot command with its own inline data.
  return render(folder, stem, "1500,500", [&](Gnuplot& gp) {
    gp << "set multiplot layout 1,3 title " << quoted(title) << "\n";
    gp << "set logscale x 2\nset grid\nset xlabel 'nodes n'\nset key top left font ',9'\n";
    for (int panel = 0; panel < 3; ++panel) {
      gp << (panel == 0   ? "set logscale y\nset ylabel 'T_n (s)'\n"
             : panel == 1 ? "set logscale y\nset ylabel 'speedup S_n'\n"
                          : "unset logscale y\nset ylabel 'efficiency E_n'\nset yrange [0:1.05]\n");
      gp << "plot ";
      for (std::size_t i = 0; i < series.size(); ++i) {
        gp << (i ? ", " : "") << "'-' with lines lw 2 title " << quoted(series[i].scheme);
      }
      // Measured speedup and efficiency are against the measured time on one node, when there
      // is one; the time panel shows every measurement.
      const auto one = std::find_if(measured.begin(), measured.end(),
                                    [](const auto& m) { return m.first == 1; });
      const bool show_measured = !measured.empty() && (panel == 0 || one != measured.end());
      if (show_measured) gp << ", '-' with points pt 7 ps 1.2 lc rgb 'black' title 'measured'";
      gp << "\n";
      for (const PredictionSeries& s : series) {
        Series data;
        for (const auto& [n, t, speedup, efficiency] : s.points) {
          data.emplace_back(n, panel == 0 ? t : panel == 1 ? speedup : efficiency);
        }
        gp.send1d(data);
      }
      if (show_measured) {
        Series data;
        for (const auto& [n, t] : measured) {
          const double base = panel == 0 ? 0 : one->second;
          data.emplace_back(n, panel == 0 ? t : panel == 1 ? base / t : base / t / n);
        }
        gp.send1d(data);
      }
    }
    gp << "unset multiplot\n";
  });
}

std::vector<std::filesystem::path> plot_timeline(const std::string& title,
                                                 const std::vector<TimelineBar>& bars,
                                                 const std::vector<std::string>& kinds,
                                                 const std::filesystem::path& folder,
                                                 const std::string& stem) {
  if (!on_path("gnuplot")) {
    std::cerr << "plots: gnuplot is not on the PATH; no timeline plot\n";
    return {};
  }
  std::uint32_t ranks = 1;
  for (const TimelineBar& bar : bars) ranks = std::max(ranks, bar.rank + 1);
  const std::string height = std::to_string(std::clamp(120 + 40 * ranks, 300u, 1400u));
  return render(folder, stem, "1400," + height, [&](Gnuplot& gp) {
    gp << "set title " << quoted(title) << "\nset xlabel 'time (s)'\nset ylabel 'rank'\n";
    gp << "set yrange [-0.6:" << ranks - 0.4 << "]\nset ytics 1\nset grid x\n";
    gp << "set key outside below horizontal\nset style fill solid 1.0 noborder\n";
    gp << "plot ";
    // Boxes centred on (middle, rank), half-widths (half the duration, 0.35): one layer a kind.
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      gp << (k ? ", " : "") << "'-' using 1:2:3:4 with boxxyerror title " << quoted(kinds[k]);
    }
    gp << "\n";
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      std::vector<std::tuple<double, double, double, double>> data;
      for (const TimelineBar& bar : bars) {
        if (bar.kind != static_cast<int>(k)) continue;
        data.emplace_back((bar.begin + bar.end) / 2, bar.rank, (bar.end - bar.begin) / 2, 0.35);
      }
      // gnuplot draws nothing for an empty layer but needs its end: one bar of no width.
      if (data.empty()) data.emplace_back(0, 0, 0, 0);
      gp.send1d(data);
    }
  });
}

}  // namespace sonde::plot
