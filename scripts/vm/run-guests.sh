#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run-guests.sh [options] JOB_SCRIPT: boot N QEMU guests on this machine,
# joined by a private network and sharing one IVSHMEM region, run
# JOB_SCRIPT in the first one, print its output, exit with its code.
#
#   -n N             guests (default 2), named vm1..vmN, addresses 10.0.0.1..N
#   --region SIZE    IVSHMEM region (ivshmem-plain, BAR2) of SIZE bytes,
#                    e.g. 64M (default); "none" = no region (ofi between guests)
#   --mem MB         memory per guest (default 768)
#   --smp N          vCPUs per guest (default 2)
#   --timeout S      the whole run, boot included (default 240); then every
#                    guest is killed and the exit code is 124
#   --guest DIR      kernel and initramfs (default: build them with
#                    build-guest.sh into $LC_VM_CACHE or ~/.cache/locus-vm)
#   --keep           keep the job directory (consoles, output) for debugging
#   --probe-accel    only print "kvm: WHY" or "tcg: WHY" (the accelerator
#                    guests would get) and exit 0; boots nothing
#
# JOB_SCRIPT runs as root in vm1 (in the chroot of this machine's root
# directory, shared read-only over 9p: the same paths, the same Locus
# build) with LC_JOB=<job directory> (shared read-write at the same path),
# LC_AGENT=<launcher agent for mpiexec -launcher-exec> and LC_HOSTS_LAYOUT
# (vm1,vm2,...).  KVM when /dev/kvm is usable, else TCG (slow).
# The guests run inside a network namespace this script creates (unshare
# -n): the guests' network is a QEMU socket multicast segment on its
# loopback, invisible outside.  Everything is torn down on exit, failure,
# interruption or timeout (trap): the guests are killed, the region file
# and the job directory removed; if the script itself is SIGKILLed, the
# guests still die with it (parent-death signal; the region file in
# /dev/shm and the job directory are left then).  Exit 77 when QEMU
# cannot run here.
set -u
here=$(cd "$(dirname "$0")" && pwd)
n=2 region=64M mem=768 smp=2 timeout=240 guest="" keep=0 probe=0
while [ $# -gt 0 ]; do
    case $1 in
    -n) n=$2; shift 2 ;;
    --region) region=$2; shift 2 ;;
    --mem) mem=$2; shift 2 ;;
    --smp) smp=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --guest) guest=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --probe-accel) probe=1; shift ;;
    -*) echo "run-guests.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
# accel_choice: sets want (kvm|tcg), auto (1 = may fall back to TCG) and
# why (one line).  LC_VM_ACCEL=kvm|tcg forces one.  Else KVM when /dev/kvm
# is usable, except
#  - under PVM (module kvm_pvm: "pagetable-based" KVM without VMX/SVM, as
#    on this kind of nested cloud machine): PVM runs only guest kernels
#    built for it (CONFIG_PVM_GUEST); firmware and a stock kernel are
#    instruction-emulated, far slower than TCG (docs/vms.md);
#  - when an earlier run found that KVM guests do not boot here: that
#    verdict is kept in the guest directory (file accel).
# -cpu host without arch-capabilities: QEMU 7.2 aborts ("failed to set MSR
# 0x10a") where the host KVM refuses that MSR.
accel_choice() {
    want=${LC_VM_ACCEL:-auto} auto=0 why="LC_VM_ACCEL=$want"
    [ "$want" = auto ] || return 0
    auto=1 want=kvm why="/dev/kvm is usable"
    if ! { [ -r /dev/kvm ] && [ -w /dev/kvm ]; }; then
        want=tcg why="no usable /dev/kvm"
    elif [ -d /sys/module/kvm_pvm ] && ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
        want=tcg why="/dev/kvm is PVM (kvm_pvm, no VMX/SVM): it runs only PVM-enabled guest kernels; a stock kernel does not boot"
    elif [ "$(cat "$guest/accel" 2>/dev/null)" = tcg ]; then
        want=tcg why="KVM guests did not boot here before ($guest/accel)"
    fi
}
if [ $probe -eq 1 ]; then
    # --probe-accel: say which accelerator guests would get, and why; boot nothing.
    guest=${guest:-${LC_VM_CACHE:-${HOME:-/root}/.cache/locus-vm}}
    accel_choice
    echo "$want: $why"
    exit 0
fi
[ $# -eq 1 ] || { echo "usage: run-guests.sh [-n N] [--region SIZE|none] [--mem MB] [--timeout S] JOB_SCRIPT" >&2; exit 2; }
job_script=$(realpath "$1")
qemu=$(command -v qemu-system-x86_64 || true)
[ -n "$qemu" ] || { echo "SKIP: qemu-system-x86_64 is not installed (scripts/setup.sh installs it)"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: run-guests.sh needs root (network namespace, 9p export of /)"; exit 77; }

# The guest image first, while this process still has the host's network
# (build-guest.sh downloads the kernel package; the namespace below has no
# route out).
if [ -z "$guest" ]; then
    guest=${LC_VM_CACHE:-${HOME:-/root}/.cache/locus-vm}
    "$here/build-guest.sh" "$guest" >&2 || { echo "SKIP: cannot build the guest image (see above)"; exit 77; }
fi

# Inside the network namespace from here on (re-executed by unshare).
if [ "${LC_VM_IN_NETNS:-}" != 1 ]; then
    LC_VM_IN_NETNS=1 exec unshare --net -- "$0" -n "$n" --region "$region" --mem "$mem" --smp "$smp" \
        --timeout "$timeout" ${guest:+--guest "$guest"} $([ $keep -eq 1 ] && echo --keep) "$job_script"
fi
ip link set lo up
ip link set lo multicast on
ip route add 224.0.0.0/4 dev lo 2>/dev/null

[ -s "$guest/vmlinuz" ] && [ -s "$guest/initramfs.gz" ] || { echo "run-guests.sh: no guest image in $guest" >&2; exit 1; }

# Acceleration: see accel_choice (before the namespace, since
# --probe-accel asks only that).
kvm="-accel kvm -cpu host,-arch-capabilities" tcg="-accel tcg -cpu max"
accel_choice
jobdir=$(mktemp -d "${TMPDIR:-/tmp}/locus-vm.XXXXXX")
chmod 755 "$jobdir"
regfile=""
pids=""
cleanup() {
    for p in $pids; do kill -9 "$p" 2>/dev/null; done
    for p in $pids; do wait "$p" 2>/dev/null; done
    [ -n "$regfile" ] && rm -f "$regfile"
    if [ $keep -eq 1 ]; then echo "run-guests.sh: kept $jobdir" >&2; else rm -rf "$jobdir"; fi
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

cp "$job_script" "$jobdir/job.inner.sh"
cp "$(command -v busybox || echo /bin/busybox)" "$jobdir/busybox" 2>/dev/null ||
    { echo "SKIP: no static busybox (apt-get install busybox-static)"; exit 77; }
layout="" hosts=""
i=1
while [ $i -le "$n" ]; do
    layout="$layout${layout:+,}vm$i"
    hosts="$hosts${hosts:+,}vm$i:10.0.0.$i"
    i=$((i + 1))
done
# The launcher agent, called as ssh is: [OPTIONS] [USER@]HOST COMMAND...
# (Locus' -launcher-exec passes none; Hydra's ssh launcher passes -x, Open
# MPI's rsh agent may pass others): the options are skipped (those that
# take a value, as OpenSSH's, with it), then the command line and stdin
# (Locus' launch key) go to the worker's agent server (port 2222), whose
# output comes back; the agent ends when the remote command has.
{
    echo '#!/bin/sh'
    echo "bb=$jobdir/busybox"
    cat <<'EOA'
while [ $# -gt 0 ]; do
    case $1 in
    --) shift; break ;;
    -?*)
        o=${1#-}
        shift
        while [ -n "$o" ]; do
            c=${o%"${o#?}"}
            o=${o#?}
            case $c in [BbcDEeFIiJLlmOoPpQRSWw]) [ -z "$o" ] && shift; break ;; esac
        done ;;
    *) break ;;
    esac
done
h=${1#*@}
shift
# The command line, then stdin, through a fifo rather than a pipeline: a
# pipeline would also wait for its cat, which waits for the end of stdin,
# and Hydra keeps its ssh children's stdin open: the agent would never
# end after the remote command did.
f=$(mktemp -u "${TMPDIR:-/tmp}/lc-agent.XXXXXX")
mkfifo "$f" || exit 255
# (A background list gets /dev/null as stdin: ours goes in as fd 3.)
exec 3<&0
{ printf '%s\n' "$*"; exec cat <&3 3<&-; } > "$f" &
w=$!
exec 3<&-
"$bb" nc "$h" 2222 < "$f"
rc=$?
kill "$w" 2> /dev/null
rm -f "$f"
exit $rc
EOA
} > "$jobdir/agent"
cat > "$jobdir/job.sh" <<EOJ
export LC_JOB=$jobdir LC_AGENT=$jobdir/agent LC_HOSTS_LAYOUT=$layout
cd $jobdir
exec /bin/sh $jobdir/job.inner.sh
EOJ
chmod 755 "$jobdir/agent" "$jobdir/job.sh"

ivs=""
if [ "$region" != none ]; then
    # The region's backing file, on tmpfs (RAM); fresh, hence all zero.
    regfile=$(mktemp /dev/shm/locus-vm-region.XXXXXX)
    truncate -s "$region" "$regfile"
    ivs="-object memory-backend-file,id=ivs,share=on,mem-path=$regfile,size=$region -device ivshmem-plain,memdev=ivs"
fi
port=$((20000 + $$ % 20000))
pdeath=""
setpriv --pdeathsig KILL true 2>/dev/null && pdeath="setpriv --pdeathsig KILL --"
# boot ACCEL: start every guest.  no_timer_check: the kernel's check
# that the PIT reaches the IO-APIC measures ticks against a busy loop;
# under TCG on a loaded host it fails and the kernel panics ("IO-APIC +
# timer doesn't work", seen at load 60 on 2 cores).
boot() {
    pids=""
    rm -f "$jobdir"/console-vm*.log "$jobdir"/ready-*
    i=1
    while [ $i -le "$n" ]; do
        role=worker
        [ $i -eq 1 ] && role=main
        # shellcheck disable=SC2086 # option lists
        # --pdeathsig: a guest dies with this script, even if it is killed
        # outright (SIGKILL runs no trap).
        $pdeath "$qemu" $1 -machine q35 -m "$mem" -smp "$smp" -nodefaults -display none -no-reboot \
            -kernel "$guest/vmlinuz" -initrd "$guest/initramfs.gz" \
            -append "console=ttyS0 quiet panic=-1 no_timer_check lc.name=vm$i lc.ip=10.0.0.$i lc.role=$role lc.job=$jobdir lc.hosts=$hosts" \
            -serial "file:$jobdir/console-vm$i.log" \
            -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
            -virtfs "local,path=$jobdir,mount_tag=job,security_model=none" \
            -netdev "socket,id=n0,mcast=230.0.0.1:$port,localaddr=127.0.0.1" \
            -device "virtio-net-pci,netdev=n0,mac=52:54:00:12:34:$(printf %02x $i)" \
            $ivs > "$jobdir/qemu-vm$i.log" 2>&1 &
        pids="$pids $!"
        eval "pid_vm$i=\$!"
        i=$((i + 1))
    done
}
# up LIMIT: every guest said it is up within LIMIT s.
up() {
    t=0
    while [ "$t" -lt "$1" ]; do
        k=0
        for f in "$jobdir"/console-vm*.log; do grep -q "guest vm[0-9]*: up" "$f" 2>/dev/null && k=$((k + 1)); done
        [ $k -eq "$n" ] && return 0
        for p in $pids; do kill -0 "$p" 2>/dev/null || return 1; done
        sleep 1
        t=$((t + 1))
    done
    return 1
}
t0=$(date +%s)
if [ "$want" = kvm ]; then
    boot "$kvm"
    if ! up 30; then
        for p in $pids; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
        [ $auto -eq 1 ] || { echo "run-guests.sh: KVM guests did not boot in 30 s (LC_VM_ACCEL=kvm)" >&2; exit 1; }
        echo "run-guests.sh: KVM guests do not boot here (hung in early boot); TCG from now on ($guest/accel)" >&2
        echo tcg > "$guest/accel"
        want=tcg why="KVM guests did not boot in 30 s"
    fi
fi
if [ "$want" = tcg ]; then
    boot "$tcg"
    up 180 || { echo "run-guests.sh: guests did not boot (TCG); consoles:" >&2; tail -n 20 "$jobdir"/console-vm*.log "$jobdir"/qemu-vm*.log >&2; exit 1; }
fi
echo "run-guests.sh: $n guests up ($want) in $(($(date +%s) - t0)) s ($why)" >&2
# vm1 powers off when its job is done; the others are killed then.
while kill -0 "$pid_vm1" 2>/dev/null; do
    if [ $(($(date +%s) - t0)) -ge "$timeout" ]; then
        echo "run-guests.sh: timed out after $timeout s; consoles:" >&2
        tail -n 20 "$jobdir"/console-vm*.log "$jobdir"/qemu-vm*.log >&2
        exit 124
    fi
    sleep 0.5
done
if [ ! -s "$jobdir/rc" ]; then
    echo "run-guests.sh: vm1 stopped without running the job; consoles:" >&2
    tail -n 30 "$jobdir"/console-vm*.log "$jobdir"/qemu-vm*.log >&2
    exit 1
fi
cat "$jobdir/out"
cat "$jobdir/err" >&2
exit "$(cat "$jobdir/rc")"
