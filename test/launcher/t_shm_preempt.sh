#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12, point 3: another user of the node (`nobody`, through setpriv)
# attacks a job's shared-memory segments, in /dev/shm and in a shared
# LOCUS_SHM_DIR (world-writable, sticky, like /dev/shm).  The attacker
# (shm_attacker.py) watches the directory from before the job's first
# segment; the first segment it sees gives the job's name, and it then
#  1. takes the names the job would use if they were predictable
#     (locus-<kvsname>-<rank> for the rings, locus-<kvsname>-w0-<n> for
#     the shared windows, which rma_shared allocates after MPI_Init:
#     before issue 12 its first MPI_Win_allocate_shared failed);
#  2. tries every object of the job it sees: each segment is alone in a
#     directory of the job's user with mode 0700 (locus-<kvsname>-<rank>-
#     <token>/rings; the window's .../win), which it must not be able to
#     list, create a file in, or open anything in (before: a 0600 file
#     whose name anyone could list).
# The job (rma_shared, 3 ranks: shared-memory rings and shared windows)
# must still succeed and leave nothing of its own behind.
# Needs setpriv and a writable /dev/shm, else skipped.
. "$(dirname "$0")/lib.sh"
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
$NOBODY true 2>/dev/null || { echo "SKIP: cannot run commands as nobody (setpriv)"; exit 77; }
[ -d /dev/shm ] && [ -w /dev/shm ] || { echo "SKIP: no writable /dev/shm"; exit 77; }
PROG=${MPI_TEST_DIR:?}/rma_shared
[ -x "$PROG" ] || fail "no $PROG"
here=$(cd "$(dirname "$0")" && pwd)
chmod 755 "$T"
mkdir "$T/shared" "$T/pub"
chmod 1777 "$T/shared"
chmod 777 "$T/pub"
cp "$here/shm_attacker.py" "$T/pub/"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# Rank 0's wrapper starts the attacker (as nobody) and waits until it
# watches; the prefix holds mpiexec's pid (kvsname lc<pid>x<random>).
{
    echo '#!/bin/sh'
    echo 'dir=${LOCUS_SHM_DIR:-/dev/shm}'
    echo 'if [ "$PMI_RANK" = 0 ]; then'
    echo "    $NOBODY $PY $T/pub/shm_attacker.py \"\$dir\" \"locus-lc\${PPID}x\" $T/pub/ready $T/pub/stop \\"
    echo "        > $T/pub/attack.out 2>&1 &"
    echo '    i=0'
    echo "    while [ ! -e $T/pub/ready ] && [ \$i -lt 200 ]; do sleep 0.05; i=\$((i + 1)); done"
    echo 'fi'
    echo 'exec "$@"'
} > "$T/pub/rank"
chmod 755 "$T/pub/rank"

# One job, and the attacker's report.  The segments exist for a few
# milliseconds of MPI_Init only: a job whose segments the attacker did not
# get to try is run
# again (up to 5 times) — that is the test's luck, not Locus's.
attempt() {
    rm -f "$T/pub/ready" "$T/pub/stop" "$T/pub/attack.out"
    if [ $where = devshm ]; then
        run "$MPIEXEC" -n 3 "$T/pub/rank" "$PROG"
    else
        run "$MPIEXEC" -genv LOCUS_SHM_DIR "$dir" -n 3 "$T/pub/rank" "$PROG"
    fi
    touch "$T/pub/stop"
    sleep 0.2 # mpiexec may already have ended it with the job
}

for where in devshm shared; do
    if [ $where = devshm ]; then dir=/dev/shm; else dir=$T/shared; fi
    n=0
    while [ $n -lt 5 ]; do
        attempt
        grep -q '^TRIED' "$T/pub/attack.out" && break
        n=$((n + 1))
    done
    echo "$where: the attacker's report:"
    sed 's/^/    /' "$T/pub/attack.out"
    kvs=$(sed -n 's/^KVS //p' "$T/pub/attack.out")
    [ -n "$kvs" ] || fail "$where: the attacker never saw a segment of the job (test broken)"
    grep -q "PLANTED.*-w0-0" "$T/pub/attack.out" || fail "$where: the attacker could not plant a name (test broken)"
    grep -q "TRIED.*$kvs" "$T/pub/attack.out" || fail "$where: the attacker tried no segment of the job (test broken)"
    grep -q OPENED "$T/pub/attack.out" && fail "$where: the attacker opened a segment of the job"
    grep -q LISTED "$T/pub/attack.out" && fail "$where: the attacker listed a directory of the job"
    grep -q WROTE "$T/pub/attack.out" && fail "$where: the attacker created a file in a directory of the job"
    grep -q "TRIED directory .*$kvs" "$T/pub/attack.out" ||
        fail "$where: the job's segments are not in directories of their own"
    expect_rc 0
    # Whatever is left is the attacker's (mpiexec's sweep, as root, may
    # have removed that too), never the job's.
    for f in "$dir"/locus-"$kvs"-*; do
        [ -e "$f" ] || [ -L "$f" ] || continue
        [ "$(stat -c %U "$f")" = nobody ] || fail "$where: $f left behind by the job"
        rm -rf "$f"
    done
done
echo "PASS"
