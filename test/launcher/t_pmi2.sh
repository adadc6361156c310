#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpiexec's PMI-2 server, spoken to by a client written in raw wire text.
. "$(dirname "$0")/lib.sh"
run "$MPIEXEC" -n 3 "$PMI2_CLIENT"
expect_rc 0
expect_lines "^pmi2 rank [0-2]/3 ok jobid=lc" 3 "$T/out"
echo "PASS"
