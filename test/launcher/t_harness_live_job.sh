#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test/run_mpi_test.sh's leak check against a real Locus job in MPI_Init:
# job B's ranks have made their ring segments and wait for rank 1
# (stopped by an LD_PRELOAD module right after its segment got its name),
# so each segment's only holder is its creator, through the unnamed
# (O_TMPFILE) descriptor it was built on.  Meanwhile job A, run by the
# harness, ends; its check must leave B's segments alone, and B, resumed,
# must end well.  The check once judged "held" by name and removed them:
# B failed with "cannot open .../rings: No such file or directory".
# A private directory under /dev/shm (LOCUS_SHM_DIR for B, LC_TEST_SHM_DIR
# for the harness) keeps concurrent tests out of it.
. "$(dirname "$0")/lib.sh"
runner="$(dirname "$0")/../run_mpi_test.sh"
[ -n "${STOP_AFTER_LINK:-}" ] && [ -e "$STOP_AFTER_LINK" ] || { echo "SKIP: no stop_after_link module"; exit 77; }
[ -d /dev/shm ] && [ -w /dev/shm ] || { echo "SKIP: no writable /dev/shm"; exit 77; }
D=$(mktemp -d /dev/shm/lc-harness-live.XXXXXX) || exit 2
export LC_TEST_SHM_DIR="$D"
trap '[ -s "$T/r1.pid" ] && kill -CONT "$(cat "$T/r1.pid")" 2>/dev/null; [ -s "$T/b.pid" ] && kill "$(cat "$T/b.pid")" 2>/dev/null; rm -rf "$T" "$D"' EXIT

job="$T/job.sh"
cat >"$job" <<EOS
#!/bin/sh
touch "$T/started"
while [ ! -e "$T/go" ]; do sleep 0.05; done
echo "No Errors"
EOS
chmod +x "$job"
timeout -k 5 90 "$runner" --timeout 60 "$MPIEXEC" 1 "$job" >"$T/a.out" 2>"$T/a.err" </dev/null &
a_bg=$!
i=0
until [ -e "$T/started" ]; do
    i=$((i + 1)); [ $i -gt 600 ] && fail "job A never started"
    sleep 0.05
done

# Job B, started after A (its objects are new to A's check).  The module
# is preloaded into mpiexec too, which makes no segment (a sanitizer's
# runtime must come first in the list: not checked here).
LD_PRELOAD="$STOP_AFTER_LINK" LC_TEST_STOP_RANK=1 LC_TEST_STOP_PIDFILE="$T/r1.pid" LOCUS_SHM_DIR="$D" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    timeout -k 5 90 "$MPIEXEC" -n 4 "$MPI_VICTIM" ok >"$T/b.out" 2>"$T/b.err" </dev/null &
b_bg=$!
echo $b_bg >"$T/b.pid"
i=0
until [ -s "$T/r1.pid" ] && grep -q '^State:.*T' "/proc/$(cat "$T/r1.pid")/status" 2>/dev/null; do
    i=$((i + 1))
    if ! kill -0 $b_bg 2>/dev/null || [ $i -gt 1200 ]; then
        touch "$T/go"
        cp "$T/b.err" "$T/err"
        # The library made its segment by name (no O_TMPFILE here): no link to stop at.
        grep -q "rings" "$T/b.err" && fail "job B failed before its rank 1 stopped"
        echo "SKIP: job B's rank 1 never stopped after linking its segment"; exit 77
    fi
    sleep 0.05
done
sleep 0.3 # the other ranks reach their own links
n_before=$(ls "$D" | wc -l)
[ "$n_before" -ge 4 ] || { sleep 2; n_before=$(ls "$D" | wc -l); }
touch "$T/go"
wait $a_bg
RC=$?
cp "$T/a.out" "$T/out"; cp "$T/a.err" "$T/err"
expect_rc 0
expect_out "^PASS: job.sh on 1 ranks"
n_after=$(ls "$D" | wc -l)
[ "$n_after" -eq "$n_before" ] || fail "job A's check removed $((n_before - n_after)) of job B's $n_before live segments"

kill -CONT "$(cat "$T/r1.pid")"
wait $b_bg
RC=$?
cp "$T/b.out" "$T/out"; cp "$T/b.err" "$T/err"
expect_rc 0
[ -z "$(ls -A "$D")" ] || fail "job B left $(ls -A "$D" | tr '\n' ' ')in $D"
echo "PASS ($n_before segments of job B kept)"
