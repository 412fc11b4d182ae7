// `sonde trace -o t.otf2 [--machine NAME] -- mpirun -n 4 prog args`: runs an MPI program with the
// tracer (libsonde_trace.so, beside the sonde executable) preloaded into its ranks, and checks the
// OTF2 archive it leaves.
//
// The tracer is passed through the environment: LD_PRELOAD (the tracer first, before what was
// there), SONDE_TRACE_OUTPUT (the archive's absolute path), SONDE_TRACE_LAUNCHER (the command, as
// a property of the trace) and SONDE_TRACE_MACHINE (the profile name, where given). The launcher
// must pass them to the ranks: MPICH's hydra (mpiexec.hydra) and Slurm's srun do by default, and
// Open MPI's mpirun does for ranks on its own node only; for Open MPI's mpirun (or mpiexec), found
// by its --version, `-x NAME` is added for each, so that ranks on other nodes get them too.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace sonde::tracer {

struct TraceOptions {
  std::string output;                // -o: the OTF2 anchor file to write (t.otf2)
  std::string machine;               // --machine: the profile name of the host, or ""
  std::vector<std::string> command;  // after --: the launcher, its options, the program, its args
};

// Runs the command with the tracer and returns its exit status (128 + the signal where one killed
// it; 130 where sonde was interrupted). Where the command succeeded, reads the archive back and
// prints "sonde trace: wrote t.otf2 (4 ranks, 1234 MPI calls)". Where it failed, says so on stderr
// with its exit status. Throws a sonde::Error when the tracer library is not beside sonde, the
// command cannot be started, the archive's folder is missing, or the command succeeded and left
// no new archive (the program did not call MPI_Finalize, or the launcher did not pass LD_PRELOAD).
int run_trace(const TraceOptions& options);

// The parts, for tests.

// libsonde_trace.so in the running executable's folder (/proc/self/exe), whether it exists or not.
std::filesystem::path tracer_library();

// Whether `launcher` (a name on the PATH or a path) is Open MPI's mpirun/mpiexec: its basename is
// mpirun, mpiexec, orterun or prterun (with any suffix, mpirun.openmpi) and its --version says
// Open MPI (or OpenRTE).
bool is_open_mpi_launcher(const std::string& launcher);

// The command with `-x NAME` after the launcher for each of `names` when `open_mpi`; as it is
// otherwise.
std::vector<std::string> launch_command(const std::vector<std::string>& command,
                                        const std::vector<std::string>& names, bool open_mpi);

}  // namespace sonde::tracer
