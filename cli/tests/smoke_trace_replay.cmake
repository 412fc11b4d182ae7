cmake_policy(VERSION 3.25)
# `sonde trace` and `sonde replay` end to end on the heat example, at 2 and 4 ranks (4 is
# oversubscribed on a 2-core machine): the archive is written, the replay predicts and writes its
# JSON and timeline; the what-ifs run (two nodes with a network, a scaled network, ExtraP's
# barrier); and what cannot be replayed is refused with the file named and exit code 2 or 3.
# Arguments: -DSONDE -DHEAT -DMPIEXEC -DNP_FLAG -DMACHINES -DWORK
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(sonde_run expected_rc pattern)
  execute_process(COMMAND ${SONDE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL expected_rc)
    message(FATAL_ERROR "sonde ${ARGN}: exit ${rc}, expected ${expected_rc}\n${out}\n${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "sonde ${ARGN}: no '${pattern}' in\n${out}\n${err}")
  endif()
endfunction()

set(machine ${MACHINES}/epyc-vm.yaml)
foreach(ranks 2 4)
  set(archive ${WORK}/heat-${ranks}.otf2)
  sonde_run(0 "wrote .*heat-${ranks}.otf2 \\(${ranks} ranks"
            trace -o ${archive} --machine epyc-vm --
            ${MPIEXEC} ${NP_FLAG} ${ranks} ${HEAT} --points 8192 --steps 200 --repetitions 2)
  sonde_run(0 "predicted .* traced run .* E = max/min" replay ${archive} --machine ${machine}
            --json ${WORK}/replay-${ranks}.json --plots ${WORK}/plots-${ranks})
  file(READ ${WORK}/replay-${ranks}.json json)
  string(JSON ratio GET "${json}" error_ratio)
  string(JSON path_steps GET "${json}" critical_path step_count)
  if(NOT ratio GREATER_EQUAL 1 OR path_steps LESS 1)
    message(FATAL_ERROR "replay-${ranks}.json: error ratio ${ratio}, ${path_steps} path steps")
  endif()
  if(NOT EXISTS ${WORK}/plots-${ranks}/timeline.png OR NOT EXISTS ${WORK}/plots-${ranks}/timeline.svg)
    message(FATAL_ERROR "no timeline in ${WORK}/plots-${ranks}")
  endif()
endforeach()

set(archive ${WORK}/heat-4.otf2)
# LBF: the four ranks two to a node, the 16-core node's profile as the network between them.
sonde_run(0 "placement: 2 nodes" replay ${archive} --machine ${machine} --ranks-per-node 2
          --network ${MACHINES}/h100-host-16c-b.yaml)
sonde_run(0 "placement: 4 nodes" replay ${archive} --machine ${machine} --placement 0,1,2,3
          --network ${MACHINES}/h100-host-16c-b.yaml --messages table)
# NF: a network with ten times the start-up time; ExtraP's barrier; the ranks given 4 processors.
sonde_run(0 "start-up time x 10" replay ${archive} --machine ${machine} --latency-scale 10)
sonde_run(0 "ExtraP's linear master-slave" replay ${archive} --machine ${machine} --extrap-barrier)
sonde_run(0 "4 processors per node" replay ${archive} --machine ${machine}
          --processors-per-node 4)
# Refused: two nodes without a network (2), a profile without point-to-point (3), a placement of
# the wrong length (2), a truncated trace (3).
sonde_run(2 "--network" replay ${archive} --machine ${machine} --ranks-per-node 2)
sonde_run(3 "sun4.yaml: point_to_point" replay ${archive} --machine ${MACHINES}/sun4.yaml)
sonde_run(2 "names 2 nodes; the trace has 4 ranks" replay ${archive} --machine ${machine}
          --placement 0,1)
file(GLOB events ${WORK}/heat-2/*.evt)
list(GET events 0 event_file)
file(SIZE ${event_file} size)
math(EXPR half "${size} / 2")
execute_process(COMMAND truncate -s ${half} ${event_file})
sonde_run(3 "heat-2" replay ${WORK}/heat-2.otf2 --machine ${machine})
