#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# One MPI test program of test/mpi across emulated hosts: a run of
# test/mpi/testlist with hosts= (test/testlist.py registers each as a test).
# usage: t_mpi.sh [--job-limit S] [--env NAME=VALUE]... [--expect-failure]
#                 [--blame RANK] [--max-seconds S] LAYOUT PROG [ARG]...
# Builds the hosts LAYOUT names (h1:2,h2:1: ranks 0-1 on h1, rank 2 on h2;
# h1, where mpiexec runs, may hold none), torn down on exit, failure,
# interruption or kill; runs the job with mpiexec on h1, which starts the
# other hosts' ranks through the lc-hosts agent, so one job mixes
# shared-memory peers (same host) and network peers (ofi, other hosts).
# The job is judged by mpi_run or mpi_run_failing (mh_mpi_lib.sh).
# Exit 77 (skipped) when emulated hosts cannot be built here.
here=$(dirname "$0")
. "$here/../launcher/lib.sh"
. "$here/../launcher/hosts_lib.sh"
. "$here/mh_mpi_lib.sh"
usage() {
    echo "usage: t_mpi.sh [--job-limit S] [--env NAME=VALUE]... [--expect-failure] [--blame RANK]" \
        "[--max-seconds S] LAYOUT PROG [ARG]..." >&2
    exit 2
}
envs="" expect_failure=0 blame="" max_ms=""
while [ $# -gt 0 ]; do
    case $1 in
    --job-limit) [ $# -ge 2 ] || usage; MH_RUN_LIMIT=$2; shift 2 ;;
    --env) [ $# -ge 2 ] || usage; envs="$envs $2"; shift 2 ;;
    --expect-failure) expect_failure=1; shift ;;
    --blame) [ $# -ge 2 ] || usage; blame=$2; expect_failure=1; shift 2 ;;
    --max-seconds) [ $# -ge 2 ] || usage; max_ms=$(($2 * 1000)); shift 2 ;;
    -*) usage ;;
    *) break ;;
    esac
done
[ $# -ge 2 ] || usage
layout=$1 prog=$2
shift 2
# the set holds h1 .. the highest host LAYOUT names
nhosts=$(echo "$layout" | tr ',' '\n' | sed 's/^h\([0-9]*\):.*/\1/' | sort -n | tail -1)
hosts_up "$nhosts"
if [ "$expect_failure" -eq 1 ]; then
    mpi_run_failing "$layout" "$prog" "$envs" "$blame" "$max_ms" "$@"
else
    mpi_run "$layout" "$prog" "$envs" "$max_ms" "$@"
fi
echo "PASS"
