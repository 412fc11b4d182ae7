cmake_policy(VERSION 3.25)
# Every spreadsheet of the corpus (each version beside each program, and heat's) predicts at 1 and
# 2 ranks on a recorded profile that measured everything the sheets name (the stencil kernel, the
# store_load chain, the misaligned kernels): a sheet that does not parse or names what no profile
# measures fails here, not in a check that runs for ten minutes first.
# Arguments: -DSONDE=<sonde> -DSOURCE=<project>
set(profile ${SOURCE}/examples/corpus/records/milan-vm-1206e/milan-vm-1206e.yaml)
file(GLOB sheets ${SOURCE}/examples/corpus/*/*.csv ${SOURCE}/examples/heat/heat-resources*.csv)
list(FILTER sheets EXCLUDE REGEX "/records/")
list(LENGTH sheets count)
if(count LESS 30)
  message(FATAL_ERROR "found ${count} corpus sheets, expected 30 or more: ${sheets}")
endif()
foreach(sheet ${sheets})
  execute_process(COMMAND ${SONDE} predict ${sheet} --machine ${profile} --nodes 1,2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "maximal parallelism")
    message(FATAL_ERROR "${sheet} does not predict on ${profile} (exit ${rc}):\n${err}")
  endif()
endforeach()
message(STATUS "${count} corpus sheets predict")
