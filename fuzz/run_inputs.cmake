# Runs one fuzz target once over each of its inputs, without fuzzing: those that found a bug
# (regressions/<name>/) and the seeds (corpus/<name>/). Every one must pass. CTest calls it:
#   cmake -D FUZZER=<binary> -D NAME=<name> -D FUZZ_DIR=<this folder> -P run_inputs.cmake
file(GLOB regressions LIST_DIRECTORIES false "${FUZZ_DIR}/regressions/${NAME}/*")
file(GLOB seeds LIST_DIRECTORIES false "${FUZZ_DIR}/corpus/${NAME}/*")
list(LENGTH regressions regression_count)
list(LENGTH seeds seed_count)
if(seed_count EQUAL 0)
  message(FATAL_ERROR "${FUZZ_DIR}/corpus/${NAME}: no seeds")
endif()
execute_process(COMMAND "${FUZZER}" -timeout=10 -rss_limit_mb=2048 ${regressions} ${seeds}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "sonde-fuzz-${NAME}: an input failed (exit status ${status}): see above")
endif()
message(STATUS "sonde-fuzz-${NAME}: ${regression_count} regression inputs and ${seed_count} seeds pass")
