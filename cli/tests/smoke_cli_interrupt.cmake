cmake_policy(VERSION 3.25)
# `sonde characterize` interrupted for real and resumed. Arguments: -DSONDE=<sonde> -DWORK=<scratch>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake)
set(common --quick --results ${WORK}/results --machine smoke --profiles ${WORK}/machines)

# Interrupt a run for real, and resume it. The interrupt is not left to a clock: a shell starts
# the run and sends it SIGINT as soon as the run's manifest records the first part as finished
# (its timing entry "compute-peak", written atomically once the part's program has exited; the
# part's own file appears earlier, before the program measures noisy benchmarks again), while the
# second part runs (ten repetitions of at least 0.05 s of each of its benchmarks: 8 s or more on
# any machine, against the 50 ms the shell takes to see the manifest). The checks do not depend on
# where it landed: the run must have stopped with the interrupt's exit (130) before the second part
# finished, the first part must be whole and the second absent, and --resume must keep the first
# and measure the second only. A run that ends before the interrupt, or an interrupt that stops
# nothing, fails the test.
# The compute suite's first two parts (its third, shared_ports, is not needed for the test).
set(longer ${common} --suite compute --part peak kernels --repetitions=10 --min-time=0.05)
set(second ${WORK}/results/smoke/second)
execute_process(
  COMMAND sh -c "\"$0\" \"$@\" & pid=$!
                 until grep -q '\"compute-peak\"' '${second}/run.json' 2>/dev/null; do
                   kill -0 $pid 2>/dev/null || break
                   sleep 0.05
                 done
                 kill -INT $pid 2>/dev/null
                 wait $pid"
          ${SONDE} characterize ${longer} --run-id second
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 130 OR NOT err MATCHES "interrupted (during|before) part kernels")
  message(FATAL_ERROR "the interrupt during the second part gave exit ${rc}:\n${err}")
endif()
if(NOT EXISTS ${second}/compute-peak.json OR EXISTS ${second}/compute-kernels.json)
  message(FATAL_ERROR "after the interrupt the first part should be whole and the second absent:\n${err}")
endif()
file(READ ${second}/run.json manifest)
string(JSON complete GET "${manifest}" complete)
if(complete)
  message(FATAL_ERROR "the interrupted run is marked complete")
endif()
file(GLOB leftovers ${second}/*.tmp.*)
if(leftovers)
  message(FATAL_ERROR "the interrupt left temporary files: ${leftovers}")
endif()
file(SHA256 ${second}/compute-peak.json peak_before)
run_ok(${SONDE} characterize ${longer} --resume)
if(NOT err MATCHES "continuing run second")
  message(FATAL_ERROR "--resume did not pick the interrupted run:\n${err}")
endif()
if(NOT err MATCHES "\\[1/2\\] peak: kept from before" OR err MATCHES "\\[1/2\\] compute peak"
   OR NOT err MATCHES "\\[2/2\\] compute kernels"
   OR NOT out MATCHES "1 parts measured now, 1 kept from before")
  message(FATAL_ERROR "the resumed run should keep the peak part and measure the kernels only:\n${out}\n${err}")
endif()
file(SHA256 ${second}/compute-peak.json peak_after)
if(NOT peak_before STREQUAL peak_after OR NOT EXISTS ${second}/compute-kernels.json)
  message(FATAL_ERROR "the resumed run rewrote the kept part or wrote no second part")
endif()
file(READ ${second}/run.json manifest)
string(JSON complete GET "${manifest}" complete)
if(NOT complete)
  message(FATAL_ERROR "the resumed run is not complete")
endif()
message(STATUS "interrupt and resume ok")
