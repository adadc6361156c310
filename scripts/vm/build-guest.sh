#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# build-guest.sh OUT_DIR: a small KVM guest for Locus tests (docs/vms.md).
#
#   OUT_DIR/vmlinuz       Debian's kernel (the linux-image-amd64 package's
#                         current image, fetched with apt-get download)
#   OUT_DIR/initramfs.gz  busybox (static), the kernel modules the guest
#                         needs (virtio-net, 9p), and /init (guest-init.sh)
#
# The guest has no root file system of its own: /init mounts the host's
# root directory read-only over 9p (QEMU -virtfs, tag "hostroot") and
# chroots into it with fresh /proc, /sys, /dev, /tmp and /dev/shm, so the
# Locus build and every library it links are at the same paths as on the
# host.  Idempotent: an existing image is kept (delete OUT_DIR to rebuild).
# Needs: apt-get (to download the kernel package), dpkg-deb, cpio, gzip,
# busybox-static (scripts/setup.sh installs them).
set -eu
out=${1:?usage: build-guest.sh OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -s "$out/vmlinuz" ] && [ -s "$out/initramfs.gz" ] && [ "$out/initramfs.gz" -nt "$here/guest-init.sh" ]; then
    exit 0
fi
bb=$(command -v busybox || echo /bin/busybox)
if [ ! -x "$bb" ] || ! ldd "$bb" 2>&1 | grep -q "not a dynamic"; then
    echo "build-guest.sh: $bb is not a static busybox (apt-get install busybox-static)" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/locus-guest.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The kernel: the image package the linux-image-amd64 metapackage points at.
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
[ -n "$pkg" ] || { echo "build-guest.sh: apt-cache knows no linux-image-amd64 (run apt-get update)" >&2; exit 1; }
deb=$(ls "$out"/"$pkg"_*.deb 2>/dev/null | head -1 || true)
if [ -z "$deb" ]; then
    # A mirror can fail for a moment: three tries, apt's own words on failure.
    tries=0
    until (cd "$out" && apt-get download "$pkg" >"$work/apt.log" 2>&1); do
        tries=$((tries + 1))
        if [ $tries -ge 3 ]; then
            tail -n 5 "$work/apt.log" >&2
            echo "build-guest.sh: apt-get download $pkg failed 3 times" >&2
            exit 1
        fi
        sleep 5
    done
    deb=$(ls "$out"/"$pkg"_*.deb | head -1)
fi
dpkg-deb -x "$deb" "$work/k"
kver=$(ls "$work/k/lib/modules" | head -1)
cp "$work/k/boot/vmlinuz-$kver" "$out/vmlinuz"
# The initramfs.
r=$work/root
mkdir -p "$r/bin" "$r/sbin" "$r/proc" "$r/sys" "$r/dev" "$r/mnt/host" "$r/tmp" "$r/modules"
cp "$bb" "$r/bin/busybox"
for app in $("$r/bin/busybox" --list); do
    [ "$app" = busybox ] || ln -s busybox "$r/bin/$app"
done
# Modules with their dependencies (modules.dep lists a module's
# dependencies so that loading them from last to first works), each once,
# dependencies first; those built in are absent and skipped.
md=$work/k/lib/modules/$kver
# The package ships no modules.dep (depmod makes it at installation).
if command -v depmod > /dev/null; then depmod -b "$work/k" "$kver"; else "$bb" depmod -b "$work/k" "$kver"; fi
order() { # MODULE-PATH (as in modules.dep, without .ko*)
    line=$(grep -m1 "^kernel/$1\.ko[^:]*:" "$md/modules.dep" || true)
    [ -n "$line" ] || return 0
    deps=$(echo "${line#*:}" | tr ' ' '\n' | sed '/^$/d' | sed -n '1!G;h;$p')
    for d in $deps; do order "$(echo "$d" | sed 's|^kernel/||; s|\.ko.*$||')"; done
    echo "$1"
}
for m in drivers/virtio/virtio_pci drivers/net/virtio_net net/9p/9pnet_virtio fs/9p/9p; do order "$m"; done |
    awk '!seen[$0]++' > "$work/order"
while read -r m; do
    f=$(ls "$md/kernel/$m.ko"* | head -1)
    b=$(basename "$m")
    case $f in
    *.xz) xz -dc "$f" > "$r/modules/$b.ko" ;;
    *.zst) zstd -dcq "$f" > "$r/modules/$b.ko" ;;
    *) cp "$f" "$r/modules/$b.ko" ;;
    esac
    echo "$b" >> "$r/modules/order"
done < "$work/order"
cp "$here/guest-init.sh" "$r/init"
chmod 755 "$r/init"
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initramfs.gz.new"
mv "$out/initramfs.gz.new" "$out/initramfs.gz"
echo "build-guest.sh: $out/vmlinuz ($kver), $out/initramfs.gz"
