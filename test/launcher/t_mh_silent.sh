#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A network peer on another host goes silent (issue 12, point 6): its host
# is cut off without a FIN or RST — here h3 can no longer send to h2 (a
# blackhole route in h3's namespace), while the launcher's own connections
# (h1 <-> h2, h1 <-> h3) stay up, so only the ranks can notice.  With
# LOCUS_NET_TIMEOUT=2 the job ends within seconds with a message naming
# the rank and host that went silent.  Before that, a rank that merely
# does not call MPI (stopped with SIGSTOP for 4 timeouts: its kernel still
# answers) must not be taken for dead, nor a peer whose connection was
# idle for longer than the timeout before anyone waited on it.
#
# mpi_victim block: rank 0 (h2) waits in MPI_Recv from rank 1 (h3), which
# waits in a barrier rank 0 never joins; their connection is up (the
# barrier after MPI_Init).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
[ -n "${MPI_VICTIM:-}" ] || { echo "SKIP: MPI_VICTIM not set"; exit 77; }
hosts_up 3

# A peer idle for longer than the timeout before anyone waited on it is
# not silent either: both ranks compute 5 s without MPI calls, then rank 0
# waits 5 s for rank 1 (the connection is probed only from then on).
log=$T/idle
LOCUS_NET_TIMEOUT=2 timeout -k 2 40 "$LC_HOSTS" run "$HOSTS_NAME" h1 sh -c 'exec "$@" > "$0" 2>&1' "$log" \
    "$MPIEXEC" -launcher-exec "$AGENT" -hosts h2:1,h3:1 "$MPI_VICTIM" idle 5
RC=$?
grep -q "went silent" "$log" && fail "an idle peer was taken for silent: $(cat "$log")"
[ "$RC" -eq 0 ] || fail "the idle job failed (exit $RC): $(cat "$log")"

log=$T/job
: > "$log"
LOCUS_NET_TIMEOUT=2 timeout -k 2 40 "$LC_HOSTS" run "$HOSTS_NAME" h1 sh -c 'exec "$@" > "$0" 2>&1' "$log" \
    "$MPIEXEC" -launcher-exec "$AGENT" -hosts h2:1,h3:1 "$MPI_VICTIM" block &
bg=$!
i=0
until [ "$(grep -c '^READY' "$log")" = 2 ]; do
    i=$((i + 1)); [ $i -gt 400 ] && fail "ranks never got ready: $(cat "$log")"
    kill -0 $bg 2>/dev/null || fail "the job ended before it was ready: $(cat "$log")"
    sleep 0.05
done

# A busy peer is not a silent one: rank 1 stopped for 8 s (4 timeouts).
victim=$("$LC_HOSTS" procs "$HOSTS_NAME" h3 | awk '/mpi_victim/ { print $1; exit }')
[ -n "$victim" ] || fail "rank 1 not found on h3"
kill -STOP "$victim"
sleep 8
kill -CONT "$victim"
sleep 1
kill -0 $bg 2>/dev/null || fail "the job ended while a rank was only stopped: $(cat "$log")"
grep -q "went silent" "$log" && fail "a stopped rank was taken for silent: $(cat "$log")"

# h3 falls silent towards h2.
h2addr=$("$LC_HOSTS" list "$HOSTS_NAME" | awk '$1 == "h2" { print $2 }')
holder=$("$LC_HOSTS" pid "$HOSTS_NAME" h3)
[ -n "$h2addr" ] && [ -n "$holder" ] || fail "no address for h2 or no holder for h3"
t0=$(now_ms)
nsenter -t "$holder" -n ip route add blackhole "$h2addr/32" || fail "cannot cut h3 off h2"
wait $bg
RC=$?
ms=$(( $(now_ms) - t0 ))
[ "$RC" -ne 124 ] || fail "the job hung after h3 fell silent: $(cat "$log")"
expect_rc 1
# Either side may notice first: h2 hears nothing from rank 1 on h3; h3's
# probes to h2 are lost, so it hears nothing from rank 0 on h2 either.
grep -Eq "network peer rank (1 \(host h3|0 \(host h2), [0-9.]+\) went silent: .*LOCUS_NET_TIMEOUT=2.*ending the job" \
    "$log" || fail "message: $(cat "$log")"
[ "$ms" -lt 15000 ] || fail "job ended $ms ms after h3 fell silent"
expect_hosts_clean 5000
echo "PASS ($ms ms): $(grep "went silent" "$log" | head -1)"
