cmake_policy(VERSION 3.25)
# Runs sonde-bench-memory in quick mode over every part and checks its result file; then checks
# that bad options give one clear error line, a non-zero exit and no result file.
# Arguments: -DPROGRAM=<sonde-bench-memory> -DCHECKS=<sonde-test-result-checks> -DWORK=<scratch
# folder> -DHAVE_PAPI=<1 or 0>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

execute_process(COMMAND ${PROGRAM} --quick --progress --out ${WORK}/memory.json
                        --papi-event=loads=sonde::no_such_event
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "quick run failed (${rc}):\n${err}")
endif()
file(READ ${WORK}/memory.json json)
string(JSON count LENGTH "${json}" benchmarks)
if(count LESS 20)
  message(FATAL_ERROR "only ${count} entries in the result file")
endif()
string(JSON suite GET "${json}" context sonde suite)
string(JSON cores GET "${json}" context sonde topology cores)
if(NOT suite STREQUAL "memory" OR cores LESS 1)
  message(FATAL_ERROR "the run context is incomplete")
endif()
# Every entry has its kernel and working set, every kernel appears, and the counts say where they
# come from (sonde-test-result-checks, microbench/tests/result_checks.cpp).
execute_process(COMMAND ${CHECKS} ${WORK}/memory.json sonde::no_such_event kernel
                        pointer_chase,read,write,copy,triad,update,indexed,strided_read
                        working_set_bytes
                RESULT_VARIABLE rc OUTPUT_VARIABLE summary ERROR_VARIABLE problem)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${problem}")
endif()
# The context says whether PAPI was built in; a build without it says so, and counts nothing.
string(JSON built_in GET "${json}" context sonde counters papi_built_in)
if(HAVE_PAPI AND NOT built_in)
  message(FATAL_ERROR "built with PAPI, but the context says papi_built_in ${built_in}")
elseif(NOT HAVE_PAPI)
  string(JSON measured GET "${json}" context sonde counters measured)
  if(built_in OR NOT measured STREQUAL "none" OR NOT err MATCHES "built without PAPI")
    message(FATAL_ERROR "built without PAPI, but the run does not say so "
                        "(papi_built_in ${built_in}, measured ${measured}):\n${err}")
  endif()
endif()
message(STATUS "quick run: ${summary}")

# Bad options: one line naming the problem, exit code 2, nothing written.
function(expect_usage_error expected_text)
  execute_process(COMMAND ${PROGRAM} --quick ${ARGN} --out ${WORK}/bad/result.json
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(rc EQUAL 0)
    message(FATAL_ERROR "'${ARGN}' was accepted")
  endif()
  if(NOT err MATCHES "${expected_text}")
    message(FATAL_ERROR "'${ARGN}' gave:\n${err}\nexpected to read: ${expected_text}")
  endif()
  if(EXISTS ${WORK}/bad/result.json)
    message(FATAL_ERROR "'${ARGN}' left a result file")
  endif()
endfunction()
expect_usage_error("smaller than one cache line" --min-working-set=32)
expect_usage_error("threads asked for, but this machine has" --threads=4096)
expect_usage_error("unknown unit" --max-working-set=3parsecs)
expect_usage_error("unknown part" --part=nonsense)

# An unwritable results folder (below a regular file: even root cannot write there).
file(WRITE ${WORK}/a-file "")
execute_process(COMMAND ${PROGRAM} --quick --out ${WORK}/a-file/results/memory.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0 OR NOT err MATCHES "a-file")
  message(FATAL_ERROR "an unwritable results folder was not reported (${rc}): ${err}")
endif()
message(STATUS "option errors ok")
