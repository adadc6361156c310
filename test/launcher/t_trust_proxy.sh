#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12, point 1, the proxy's side: a proxy obeys only the mpiexec that
# proves it knows the key the proxy got on its stdin.  `mpiexec --proxy`
# is started by hand against an impostor mpiexec (trust_attacker.py
# fake-mpiexec on 127.0.0.1) whose job would `touch` a marker file:
#  - forged: the impostor cannot prove the key: the proxy refuses, exits
#    non-zero, the marker is never created;
#  - direct: the impostor sends the job without any challenge: refused;
#  - bigframe: the impostor announces a 64 MiB frame before proving
#    anything: the proxy hangs up at once;
#  - no key on stdin: the proxy refuses to start;
#  - honest (the control, so the test can fail): an mpiexec that proves the
#    key is obeyed and the marker appears.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
ATTACK="python3 $here/trust_attacker.py"
KEY=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
export LC_MARKER="$T/marker"

# proxy MODE [STDIN-TEXT]: impostor in MODE, a proxy with STDIN-TEXT as its
# stdin (default: the key line); the proxy's exit code in PRC, its time in
# ELAPSED_MS, its output in $T/proxy, the impostor's in $T/fake.
proxy() {
    rm -f "$T/port" "$LC_MARKER"
    $ATTACK fake-mpiexec "$T/port" "$1" "$KEY" > "$T/fake" 2>&1 &
    fake=$!
    i=0
    until [ -s "$T/port" ]; do
        i=$((i + 1)); [ $i -gt 200 ] && fail "the impostor mpiexec did not start: $(cat "$T/fake")"
        sleep 0.05
    done
    t0=$(now_ms)
    printf '%s\n' "${2-locus-proxy-key-1 $KEY}" |
        timeout -k 2 20 "$MPIEXEC" --proxy 127.0.0.1 "$(cat "$T/port")" 0 > "$T/proxy" 2>&1
    PRC=$?
    ELAPSED_MS=$(( $(now_ms) - t0 ))
    kill $fake 2>/dev/null
    wait $fake 2>/dev/null
    echo "$1: proxy exit $PRC after $ELAPSED_MS ms: $(tr '\n' ' ' < "$T/proxy")| $(tr '\n' ' ' < "$T/fake")"
}

proxy honest
[ -e "$LC_MARKER" ] || fail "control: the proxy did not run the job of an mpiexec that knows the key"
[ "$PRC" -eq 0 ] || fail "control: the proxy exited $PRC"

proxy forged
[ -e "$LC_MARKER" ] && fail "the proxy ran the job of an impostor mpiexec"
[ "$PRC" -ne 0 ] || fail "the proxy exited 0 after a forged proof"
grep -q "did not prove" "$T/proxy" || fail "the proxy does not say why it refused"

proxy direct
[ -e "$LC_MARKER" ] && fail "the proxy ran the job of an mpiexec that proved nothing"
[ "$PRC" -ne 0 ] || fail "the proxy exited 0 after a job without a challenge"

proxy bigframe
[ -e "$LC_MARKER" ] && fail "the proxy ran a job after a 64 MiB frame"
[ "$PRC" -ne 0 ] || fail "the proxy exited 0 after a 64 MiB pre-authentication frame"
[ "$ELAPSED_MS" -lt 3000 ] || fail "the proxy took $ELAPSED_MS ms to refuse a 64 MiB frame"

proxy forged ""
[ -e "$LC_MARKER" ] && fail "the proxy ran a job without a key"
[ "$PRC" -ne 0 ] || fail "the proxy exited 0 without a key on stdin"
grep -q "key" "$T/proxy" || fail "the proxy does not say that the key is missing"
echo "PASS"
