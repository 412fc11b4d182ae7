cmake_policy(VERSION 3.25)
# `sonde check` end to end on a fake program (tests/fake_program.sh, run directly: --launcher ""):
# the table, the record files, a failure half way that keeps the points before, and option errors.
# Arguments: -DSONDE=<sonde> -DWORK=<scratch> -DTESTS=<check/tests> -DMACHINES=<machines>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

set(sheet ${TESTS}/tiny.csv)
set(machine ${MACHINES}/ibm-sp2.yaml)
set(program sh ${TESTS}/fake_program.sh --repetitions {repetitions} --ranks {n} --N {N} --K {K})

# Every run is direct (--launcher ""): written here, as an empty argument does not survive ARGN.
function(run_check expected_rc)
  execute_process(COMMAND ${SONDE} check --launcher "" ${ARGN} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "'sonde check ${ARGN}' exited ${rc}, expected ${expected_rc}:\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(count_lines file expected)
  file(STRINGS ${file} lines)
  list(LENGTH lines count)
  if(NOT count EQUAL expected)
    message(FATAL_ERROR "${file} has ${count} lines, expected ${expected}:\n${lines}")
  endif()
endfunction()

# Two problem sizes at 1 and 2 ranks: P = N / 1000 / n = 1, 0.5, 2, 1 s; T = 0.5 s: E = 2, 1, 4, 2.
run_check(0 ${sheet} --machine ${machine} --ranks 1,2 --set N=1000 --set N=2000,K=5 --no-probe
          --repetitions 3 --csv ${WORK}/out.csv --json ${WORK}/out.json -- ${program})
foreach(expected "N=2000,K=5" "500 ms \\(500 ms .. 500 ms, 3 runs\\)" "4.00"
                 "over 4 points: mean 2.25, max 4.00")
  if(NOT out MATCHES "${expected}")
    message(FATAL_ERROR "the table lacks '${expected}':\n${out}")
  endif()
endforeach()
if(NOT err MATCHES "fake program: 2 ranks, 3 repetitions" OR err MATCHES "\"seconds\"")
  message(FATAL_ERROR "the program's other lines are not passed on, or its records are:\n${err}")
endif()

count_lines(${WORK}/out.csv 5)
file(READ ${WORK}/out.json json)
string(JSON complete GET "${json}" complete)
string(JSON points LENGTH "${json}" records)
string(JSON e GET "${json}" records 2 error_ratio)
string(JSON command GET "${json}" records 3 command 0)

if(NOT complete OR NOT points EQUAL 4 OR NOT e EQUAL 4 OR NOT command STREQUAL "sh")
  message(FATAL_ERROR "out.json: complete ${complete}, ${points} records, E ${e}, ${command}:\n${json}")
endif()

# One point with the machine probed before and after its runs, on each core.
run_check(0 ${sheet} --machine ${machine} --ranks 1 --repetitions 1 --json ${WORK}/probed.json
          -- ${program})
if(NOT err MATCHES "machine before: DRAM triad \\(1 thread\\) core 0 [0-9.]+ GB/s"
   OR NOT err MATCHES "machine after: ")
  message(FATAL_ERROR "no probe of the machine around the runs:\n${err}")
endif()
file(READ ${WORK}/probed.json json)
string(JSON when GET "${json}" records 0 machine_now samples 0 when)
if(NOT when STREQUAL "before")
  message(FATAL_ERROR "probed.json: no probe of the machine before the point:\n${json}")
endif()

# The program fails at 2 ranks: sonde check fails naming it, and keeps the n = 1 point.
run_check(1 ${sheet} --machine ${machine} --ranks 1,2,4 --no-probe --csv ${WORK}/fail.csv
          --json ${WORK}/fail.json -- ${program} --fail-at 2)
if(NOT err MATCHES "exit status 3 at \\(spreadsheet\\), n = 2"
   OR NOT err MATCHES "failing at 2 ranks, as asked" OR NOT err MATCHES "1 point measured before")
  message(FATAL_ERROR "the failure is not told:\n${err}")
endif()
if(NOT out MATCHES "over 1 point: mean 2.00")
  message(FATAL_ERROR "no table of the point measured before the failure:\n${out}")
endif()
count_lines(${WORK}/fail.csv 2)
file(READ ${WORK}/fail.json json)
string(JSON complete GET "${json}" complete)
if(complete)
  message(FATAL_ERROR "fail.json says complete:\n${json}")
endif()

# Option errors: exit 2, before anything runs.
set(common ${sheet} --machine ${machine} --ranks 1)
run_check(2 ${common} --set N4096 -- ${program})
if(NOT err MATCHES "--set: 'N4096' in 'N4096' has no '='")
  message(FATAL_ERROR "a malformed --set:\n${err}")
endif()
run_check(2 ${common} --set M=3 -- ${program})
if(NOT err MATCHES "no parameter 'M'")
  message(FATAL_ERROR "an unknown parameter:\n${err}")
endif()
run_check(2 ${sheet} --machine ${machine} --ranks 0,1 -- ${program})
if(NOT err MATCHES "--ranks: '0'")
  message(FATAL_ERROR "a rank count of 0:\n${err}")
endif()
run_check(2 ${common} -- ${program} --seconds {T})
if(NOT err MATCHES "placeholder \\{T\\}")
  message(FATAL_ERROR "a placeholder without a value:\n${err}")
endif()
run_check(2 ${common} -- ${WORK}/no-such-program)
if(NOT err MATCHES "no-such-program' not found")
  message(FATAL_ERROR "a program that is not there:\n${err}")
endif()
