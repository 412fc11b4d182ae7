// After measuring: a run folder fitted into a machine profile and its plots (`sonde fit`), and
// `sonde characterize` whole: the run, the summary of each suite, the fit. The one place that
// calls the suites' summaries (fit/suite_summaries.hpp, fit/memory_levels.hpp).
#pragma once

#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "characterize/characterize.hpp"

namespace sonde::characterize {

// The options of `sonde fit`, as given.
struct FitRunOptions {
  std::string run_folder;  // results/<machine>/<run-id>
  std::string machine;     // default: the run folder's parent's name
  std::string output;      // the profile; default machines/<machine>.yaml
  std::string plots;       // the plots' folder; default: beside the profile, <machine>/
  // An interrupted part's finished benchmarks stand in for its missing file, and the profile's
  // provenance says so (read_result_folder's with_unfinished).
  bool unfinished = false;
};

// Fits the run folder's results into a profile and writes it and its plots, naming each file
// written on `log`; returns the profile's path.
std::filesystem::path fit_run(const FitRunOptions& options, std::ostream& log);

// The options of `sonde characterize`, as given, beyond the run's own.
struct CharacterizeCommand {
  CharacterizeOptions options;  // budget_given: --budget was given (its text is `budget`)
  SuiteSelection selection;
  std::string results_root = "results";
  std::string mpi_launcher;  // split at spaces into selection.mpi_launcher; implies mpi
  std::string budget;        // "10m", "90s", "1h"
  std::vector<std::string> collective_bytes;  // "32KiB", "24576": into selection.collective_bytes
  bool json = false;                          // the summary as JSON, and no fit
  std::string profiles_folder = "machines";   // where <machine>.yaml and <machine>/ go
  // A simulated cluster: the MPI suite under smpirun on this SimGrid platform file, with this many
  // ranks (0: every core, at most 64) and these further simulator options.
  std::string platform;
  int simulated_ranks = 0;
  std::vector<std::string> smpi_options;
};

// Runs the characterization on this machine (characterize()), prints each suite's summary (or
// JSON) and the sizing notes to `out`, then fits the run into <profiles>/<machine>.yaml with its
// plots (fit_run, its files named on `log`). Returns the exit code.
int characterize_command(CharacterizeCommand command, std::ostream& out, std::ostream& log);

}  // namespace sonde::characterize
