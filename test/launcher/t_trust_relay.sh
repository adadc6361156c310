#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12, point 1, the relay check: a proxy relays for its own host's
# ranks only (mpiexec_remote.c checks the rank of every frame against the
# host of the connection it came on).  A host whose proxy is compromised
# must not speak for the ranks of another host: publish their PMI keys
# (their network addresses) or their output.
#
# Two hosts, the second reached through an agent of the test's own: it
# takes the host's launch key from its stdin as a real agent would, and
# starts a rogue proxy with it (trust_attacker.py rogue-proxy) that passes
# the handshake, relays a line for its own rank 1 (the control: mpiexec
# takes frames of this proxy), then a line of output and a PMI put
# (lc-ofi-0) for rank 0, which runs on the first host.  mpiexec must
# refuse them: say which proxy sent a frame for a rank not on its host,
# never print the forged line, and end the job (non-zero, at once).
# No root needed: both hosts are this machine (the second by another
# name, -iface lo).
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
command -v python3 > /dev/null || { echo "SKIP: needs python3"; exit 77; }
cat > "$T/agent" <<AGENT
#!/bin/sh
# AGENT HOST COMMAND-STRING: exec '.../mpiexec' --proxy ADDR PORT INDEX
set -- \$(printf '%s\n' "\$2" | sed 's/.*--proxy //')
exec python3 "$here/trust_attacker.py" rogue-proxy "\$1" "\$2" "\$3" 0 > "$T/rogue" 2>&1
AGENT
chmod 755 "$T/agent"

run "$MPIEXEC" -iface lo -launcher-exec "$T/agent" -hosts localhost:1,otherhost:1 "$PMI_PROBE" hold 10000
echo "--- mpiexec's stdout:"; cat "$T/out"
echo "--- mpiexec's stderr:"; cat "$T/err"
echo "--- the rogue proxy:"; cat "$T/rogue"
grep -q "rogue proxy: in" "$T/rogue" || fail "the rogue proxy did not get in (test broken)"
expect_out "GENUINE output of rank 1"
grep -q FORGED "$T/out" "$T/err" && fail "mpiexec relayed a frame for rank 0 from the proxy of another host"
expect_err "the proxy on host otherhost sent a frame for a rank not on its host"
grep -q BROKEN "$T/rogue" && fail "mpiexec kept the connection of the rogue proxy"
[ "$RC" -ne 0 ] || fail "the job ended with 0 after a rogue proxy"
expect_fast 8000
echo "PASS"
