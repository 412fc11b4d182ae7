cmake_policy(VERSION 3.25)
# The sonde command end to end: --version, topology, a quick characterize, its profile fitted,
# shown and published, and option errors (smoke_cli_interrupt.cmake interrupts a run and resumes
# it; smoke_cli_models.cmake runs the models). Arguments: -DSONDE=<sonde> -DWORK=<scratch>
# -DFIXTURES=<folder> -DMACHINES=<folder>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

include(${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake)

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

# Resuming with other options is refused; so are bad options and an unwritable folder.
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

message(STATUS "sonde command ok")
