#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12, point 7: a segment that cannot be created is reported as what
# happened, naming the directory: a LOCUS_SHM_DIR that does not exist is
# not "check that it is mounted", a full LOCUS_SHM_DIR is not "/dev/shm
# is too small".  The full directory is a 64 KiB tmpfs in a private mount
# namespace (needs root: else that part is skipped).
. "$(dirname "$0")/lib.sh"
PROG=${MPI_VICTIM:?}

run "$MPIEXEC" -genv LOCUS_SHM_DIR "$T/none" -n 2 "$PROG" traffic
expect_rc 1
expect_err "LOCUS_SHM_DIR=$T/none does not exist"
grep -q "mounted" "$T/err" && fail "a missing LOCUS_SHM_DIR reported as not mounted"

mkdir "$T/small"
if ! unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$T/small'" 2>/dev/null; then
    echo "SKIP (part): cannot mount a small tmpfs (not root?)"
    echo "PASS"
    exit 0
fi
run unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$T/small' && exec '$MPIEXEC' -genv LOCUS_SHM_DIR '$T/small' -n 2 '$PROG' traffic"
expect_rc 1
expect_err "LOCUS_SHM_DIR=$T/small is full"
grep -q "/dev/shm is too small" "$T/err" && fail "a full LOCUS_SHM_DIR reported as /dev/shm"
echo "PASS"
