#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Hosts that cannot be reached or cannot run the job: the job ends at once
# (or at the launch timeout, for an agent that hangs) with a message naming
# the host and its ranks, exit code 1, and nothing left on any host.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 2

# Unknown host, through the lc-hosts agent: its own complaint, then ours.
mh -hosts h1:2,h9:2 "$PMI_PROBE" kvs
expect_rc 1
expect_err "has no host 'h9'"
expect_err "^mpiexec: cannot start the proxy on host h9 for ranks 2-3: the launcher agent exited with code 255; ending the job"
expect_fast 5000
expect_hosts_clean

# The default agent is ssh: an unknown name, and a host without sshd.
if command -v ssh > /dev/null; then
    on h1 "$MPIEXEC" -hosts h1:1,nosuchhost:1 "$PMI_PROBE" kvs
    expect_rc 1
    expect_err "^ssh: .*nosuchhost"
    expect_err "^mpiexec: cannot start the proxy on host nosuchhost for rank 1: the launcher agent exited with code 255"
    expect_fast 5000
    on h1 "$MPIEXEC" -hosts h1:1,h2:1 "$PMI_PROBE" kvs
    expect_rc 1
    expect_err "^mpiexec: cannot start the proxy on host h2 for rank 1: the launcher agent exited with code 255"
    expect_fast 5000
    expect_hosts_clean
fi

# An agent that cannot be executed.
mh -hosts h1:1,h2:1 -launcher-exec /nonexistent/agent "$PMI_PROBE" kvs
expect_rc 1
expect_err "^mpiexec: cannot execute the launcher agent '/nonexistent/agent'"
expect_err "^mpiexec: cannot start the proxy on host h2 for rank 1: the launcher agent exited with code 127"

# An agent that hangs: the launch timeout ends the job and the agent.
printf '#!/bin/sh\nexec sleep 60\n' > "$T/hang"
chmod 755 "$T/hang"
run "$LC_HOSTS" run "$HOSTS_NAME" h1 env LOCUS_LAUNCH_TIMEOUT=2 "$MPIEXEC" -launcher-exec "$T/hang" \
    -hosts h1:1,h2:2 "$PMI_PROBE" kvs
expect_rc 1
expect_err "^mpiexec: the proxy on host h2 for ranks 1-2 did not connect within the launch timeout"
[ "$ELAPSED_MS" -ge 1900 ] && [ "$ELAPSED_MS" -lt 6000 ] || fail "took $ELAPSED_MS ms with a 2 s launch timeout"
expect_hosts_clean

# An agent that exits 0 without starting anything.
mh -hosts h1:1,h2:1 -launcher-exec true "$PMI_PROBE" kvs
expect_rc 1
expect_err "^mpiexec: cannot start the proxy on host h2 for rank 1: the launcher agent exited before the proxy connected"
expect_fast 9000

# The program is missing on the remote host (all ranks remote, so mpiexec
# does not look it up itself): the proxy says so, through mpiexec.
mh -hosts h2:2 locus-no-such-program-xyz
expect_rc 1
expect_err "^mpiexec: host h2: program 'locus-no-such-program-xyz' not found in PATH"
mh -hosts h2:2 ./locus-no-such-file
expect_rc 1
expect_err "^mpiexec: host h2: cannot run './locus-no-such-file'"
expect_hosts_clean
echo "PASS"
