#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Containers inside emulated hosts (scripts/lc-hosts container), one
# variant per run:
#   default  3 containers in h1 with Docker's defaults (nothing shared but
#            the host's directory); c3 binds another directory, under /tmp
#   ipc      2 containers in h1 with --share-ipc (docker --ipc=host)
#   pid      2 containers in h1 with --share-pid (docker --pid=host)
#   none     2 containers in h1 with --no-shared-dir, 1 default
#   hosts    containers in h1 and h2, default and --share-ipc --share-pid:
#            what a host shares never reaches the other host
# Checked from inside every host and container, against a model of what
# each shares (its namespaces and mounts): host names; UTS, network, mount,
# IPC and PID namespaces; /proc and which processes each sees; /dev/shm,
# System V shared memory, /tmp and the bind-mounted directory (every node
# writes a mark, every node and the machine look for all marks);
# /etc/hosts, /sys and addresses; TCP between every two nodes by name,
# without NAT; process_vm_readv where a PID namespace is shared; PMI jobs
# across containers started from a container and from a host, and their
# /dev/shm sweep.  Then `down` removes everything.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
variant=${1:-default}
links_before=$(ip -o link | wc -l)
mark=$$

# ct CNAME HOST IPC PID DIR: container_up with what it shares with its
# host: IPC (1: --share-ipc), PID (1: --share-pid), DIR (the host's
# directory it binds: D0 = the set's, - = none, else --shared-dir DIR).
ct() {
    o=""
    [ "$3" = 1 ] && o="$o --share-ipc"
    [ "$4" = 1 ] && o="$o --share-pid"
    case $5 in D0) ;; -) o="$o --no-shared-dir" ;; *) o="$o --shared-dir $5" ;; esac
    # shellcheck disable=SC2086
    container_up "$1" "$2" $o
    d=$5
    [ "$d" = D0 ] && d=$D0
    eval "host_$1=$2 ipc_$1=$3 pid_$1=$4 dir_$1=$d addr_$1=$(cut -d' ' -f2 "$T/ct-$1")"
    [ "$(cut -d' ' -f3,4 "$T/ct-$1")" = "$2 $d" ] || fail "lc-hosts container printed: $(cat "$T/ct-$1")"
    case $(get addr "$1") in "172.18.${2#h}."[0-9]*) ;; *) fail "$1 in $2 got address $(get addr "$1")" ;; esac
}
get() { eval "echo \"\$$1_$2\""; }

case $variant in
default|ipc|pid|none) hosts_up 1 ;;
hosts) hosts_up 2 ;;
*) fail "unknown variant $variant" ;;
esac
D0=${AGENT%/agent}/shared
PATHS=$D0
case $variant in
default) ct c1 h1 0 0 D0; ct c2 h1 0 0 D0; ct c3 h1 0 0 "$T/vol"; PAIRS="c1:c2 c1:c3"; PATHS="$D0 $T/vol" ;;
ipc)     ct c1 h1 1 0 D0; ct c2 h1 1 0 D0; PAIRS="c1:c2" ;;
pid)     ct c1 h1 0 1 D0; ct c2 h1 0 1 D0; PAIRS="c1:c2" ;;
none)    ct c1 h1 0 0 -; ct c2 h1 0 0 -; ct c3 h1 0 0 D0; PAIRS="c1:c2 c3:c1" ;;
hosts)   ct c1 h1 0 0 D0; ct c2 h2 0 0 D0; ct c3 h1 1 1 D0; ct c4 h2 1 1 D0
         PAIRS="c1:c2 c3:c4 c1:c3" ;;
esac
NODES=$(echo $HOSTS $CONTAINERS)
# The hosts' /tmp marks land in the machine's /tmp: gone with the test.
trap 'hosts_down; rm -rf "/tmp/lct-$mark"' EXIT

# ---- the model: which instance of each thing a node (or "root", the
# machine) has.  Two nodes share a thing iff they have the same instance.
is_host() { case $1 in h[0-9]*) return 0 ;; esac; return 1; }
hostof() { if is_host "$1"; then echo "$1"; else get host "$1"; fi; }
# IPC namespace and /dev/shm; PID namespace: the host's when shared.
ipc_dom() { if [ "$1" = root ] || is_host "$1" || [ "$(get ipc "$1")" = 0 ]; then echo "$1"; else get host "$1"; fi; }
pid_dom() { if [ "$1" = root ] || is_host "$1" || [ "$(get pid "$1")" = 0 ]; then echo "$1"; else get host "$1"; fi; }
# /tmp: the machine's in hosts (they share its file system), else own.
tmp_dom() { if [ "$1" = root ] || is_host "$1"; then echo machine; else echo "$1"; fi; }
# host_has HOST PATH: PATH is a directory of HOST's own (a tmpfs there).
host_has() {
    [ "$2" = "$D0" ] && return 0
    for _hh in $CONTAINERS; do [ "$(get host $_hh)" = "$1" ] && [ "$(get dir $_hh)" = "$2" ] && return 0; done
    return 1
}
# dir_dom NODE PATH: a host's own directory, bound by its containers; in a
# container every other such path is its own (hidden, or in its /tmp).
dir_dom() {
    if [ "$1" = root ]; then echo machine
    elif is_host "$1"; then if host_has "$1" "$2"; then echo "$1:$2"; else echo machine; fi
    elif [ "$(get dir "$1")" = "$2" ]; then echo "$(get host "$1"):$2"
    else echo "$1"; fi
}
dom() { # THING NODE
    case $1 in
    shm|sysv) ipc_dom "$2" ;;
    tmp) tmp_dom "$2" ;;
    dir:*) dir_dom "$2" "${1#dir:}" ;;
    esac
}

# on_all SCRIPT ARGS...: run sh -c SCRIPT in root (here) and every node,
# output in $T/<node>.out.
on_all() {
    sh -c "$@" > "$T/root.out" 2>&1 || fail "in root: $1"
    for n in $NODES; do
        on "$n" sh -c "$@"
        expect_rc 0
        cp "$T/out" "$T/$n.out"
    done
}
fact() { sed -n "s/^$2 //p" "$T/$1.out"; } # NODE KEY

# ---- facts of every node
on_all '
echo "host $(hostname)"
for ns in uts net mnt ipc pid; do echo "ns-$ns $(readlink /proc/self/ns/$ns)"; done
echo "init $(tr "\0" " " < /proc/1/cmdline)"
echo "nproc $(ls /proc | grep -c "^[0-9]")"
echo "ifs $(ls /sys/class/net | sort | tr "\n" " ")"
echo "eth0 $(ip -o -4 addr show eth0 2>/dev/null | sed "s/.* inet \([^ ]*\) .*/\1/")"
test -d /sys/fs/cgroup && echo "cgroup yes"
sed "s/^/etc-hosts /" /etc/hosts'
for n in $NODES; do
    [ "$(fact $n host)" = "$n" ] || fail "host name of $n: $(fact $n host)"
    [ "$(fact $n cgroup)" = yes ] || fail "$n: no /sys/fs/cgroup"
    for m in $HOSTS; do grep -q "^etc-hosts 10\.231\.[0-9]*\.${m#h}	$m\$" "$T/$n.out" || fail "$n's /etc/hosts lacks $m"; done
    for m in $CONTAINERS; do grep -q "^etc-hosts $(get addr $m)	$m\$" "$T/$n.out" || fail "$n's /etc/hosts lacks $m"; done
    if is_host "$n"; then continue; fi
    [ "$(fact $n ifs)" = "eth0 lo " ] || fail "$n's /sys/class/net: $(fact $n ifs)"
    [ "$(fact $n eth0)" = "$(get addr $n)/24" ] || fail "$n's eth0: $(fact $n eth0)"
    if [ "$(get pid $n)" = 1 ]; then
        fact $n init | grep -q " _holder $HOSTS_NAME $(get host $n) " || fail "$n: PID 1 is not its host's: $(fact $n init)"
    else
        fact $n init | grep -q " _holder $HOSTS_NAME $n " || fail "$n: PID 1 is not its holder: $(fact $n init)"
        [ "$(fact $n nproc)" -le 5 ] || fail "$n's /proc shows $(fact $n nproc) processes"
    fi
done
# Namespaces: UTS, network and mount are every node's own; IPC and PID as
# the model says.
for a in root $NODES; do
    for b in $NODES; do
        [ "$a" = "$b" ] && continue
        for ns in uts net mnt ipc pid; do
            want=0
            case $ns in
            ipc) [ "$(ipc_dom $a)" = "$(ipc_dom $b)" ] && want=1 ;;
            pid) [ "$(pid_dom $a)" = "$(pid_dom $b)" ] && want=1 ;;
            esac
            got=0; [ "$(fact $a ns-$ns)" = "$(fact $b ns-$ns)" ] && got=1
            [ $got = $want ] || fail "$a and $b: same $ns namespace: $got, expected $want"
        done
    done
done

# ---- marks: every node writes one in /dev/shm, /tmp, each path of PATHS
# and a System V segment of a size of its own; every node and the machine
# look for all of them.
i=0
for n in $NODES; do
    i=$((i + 1))
    eval "size_$n=$((40960 + (mark % 1000) * 16 + i))"
    on "$n" sh -c 'n=$1 m=$2 size=$3; shift 3
        echo x > /dev/shm/lct-$n-$m && mkdir -p /tmp/lct-$m && echo x > /tmp/lct-$m/$n &&
        ipcmk -M $size > /dev/null &&
        for p; do mkdir -p $p && echo x > $p/lct-$n-$m || exit 1; done' sh "$n" $mark "$(get size $n)" $PATHS
    expect_rc 0
done
look='m=$1; shift
for n in '"$NODES"'; do
    size=$1; shift
    [ -e /dev/shm/lct-$n-$m ] && echo "$n shm"
    [ -e /tmp/lct-$m/$n ] && echo "$n tmp"
    ipcs -m | awk -v s=$size "\$5 == s { f = 1 } END { exit !f }" && echo "$n sysv"
    for p in '"$PATHS"'; do [ -e $p/lct-$n-$m ] && echo "$n dir:$p"; done
done; true'
sizes=""
for n in $NODES; do sizes="$sizes $(get size $n)"; done
# shellcheck disable=SC2086
on_all "$look" sh $mark $sizes
for r in root $NODES; do
    for w in $NODES; do
        for thing in shm sysv tmp $(for p in $PATHS; do echo "dir:$p"; done); do
            want=0; [ "$(dom $thing $r)" = "$(dom $thing $w)" ] && want=1
            got=0; grep -qx "$w $thing" "$T/$r.out" && got=1
            [ $got = $want ] || fail "$w's mark in $thing: seen by $r: $got, expected $want ($(dom $thing $w) vs $(dom $thing $r))"
        done
    done
done

# ---- processes: a "sleep" in every node; a node sees those of its PID
# namespace and of the containers below it (a host sees its containers').
# lc-hosts procs lists a node's own.
i=0
sleepers=""
for n in $NODES; do
    i=$((i + 1))
    eval "proc_$n=$mark$i"
    "$LC_HOSTS" run "$HOSTS_NAME" "$n" sleep "$mark$i" &
    sleepers="$sleepers $!"
done
for n in $NODES; do
    k=0
    until "$LC_HOSTS" procs "$HOSTS_NAME" "$n" | grep -q " sleep $(get proc $n)\$"; do
        k=$((k + 1)); [ $k -gt 100 ] && fail "sleep $(get proc $n) does not run in $n"; sleep 0.05
    done
    "$LC_HOSTS" procs "$HOSTS_NAME" "$n" > "$T/procs"
    [ "$(grep -c " sleep $mark" "$T/procs")" = 1 ] || fail "lc-hosts procs $n: $(cat "$T/procs")"
done
on_all 'for f in /proc/[0-9]*/cmdline; do tr "\0" " " < "$f" 2>/dev/null; echo; done | sed -n "s/^sleep \([0-9]*\) $/\1/p"'
for r in $NODES; do
    for w in $NODES; do
        want=0
        [ "$(pid_dom $r)" = "$(pid_dom $w)" ] || [ "$(pid_dom $r)" = "$(hostof $w)" ] && want=1
        got=0; grep -qx "$(get proc $w)" "$T/$r.out" && got=1
        [ $got = $want ] || fail "$w's process in $r's /proc: $got, expected $want"
    done
done
# Where a container sees another's processes, it can read their memory
# (process_vm_readv, what CMA does): the start of the program's mapping.
for r in $CONTAINERS; do
    [ "$(get pid $r)" = 1 ] || continue
    for w in $CONTAINERS; do
        [ "$w" != "$r" ] && grep -qx "$(get proc $w)" "$T/$r.out" || continue
        on "$r" python3 -c '
import ctypes, glob, sys
want = b"sleep\0" + sys.argv[1].encode() + b"\0"
pid = [int(f.split("/")[2]) for f in glob.glob("/proc/[0-9]*/cmdline") if open(f, "rb").read() == want][0]
start = int(open("/proc/%d/maps" % pid).readline().split("-")[0], 16)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(4)
local, remote = iovec(ctypes.addressof(buf), 4), iovec(start, 4)
n = ctypes.CDLL(None, use_errno=True).process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
print(n, buf.raw == b"\x7fELF")' "$(get proc $w)"
        expect_rc 0
        expect_out "^4 True\$"
    done
done
for s in $sleepers; do { kill "$s"; wait "$s"; } 2> /dev/null; done
expect_hosts_clean 5000

# ---- TCP between every two nodes, by name.  A container is seen with its
# own address from everywhere (no NAT), across hosts too.
for n in $NODES; do
    "$LC_HOSTS" run "$HOSTS_NAME" "$n" timeout 20 python3 -c '
import socket, sys
s = socket.socket(); s.bind(("0.0.0.0", 0)); s.listen(16)
print("port", s.getsockname()[1]); sys.stdout.flush()
for _ in range(int(sys.argv[1])):
    c, a = s.accept()
    peer = c.recv(100).decode().strip()
    c.sendall(b"hello from " + socket.gethostname().encode() + b"\n")
    print("from", peer, a[0]); sys.stdout.flush()
    c.close()' "$(( $(echo $NODES | wc -w) - 1 ))" > "$T/srv-$n" &
    eval "srv_$n=$!"
done
ports=""
for n in $NODES; do
    k=0
    until grep -q "^port" "$T/srv-$n"; do k=$((k + 1)); [ $k -gt 200 ] && fail "no listener in $n"; sleep 0.05; done
    ports="$ports $n:$(sed -n 's/^port //p' "$T/srv-$n")"
done
for n in $NODES; do
    on "$n" python3 -c '
import socket, sys
for target in sys.argv[1:]:
    name, port = target.split(":")
    if name == socket.gethostname():
        continue
    c = socket.create_connection((name, int(port)), 5)
    c.sendall(socket.gethostname().encode() + b"\n")
    print(c.recv(100).decode().strip())' $ports
    expect_rc 0
    for m in $NODES; do [ "$m" = "$n" ] || expect_out "^hello from $m\$"; done
done
for n in $NODES; do
    wait "$(get srv $n)" || fail "the listener in $n failed: $(cat "$T/srv-$n")"
    for m in $NODES; do
        [ "$m" = "$n" ] && continue
        if is_host "$m"; then
            grep -q "^from $m [0-9.]*\$" "$T/srv-$n" || fail "$n: no connection from $m"
        else
            grep -qx "from $m $(get addr $m)" "$T/srv-$n" || fail "$n saw $m as: $(grep "^from $m " "$T/srv-$n")"
        fi
    done
done

# ---- PMI jobs across two containers: mpiexec in A (A local, B remote),
# then in A's host (both remote); /dev/shm objects swept in each.
for pair in $PAIRS; do
    A=${pair%:*} B=${pair#*:}
    on "$A" "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$A:1,$B:2" "$PMI_PROBE" kvs
    expect_rc 0
    expect_lines "kvs ok kvsname=lc" 3 "$T/out"
    on "$(get host $A)" "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$A:1,$B:2" "$PMI_PROBE" where
    expect_rc 0
    [ "$(rank_host 0) $(rank_host 1) $(rank_host 2)" = "$A $B $B" ] ||
        fail "$A:1,$B:2: ranks ran on $(rank_host 0) $(rank_host 1) $(rank_host 2)"
    expect_out "^WHERE rank=2 host=$B local=1/2 mapping=(vector,(0,1,1),(1,1,2))\$"
    on "$A" "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$A:1,$B:1" "$PMI_PROBE" shmall
    expect_rc 0
    expect_out "^SHM /dev/shm/locus-lc[0-9]*x[0-9a-f]*-probe0 $A\$"
    expect_out "^SHM /dev/shm/locus-lc[0-9]*x[0-9a-f]*-probe1 $B\$"
    kvs=$(sed -n 's|^SHM /dev/shm/locus-\(lc[0-9]*x[0-9a-f]*\)-.*|\1|p' "$T/out" | head -1)
    for n in "$A" "$B" "$(get host $A)" "$(get host $B)"; do
        on "$n" sh -c "ls /dev/shm | grep -c '^locus-$kvs-'"
        [ "$(cat "$T/out")" = 0 ] || fail "objects of $kvs left in $n's /dev/shm"
    done
    expect_hosts_clean
done

if [ "$variant" = default ]; then
    # Usage and errors.
    run "$LC_HOSTS" container "$HOSTS_NAME" h1 c1;      expect_rc 1; expect_err "has a container 'c1' already"
    run "$LC_HOSTS" container "$HOSTS_NAME" h9 c9;      expect_rc 255; expect_err "has no host 'h9'"
    run "$LC_HOSTS" container "$HOSTS_NAME" c1 c9;      expect_rc 255; expect_err "has no host 'c1'"
    run "$LC_HOSTS" container lc-no-such-set h1 c9;     expect_rc 255; expect_err "no emulated hosts named"
    for bad in h2 C9 9c c_9 c9- localhost; do
        run "$LC_HOSTS" container "$HOSTS_NAME" h1 "$bad"; expect_rc 2; expect_err "invalid container name"
    done
    run "$LC_HOSTS" container "$HOSTS_NAME" h1 c9 --shared-dir rel/dir; expect_rc 2; expect_err "absolute path"
    run "$LC_HOSTS" container "$HOSTS_NAME" h1 c9 --shared-dir /x --no-shared-dir; expect_rc 2
    run "$LC_HOSTS" container "$HOSTS_NAME" h1 c9 --share-all; expect_rc 2; expect_err "unknown option"
    run "$LC_HOSTS" run "$HOSTS_NAME" c9 true;          expect_rc 255; expect_err "has no host 'c9'"
    run "$LC_HOSTS" list "$HOSTS_NAME";                 expect_rc 0
    expect_out "^c1 $(get addr c1) holder [0-9]* in h1 ipc=private pid=private dir=$D0\$"
    expect_out "^c3 $(get addr c3) holder [0-9]* in h1 ipc=private pid=private dir=$T/vol\$"
    [ -d "$T/vol" ] || fail "--shared-dir $T/vol not made"
fi

# Teardown: containers and hosts gone, the machine's links as before.
alive() { [ "$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1)" ] &&
          [ "$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -d' ' -f1)" != Z ]; }
holders=""
for n in $NODES; do holders="$holders $("$LC_HOSTS" pid "$HOSTS_NAME" "$n")"; done
"$LC_HOSTS" down "$HOSTS_NAME" || fail "down"
for p in $holders; do alive "$p" && fail "holder $p still runs after down"; done
[ -e "${AGENT%/agent}" ] && fail "state left after down"
[ -e "$T/vol" ] && fail "--shared-dir $T/vol left after down"
"$LC_HOSTS" down "$HOSTS_NAME" || fail "second down"
[ "$(ip -o link | wc -l)" = "$links_before" ] || fail "the machine's links changed"
echo "PASS"
