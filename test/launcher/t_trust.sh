#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12, points 1 and 2: another user of the nodes (`nobody`, through
# setpriv) attacks a job across two emulated hosts (mpiexec on h1, -iface
# eth0; a proxy on h2).  An agent wrapper (the user's own, as root) stands
# between mpiexec and the lc-hosts agent: it keeps what mpiexec passed on
# the agent's stdin (the launch key) and, before the real proxy starts,
# lets the attacker loose on mpiexec's listener:
#  1. scrape the /proc of h1 for a launch secret and connect as the proxy
#     of h2 with it (old token handshake and new HMAC handshake, and with
#     no secret at all): mpiexec must not send the job;
#  2. announce a 64 MiB frame before authenticating: the connection must be
#     closed at once, without mpiexec's memory growing;
#  3. connect to 127.0.0.1: the listener binds eth0's address only;
#  4. from h2 (the real proxy's own address), hold 200 unauthenticated
#     connections for 8 s while the real proxy connects: it must get in.
# Then, once every rank is READY: the key is in no /proc/*/cmdline or
# environ readable by `nobody` (root namespace: every host's processes),
# the listener is closed (all proxies are in), and the job ends with 0.
# Needs root (emulated hosts, setpriv), else skipped.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
NOBODY="setpriv --reuid=nobody --regid=nogroup --clear-groups"
$NOBODY true 2>/dev/null || { echo "SKIP: cannot run commands as nobody (setpriv)"; exit 77; }
hosts_up 2
# The attacker needs to read its script; $T is the user's own (0700).
mkdir "$T/pub"
cp "$here/trust_attacker.py" "$T/pub/"
chmod 755 "$T" "$T/pub"
# Debian's python3: the caller's PATH may lead to one nobody cannot run.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
ATTACK="$PY $T/pub/trust_attacker.py"

cat > "$T/agent" <<EOF
#!/bin/sh
# AGENT HOST COMMAND-STRING, as mpiexec calls it.
host=\$1 cmd=\$2
IFS= read -r keyline || keyline=""
printf '%s\n' "\$keyline" > "$T/key.\$host"
printf '%s\n' "\$cmd" > "$T/cmd.\$host"
# exec '/path/mpiexec' --proxy ADDR PORT INDEX [TOKEN (before issue 12)]
set -- \$(printf '%s\n' "\$cmd" | sed 's/.*--proxy //')
addr=\$1 port=\$2 index=\$3
{
    tokens=\$($NOBODY $ATTACK scrape)
    echo "scraped: \$tokens"
    $NOBODY $ATTACK impersonate "\$addr" "\$port" "\$index" \$tokens; echo "impersonate rc=\$?"
    $NOBODY $ATTACK bigframe "\$addr" "\$port" \$PPID; echo "bigframe rc=\$?"
    $NOBODY $ATTACK refused 127.0.0.1 "\$port"; echo "loopback rc=\$?"
} > "$T/attack" 2>&1
"$LC_HOSTS" run "$HOSTS_NAME" h2 $NOBODY $ATTACK flood "\$addr" "\$port" 200 8 > "$T/flood" 2>&1 &
sleep 1
printf '%s\n' "\$addr \$port" > "$T/where"
{ printf '%s\n' "\$keyline"; exec cat; } | "$AGENT" "\$host" "\$cmd"
EOF
chmod 755 "$T/agent"

log=$T/job
: > "$log"
timeout -k 2 40 "$LC_HOSTS" run "$HOSTS_NAME" h1 sh -c 'exec "$@" > "$0" 2>&1' "$log" \
    "$MPIEXEC" -iface eth0 -launcher-exec "$T/agent" -hosts h1:1,h2:2 "$PMI_PROBE" hold 3000 &
job=$!
i=0
until [ "$(grep -c READY "$log")" = 3 ]; do
    i=$((i + 1))
    if [ $i -gt 500 ] || ! kill -0 $job 2>/dev/null; then
        cat "$T/attack" "$T/flood" 2>/dev/null
        fail "the job did not start under attack: $(cat "$log")"
    fi
    sleep 0.05
done
echo "--- the attacks before the proxy started:"
cat "$T/attack"

# The secret: the key passed on stdin, or (before issue 12) the token at
# the end of the proxy's command.
secret=$(sed -n 's/^[^ ]* //p' "$T/key.h2")
[ -n "$secret" ] || secret=$(sed -n "s/.*--proxy [^ ]* [^ ]* [^ ]* \([^ ']*\).*/\1/p" "$T/cmd.h2")
[ -n "$secret" ] || fail "found no launch secret to look for (key.h2: $(cat "$T/key.h2"))"
printf '%s\n' "$secret" | $NOBODY $ATTACK scan > "$T/scan" 2>&1
scan_rc=$?
cat "$T/scan"
set -- $(cat "$T/where")
"$LC_HOSTS" run "$HOSTS_NAME" h2 $NOBODY $ATTACK refused "$1" "$2" > "$T/closed" 2>&1
closed_rc=$?
echo "after every proxy is in: $(cat "$T/closed")"

wait $job
RC=$?
echo "--- the job:"
cat "$log"
echo "--- the flood: $(cat "$T/flood")"
[ "$scan_rc" -eq 0 ] || fail "the launch secret is readable by another user"
grep -q "impersonate rc=0" "$T/attack" || fail "an impostor proxy was sent the job"
grep -q "bigframe rc=0" "$T/attack" || fail "a 64 MiB pre-authentication frame was not refused at once"
grep -q "loopback rc=0" "$T/attack" || fail "the listener accepts connections on 127.0.0.1 (not bound to -iface)"
[ "$closed_rc" -eq 0 ] || fail "the listener stays open after every proxy connected"
[ "$RC" -eq 0 ] || fail "the job failed under attack (exit $RC)"
expect_lines "READY" 3 "$log"
expect_hosts_clean 3000
echo "PASS"
