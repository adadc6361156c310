#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# libfabric is loaded only when the network channel opens
# (src/channel/lc_ofi_dl.c): with the library made unloadable (/dev/null
# bind-mounted over it in a mount namespace of the test's own), a job on
# one host runs, and a job told to use the network says what it lacks and
# fails.  A libmpi linked against libfabric fails the first job (the
# loader cannot load libmpi).
. "$(dirname "$0")/lib.sh"
[ -n "${LIBFABRIC_SO:-}" ] && [ -e "$LIBFABRIC_SO" ] || { echo "SKIP: no libfabric at '${LIBFABRIC_SO:-}'"; exit 77; }
unshare -m true 2>/dev/null || { echo "SKIP: cannot make a mount namespace here"; exit 77; }
real=$(readlink -f "$LIBFABRIC_SO")
# The command after "$real", in a mount namespace where libfabric cannot be loaded.
ns='mount --bind /dev/null "$0" && exec "$@"'
run unshare -m sh -c "$ns" "$real" "$MPIEXEC" -n 2 "$MPI_VICTIM" ok
expect_rc 0
run unshare -m sh -c "$ns" "$real" env LOCUS_NET_FORCE=1 "$MPIEXEC" -n 2 "$MPI_VICTIM" ok
[ "$RC" -ne 0 ] || fail "a job forced onto the network ran without libfabric"
expect_err "the network channel needs libfabric, which could not be loaded"
echo "PASS"
