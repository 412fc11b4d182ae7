cmake_policy(VERSION 3.25)
# The sonde command end to end: --version, topology, a quick characterize, its resumption after an
# interrupt, and option errors. Arguments: -DSONDE=<sonde> -DWORK=<scratch> -DFIXTURES=<folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(run_ok)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "'${ARGN}' failed (${rc}):\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

run_ok(${SONDE} --version)
if(NOT out MATCHES "^sonde [0-9]+\\.[0-9]+")
  message(FATAL_ERROR "--version printed: ${out}")
endif()
run_ok(${SONDE} --help)
run_ok(${SONDE} topology)
if(NOT out MATCHES "Caches" OR NOT out MATCHES "Cores")
  message(FATAL_ERROR "topology printed:\n${out}")
endif()
run_ok(${SONDE} topology --xml ${FIXTURES}/amd-epyc-2core-vm.xml --json)
string(JSON cores GET "${out}" cores)
if(NOT cores EQUAL 2)
  message(FATAL_ERROR "the recorded VM has 2 cores, topology --json said ${cores}")
endif()

# A quick characterization, then the same run id again: every part is kept, nothing re-measured.
set(common --quick --results ${WORK}/results --machine smoke --profiles ${WORK}/machines)
run_ok(${SONDE} characterize ${common} --run-id first)
if(NOT out MATCHES "Load-to-use latency" OR NOT out MATCHES "Bandwidth with 1 thread"
   OR NOT out MATCHES "Overheads" OR NOT out MATCHES "Kernel library"
   OR NOT out MATCHES "Contention \\(Amato et al. \\(1999\\)")
  message(FATAL_ERROR "characterize printed no summary:\n${out}")
endif()
file(GLOB parts ${WORK}/results/smoke/first/memory-*.json)
list(LENGTH parts count)
if(count LESS 4)
  message(FATAL_ERROR "only ${count} part files: ${parts}")
endif()
file(READ ${WORK}/results/smoke/first/run.json manifest)
string(JSON complete GET "${manifest}" complete)
if(NOT complete)
  message(FATAL_ERROR "the run manifest is not marked complete")
endif()
# The machine was probed at the run's start and end (a quick run probes no more), into drift.json,
# and the summary shows the probes.
file(READ ${WORK}/results/smoke/first/drift.json drift)
string(JSON probes LENGTH "${drift}" probes)
string(JSON last_after GET "${drift}" probes 1 after)
if(NOT probes EQUAL 2 OR NOT last_after MATCHES "^[a-z]+-" OR NOT out MATCHES "the machine while it was measured")
  message(FATAL_ERROR "expected two drift probes, the last after a part, and their table:\n${drift}\n${out}")
endif()

# The run was fitted into a profile with its plots; the profile validates, shows, compares, and
# `sonde fit` on the same results writes the same file.
set(profile ${WORK}/machines/smoke.yaml)
foreach(plot latency.png latency.svg bandwidth.png bandwidth.svg)
  if(NOT EXISTS ${WORK}/machines/smoke/${plot})
    message(FATAL_ERROR "characterize drew no ${plot}")
  endif()
endforeach()
run_ok(${SONDE} validate ${profile} ${MACHINES}/ibm-sp2.yaml ${MACHINES}/sgi-power-challenge.yaml ${MACHINES}/cm-5.yaml)
run_ok(${SONDE} show ${profile})
if(NOT out MATCHES "Memory levels" OR NOT out MATCHES "F1 = " OR NOT out MATCHES "contention.qsm: needs experiments"
   OR NOT out MATCHES "Column walk [^\n]*\n +1 thread\\(s\\), 128 KiB")
  message(FATAL_ERROR "show printed:\n${out}")
endif()
run_ok(${SONDE} fit ${WORK}/results/smoke/first -o ${WORK}/refit.yaml --plots ${WORK}/refit)
file(READ ${profile} first_profile)
file(READ ${WORK}/refit.yaml second_profile)
if(NOT first_profile STREQUAL second_profile)
  message(FATAL_ERROR "sonde fit of the same results wrote another profile")
endif()
run_ok(${SONDE} compare ${MACHINES}/ibm-sp2.yaml ${profile})
if(NOT out MATCHES "peak per core" OR NOT out MATCHES "b / a")
  message(FATAL_ERROR "compare printed:\n${out}")
endif()
# The fitted profile published beside a transcribed one: a datasheet each and the index.
run_ok(${SONDE} publish ${profile} ${MACHINES}/ibm-sp2.yaml -o ${WORK}/site)
foreach(page index.html smoke.html smoke.yaml ibm-sp2.html)
  if(NOT EXISTS ${WORK}/site/${page})
    message(FATAL_ERROR "sonde publish wrote no ${page}:\n${out}\n${err}")
  endif()
endforeach()
file(READ ${WORK}/site/smoke.html page)
if(NOT page MATCHES "<h1>smoke</h1>" OR NOT page MATCHES "<section id=\"memory\">")
  message(FATAL_ERROR "the smoke profile's datasheet lacks its heading or memory levels")
endif()
run_ok(${SONDE} show ${MACHINES}/ibm-sp2.yaml)
if(NOT out MATCHES "94 log n \\+ 10")
  message(FATAL_ERROR "show of the SP2 printed:\n${out}")
endif()

run_ok(${SONDE} characterize ${common} --run-id first)
if(NOT err MATCHES "kept from before" OR err MATCHES "memory.latency")
  message(FATAL_ERROR "rerunning a finished run measured again:\n${err}")
endif()
file(READ ${WORK}/results/smoke/first/drift.json drift)
string(JSON probes LENGTH "${drift}" probes)
if(NOT probes EQUAL 2)
  message(FATAL_ERROR "a run with every part kept probed the machine again:\n${drift}")
endif()

# Interrupt a run for real, and resume it. The interrupt is not left to a clock: a shell starts
# the run and sends it SIGINT as soon as the run's manifest records the first part as finished
# (its timing entry "compute-peak", written atomically once the part's program has exited; the
# part's own file appears earlier, before the program measures noisy benchmarks again), while the
# second part runs (ten repetitions of at least 0.05 s of each of its benchmarks: 8 s or more on
# any machine, against the 50 ms the shell takes to see the manifest). The checks do not depend on where it landed: the run must have stopped with the
# interrupt's exit (130) before the second part finished, the first part must be whole and the
# second absent, and --resume must keep the first and measure the second only. A run that ends
# before the interrupt, or an interrupt that stops nothing, fails the test.
set(longer ${common} --suite compute --repetitions=10 --min-time=0.05)
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

# Resuming with other options is refused; so are bad options and an unwritable folder.
function(expect_error expected)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT err MATCHES "${expected}")
    message(FATAL_ERROR "'${ARGN}' gave exit ${rc}:\n${err}\nexpected to read: ${expected}")
  endif()
endfunction()
expect_error("was started with the suites and options" ${SONDE} characterize ${common} --run-id first --seed 5)
expect_error("threads asked for" ${SONDE} characterize ${common} --threads 999)
expect_error("unknown suite 'network'" ${SONDE} characterize ${common} --suite memory,network)
expect_error("unknown part 'nonsense'; the parts are latency-random-base" ${SONDE} characterize ${common} --part nonsense)
# A part picks its suite: only the compute suite runs, and only its peak part.
run_ok(${SONDE} characterize ${common} --run-id parts --part peak)
file(GLOB parts ${WORK}/results/smoke/parts/*.json)
list(LENGTH parts count)
if(NOT count EQUAL 3 OR NOT EXISTS ${WORK}/results/smoke/parts/compute-peak.json
   OR NOT EXISTS ${WORK}/results/smoke/parts/sizing.json)
  message(FATAL_ERROR "--part peak wrote: ${parts}")
endif()
expect_error("smaller than one cache line" ${SONDE} characterize ${common} --min-working-set 8B)
# The plan on a machine we do not have: the 2-core guest whose hwloc claims an L3 of 508 MiB per
# core. --plan prints it and writes nothing; a budget below the least effort is refused.
execute_process(COMMAND ${CMAKE_COMMAND} -E env HWLOC_XMLFILE=${FIXTURES}/turin-vm-508mib-l3.xml
                        HWLOC_THISSYSTEM=1 ${SONDE} characterize --plan --results ${WORK}/planned
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err MATCHES "Plan: effort" OR NOT err MATCHES "508 MiB"
   OR NOT err MATCHES "against a budget of 10m00s" OR err MATCHES "least effort does not fit")
  message(FATAL_ERROR "--plan on the 508 MiB guest gave exit ${rc}:\n${err}")
endif()
if(EXISTS ${WORK}/planned)
  message(FATAL_ERROR "--plan wrote ${WORK}/planned")
endif()
expect_error("--budget: 1s is less than the shortest plan" ${SONDE} characterize --budget 1s --plan)
expect_error("expected a duration" ${SONDE} characterize --budget ten --plan)
file(WRITE ${WORK}/a-file "")
expect_error("a-file" ${SONDE} characterize --quick --results ${WORK}/a-file/results)
expect_error("unfinished run" ${SONDE} characterize --quick --results ${WORK}/empty --resume)
expect_error("requires a subcommand|A subcommand is required" ${SONDE})
# Profiles: a malformed one is named with its line and key; a fit of no results is refused and
# the profile already there is kept.
file(WRITE ${WORK}/bad.yaml "schema: sonde-profile\nversion: 1\nmachine: {name: x, cores_per_node: -2}\nprovenance: {origin: measured}\n")
expect_error("bad.yaml:3: machine.cores_per_node: expected a value >= 0" ${SONDE} show ${WORK}/bad.yaml)
expect_error("bad.yaml:3: machine.cores_per_node" ${SONDE} validate ${WORK}/bad.yaml)
file(MAKE_DIRECTORY ${WORK}/no-results)
file(READ ${profile} first_profile)
expect_error("no result files" ${SONDE} fit ${WORK}/no-results -o ${profile})
file(READ ${profile} kept_profile)
if(NOT kept_profile STREQUAL first_profile)
  message(FATAL_ERROR "a failed fit changed the profile already written")
endif()

# Early prediction: APT on the SP2 as a table with requirements, as JSON, CSV and plots; the heat
# example beside its measurements; a malformed spreadsheet named by line and column.
run_ok(${SONDE} predict --machine ${MACHINES}/ibm-sp2.yaml ${EXAMPLES}/stap/apt.csv
       --require time<=0.5s --require speedup>=200)
if(NOT out MATCHES "time<=0.5s +yes, from n = 36" OR NOT out MATCHES "speedup>=200 +no")
  message(FATAL_ERROR "predict printed:\n${out}")
endif()
run_ok(${SONDE} predict --machine ${MACHINES}/ibm-sp2.yaml ${EXAMPLES}/stap/apt.csv --nodes 256
       --json --csv ${WORK}/apt.csv --plots ${WORK}/apt)
string(JSON speedup GET "${out}" schemes full-overhead 0 speedup)
if(speedup LESS 113 OR speedup GREATER 115)
  message(FATAL_ERROR "APT's S_256 on the SP2 is ${speedup}; Xu and Hwang's (1995) Table 10 says 114")
endif()
foreach(file apt.csv apt/prediction.png apt/prediction.svg)
  if(NOT EXISTS ${WORK}/${file})
    message(FATAL_ERROR "predict wrote no ${file}")
  endif()
endforeach()
run_ok(${SONDE} predict --machine ${MACHINES}/vm.yaml ${EXAMPLES}/heat/heat.csv --nodes 1,2,4
       --measured ${EXAMPLES}/heat/measured.csv)
if(NOT out MATCHES "Measured against predicted")
  message(FATAL_ERROR "predict with measurements printed:\n${out}")
endif()
file(WRITE ${WORK}/zero-dop.csv "kind,name,work [Mflop],time [s],dop\ncomponent,A,1,2,0\n")
expect_error("zero-dop.csv:2:5 \\(dop\\): degree of parallelism '0' is 0"
             ${SONDE} predict --machine ${MACHINES}/ibm-sp2.yaml ${WORK}/zero-dop.csv)
file(WRITE ${WORK}/scan.csv "kind,name,work [Mflop],time [s],dop,operation\ncomponent,A,1,2,4,\ncommunication,s,,,,scan\n")
expect_error("collectives.scan: absent"
             ${SONDE} predict --machine ${MACHINES}/cm-5.yaml ${WORK}/scan.csv)
expect_error("--require" ${SONDE} predict --machine ${MACHINES}/ibm-sp2.yaml ${EXAMPLES}/stap/apt.csv
             --require "speedup<=3")

# Counters (Amato et al. 1999): a sort's counter file (times only: valgrind is the counters collect test's),
# F on committed counts of this VM, extrapolation as Table 4, and bad counter files.
run_ok(${SONDE} counters --source time --size 20000 --repetitions 2 -o ${WORK}/sort.csv --
       ${SORT} --algorithm radix --size 20000 --threads 2)
file(READ ${WORK}/sort.csv sort_counts)
if(NOT sort_counts MATCHES "20000,radix.ss4.move,1,time,")
  message(FATAL_ERROR "sonde counters wrote:\n${sort_counts}")
endif()
set(counts ${EXAMPLES}/sorts/counts/vm-p2)
run_ok(${SONDE} predict --machine ${MACHINES}/vm.yaml --counters ${counts}/radix-2000000.csv)
if(NOT out MATCHES "radix.ss4.move" OR NOT out MATCHES "QSM.MAX")
  message(FATAL_ERROR "predict --counters printed:\n${out}")
endif()
run_ok(${SONDE} extrapolate --machine ${MACHINES}/vm.yaml ${counts}/radix-200000.csv
       ${counts}/radix-400000.csv ${counts}/radix-600000.csv ${counts}/radix-800000.csv
       ${counts}/radix-1000000.csv --measured ${counts}/radix-2000000.csv -o ${WORK}/forecast.csv)
if(NOT out MATCHES "as Amato et al.'s \\(1999\\) Table 4" OR NOT EXISTS ${WORK}/forecast.csv)
  message(FATAL_ERROR "extrapolate printed:\n${out}")
endif()
# Without --measured nothing was measured: a forecast from extrapolated counts, nothing labelled
# measured, in the table and in the JSON.
run_ok(${SONDE} extrapolate --machine ${MACHINES}/vm.yaml ${counts}/radix-200000.csv
       ${counts}/radix-400000.csv ${counts}/radix-600000.csv --size 2e6 --resamples 20)
if(NOT out MATCHES "F from extrapolated counts" OR out MATCHES "F counted"
   OR out MATCHES "measured: avg")
  message(FATAL_ERROR "extrapolate without --measured printed:\n${out}")
endif()
run_ok(${SONDE} extrapolate --machine ${MACHINES}/vm.yaml ${counts}/radix-200000.csv
       ${counts}/radix-400000.csv ${counts}/radix-600000.csv --size 2e6 --resamples 20 --json)
string(JSON first_point GET "${out}" points 0)
if(NOT first_point MATCHES "f_extrapolated" OR first_point MATCHES "measured")
  message(FATAL_ERROR "extrapolate --json without --measured printed:\n${out}")
endif()
expect_error("1 problem size only" ${SONDE} extrapolate --machine ${MACHINES}/vm.yaml
             ${counts}/radix-200000.csv --size 2e6)
file(WRITE ${WORK}/negative.csv "size,phase,processor,counter,value\n10,a,0,loads,-1\n")
expect_error("negative.csv:2:5: loads: expected >= 0" ${SONDE} predict --machine ${MACHINES}/vm.yaml
             --counters ${WORK}/negative.csv)
file(WRITE ${WORK}/nocolumn.csv "size,phase,counter,value\n10,a,loads,1\n")
expect_error("missing column 'processor'" ${SONDE} predict --machine ${MACHINES}/vm.yaml
             --counters ${WORK}/nocolumn.csv)
expect_error("contention.f1: absent" ${SONDE} predict --machine ${MACHINES}/ibm-sp2.yaml
             --counters ${counts}/radix-2000000.csv)
expect_error("wrote no phase record" ${SONDE} counters --source time --size 1 -o ${WORK}/x.csv -- true)

# Exports (docs/exports.md): every format from a measured profile, Extra-P's from counter files;
# a profile that lacks what a format needs is refused, naming the file and the key.
foreach(format roofline dimemas loggopsim extrap-text extrap-json)
  run_ok(${SONDE} export ${format} ${MACHINES}/epyc-vm.yaml -o ${WORK}/export/${format})
  if(NOT EXISTS ${WORK}/export/${format})
    message(FATAL_ERROR "sonde export ${format} wrote nothing")
  endif()
endforeach()
# The roofline's plot is drawn from the file as written, beside it.
if(NOT EXISTS ${WORK}/export/roofline.svg)
  message(FATAL_ERROR "sonde export roofline drew no plot (${WORK}/export/roofline.svg)")
endif()
run_ok(${SONDE} export extrap-text ${counts}/radix-200000.csv ${counts}/radix-400000.csv
       -o ${WORK}/export/radix.txt)
# Pilot runs at several process counts: Extra-P's second parameter is their stated count.
file(GLOB by_processes ${CMAKE_CURRENT_LIST_DIR}/../../examples/sorts/counts/vm-np/radix-*-p*.csv)
run_ok(${SONDE} export extrap-json ${by_processes} -o ${WORK}/export/radix-np.json)
file(READ ${WORK}/export/radix-np.json np_json)
if(NOT np_json MATCHES "2400000\\.0,[ \n]*8\\.0")
  message(FATAL_ERROR "extrap-json lacks the point (2400000, 8 processes):\n${np_json}")
endif()
expect_error("cm-5.yaml: machine.nodes: absent" ${SONDE} export dimemas ${MACHINES}/cm-5.yaml
             -o ${WORK}/export/cm-5.cfg)
expect_error("format: nonsense not in" ${SONDE} export nonsense ${MACHINES}/cm-5.yaml -o ${WORK}/x)
message(STATUS "sonde command ok")

# A build without PAPI (-DHAVE_PAPI=0 from cli/CMakeLists.txt) refuses `--source papi`, naming
# the build.
if(DEFINED HAVE_PAPI AND NOT HAVE_PAPI)
  expect_error("built without PAPI" ${SONDE} counters --source papi --size 1 -o ${WORK}/papi.csv
               -- true)
  message(STATUS "without PAPI: --source papi refused")
endif()
