#!/bin/bash
# Runs the collectives peer (collectives_peer_main.cpp) as COUNT processes meeting through
# rendezvous_from_environment on a free loopback port, and fails unless every rank exits with 0
# within LIMIT seconds (a hang is a failure too):
#   processes_test.sh PEER MODE COUNT LIMIT [VARIABLE=VALUE ...]
set -uo pipefail
peer=$1 mode=$2 count=$3 limit=$4
shift 4
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
seed=$RANDOM$RANDOM
# The job's secret, as a launcher sets it: the ranks authenticate each other (docs/security.md).
secret=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
pids=()
for ((rank = 0; rank < count; ++rank)); do
  env -u RANK -u WORLD_SIZE -u OMPI_COMM_WORLD_RANK -u OMPI_COMM_WORLD_SIZE -u PMI_RANK -u PMI_SIZE \
    KJARNI_RANK=$rank KJARNI_WORLD_SIZE=$count KJARNI_MASTER_ADDR=127.0.0.1 KJARNI_MASTER_PORT=$port \
    KJARNI_TEST_SEED=$seed KJARNI_JOB_SECRET=$secret "$@" timeout --signal=KILL "$limit" "$peer" "$mode" &
  pids+=($!)
done
status=0
for ((rank = 0; rank < count; ++rank)); do
  wait "${pids[$rank]}"
  code=$?
  if [ "$code" -ne 0 ]; then
    echo "rank $rank exited with $code (137: killed after $limit s, a hang)" >&2
    status=1
  fi
done
exit $status
