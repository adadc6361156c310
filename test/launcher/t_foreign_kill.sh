#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12, points 6 and 7, under a foreign launcher (MPICH's hydra, which
# knows nothing of Locus): every failure ends the job, and nothing is left
# in the segment directory (a private LOCUS_SHM_DIR, so that other jobs on
# the machine cannot disturb the count).
#
# A job of 3 ranks (mpi_victim block: rank 0 in MPI_Recv, the others in
# MPI_Barrier, forever) is started by `mpiexec.mpich`; where a rank is
# killed, each rank runs under a shell that outlives it ("victim; sleep
# 30"), so that hydra does not see a rank die -- as under srun without
# --kill-on-bad-exit, or any wrapper.
#
#   t_foreign_kill.sh [KIND...]   KIND:
#     rank     kill -9 of rank 1: the others say "rank 1 (pid P on host H)
#              died; ending the job" and the job ends within a few seconds
#     ofi      the same with the ranks joined by the network channel
#              (LOCUS_NET_FORCE=1)
#     proxy    kill -9 of hydra's proxy (the ranks' PMI server): every rank
#              ends itself
#     mpiexec  kill -9 of mpiexec.mpich: every rank is gone
#     init     kill -9 of every process of a job while its segments exist
#              (during MPI_Init): the next job in the same directory removes
#              what the dead one left
#   Default: all of them.
#   t_foreign_kill.sh stress N    N rounds of `init` (make stress; skipped
#                                 unless LOCUS_STRESS=1)
if [ "${1:-}" = stress ] && [ "${LOCUS_STRESS:-0}" != 1 ]; then
    echo "SKIP: a stress run (make stress, or LOCUS_STRESS=1)"
    exit 77
fi
. "$(dirname "$0")/lib.sh"
HYDRA=$(command -v mpiexec.mpich || command -v mpiexec.hydra) || { echo "SKIP: no hydra"; exit 77; }
[ -n "${MPI_VICTIM:-}" ] || { echo "SKIP: MPI_VICTIM not set"; exit 77; }
export ASAN_OPTIONS="handle_segv=0:${ASAN_OPTIONS:-}"
SHM="$T/shm"
mkdir -m 0700 "$SHM"
export LOCUS_SHM_DIR="$SHM"

# descendants PID: PID and every process below it.
descendants() {
    echo "$1"
    for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do descendants "$c"; done
}

# start_job wrap|bare [ENV=VALUE...]: the job in the background (each rank
# under a shell, or not), its exit code in $T/rc, output in $T/job;
# returns once every rank printed READY.  (Hydra leaks its proxy's
# sockets to mpiexec into the ranks: a surviving shell would keep mpiexec
# waiting, hence `bare` where the launcher itself is killed.)
start_job() {
    how=$1
    shift
    : > "$T/job"
    rm -f "$T/rc"
    if [ "$how" = wrap ]; then
        set -- "$@" timeout -k 2 40 "$HYDRA" -n 3 sh -c '"$0" block; sleep 30' "$MPI_VICTIM"
    else
        set -- "$@" timeout -k 2 40 "$HYDRA" -n 3 "$MPI_VICTIM" block
    fi
    (env "$@" > "$T/job" 2>&1; echo $? > "$T/rc") &
    JOB=$!
    i=0
    until [ "$(grep -c '^READY' "$T/job")" -ge 3 ]; do
        i=$((i + 1))
        [ $i -gt 400 ] && fail "the ranks never got ready: $(cat "$T/job")"
        [ -e "$T/rc" ] && fail "the job ended before it was ready (exit $(cat "$T/rc")): $(cat "$T/job")"
        sleep 0.05
    done
    RANKS=$(awk '$1 == "READY" { print $3 }' "$T/job")
    RANK1=$(awk '$1 == "READY" && $2 == 1 { print $3 }' "$T/job")
}

# wait_job LIMIT_MS: the job ends within LIMIT_MS of the kill (T0), no
# rank survives it, and the segment directory is empty.
wait_job() {
    i=0
    until [ -e "$T/rc" ]; do
        i=$((i + 1))
        if [ $i -gt 300 ]; then
            for p in $RANKS; do kill -9 "$p" 2>/dev/null; done
            fail "the job did not end within 15 s of the kill (ranks spin on): $(cat "$T/job")"
        fi
        sleep 0.05
    done
    took=$(( $(now_ms) - T0 ))
    [ "$took" -lt "$1" ] || fail "the job ended $took ms after the kill, limit $1 ms"
    sleep 0.2
    for p in $RANKS; do
        [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null &&
            { kill -9 "$p"; fail "rank pid $p survived: $(cat "$T/job")"; }
    done
    left=$(ls -A "$SHM")
    [ -z "$left" ] || fail "left in LOCUS_SHM_DIR: $left"
}

case_rank() { # $1: extra environment
    start_job wrap ${1:+"$1"}
    T0=$(now_ms)
    kill -9 "$RANK1"
    wait_job 5000
    grep -q "rank 1 (pid $RANK1 on host .*) died; ending the job" "$T/job" ||
        fail "no rank said that rank 1 (pid $RANK1) died: $(cat "$T/job")"
    echo "ok: $2 (ended in $took ms)"
}

case_proxy() {
    start_job bare
    proxy=$(ps -o ppid= -p "$RANK1" | tr -d ' ')
    grep -q hydra_pmi_proxy "/proc/$proxy/cmdline" 2>/dev/null || fail "no hydra proxy above rank 1 (pid $proxy)"
    T0=$(now_ms)
    kill -9 "$proxy"
    wait_job 5000
    echo "ok: proxy killed (job ended in $took ms)"
}

case_mpiexec() {
    start_job bare
    # ps pads its columns: a pid with fewer digits than the column comes
    # with leading blanks, which `ps -p` refuses ("improper list").
    proxy=$(ps -o ppid= -p "$RANK1" | tr -d ' ')
    mpx=$(ps -o ppid= -p "$proxy" | tr -d ' ')
    grep -q mpiexec "/proc/$mpx/cmdline" 2>/dev/null || fail "no mpiexec above rank 1's proxy (pid $mpx)"
    T0=$(now_ms)
    kill -9 "$mpx"
    wait_job 5000
    echo "ok: mpiexec killed (job ended in $took ms)"
}

# One job killed whole while its segments have names, then one that runs:
# afterwards the directory is empty.  Returns 1 if the kill missed the
# window (nothing was left to remove).
case_init() {
    command -v python3 > /dev/null || { echo "SKIP: init needs python3 (inotify)"; exit 77; }
    rm -f "$T/pid" "$T/killer"
    python3 "$(dirname "$0")/kill_on_create.py" "$SHM" "$T/pid" > "$T/killer" 2>&1 &
    KILLER=$!
    i=0
    until grep -q WATCHING "$T/killer" 2>/dev/null; do
        i=$((i + 1))
        [ $i -gt 200 ] && fail "the killer never watched: $(cat "$T/killer")"
        grep -q NOINOTIFY "$T/killer" 2>/dev/null && { echo "SKIP: no inotify"; exit 77; }
        sleep 0.05
    done
    (timeout -k 2 40 "$HYDRA" -n 4 "$MPI_VICTIM" block > "$T/job" 2>&1) &
    echo $! > "$T/pid.tmp" && mv "$T/pid.tmp" "$T/pid"
    wait "$KILLER"
    grep -q KILLED "$T/killer" || fail "no segment appeared in $SHM: $(cat "$T/killer")"
    sleep 0.5
    left=$(ls -A "$SHM")
    [ -n "$left" ] || return 1
    NLEFT=$(echo "$left" | wc -l)
    run "$HYDRA" -n 3 "$MPI_VICTIM" ok
    expect_rc 0
    left=$(ls -A "$SHM")
    [ -z "$left" ] || fail "a job killed during MPI_Init left $left, and the next job did not remove it"
    return 0
}

case_init_retry() {
    n=0
    until case_init; do
        n=$((n + 1))
        [ $n -ge 10 ] && { echo "ok: init (the kill never found a segment with a name in 10 tries: not checked)"; return; }
    done
    echo "ok: init ($NLEFT segments of a job killed in MPI_Init removed by the next job; $n misses)"
}

if [ "${1:-}" = stress ]; then
    for r in $(seq "$2"); do case_init_retry > /dev/null; done
    echo "PASS"
    exit 0
fi
for kind in ${*:-rank ofi proxy mpiexec init}; do
    case $kind in
    rank) case_rank "" "rank 1 killed, shared memory" ;;
    ofi) case_rank LOCUS_NET_FORCE=1 "rank 1 killed, network channel" ;;
    proxy) case_proxy ;;
    mpiexec) case_mpiexec ;;
    init) case_init_retry ;;
    *) fail "unknown kind $kind" ;;
    esac
done
echo "PASS"
