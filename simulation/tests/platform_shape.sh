#!/usr/bin/env bash
# A platform file as SimGrid reads it (sonde-simgrid-platform) has the number of nodes and the
# cores per node its comment states: a topology string that builds another machine fails here.
#   platform_shape.sh <sonde-simgrid-platform> <platform.xml> <nodes> <cores per node>
set -euo pipefail
tool=$1 platform=$2 nodes=$3 cores=$4
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
"$tool" "$platform" "$summary"
found_nodes=$(grep -c '"name": ' "$summary" || true)
other_cores=$(grep '"name": ' "$summary" | grep -vc "\"cores\": $cores," || true)
if [[ $found_nodes != "$nodes" || $other_cores != 0 ]]; then
  echo "FAILED: $platform: SimGrid built $found_nodes nodes, $other_cores of them without" \
    "$cores cores; its comment says $nodes nodes of $cores cores" >&2
  exit 1
fi
echo "PASSED: $platform: $nodes nodes of $cores cores"
