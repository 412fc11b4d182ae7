cmake_policy(VERSION 3.25)
# Runs sonde-tracer-bench with 2 ranks plainly, with the tracer preloaded, and with the tracer
# recording wall time only (SONDE_TRACE_PROCESS_TIME=0), and prints the three: a smoke test (it
# checks that all run and the traced ones write their archives), not a timing assertion.
# Arguments: -DMPIEXEC -DNP_FLAG -DPROGRAM -DPRELOAD -DWORK [-DCALLS]
if(NOT CALLS)
  set(CALLS 20000)
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(launch ${MPIEXEC} ${NP_FLAG} 2 ${PROGRAM} ${CALLS})
set(runs plain traced wall_only)
set(plain_variables)
set(traced_variables LD_PRELOAD=${PRELOAD} SONDE_TRACE_OUTPUT=${WORK}/traced.otf2
    SONDE_TRACE_PROCESS_TIME=1)
set(wall_only_variables LD_PRELOAD=${PRELOAD} SONDE_TRACE_OUTPUT=${WORK}/wall_only.otf2
    SONDE_TRACE_PROCESS_TIME=0)
foreach(run ${runs})
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${${run}_variables} ${launch}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE ${run} ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 0 OR (NOT run STREQUAL "plain" AND NOT EXISTS ${WORK}/${run}.otf2))
    message(FATAL_ERROR "the ${run} run gave ${rc}:\n${${run}}\n${err}")
  endif()
endforeach()
foreach(line "MPI_Test[^:]*" "0-byte[^:]*")
  set(summary "")
  foreach(run ${runs})
    string(REGEX MATCH "(${line}): ([0-9.]+) ns" found "${${run}}")
    set(name "${CMAKE_MATCH_1}")
    string(APPEND summary " ${CMAKE_MATCH_2} ns ${run},")
  endforeach()
  string(REGEX REPLACE ",$" "" summary "${summary}")
  message(STATUS "${name}:${summary}")
endforeach()
