#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Installs the Debian packages Locus needs to build, test and benchmark.
# (util-linux, iproute2: scripts/lc-hosts builds emulated hosts with
# unshare/nsenter and ip; openssh-client: mpiexec's default launcher agent;
# libhwloc-dev: the NUMA topology; gfortran: the Fortran bindings;
# python3-venv, python3-dev: mpi4py's test suite, built against Locus;
# qemu-system-x86, busybox-static, cpio: the KVM guests of scripts/vm and
# test vm.qemu, docs/vms.md; valgrind: scripts/lat_cost.sh and test/cost,
# which count instructions with callgrind.)
# Idempotent: does nothing when everything is already present.
set -e
PKGS="build-essential cmake clang libclang-rt-14-dev pkg-config python3 \
      libmpich-dev mpich libopenmpi-dev openmpi-bin python3-matplotlib procps util-linux iproute2 \
      libfabric-dev libfabric-bin openssh-client libhwloc-dev gfortran python3-venv python3-dev \
      qemu-system-x86 busybox-static cpio valgrind"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
