#!/bin/bash
# kill_rank.sh: driver of the killed-rank test.
#
# usage: kill_rank.sh [--no-rank-check] <mpiexec> <kill_rank program> [victim]
#
# Runs the program on 4 ranks; rank <victim> (default 2) kills itself
# with SIGKILL after 0.5 s of message exchange.  Passes when
#   - mpiexec exits non-zero (and not by the runner's timeout),
#   - within 8 s of the start of the job,
#   - its stderr names the dead rank ("rank 2", "rank: 2", "rank=2"),
#   - no /dev/shm/locus-* file of the job is left and no rank survives
#     (checked by run_mpi_test.sh).
# --no-rank-check skips the stderr check: for validating the program with
# MPICH's Hydra, which reports the pid but not the rank of a dead process.
here=$(cd "$(dirname "$0")" && pwd)
rank_check=1
if [ "${1:-}" = "--no-rank-check" ]; then rank_check=0; shift; fi
if [ $# -lt 2 ]; then
    echo "usage: kill_rank.sh [--no-rank-check] <mpiexec> <kill_rank program> [victim]" >&2
    exit 2
fi
mpiexec="$1"; prog="$2"; victim="${3:-2}"
opts=(--expect-failure --max-seconds 8 --timeout 30)
if [ "$rank_check" -eq 1 ]; then
    # "rank 2", "rank: 2", "rank=2", "rank #2" as a word (not "kill_rank(+0x2")
    opts+=(--stderr-regex "(^|[^a-z0-9_])rank[ :=#]{1,3}${victim}([^0-9]|$)")
fi
exec "$here/../run_mpi_test.sh" "${opts[@]}" "$mpiexec" 4 "$prog" "$victim"
