// `sonde characterize`: runs the benchmark programs part by part into
// results/<machine>/<run-id>/, each part's file written atomically when the part is done, so that
// an interrupted run resumes where it stopped without measuring again what was finished.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "microbench/memory/memory_suite.hpp"
#include "microbench/sizing.hpp"
#include "microbench/suite_options.hpp"
#include "microbench/topology.hpp"

namespace sonde::characterize {

struct CharacterizeOptions {
  std::filesystem::path results_root = "results";
  std::string machine;  // default: this host's name
  std::string run_id;   // default: a new UTC time stamp; the id of an unfinished run resumes it
  bool resume = false;  // continue the newest unfinished run of this machine
  std::filesystem::path programs_folder;  // where sonde-bench-* are; default: beside this program
  double budget_seconds = 0;              // the whole run; 0: 10 minutes (1 minute with --quick)
  bool budget_given = false;  // an explicit budget the least effort cannot meet is an error
  bool plan_only = false;     // print the plan and stop: nothing measured, nothing written
  // How long a part's program (under the MPI launcher: the launcher) may run on after its result
  // is whole before it is stopped and the part kept.
  double launcher_grace_seconds = 60;
};

// One suite of a run: its program, the options it was given and the parts it will run.
struct SuiteRun {
  std::string suite;    // "memory": its files are memory-<part>.json
  std::string program;  // "sonde-bench-memory"
  std::vector<std::string> arguments;
  std::vector<std::string>
      launcher;  // the MPI suite: "mpiexec -n 2", "srun", ... before the program
  std::vector<std::string> parts;
  std::vector<std::string> skipped_parts;
};

// What `sonde characterize` was asked to run.
struct SuiteSelection {
  microbench::MemorySuiteOptions
      memory;                       // its `common` options (quick, repetitions, parts) apply to all
  std::vector<std::string> suites;  // empty: every single-node suite (and mpi with `mpi`)
  bool mpi = false;                 // run the MPI suite too
  // The launcher line, split at spaces; empty: "mpiexec -n <cores of this machine>".
  std::vector<std::string> mpi_launcher;
  // The MPI suite's program: sonde-bench-mpi-smpi runs under SimGrid's smpirun.
  std::string mpi_program = "sonde-bench-mpi";
  // Collective message sizes the MPI suite measures besides its plan's (sizes a program sends).
  std::vector<std::uint64_t> collective_bytes;
};

// "memory", "contention", "overhead", "compute", "mpi" (the last only when asked for).
std::vector<std::string> suite_names();

// Checks the selection against the machine (usage Errors naming the option) and plans each suite
// on the sized topology (sized_topology) with the sizing's effort.
std::vector<SuiteRun> plan_suites(const SuiteSelection& selection,
                                  const microbench::Topology& topology,
                                  const microbench::Sizing& sizing);

struct CharacterizeOutcome {
  std::filesystem::path run_folder;
  std::vector<std::filesystem::path> result_files;
  std::size_t parts_measured = 0;
  std::size_t parts_kept = 0;  // finished by an earlier, interrupted invocation
  bool planned_only = false;   // --plan: nothing ran
};

// Plans the run (sizes from the memory this process may use and a coarse latency probe, effort
// from the budget; printed before anything runs), then runs it part by part with progress for the
// whole run. Throws a usage Error for options that conflict with the run being resumed or a
// budget the least effort cannot meet, an io Error for an unwritable results folder (before
// anything runs), an Error with ExitCode::interrupted when a signal stopped it, and a failure
// Error naming the parts that failed.
CharacterizeOutcome characterize(const CharacterizeOptions& options, SuiteSelection selection,
                                 const microbench::Topology& topology);

// The folder of the running program (/proc/self/exe), where the benchmark programs are installed.
std::filesystem::path own_folder();

}  // namespace sonde::characterize
