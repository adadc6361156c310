#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Our PMI client against MPICH's hydra, both ways it offers PMI:
# an inherited PMI_FD, and PMI_PORT (TCP connect + initack).  Under hydra
# a spawn is refused without a word on the wire (Locus's spawn commands
# are its own mpiexec's, as is the bulk get), and the universe size is hydra's (-1 = unknown).
. "$(dirname "$0")/lib.sh"
HYDRA=$(command -v mpiexec.mpich || command -v mpiexec.hydra) || { echo "SKIP: no hydra"; exit 77; }
run "$HYDRA" -n 3 "$PMI_PROBE" kvs
expect_rc 0
expect_lines "kvs ok" 3 "$T/out"
run "$HYDRA" -pmi-port -n 3 "$PMI_PROBE" kvs
expect_rc 0
expect_lines "kvs ok" 3 "$T/out"
# Locus's bulk get falls back to one get per key (hydra would end the job
# on lc_getranks, so it must never see it).
run "$HYDRA" -n 4 "$PMI_PROBE" ranks
expect_rc 0
expect_lines "^RANKS ok bulk=0 " 4 "$T/out"
[ -n "${SPAWN_PROBE:-}" ] || fail "SPAWN_PROBE not set"
run "$HYDRA" -n 1 "$SPAWN_PROBE" notlocus
expect_rc 0
expect_out "^REFUSED notlocus 42 .*another launcher"
run "$HYDRA" -n 2 "$SPAWN_PROBE" usize
expect_rc 0
expect_lines "^USIZE -1\$" 2 "$T/out"   # hydra: unknown unless -usize
run "$HYDRA" -usize 5 -n 2 "$SPAWN_PROBE" usize
expect_rc 0
expect_lines "^USIZE 5\$" 2 "$T/out"
echo "PASS"
