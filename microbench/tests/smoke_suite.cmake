cmake_policy(VERSION 3.25)
# Runs a benchmark program in quick mode and checks that every expected value of one parameter
# appears in its result file, every entry has its params, an unknown part is refused, and --help
# lists the suite's options.
# Arguments: -DPROGRAM=<program> -DCHECKS=<sonde-test-result-checks> -DWORK=<scratch>
# -DKEY=<parameter> -DEXPECTED=<a,b,...>
# and, optionally, -DPART=<part> to run that part alone.
set(part_option "")
if(DEFINED PART)
  set(part_option --part=${PART})
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${PROGRAM} --quick --progress ${part_option} --out ${WORK}/result.json
                        --papi-event=loads=sonde::no_such_event
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "quick run failed (${rc}):\n${err}")
endif()
# Every entry has params.KEY, every expected value appears, and the counts say where they come
# from (sonde-test-result-checks, microbench/tests/result_checks.cpp).
execute_process(COMMAND ${CHECKS} ${WORK}/result.json sonde::no_such_event ${KEY} ${EXPECTED}
                RESULT_VARIABLE rc OUTPUT_VARIABLE summary ERROR_VARIABLE problem)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${problem}")
endif()
execute_process(COMMAND ${PROGRAM} --quick --part=nonsense --out ${WORK}/bad.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown part 'nonsense'" OR EXISTS ${WORK}/bad.json)
  message(FATAL_ERROR "an unknown part gave exit ${rc}:\n${err}")
endif()
# --help lists the suite's own options, not only Google Benchmark's flags.
execute_process(COMMAND ${PROGRAM} --help RESULT_VARIABLE rc OUTPUT_VARIABLE help ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT help MATCHES "--quick" OR NOT help MATCHES "--list-parts"
   OR NOT help MATCHES "--benchmark_")
  message(FATAL_ERROR "--help gave exit ${rc}:\n${help}\n${err}")
endif()
message(STATUS "${summary}")
