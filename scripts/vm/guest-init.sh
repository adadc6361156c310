#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# /init of the Locus test guest (scripts/vm/build-guest.sh puts it in the
# initramfs).  Kernel command line (scripts/vm/run-guests.sh sets it):
#   lc.name=NAME  host name        lc.ip=A.B.C.D  address of eth0 (/24)
#   lc.role=main|worker            lc.job=DIR     the job directory (9p tag "job")
#   lc.hosts=name:ip,...           /etc/hosts of the private network
# The host's root directory comes read-only over 9p (tag "hostroot") and is
# the root of every command (chroot), with fresh /proc, /sys, /dev,
# /dev/shm and /tmp; the job directory is mounted read-write at its host
# path.  A worker serves the launcher agent on TCP port 2222 (the first
# line read is the command, the rest its stdin; see DIR/agent).  The main
# guest waits for the workers, runs DIR/job.sh (stdout, stderr and exit
# code into DIR/out, DIR/err, DIR/rc) and powers off.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules/order 2>/dev/null); do insmod "/modules/$m.ko" 2>&1 | grep -v "File exists" > /dev/console; done
name=guest ip="" role=worker job="" hosts=""
for w in $(cat /proc/cmdline); do
    case $w in
    lc.name=*) name=${w#lc.name=} ;;
    lc.ip=*) ip=${w#lc.ip=} ;;
    lc.role=*) role=${w#lc.role=} ;;
    lc.job=*) job=${w#lc.job=} ;;
    lc.hosts=*) hosts=${w#lc.hosts=} ;;
    esac
done
say() { echo "guest $name: $*" > /dev/console; }
hostname "$name"
ip link set lo up
ip addr add "$ip/24" dev eth0 && ip link set eth0 up || say "no eth0"
H=/mnt/host
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot $H || { say "cannot mount the host root (9p)"; poweroff -f; }
mount -t proc proc $H/proc
mount -t sysfs sys $H/sys
mount -t devtmpfs dev $H/dev
mkdir -p $H/dev/shm $H/dev/pts
mount -t tmpfs -o mode=1777 shm $H/dev/shm
mount -t tmpfs -o mode=1777 tmp $H/tmp
mount -t tmpfs run $H/run 2>/dev/null
# The job directory at its host path (after /tmp's tmpfs, which would hide it).
mkdir -p "$H$job" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job "$H$job" || { say "cannot mount the job directory"; poweroff -f; }
{ echo "127.0.0.1 localhost"; echo "$hosts" | tr ',' '\n' | awk -F: 'NF == 2 { print $2, $1 }'; } > /etc-hosts
mount --bind /etc-hosts $H/etc/hosts
echo "$name" > /etc-hostname
mount --bind /etc-hostname $H/etc/hostname 2>/dev/null
cat > /agent-serve <<'EOS'
#!/bin/sh
read -r cmd
exec chroot /mnt/host /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root /bin/sh -c "cd / && $cmd" 2>&1
EOS
chmod 755 /agent-serve
say "up ($role, $ip, kernel $(uname -r), boot id $(cat /proc/sys/kernel/random/boot_id))"
if [ "$role" = worker ]; then
    nc -ll -p 2222 -e /agent-serve &
    touch "$H$job/ready-$name"
    while :; do sleep 3600; done
fi
# main: every worker answers ping, then the job
for peer in $(echo "$hosts" | tr ',' ' '); do
    pip=${peer#*:}
    [ "$pip" = "$ip" ] && continue
    i=0
    until ping -c 1 -W 1 "$pip" > /dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt 60 ] || { say "worker $pip does not answer"; break; }
    done
done
# and its agent server is listening
for peer in $(echo "$hosts" | tr ',' ' '); do
    pn=${peer%%:*}
    [ "$pn" = "$name" ] && continue
    i=0
    until [ -e "$H$job/ready-$pn" ] || [ $i -ge 120 ]; do sleep 0.5; i=$((i + 1)); done
done
chroot $H /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/root \
    /bin/sh "$job/job.sh" > "$H$job/out" 2> "$H$job/err"
echo $? > "$H$job/rc"
sync
say "job done (exit $(cat "$H$job/rc"))"
poweroff -f
