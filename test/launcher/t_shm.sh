#!/bin/sh
# /dev/shm/locus-<kvsname>-* objects are removed when the job ends, normally
# or after a crash; objects of other jobs are left alone.
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
echo "PASS"
