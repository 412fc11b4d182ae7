// The profile's plots, drawn by gnuplot through gnuplot-iostream, each as PNG and SVG: the data
// points and the fitted curves on the same axes.
//   latency.{png,svg}      load-to-use latency against working set, each level's plateau, hwloc's
//                          capacities and the ones the latency curve shows
//   bandwidth.{png,svg}    bandwidth against threads, one line per level and kernel
//   pingpong.{png,svg}     ping-pong time against message size, the piecewise Hockney fit and its
//                          breakpoints
//   collectives.{png,svg}  collective time against n with each fitted form (when the run had
//                          four or more communicator sizes)
#pragma once

#include <filesystem>
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

}  // namespace sonde::plot
