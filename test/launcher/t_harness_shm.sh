#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test/run_mpi_test.sh's leak check of the shared-memory directory, when
# other jobs' objects appear during the run (a 64-rank job starting
# meanwhile makes 64): objects held by a live process are theirs and
# pass, in seconds (the old per-object scan of /proc took 134 s for 64 at
# load 55, past ctest's limit after the job had printed "No Errors": session
# 11's CI timeout); an object nobody holds is a leak, reported and removed.
# Objects made the library's way (unnamed, then linked: their holders'
# /proc entries read "#<inode> (deleted)", not their names) are held too:
# matched by name, a concurrent job's segments in MPI_Init were removed
# under it ("cannot open .../rings: No such file or directory").  A
# harness in a PID namespace of its own does not see the holder in /proc
# but sees its lock (the library locks its segments), and keeps them too.
# A private directory (LC_TEST_SHM_DIR) stands for /dev/shm, so concurrent
# tests are not disturbed.
. "$(dirname "$0")/lib.sh"
runner="$(dirname "$0")/../run_mpi_test.sh"
holder="$(dirname "$0")/shm_holder.py"
command -v python3 >/dev/null || exit 77
# Under /dev/shm when there is one: a tmpfs, as the library's (its
# unnamed objects need O_TMPFILE).
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    LC_TEST_SHM_DIR=$(mktemp -d /dev/shm/lc-harness-test.XXXXXX) || exit 2
else
    LC_TEST_SHM_DIR="$T/shm"
    mkdir "$LC_TEST_SHM_DIR"
fi
export LC_TEST_SHM_DIR
trap '[ -s "$T/holder.pid" ] && kill "$(cat "$T/holder.pid")" 2>/dev/null; rm -rf "$T" "$LC_TEST_SHM_DIR"' EXIT

# While the job runs, 64 objects appear, held by a process outside the job
# (mpiexec ends whatever the job leaves behind) until well after the check.
job="$T/job.sh"
cat >"$job" <<EOS
#!/bin/sh
touch "$T/started"
while ! grep -q held "$T/holder.out" 2>/dev/null; do sleep 0.05; done
echo "No Errors"
EOS
chmod +x "$job"
# Run the job through the harness (its command prefixed by "$@", e.g.
# unshare) while the holder makes 64 objects the way $1 says ("" by name,
# "unnamed" the library's way) and holds them past the check; the run
# must pass.  The holder stays for the caller's look and stop_holder.
run_beside_holder() {
    mode=$1
    shift
    timeout -k 5 60 "$@" "$runner" --timeout 20 "$MPIEXEC" 1 "$job" >"$T/out" 2>"$T/err" </dev/null &
    run_bg=$!
    i=0
    until [ -e "$T/started" ]; do
        i=$((i + 1)); [ $i -gt 400 ] && fail "the job never started${1:+ (under $1)}"
        sleep 0.05
    done
    python3 "$holder" "$LC_TEST_SHM_DIR" 64 60 $mode >"$T/holder.out" &
    echo $! >"$T/holder.pid"
    wait $run_bg
    RC=$?
    expect_rc 0
    expect_out "^PASS: job.sh on 1 ranks"
}
stop_holder() {
    kill "$(cat "$T/holder.pid")" 2>/dev/null
    wait
    rm -rf "$LC_TEST_SHM_DIR"/* "$T/started" "$T/holder.out"
}

t0=$(now_ms)
run_beside_holder ""
ELAPSED_MS=$(( $(now_ms) - t0 ))
expect_fast 15000
[ "$(ls "$LC_TEST_SHM_DIR" | wc -l)" -eq 64 ] || fail "the held objects were touched"
stop_holder

# The same with objects made unnamed (O_TMPFILE) in the directory, then
# linked into theirs, as lc_shm.c makes ring segments.  Where that does
# not work (no O_TMPFILE), the library makes its segments by name: the
# case above.
if python3 -c 'import os, sys; os.close(os.open(sys.argv[1], os.O_TMPFILE | os.O_RDWR, 0o600))' \
    "$LC_TEST_SHM_DIR" 2>/dev/null; then
    run_beside_holder unnamed
    [ "$(ls "$LC_TEST_SHM_DIR"/locus-*/rings | wc -l)" -eq 64 ] || fail "the unnamed held objects were touched"
    stop_holder

    # The harness in a PID namespace of its own (as in a container that
    # shares /dev/shm with others): the holder's /proc entries are out of
    # its sight, but its locks are not.
    if unshare --pid --fork --mount-proc true 2>/dev/null; then
        run_beside_holder unnamed unshare --pid --fork --mount-proc
        [ "$(ls "$LC_TEST_SHM_DIR"/locus-*/rings | wc -l)" -eq 64 ] ||
            fail "the locked objects of a process in another PID namespace were touched"
        stop_holder
    else
        echo "no unshare --pid --mount-proc here: the other-namespace case not run"
    fi
else
    echo "no O_TMPFILE in $LC_TEST_SHM_DIR: the unnamed case not run"
fi

# Objects the job leaves behind, held by nobody: leaks, removed (an
# empty directory, a directory with its object).
cat >"$job" <<EOS
#!/bin/sh
mkdir "$LC_TEST_SHM_DIR/locus-leak-0-0123456789abcdef" "$LC_TEST_SHM_DIR/locus-leak-1-0123456789abcdef"
echo x >"$LC_TEST_SHM_DIR/locus-leak-1-0123456789abcdef/rings"
echo "No Errors"
EOS
timeout -k 5 60 "$runner" --timeout 20 "$MPIEXEC" 1 "$job" >"$T/out" 2>"$T/err" </dev/null
RC=$?
expect_rc 1
expect_err "left behind in $LC_TEST_SHM_DIR: locus-leak-0-0123456789abcdef locus-leak-1-0123456789abcdef"
[ -e "$LC_TEST_SHM_DIR/locus-leak-0-0123456789abcdef" ] && fail "the empty leak was not removed"
[ -e "$LC_TEST_SHM_DIR/locus-leak-1-0123456789abcdef" ] && fail "the leak with an object in it was not removed"
echo "PASS"
