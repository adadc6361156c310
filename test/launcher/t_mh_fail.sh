#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Fates of remote ranks, judged like local ones: a remote rank killed by a
# signal, exiting non-zero, calling abort, exiting without finalize; a
# local failure ending remote ranks; SIGTERM to mpiexec.  Each ends the
# whole job within 2-3 s with the right exit code and one message naming
# the rank and its host, and leaves no process on any host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
export ASAN_OPTIONS="handle_segv=0:${ASAN_OPTIONS:-}"
hosts_up 3

for sig in 9 11; do
    mh -hosts h1:2,h2:2,h3:1 "$PMI_PROBE" crash 3 $sig
    expect_rc $((128 + sig))
    expect_err "^mpiexec: rank 3 (pid [0-9]* on h2) killed by signal $sig ("
    expect_lines "^mpiexec: rank" 1 "$T/err"
    expect_gone_within 3000
    expect_hosts_clean
done

mh -hosts h2:1,h3:2 "$PMI_PROBE" exit 2 5
expect_rc 5
expect_err "^mpiexec: rank 2 (pid [0-9]* on h3) exited with code 5; ending the job"
expect_gone_within 3000
expect_hosts_clean

mh -hosts h1:1,h2:2 "$PMI_PROBE" abort 1 7
expect_rc 7
expect_err "^mpiexec: rank 1 (pid [0-9]* on h2) called MPI_Abort (exit code 7): probe abort: rank gives up; ending the job"
expect_gone_within 3000
expect_hosts_clean

mh -hosts h1:1,h3:1 "$PMI_PROBE" nofinalize 1
expect_rc 1
expect_err "^mpiexec: rank 1 (pid [0-9]* on h3) exited without finalizing PMI"
expect_gone_within 3000
expect_hosts_clean

# A local rank's failure ends the remote ones too.
mh -hosts h1:1,h2:2,h3:2 "$PMI_PROBE" crash 0 9
expect_rc 137
expect_err "^mpiexec: rank 0 (pid [0-9]*) killed by signal 9"
expect_gone_within 3000
expect_hosts_clean

# A remote rank that ignores SIGTERM gets SIGKILL through its proxy.
mh -hosts h1:1,h2:2 sh -c 'trap "" TERM; [ "$PMI_RANK" = 0 ] && { sleep 0.5; echo FAIL_AT $(($(date +%s%N) / 1000000)); exit 3; }; while :; do sleep 0.05; done'
expect_rc 3
expect_err "^mpiexec: rank 0 (pid [0-9]*) exited with code 3; ending the job"
expect_gone_within 3000
expect_hosts_clean

# SIGTERM to mpiexec reaches the remote ranks (the lc-hosts client passes
# the signal of `timeout` on to mpiexec).
run "$LC_HOSTS" run "$HOSTS_NAME" h1 sh -c 'exec "$@" > "$0" 2>&1' "$T/job" "$MPIEXEC" -launcher-exec "$AGENT" \
    -hosts h1:1,h2:1,h3:1 "$PMI_PROBE" wait &
bg=$!
wait_lines READY 3 "$T/job"
mp=$("$LC_HOSTS" procs "$HOSTS_NAME" h1 | awk '$2 ~ /mpiexec$/ && $3 == "-launcher-exec" { print $1 }')
[ -n "$mp" ] || fail "mpiexec not found on h1"
t0=$(now_ms)
kill -TERM $mp
wait $bg
[ $(( $(now_ms) - t0 )) -lt 3000 ] || fail "mpiexec took $(( $(now_ms) - t0 )) ms to end after SIGTERM"
grep -q "^mpiexec: received signal 15" "$T/job" || fail "no message about SIGTERM: $(cat "$T/job")"
expect_hosts_clean
echo "PASS"
