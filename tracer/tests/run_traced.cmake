cmake_policy(VERSION 3.25)
# Runs sonde-tracer-test-program under the MPI launcher with the tracer preloaded, then the
# checks of tracer_test on the archive it wrote; with 2 ranks, also with wall time only
# (SONDE_TRACE_PROCESS_TIME=0) and without SONDE_TRACE_OUTPUT (one warning, nothing written, the
# program unharmed).
# Arguments: -DMPIEXEC -DNP_FLAG -DRANKS -DPROGRAM -DPRELOAD -DCHECKER -DWORK [-DALIGN]
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(launch ${MPIEXEC} ${NP_FLAG} ${RANKS} ${PROGRAM})
set(modes 1)
if(RANKS EQUAL 2)
  list(APPEND modes 0)
endif()
foreach(process_time ${modes})
  set(archive ${WORK}/t-${process_time}.otf2)
  set(variables LD_PRELOAD=${PRELOAD} SONDE_TRACE_OUTPUT=${archive}
      "SONDE_TRACE_LAUNCHER=${MPIEXEC} ${NP_FLAG} ${RANKS}" SONDE_TRACE_MACHINE=test-machine
      SONDE_TRACE_PROCESS_TIME=${process_time})
  if(ALIGN)
    list(APPEND variables SONDE_TRACE_CLOCK_ALIGN=${ALIGN})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${variables} ${launch}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL 0 OR NOT EXISTS ${archive})
    message(FATAL_ERROR "the traced program with ${RANKS} ranks gave ${rc}:\n${out}\n${err}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env SONDE_TRACER_TEST_ARCHIVE=${archive}
                          SONDE_TRACER_TEST_RANKS=${RANKS} SONDE_TRACER_TEST_MACHINE=test-machine
                          SONDE_TRACER_TEST_PROCESS_TIME=${process_time}
                          ${CHECKER} --gtest_filter=TracedProgram.*
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the trace of ${RANKS} ranks is not what the program did:\n${out}\n${err}")
  endif()
  message(STATUS "${RANKS} ranks traced and checked (process time ${process_time}): ${archive}")
endforeach()

if(RANKS EQUAL 2)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env LD_PRELOAD=${PRELOAD} ${launch}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
  string(REGEX MATCHALL "SONDE_TRACE_OUTPUT is not set" warnings "${err}")
  list(LENGTH warnings count)
  if(NOT rc EQUAL 0 OR NOT count EQUAL 1)
    message(FATAL_ERROR "without SONDE_TRACE_OUTPUT the program gave ${rc} and ${count} "
                        "warnings:\n${out}\n${err}")
  endif()
endif()
