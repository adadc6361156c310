#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scripts/lc-hosts itself: each emulated host has its own host name,
# /etc/hosts, PID namespace with its own /proc, IPC namespace, private
# /dev/shm and /sys showing only its own interfaces; hosts reach each
# other over TCP by name; `run` passes stdin/stdout/stderr, the exit code
# and signals through; the agent works from inside another host; the
# root network namespace is untouched; `down` removes everything and can
# be repeated.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
links_before=$(ip -o link | wc -l)
hosts_up 3

on h2 hostname;                  expect_rc 0; expect_out "^h2\$"
on h3 cat /etc/hosts;            expect_rc 0; expect_out "^10\.231\.[0-9]*\.1	h1\$"; expect_out "	h3\$"
on h1 cat /proc/1/cmdline;       expect_rc 0; expect_out "_holder"
on h1 sh -c 'ls /proc | grep -c "^[0-9]"'
expect_rc 0
[ "$(cat "$T/out")" -le 5 ] || fail "h1's /proc shows $(cat "$T/out") processes: not its own PID namespace"
on h2 ls /sys/class/net;         expect_rc 0
[ "$(sort "$T/out" | tr '\n' ' ')" = "eth0 lo " ] || fail "h2's /sys/class/net: $(cat "$T/out")"
on h2 ip -o -4 addr show eth0;   expect_rc 0; expect_out "inet 10\.231\.[0-9]*\.2/24"
on h2 test -d /sys/fs/cgroup;    expect_rc 0

# Namespaces differ from ours and between hosts.
for ns in ipc pid net uts mnt; do
    mine=$(readlink /proc/self/ns/$ns)
    on h1 readlink /proc/self/ns/$ns; a=$(cat "$T/out")
    on h2 readlink /proc/self/ns/$ns; b=$(cat "$T/out")
    [ -n "$a" ] && [ "$a" != "$mine" ] && [ "$a" != "$b" ] || fail "$ns namespace shared ($mine $a $b)"
done
# A private /dev/shm.
on h1 sh -c 'echo x > /dev/shm/lc-hosts-test-$$ && ls /dev/shm'
expect_rc 0
f=$(grep lc-hosts-test "$T/out")
[ -n "$f" ] || fail "no test object in h1's /dev/shm"
[ -e "/dev/shm/$f" ] && fail "h1's /dev/shm object visible in the root /dev/shm"
on h2 test -e "/dev/shm/$f";     expect_rc 1

# TCP by name from h3 to h1.
"$LC_HOSTS" run "$HOSTS_NAME" h1 python3 -c '
import socket, sys
s = socket.socket(); s.bind(("0.0.0.0", 0)); s.listen(1)
print(s.getsockname()[1]); sys.stdout.flush()
c, a = s.accept(); c.sendall(b"hello " + a[0].encode() + b"\n")' > "$T/port" &
srv=$!
i=0
until [ -s "$T/port" ]; do i=$((i + 1)); [ $i -gt 100 ] && fail "no listener"; sleep 0.05; done
on h3 python3 -c 'import socket, sys; print(socket.create_connection(("h1", int(sys.argv[1])), 5).recv(100).decode())' "$(cat "$T/port")"
expect_rc 0
expect_out "^hello 10\.231\.[0-9]*\.3\$"
wait $srv

# run: exit codes, stdin, stderr, signals.
on h1 sh -c 'exit 7';            expect_rc 7
on h1 no-such-command-xyz;       expect_rc 127; expect_err "cannot run no-such-command-xyz"
on h1 sh -c 'kill -9 $$';        expect_rc 137
echo "through stdin" | "$LC_HOSTS" run "$HOSTS_NAME" h2 sh -c 'cat; echo to-err >&2' > "$T/out" 2> "$T/err"
grep -q "^through stdin\$" "$T/out" && grep -q "^to-err\$" "$T/err" || fail "stdin/stderr not passed through"
on h1 sh -c 'echo "$LOCUS_T_VAR"' ; expect_out "^\$"
LOCUS_T_VAR=kept "$LC_HOSTS" run "$HOSTS_NAME" h1 sh -c 'echo "$LOCUS_T_VAR"' > "$T/out"
expect_out "^kept\$"
t0=$(now_ms)
timeout --preserve-status -s TERM 0.5 "$LC_HOSTS" run "$HOSTS_NAME" h3 sleep 30
RC=$?
expect_rc 143
[ $(( $(now_ms) - t0 )) -lt 3000 ] || fail "SIGTERM not passed on"
expect_hosts_clean
# A killed client: its command is hung up on.
"$LC_HOSTS" run "$HOSTS_NAME" h3 sleep 30 &
c=$!
sleep 0.3
{ kill -KILL $c; wait $c; } 2> /dev/null
expect_hosts_clean 2000

# The agent, ssh-style, from inside another host: clean login environment,
# the words run by the shell.
LOCUS_T_VAR=x "$LC_HOSTS" run "$HOSTS_NAME" h1 "$AGENT" -x -o BatchMode=yes h2 'echo $(hostname) "[$LOCUS_T_VAR]"; pwd' > "$T/out"
expect_out "^h2 \[\]\$"
expect_out "^$HOME\$"
"$LC_HOSTS" run "$HOSTS_NAME" h1 "$AGENT" root@h3 exit 3
RC=$?
expect_rc 3

# Usage.
run "$LC_HOSTS" run "$HOSTS_NAME" h7 true; expect_rc 255; expect_err "has no host 'h7'"
run "$LC_HOSTS" run lc-no-such-set h1 true; expect_rc 255; expect_err "no emulated hosts named"
run "$LC_HOSTS" up "$HOSTS_NAME" 2;   expect_rc 1; expect_err "exists already"

# Teardown: everything gone, root namespace as before, repeatable.
"$LC_HOSTS" down "$HOSTS_NAME" || fail "down"
[ -e "/run/lc-hosts/$HOSTS_NAME" ] && fail "state left after down"
"$LC_HOSTS" down "$HOSTS_NAME" || fail "second down"
[ "$(ip -o link | wc -l)" = "$links_before" ] || fail "the root namespace's links changed"
echo "PASS"
