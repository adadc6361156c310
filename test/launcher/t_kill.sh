#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12.7: nothing of a job is left, whatever is killed with SIGKILL --
# no process on any host, nothing in any host's /dev/shm (each emulated
# host has a private one) nor in a LOCUS_SHM_DIR.  The job is a real MPI
# program (mpi_victim traffic: every rank exchanges 64 KiB messages with
# both ring neighbours, so shared-memory and network channels are up and
# busy) across two emulated hosts, mpiexec on h1; the kill comes once
# every rank printed READY, after a random pause of up to 0.3 s.
#
#   t_kill.sh [KIND...]   KIND: rank (a remote rank), mpiexec, proxy, all
#                         (every process of the job on every host at once),
#                         shmdir (all, one host, segments in LOCUS_SHM_DIR:
#                         set in mpiexec's environment, then by -genv),
#                         segv (a remote rank segfaults: "killed by signal 11"
#                         names it and its host).  Default: all of them.
#   t_kill.sh stress N    N rounds of `all` (the `stress` label, make stress;
#                         skipped unless LOCUS_STRESS=1)
#
# What this does not cover: a kill during MPI_Init, while the segments
# are being created and attached.  A segment's name is removed once every
# peer attached (src/coord, wire-up); before that, killing every process
# that could remove it leaves it behind until the next job's MPI_Init
# removes it (src/channel/lc_shm_sweep.c): t_foreign_kill.sh init.
if [ "${1:-}" = stress ] && [ "${LOCUS_STRESS:-0}" != 1 ]; then
    echo "SKIP: a stress run (make stress, or LOCUS_STRESS=1)"
    exit 77
fi
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
# Under a sanitizer build the rank's own SIGSEGV must stay a signal.
export ASAN_OPTIONS="handle_segv=0:${ASAN_OPTIONS:-}"
hosts_up 2
LAYOUT=h1:2,h2:2
NRANKS=4

# start_job [ENV=VALUE...] -- MPIEXEC-ARGS...: mpiexec on h1 in the
# background (its exit code in $T/rc), output in $T/job; returns once
# every rank is READY.
start_job() {
    envs=""
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    : > "$T/job"
    rm -f "$T/rc"
    # shellcheck disable=SC2086 # the NAME=VALUE words are split on purpose
    (timeout -k 2 60 "$LC_HOSTS" run "$HOSTS_NAME" h1 env $envs sh -c 'exec "$@" > "$0" 2>&1' "$T/job" \
        "$MPIEXEC" -launcher-exec "$AGENT" "$@"; echo $? > "$T/rc") &
    i=0
    until [ "$(grep -c '^READY' "$T/job")" -ge "$NRANKS" ]; do
        i=$((i + 1))
        [ $i -gt 600 ] && fail "the ranks never got ready: $(cat "$T/job")"
        [ -e "$T/rc" ] && fail "the job ended before it was ready (exit $(cat "$T/rc")): $(cat "$T/job")"
        sleep 0.05
    done
    # A random pause, so the kill finds the ranks anywhere in their loop.
    sleep "0.$(od -An -N1 -tu1 /dev/urandom | awk '{ printf "%03d", $1 * 300 / 255 }')"
}

# wait_job: the job's mpiexec (or its lc-hosts client) is gone; RC set.
wait_job() {
    i=0
    until [ -e "$T/rc" ]; do
        i=$((i + 1)); [ $i -gt 300 ] && fail "the job did not end within 15 s of the kill"
        sleep 0.05
    done
    RC=$(cat "$T/rc")
}

# job_pids HOST PATTERN: pids (root namespace) of HOST's processes whose
# command line matches PATTERN.
job_pids() {
    "$LC_HOSTS" procs "$HOSTS_NAME" "$1" | awk -v pat="$2" '$0 ~ pat { print $1 }'
}

# expect_no_leftovers [DIR]: no process on any host (3 s to go), nothing in
# any host's /dev/shm, and DIR (a LOCUS_SHM_DIR) empty.
expect_no_leftovers() {
    expect_hosts_clean 3000
    for h in $HOSTS; do
        left=$("$LC_HOSTS" run "$HOSTS_NAME" "$h" ls -A /dev/shm)
        [ -z "$left" ] || fail "$what: left in /dev/shm on $h: $(echo "$left" | tr '\n' ' ')"
    done
    if [ -n "${1:-}" ]; then
        left=$(ls -A "$1")
        [ -z "$left" ] || fail "$what: left in LOCUS_SHM_DIR: $(echo "$left" | tr '\n' ' ')"
    fi
}

kill_rank() {
    what="kill -9 of rank 3 (on h2)"
    start_job -- -hosts "$LAYOUT" "$MPI_VICTIM" traffic
    pid=$(sed -n 's/^READY 3 //p' "$T/job")
    # READY gives its pid on h2; NSpid (root namespace first, h2's last) maps it.
    victim=$(for p in $(job_pids h2 "mpi_victim"); do
        [ "$(awk '/^NSpid:/ { print $NF }' "/proc/$p/status" 2>/dev/null)" = "$pid" ] && echo "$p"; done)
    [ -n "$victim" ] || fail "$what: rank 3 (pid $pid on h2) not found"
    kill -KILL "$victim"
    wait_job
    [ "$RC" -eq 137 ] || fail "$what: mpiexec exited $RC, expected 137: $(cat "$T/job")"
    grep -q "^mpiexec: rank 3 (pid $pid on h2) killed by signal 9" "$T/job" ||
        fail "$what: the rank is not named: $(grep '^mpiexec' "$T/job")"
    expect_no_leftovers
}

kill_mpiexec() {
    what="kill -9 of mpiexec"
    start_job -- -hosts "$LAYOUT" "$MPI_VICTIM" traffic
    mp=$(job_pids h1 "mpiexec -launcher-exec")
    [ -n "$mp" ] || fail "$what: mpiexec not found on h1"
    kill -KILL $mp
    wait_job
    expect_no_leftovers
}

kill_proxy() {
    what="kill -9 of the proxy on h2"
    start_job -- -hosts "$LAYOUT" "$MPI_VICTIM" traffic
    px=$(job_pids h2 "--proxy")
    [ -n "$px" ] || fail "$what: no proxy on h2"
    kill -KILL $px
    wait_job
    [ "$RC" -ne 0 ] || fail "$what: mpiexec exited 0"
    grep -q "^mpiexec: .*h2" "$T/job" || fail "$what: mpiexec does not name h2: $(grep '^mpiexec' "$T/job")"
    expect_no_leftovers
}

# Every process of the job on every host, in one kill.
kill_all() {
    what="kill -9 of every process of the job${1:+ ($1)}"
    pids=""
    for h in $HOSTS; do pids="$pids $(job_pids "$h" .)"; done
    # shellcheck disable=SC2086 # one word per pid
    kill -KILL $pids 2>/dev/null
    wait_job
}

kill_everything() {
    start_job -- -hosts "$LAYOUT" "$MPI_VICTIM" traffic
    kill_all
    expect_no_leftovers
}

kill_shmdir() {
    dir=$T/shmdir
    mkdir -p "$dir"
    NRANKS=3
    start_job "LOCUS_SHM_DIR=$dir" -- -hosts h1:3 "$MPI_VICTIM" traffic
    kill_all "LOCUS_SHM_DIR in mpiexec's environment"
    expect_no_leftovers "$dir"
    start_job -- -genv LOCUS_SHM_DIR "$dir" -hosts h1:3 "$MPI_VICTIM" traffic
    kill_all "LOCUS_SHM_DIR by -genv"
    expect_no_leftovers "$dir"
    NRANKS=4
}

remote_segv() {
    what="a remote rank's SIGSEGV"
    : > "$T/job"
    timeout -k 2 30 "$LC_HOSTS" run "$HOSTS_NAME" h1 env ASAN_OPTIONS="$ASAN_OPTIONS" \
        sh -c 'exec "$@" > "$0" 2>&1' "$T/job" "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$LAYOUT" \
        "$MPI_VICTIM" segv 3
    RC=$?
    [ "$RC" -eq 139 ] || fail "$what: mpiexec exited $RC, expected 139: $(cat "$T/job")"
    grep -q "^mpiexec: rank 3 (pid [0-9]* on h2) killed by signal 11 (Segmentation fault)" "$T/job" ||
        fail "$what: not reported as signal 11: $(grep '^mpiexec' "$T/job")"
    expect_no_leftovers
}

if [ "${1:-}" = stress ]; then
    n=${2:-100}
    for round in $(seq 1 "$n"); do
        t0=$(now_ms)
        kill_everything
        echo "ok: round $round/$n: kill -9 of everything, nothing left ($(( $(now_ms) - t0 )) ms)"
    done
    echo "PASS"
    exit 0
fi
for kind in ${*:-rank mpiexec proxy all shmdir segv}; do
    t0=$(now_ms)
    case $kind in
    rank) kill_rank ;;
    mpiexec) kill_mpiexec ;;
    proxy) kill_proxy ;;
    all) kill_everything ;;
    shmdir) kill_shmdir ;;
    segv) remote_segv ;;
    *) echo "t_kill.sh: unknown kind $kind" >&2; exit 2 ;;
    esac
    echo "ok: $kind: nothing left ($(( $(now_ms) - t0 )) ms)"
done
echo "PASS"
