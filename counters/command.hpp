// The verbs of counter-based prediction (Amato et al. 1999): `sonde counters` collects a
// phase-marked program's counter file, `sonde extrapolate` forecasts counts at large sizes from
// pilot runs, and `sonde predict --counters` predicts each phase from counter files.
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace sonde::counters {

// The options of `sonde counters`, as given.
struct CountersArguments {
  std::vector<std::string> command;      // the program and its arguments
  std::vector<std::string> papi_events;  // "KIND=EVENT"
  std::string output;                    // the counter file to write
  std::string machine;                   // the target's profile (valgrind's cache geometry)
  std::string source = "auto";           // auto, papi, valgrind, time
  double size = 0;                       // the run's problem size, n
  int processes = 0;                     // the run's process count, stated in the file; 0: not
  int repetitions = 5;                   // native runs timed
};

// Runs the program (in a work folder under the temporary folder, removed after) and writes its
// counter file; progress and notes go to `log`. Returns the exit code.
int counters_command(const CountersArguments& arguments, std::ostream& log);

// The options of `sonde extrapolate`, as given.
struct ExtrapolateArguments {
  std::vector<std::string> pilots;    // counter files of pilot runs
  std::vector<std::string> measured;  // counter files measured at the target sizes
  std::vector<double> sizes;          // to forecast; default: those of `measured`
  std::vector<int> processes;         // process counts to forecast at (pilots at several counts)
  std::string machine;                // the target's profile
  std::string output;                 // the forecast counts as a counter file, when given
  int resamples = 100;                // bootstrap draws for the 95% intervals
  bool json = false;
};

// Counts fitted in the problem size from the pilots, forecast at the target sizes and predicted
// through F (Amato et al. (1999), section 5.4); against measured counts and times where given
// (Table 4). Writes the fits and the table (or JSON) to `out`; returns the exit code.
int extrapolate_command(const ExtrapolateArguments& arguments, std::ostream& out);

// `sonde predict --counters`: F and the BSP-like functions of each phase of the counter `files`
// on the profile `machine`, with E where times were measured; a table or JSON to `out`.
void predict_from_counters(const std::vector<std::string>& files,
                           const std::filesystem::path& machine, bool json, std::ostream& out);

}  // namespace sonde::counters
