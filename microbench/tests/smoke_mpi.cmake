cmake_policy(VERSION 3.25)
# Runs sonde-bench-mpi under the MPI launcher in quick mode and checks its result; then kills a
# rank part way through a second run and checks that the first result file is intact.
# Arguments: -DPROGRAM -DMPIEXEC -DNP_FLAG -DRANKS -DWORK
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(launch ${MPIEXEC} ${NP_FLAG} ${RANKS})
execute_process(COMMAND ${launch} ${PROGRAM} --quick --progress --out ${WORK}/mpi.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "quick run with ${RANKS} ranks failed (${rc}):\n${out}\n${err}")
endif()
file(READ ${WORK}/mpi.json json)
string(JSON ranks GET "${json}" context sonde mpi ranks)
string(JSON library GET "${json}" context sonde mpi library)
string(JSON hosts LENGTH "${json}" context sonde mpi hosts)
if(NOT ranks EQUAL RANKS OR library STREQUAL "" OR hosts LESS 1)
  message(FATAL_ERROR "the MPI context is wrong: ${ranks} ranks, library '${library}'")
endif()
math(EXPR last "${RANKS} - 1")
set(names "mpi.pingpong/bytes:0" "mpi.pingpong/bytes:1048576" "mpi.map.latency/a:0/b:${last}"
    "mpi.map.bandwidth/a:0/b:1" "mpi.stream.unidirectional/bytes:65536"
    "mpi.stream.bidirectional/bytes:8" "mpi.collective.barrier/ranks:2"
    "mpi.collective.barrier/ranks:${RANKS}")
foreach(op bcast gather scatter alltoall shift halo allgather reduce allreduce scan)
  list(APPEND names "mpi.collective.${op}/ranks:2/bytes:8"
       "mpi.collective.${op}/ranks:${RANKS}/bytes:4096")
endforeach()
foreach(name ${names})
  string(FIND "${json}" "\"name\": \"${name}/" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no ${name} in the result of ${RANKS} ranks")
  endif()
endforeach()
# A quick run measures 4 KiB collectives from flushed buffers and 8 B ones warm (x86, where
# clflush is).
if(CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  if(NOT json MATCHES "\"buffers\": \"cold: flushed" OR NOT json MATCHES "\"buffers\": \"warm: ")
    message(FATAL_ERROR "the collectives do not say which ran from cold buffers")
  endif()
endif()
string(FIND "${json}" "\"error_occurred\": true" failed)
if(NOT failed EQUAL -1)
  message(FATAL_ERROR "a benchmark failed with ${RANKS} ranks")
endif()

# A rank killed part way: the run fails, and the result already written stays as it was.
file(SHA256 ${WORK}/mpi.json before)
execute_process(COMMAND ${CMAKE_COMMAND} -E env SONDE_TEST_KILL_RANK=1
                        ${launch} ${PROGRAM} --quick --part collectives --out ${WORK}/mpi.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET TIMEOUT 120)
file(SHA256 ${WORK}/mpi.json after)
file(GLOB leftovers ${WORK}/*.tmp* ${WORK}/.*)
if(rc EQUAL 0 OR NOT before STREQUAL after OR leftovers)
  message(FATAL_ERROR "a killed rank gave exit ${rc}; file kept: ${before} ${after}; ${leftovers}")
endif()
message(STATUS "${RANKS} ranks: ${library}; a killed rank ended the run with ${rc}")

# Through `sonde characterize`: a rank killed in one part fails that part only, the others are
# kept, and --resume measures only the failed one.
if(SONDE)
  set(results ${WORK}/results)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env SONDE_TEST_KILL_RANK=1:collectives
                          ${SONDE} characterize --quick --suite mpi --results ${results} --profiles ${results}/machines
                          --machine m --run-id r "--mpi-launcher=${MPIEXEC} ${NP_FLAG} ${RANKS}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET TIMEOUT 300)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "parts failed: collectives"
     OR NOT EXISTS ${results}/m/r/mpi-pingpong.json OR EXISTS ${results}/m/r/mpi-collectives.json)
    message(FATAL_ERROR "a killed rank under characterize gave exit ${rc}:\n${err}")
  endif()
  execute_process(COMMAND ${SONDE} characterize --quick --suite mpi --results ${results} --profiles ${results}/machines
                          --machine m --resume "--mpi-launcher=${MPIEXEC} ${NP_FLAG} ${RANKS}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out TIMEOUT 300)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "1 parts measured now, 3 kept from before"
     OR NOT out MATCHES "MPI collectives")
    message(FATAL_ERROR "resuming after a killed rank gave exit ${rc}:\n${out}\n${err}")
  endif()
  # A launcher that does not exit after its part's result is whole is stopped after the grace,
  # and the part is kept.
  execute_process(COMMAND ${SONDE} characterize --quick --suite mpi --part pingpong --results ${results}
                          --profiles ${results}/machines --machine hang --launcher-grace 1
                          "--mpi-launcher=sh ${CMAKE_CURRENT_LIST_DIR}/hang_after_part.sh ${MPIEXEC} ${NP_FLAG} ${RANKS}"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out TIMEOUT 200)
  file(GLOB kept ${results}/hang/*/mpi-pingpong.json)
  if(NOT rc EQUAL 0 OR NOT err MATCHES "pingpong's program \\(or its launcher\\) had not exited 1 s after"
     OR NOT kept)
    message(FATAL_ERROR "a launcher that hangs after its part gave exit ${rc}:\n${out}\n${err}")
  endif()
  execute_process(COMMAND ${SONDE} characterize --quick --suite mpi --results ${results} --profiles ${results}/machines
                          --machine m2 "--mpi-launcher=no-such-launcher -n 2"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "no-such-launcher' is not an executable program")
    message(FATAL_ERROR "a launcher that cannot start gave exit ${rc}:\n${err}")
  endif()
  # A launcher that starts but cannot run the suite (here `false`, as Open MPI's mpiexec as root
  # does) fails before any part is measured, saying which line failed.
  execute_process(COMMAND ${SONDE} characterize --quick --suite mpi --results ${results} --profiles ${results}/machines
                          --machine m3 --run-id r "--mpi-launcher=false -n 2"
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  file(GLOB measured ${results}/m3/r/mpi-*.json)
  if(NOT rc EQUAL 1 OR NOT err MATCHES "the MPI suite did not start: 'false -n 2 [^']*sonde-bench-mpi[^']*--list-parts' exited 1"
     OR err MATCHES "\\[1/4\\]" OR measured)
    message(FATAL_ERROR "a launcher that fails gave exit ${rc} (parts written: ${measured}):\n${err}")
  endif()
endif()
