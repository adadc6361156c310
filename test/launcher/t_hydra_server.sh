#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Our PMI client against MPICH's hydra, both ways it offers PMI:
# an inherited PMI_FD, and PMI_PORT (TCP connect + initack).
. "$(dirname "$0")/lib.sh"
HYDRA=$(command -v mpiexec.mpich || command -v mpiexec.hydra) || { echo "SKIP: no hydra"; exit 77; }
run "$HYDRA" -n 3 "$PMI_PROBE" kvs
expect_rc 0
expect_lines "kvs ok" 3 "$T/out"
run "$HYDRA" -pmi-port -n 3 "$PMI_PROBE" kvs
expect_rc 0
expect_lines "kvs ok" 3 "$T/out"
echo "PASS"
