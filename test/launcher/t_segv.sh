#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12.6: a rank of a Locus program that segfaults is reported as
# "killed by signal 11", not "exited with code 1".  Debian's libfabric
# pulls in libinfinipath, whose SIGSEGV handler prints a backtrace and
# exits 1 (losing the core dump) unless IPATH_NO_BACKTRACE is set: mpiexec
# sets IPATH_NO_BACKTRACE=1 for the ranks, unless the user set it.
. "$(dirname "$0")/lib.sh"
# Under a sanitizer build the rank's own SIGSEGV must stay a signal.
export ASAN_OPTIONS="handle_segv=0:${ASAN_OPTIONS:-}"
unset IPATH_NO_BACKTRACE
# Also over the network channel: libfabric (and with it libinfinipath) is
# loaded only when that channel opens (src/channel/lc_ofi_dl.c).
for victim in 0 2 net2; do
    net=0
    [ $victim = net2 ] && net=1 victim=2
    run env LOCUS_NET_FORCE=$net "$MPIEXEC" -n 3 "$MPI_VICTIM" segv $victim
    expect_rc 139
    expect_err "^mpiexec: rank $victim (pid [0-9]*) killed by signal 11 (Segmentation fault); ending the job"
    grep -q "Backtrace" "$T/err" && fail "a SIGSEGV handler in the rank printed a backtrace"
done
# The user's own setting wins, in the environment and with -genv.
run "$MPIEXEC" -n 1 sh -c 'echo "IPATH_NO_BACKTRACE=$IPATH_NO_BACKTRACE"'
expect_rc 0
expect_out "^IPATH_NO_BACKTRACE=1$"
run env IPATH_NO_BACKTRACE=0 "$MPIEXEC" -n 1 sh -c 'echo "IPATH_NO_BACKTRACE=$IPATH_NO_BACKTRACE"'
expect_out "^IPATH_NO_BACKTRACE=0$"
run "$MPIEXEC" -genv IPATH_NO_BACKTRACE 2 -n 1 sh -c 'echo "IPATH_NO_BACKTRACE=$IPATH_NO_BACKTRACE"'
expect_out "^IPATH_NO_BACKTRACE=2$"
echo "PASS"
