#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Lost connections between mpiexec and a proxy, while every rank waits in
# a fence:
#  - the proxy is killed (its host's kernel closes the connection);
#  - the host drops off the network (no FIN: keepalive must notice);
#  - mpiexec itself is killed with SIGKILL (the proxies notice).
# Each time the whole job ends within a few seconds, the message names the
# host and its ranks, and no process of the job is left on any host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 3

# start_job NAME ARGS...: mpiexec on h1 in the background, output in
# $T/NAME; returns once every rank printed READY.
start_job() {
    log=$T/$1
    shift
    : > "$log"
    timeout -k 2 30 "$LC_HOSTS" run "$HOSTS_NAME" h1 sh -c 'exec "$@" > "$0" 2>&1' "$log" \
        "$MPIEXEC" -launcher-exec "$AGENT" "$@" "$PMI_PROBE" wait &
    bg=$!
    wait_lines READY "$NRANKS" "$log" 300
}

# host_proc HOST PATTERN: pid (as seen from here) of a process of HOST.
host_proc() {
    "$LC_HOSTS" procs "$HOSTS_NAME" "$1" | awk -v pat="$2" '$0 ~ pat { print $1; exit }'
}

# 1. The proxy on h2 dies.
NRANKS=5
start_job kill -hosts h1:1,h2:2,h3:2
proxy=$(host_proc h2 "--proxy")
[ -n "$proxy" ] || fail "no proxy on h2"
t0=$(now_ms)
kill -KILL "$proxy"
wait $bg
RC=$?
ms=$(( $(now_ms) - t0 ))
expect_rc 1
grep -q "^mpiexec: lost the connection to the proxy on host h2 (ranks 1-2): the proxy hung up; ending the job" "$T/kill" ||
    fail "message: $(cat "$T/kill")"
[ "$ms" -lt 3000 ] || fail "job ended $ms ms after its proxy died"
expect_hosts_clean 2000

# 2. h3 loses its link: neither side gets a FIN; TCP keepalive (2 s idle,
# 3 probes 1 s apart) must notice on both sides.
NRANKS=4
start_job link -hosts h1:1,h2:1,h3:2
holder=$("$LC_HOSTS" pid "$HOSTS_NAME" h3)
t0=$(now_ms)
nsenter -t "$holder" -n ip link set eth0 down || fail "cannot take h3's link down"
wait $bg
RC=$?
ms=$(( $(now_ms) - t0 ))
expect_rc 1
grep -q "^mpiexec: lost the connection to the proxy on host h3 (ranks 2-3): .*; ending the job" "$T/link" ||
    fail "message: $(cat "$T/link")"
[ "$ms" -lt 12000 ] || fail "job ended $ms ms after h3 went off the network"
# h3's proxy notices on its own (same timers) and ends its ranks.
expect_hosts_clean 8000
nsenter -t "$holder" -n ip link set eth0 up

# 3. mpiexec is killed outright: proxies see the connection close and end
# their ranks; the local ranks die with mpiexec (PR_SET_PDEATHSIG).
NRANKS=4
start_job mpiexec -hosts h1:2,h2:1,h3:1
mp=$(host_proc h1 "mpiexec -launcher-exec")
[ -n "$mp" ] || fail "mpiexec not found on h1"
kill -KILL "$mp"
wait $bg
expect_hosts_clean 3000
echo "PASS"
