cmake_policy(VERSION 3.25)
# `sonde check --components` on the corpus's cg at a tiny size, 1 and 2 ranks under the MPI
# launcher: every row of cg-v2.csv is a phase the program marks, each with a measured time, the
# computation's with a prediction and an E.
# Arguments: -DSONDE=<sonde> -DCG=<sonde-example-cg> -DMPIEXEC=<launcher> -DSOURCE=<project> -DWORK=<scratch>
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(
  COMMAND ${SONDE} check ${SOURCE}/examples/corpus/cg/cg-v2.csv
          --machine ${SOURCE}/machines/epyc-vm.yaml
          --ranks 1,2 --set N=64,K=5 --repetitions 2 --components --no-probe --launcher ${MPIEXEC}
          --json ${WORK}/cg.json -- ${CG} --N {N} --K {K} --repetitions {repetitions}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sonde check --components exited ${rc}:\n${out}\n${err}")
endif()
if(NOT out MATCHES "N=64,K=5, n = 2, per repetition" OR NOT out MATCHES "spmv")
  message(FATAL_ERROR "no components table:\n${out}")
endif()
file(READ ${WORK}/cg.json json)
foreach(point 0 1)
  string(JSON count LENGTH "${json}" records ${point} components)
  if(NOT count EQUAL 8)
    message(FATAL_ERROR "point ${point}: ${count} components, expected cg's 8 rows:\n${json}")
  endif()
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" records ${point} components ${i} name)
    string(JSON measured GET "${json}" records ${point} components ${i} measured_seconds)
    string(JSON communication GET "${json}" records ${point} components ${i} communication)
    if(NOT measured GREATER 0)
      message(FATAL_ERROR "point ${point}: ${name} has no measured time (${measured}):\n${json}")
    endif()
    if(NOT communication)
      string(JSON e GET "${json}" records ${point} components ${i} error_ratio)
      if(NOT e GREATER_EQUAL 1)
        message(FATAL_ERROR "point ${point}: ${name} has no E (${e}):\n${json}")
      endif()
    endif()
  endforeach()
endforeach()
