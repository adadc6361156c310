#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# /dev/shm/locus-<kvsname>-* objects are removed when the job ends, normally
# or after a crash; objects of other jobs are left alone.  The same in the
# ranks' LOCUS_SHM_DIR, whether it is set in mpiexec's environment or only
# for the ranks with -genv.
. "$(dirname "$0")/lib.sh"
[ -d /dev/shm ] && [ -w /dev/shm ] || { echo "SKIP: no writable /dev/shm"; exit 77; }
other=/dev/shm/locus-lc1x00000000-not-ours-$$
: > "$other"
run "$MPIEXEC" -n 2 "$PMI_PROBE" shm
expect_rc 0
path=$(sed -n 's/^SHM //p' "$T/out")
[ -n "$path" ] || fail "probe did not report its object"
[ -e "$path" ] && fail "$path left after a normal end"

run "$MPIEXEC" -n 3 "$PMI_PROBE" shm crash
expect_rc 137
path=$(sed -n 's/^SHM //p' "$T/out")
[ -n "$path" ] || fail "probe did not report its object"
[ -e "$path" ] && fail "$path left after a crash"
expect_gone_within 2000
[ -e "$other" ] || fail "another job's object was removed"
rm -f "$other"

mkdir "$T/shmdir"
for how in env genv; do
    if [ $how = env ]; then
        run env LOCUS_SHM_DIR="$T/shmdir" "$MPIEXEC" -n 2 "$PMI_PROBE" shm crash
    else
        run "$MPIEXEC" -genv LOCUS_SHM_DIR "$T/shmdir" -n 2 "$PMI_PROBE" shm crash
    fi
    expect_rc 137
    path=$(sed -n 's/^SHM //p' "$T/out")
    case $path in "$T/shmdir/locus-"*) ;; *) fail "LOCUS_SHM_DIR ($how): the probe's object is $path" ;; esac
    [ -e "$path" ] && fail "LOCUS_SHM_DIR set by $how: $path left after a crash"
done
echo "PASS"
