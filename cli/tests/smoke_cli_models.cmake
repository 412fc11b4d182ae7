cmake_policy(VERSION 3.25)
# The sonde command's models on committed profiles and counts: early prediction, counters and
# extrapolation, exports. Arguments: -DSONDE=<sonde> -DWORK=<scratch> -DMACHINES=<folder>
# -DEXAMPLES=<folder> -DSORT=<sonde-example-sort> -DHAVE_PAPI=<bool>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
include(${CMAKE_CURRENT_LIST_DIR}/cli_checks.cmake)

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

# A build without PAPI (-DHAVE_PAPI=0 from cli/CMakeLists.txt) refuses `--source papi`, naming
# the build.
if(DEFINED HAVE_PAPI AND NOT HAVE_PAPI)
  expect_error("built without PAPI" ${SONDE} counters --source papi --size 1 -o ${WORK}/papi.csv
               -- true)
  message(STATUS "without PAPI: --source papi refused")
endif()
message(STATUS "sonde models ok")
