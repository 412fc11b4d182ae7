// The profile's plots, drawn by gnuplot through gnuplot-iostream, each as PNG and SVG: the data
// points and the fitted curves on the same axes.
//   latency.{png,svg}      load-to-use latency against working set, each level's plateau, hwloc's
//                          capacities and the ones the latency curve shows
//   bandwidth.{png,svg}    bandwidth against threads, one line per level and kernel
//   pingpong.{png,svg}     ping-pong time against message size, the piecewise Hockney fit and its
//                          breakpoints
//   collectives.{png,svg}  collective time against n with each fitted form (when the run had
//                          four or more communicator sizes); without forms, the measured points
//                          against message size at each communicator size
//   roofline.{png,svg}     attainable flop/s against arithmetic intensity: the peak rate and one
//                          bandwidth ceiling per memory level (plot_roofline)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/results.hpp"
#include "core/run_records.hpp"
#include "profile/profile.hpp"

namespace sonde::plot {

// Writes the plots the profile and its results have data for into `folder` (each file atomically)
// and returns their paths. Without gnuplot on the PATH it writes none and says so on stderr.
std::vector<std::filesystem::path> plot_profile(const profile::Profile& profile,
                                                const RunRecords& run,
                                                const std::filesystem::path& folder);

// The roofline of a profile (Williams, Waterman and Patterson's model): attainable = min(peak,
// intensity * bandwidth) for each memory level. With a peak per node, each level's best bandwidth
// at the most threads it was measured with; with a peak per core only, at one thread.
struct RooflineCeiling {
  std::string level;        // "L1d", "DRAM"
  std::string kernel;       // the bandwidth key it came from: "triad/2"
  double bytes_per_second;  // B/s
};
struct Roofline {
  std::string scope;  // "node" or "core"
  double peak_flops = 0;
  std::vector<RooflineCeiling> ceilings;  // in the profile's level order

  // Where a level's ceiling meets the peak: peak / bandwidth, in flop/B.
  double ridge(const RooflineCeiling& ceiling) const {
    return peak_flops / ceiling.bytes_per_second;
  }
};
// nullopt where the profile has no peak rate or no memory bandwidth.
std::optional<Roofline> roofline_of(const profile::Profile& profile);

// <stem>.{png,svg} in `folder`: the roofline on log axes with each ridge point marked. Returns the
// files; none (and a line on stderr) without gnuplot.
std::vector<std::filesystem::path> plot_roofline(const std::string& title, const Roofline& roofline,
                                                 const std::filesystem::path& folder,
                                                 const std::string& stem = "roofline");

// One series of a prediction: (n, T_n, S_n, E_n) for a scheme.
struct PredictionSeries {
  std::string scheme;  // "full-overhead"
  std::vector<std::tuple<double, double, double, double>> points;
};

// prediction.{png,svg}: time, speedup and efficiency against n, one line per scheme (Xu and Hwang
// (1995), Figure 5's comparison), with `measured` points (n, T_n) when there are any; measured
// speedup and efficiency are against the measured n = 1. Returns the files.
std::vector<std::filesystem::path> plot_prediction(
    const std::string& title, const std::vector<PredictionSeries>& series,
    const std::vector<std::pair<double, double>>& measured, const std::filesystem::path& folder,
    const std::string& stem = "prediction");

// One bar of a timeline: a rank busy with activity `kind` (an index into the legend's names)
// from `begin` to `end` seconds.
struct TimelineBar {
  std::uint32_t rank = 0;
  double begin = 0, end = 0;
  int kind = 0;
};

// <stem>.{png,svg}: one row per rank, one colour per kind (Eom and Hollingsworth's activity
// graph laid out in time). Returns the files; none, with a message, without gnuplot.
std::vector<std::filesystem::path> plot_timeline(const std::string& title,
                                                 const std::vector<TimelineBar>& bars,
                                                 const std::vector<std::string>& kinds,
                                                 const std::filesystem::path& folder,
                                                 const std::string& stem = "timeline");

}  // namespace sonde::plot
