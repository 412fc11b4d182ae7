// `sonde predict`: a workload spreadsheet on a machine profile over n (Xu and Hwang's (1995) early
// prediction), with requirement checks, CSV, plots and measured times beside the prediction; or
// counter files through Amato et al.'s (1999) F and BSP-like functions (counters/command.hpp).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace sonde::predict {

// The options of `sonde predict`, as given.
struct PredictArguments {
  std::string spreadsheet;                // the workload (CSV); or `counters`
  std::vector<std::string> counters;      // counter files (sonde counters)
  std::string machine;                    // the target's profile
  std::string network;                    // the cluster's network from another profile; "": none
  std::vector<std::string> references;    // profiles the spreadsheet's times were measured on
  std::string nodes;                      // "1,2,4,256" or "1..1048576"; default 1..N_max
  std::vector<std::string> requirements;  // "time<=0.5s", ...
  double max_nodes = 0;                   // how far requirement checks look; 0: the default
  std::string csv, plots, measured;       // output files and folder; measured times (CSV)
  bool json = false;
};

// Writes the prediction to `out` (a table or JSON), the CSV and the plots where asked, and names
// each plot written on `log`; returns the exit code. A usage Error unless exactly one of the
// spreadsheet and the counter files is given.
int predict_command(const PredictArguments& arguments, std::ostream& out, std::ostream& log);

}  // namespace sonde::predict
