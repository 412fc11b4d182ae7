cmake_policy(VERSION 3.25)
# A part resumed within itself: a quick run of a benchmark program, then an unfinished file made
# from its first three benchmarks (and one the plan does not have), as an interrupted run would
# leave it; the run with --resume keeps those three, measures only the rest, drops the stranger,
# writes every benchmark, and removes the unfinished file.
# Arguments: -DPROGRAM=<program, or launcher words and program as a list> -DPART=<part>
# -DSUITE=<its suite: compute, mpi, ...> -DWORK=<scratch>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
# Every run with one sizing, as under `sonde characterize`, but for the MPI suite, whose ranks size
# themselves from the memory free at their start, which moves: resuming must not depend on it.
if(NOT SUITE STREQUAL "mpi")
  execute_process(COMMAND ${PROGRAM} --quick --part=${PART} --out ${WORK}/sized.json
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "quick run failed (${rc}):\n${err}")
  endif()
  file(READ ${WORK}/sized.json sized)
  string(JSON sizing GET "${sized}" context sonde sizing)
  file(WRITE ${WORK}/sizing.json "${sizing}")
  list(APPEND PROGRAM --sizing=${WORK}/sizing.json)
endif()
execute_process(COMMAND ${PROGRAM} --quick --progress --part=${PART} --out ${WORK}/full.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "quick run failed (${rc}):\n${err}")
endif()
if(EXISTS ${WORK}/full.unfinished.json)
  message(FATAL_ERROR "a finished run left its unfinished file")
endif()

# The distinct benchmarks (by run_name) of a result file, in order.
function(run_names json out_var)
  string(JSON count LENGTH "${json}" benchmarks)
  math(EXPR last "${count} - 1")
  set(names "")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" benchmarks ${i} run_name)
    if(NOT name IN_LIST names)
      list(APPEND names "${name}")
    endif()
  endforeach()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

file(READ ${WORK}/full.json full)
run_names("${full}" all)
# What an unfinished file says of its plan: the suite's plan and the sizing, as the run's context
# holds them, less the memory free at the start.
string(JSON suite_plan GET "${full}" context sonde ${SUITE}_suite)
string(JSON sizing GET "${full}" context sonde sizing)
string(JSON sizing REMOVE "${sizing}" usable_memory)
string(JSON sizing REMOVE "${sizing}" max_buffer_bytes)
string(JSON plan SET "{}" suite "${suite_plan}")
string(JSON plan SET "${plan}" sizing "${sizing}")
list(LENGTH all total)
list(SUBLIST all 0 3 first)
string(JSON count LENGTH "${full}" benchmarks)
math(EXPR last "${count} - 1")
string(JSON unfinished SET "${full}" benchmarks "[]")
string(JSON unfinished SET "${unfinished}" context sonde_plan "${plan}")
set(n 0)
foreach(i RANGE ${last})
  string(JSON name GET "${full}" benchmarks ${i} run_name)
  if(name IN_LIST first)
    string(JSON entry GET "${full}" benchmarks ${i})
    string(JSON unfinished SET "${unfinished}" benchmarks ${n} "${entry}")
    math(EXPR n "${n} + 1")
  endif()
endforeach()
string(JSON unfinished SET "${unfinished}" benchmarks ${n} [=[{"run_name": "no.such/benchmark", "name": "no.such/benchmark"}]=])
file(WRITE ${WORK}/resumed.unfinished.json "${unfinished}")

execute_process(COMMAND ${PROGRAM} --quick --progress --part=${PART} --resume
                        --out ${WORK}/resumed.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "resumed run failed (${rc}):\n${err}")
endif()
math(EXPR rest "${total} - 3")
if(NOT err MATCHES "resuming: ${n} benchmark entries kept from [^\n]*resumed.unfinished.json \\(1 benchmarks dropped"
   OR NOT err MATCHES "\\[ *${rest}/${rest}\\]" OR err MATCHES "\\[ *${total}/")
  message(FATAL_ERROR "the resumed run did not keep 3 of ${total} and measure ${rest}:\n${err}")
endif()
foreach(name IN LISTS first)
  # A progress line names the benchmark as registered, without Google Benchmark's suffixes.
  string(REGEX REPLACE "/(min_time|repeats|manual_time|real_time|iterations)[:/].*$|/(manual_time|real_time)$" "" registered "${name}")
  string(REGEX REPLACE "[][.*+?^$()|\\{}]" "\\\\\\0" pattern "${registered}")
  if(err MATCHES "\\] ${pattern}  ")
    message(FATAL_ERROR "${registered} was kept, yet measured again:\n${err}")
  endif()
endforeach()
file(READ ${WORK}/resumed.json resumed)
run_names("${resumed}" again)
list(LENGTH again total_again)
list(SUBLIST again 0 3 first_again)
string(JSON kept GET "${resumed}" context sonde resumed benchmarks_kept)
if(NOT total_again EQUAL total OR NOT first_again STREQUAL first OR NOT kept EQUAL 3)
  message(FATAL_ERROR "resumed.json: ${total_again} benchmarks (expected ${total}), first "
                      "${first_again} (expected ${first}), ${kept} kept")
endif()
if(EXISTS ${WORK}/resumed.unfinished.json)
  message(FATAL_ERROR "the resumed run left its unfinished file")
endif()

# Interrupted after its last benchmark (during the re-measuring passes, say): all of them kept,
# nothing measured, every process told so (under MPI the others would otherwise wait).
string(JSON everything SET "${full}" context sonde_plan "${plan}")
file(WRITE ${WORK}/all.unfinished.json "${everything}")
execute_process(COMMAND ${PROGRAM} --quick --progress --part=${PART} --resume --out ${WORK}/all.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a run that resumed with everything kept failed (${rc}):\n${err}")
endif()
file(READ ${WORK}/all.json resumed_all)
run_names("${resumed_all}" again)
list(LENGTH again total_again)
string(JSON kept GET "${resumed_all}" context sonde resumed benchmarks_kept)
string(JSON noise_type TYPE "${resumed_all}" context sonde noise)
if(NOT total_again EQUAL total OR NOT kept EQUAL total OR NOT noise_type STREQUAL "OBJECT")
  message(FATAL_ERROR "all.json: ${total_again} benchmarks, ${kept} kept (expected ${total}), "
                      "noise ${noise_type}")
endif()

# A file made under another plan is ignored, with the reason, and the part measured whole.
string(JSON other SET "${unfinished}" context sonde_plan "{\"suite\": 1}")
file(WRITE ${WORK}/other.unfinished.json "${other}")
execute_process(COMMAND ${PROGRAM} --quick --progress --part=${PART} --resume
                        --out ${WORK}/other.json
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET TIMEOUT 120)
if(NOT rc EQUAL 0 OR NOT err MATCHES "not resuming: [^\n]*made under another plan"
   OR NOT err MATCHES "\\[ *${total}/${total}\\]")
  message(FATAL_ERROR "a stale unfinished file was not ignored (${rc}):\n${err}")
endif()
