#!/bin/bash
# Runs a rendezvous peer (tests/rendezvous/peer_main.cpp) as 2 ranks under mpirun:
#   mpirun_test.sh MPIRUN PEER MODE
# The port comes free from the system, so that jobs of several builds on one machine do not meet.
# mpirun refuses root unless told: CI runs as root in a container.
set -euo pipefail
mpirun=$1 peer=$2 mode=$3
command -v "$mpirun" >/dev/null || { echo "mpirun not found: skipped"; exit 77; }
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The job's secret as a file only this user may read (docs/security.md), as on a cluster: the TCP
# rendezvous' ranks authenticate each other with it.
secret_file=$(mktemp)
trap 'rm -f "$secret_file"' EXIT
chmod 600 "$secret_file"
od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$secret_file"
# Loopback and shared memory only: no network probing in a container.
"$mpirun" -np 2 --oversubscribe --mca btl self,vader --mca btl_tcp_if_include lo \
  -x KJARNI_MASTER_PORT="$port" -x KJARNI_JOB_SECRET_FILE="$secret_file" -x KJARNI_TEST_TIMEOUT_MS=30000 \
  "$peer" "$mode"
