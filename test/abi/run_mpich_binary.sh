#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_mpich_binary.sh: an MPI program built by MPICH's compiler wrapper
# against MPICH's mpi.h runs on Locus unchanged.
#
# usage: run_mpich_binary.sh <mpiexec> <nprocs> <locus-libdir> <source.c> <outdir> [args...]
#
# Compiles <source.c> with mpicc.mpich (at test time) into <outdir>,
# checks that with LD_LIBRARY_PATH=<locus-libdir> the dynamic loader
# resolves its libmpich.so.12 to Locus's library (not MPICH's), then runs
# it with Locus's mpiexec through test/run_mpi_test.sh, which expects
# "No Errors".
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 5 ]; then
    echo "usage: run_mpich_binary.sh <mpiexec> <nprocs> <locus-libdir> <source.c> <outdir> [args...]" >&2
    exit 2
fi
mpiexec="$1"; np="$2"; libdir="$3"; src="$4"; outdir="$5"; shift 5
mpicc="${MPICC_MPICH:-mpicc.mpich}"
if ! command -v "$mpicc" >/dev/null; then
    echo "FAIL: $mpicc not found (Debian package libmpich-dev)" >&2
    exit 1
fi
mkdir -p "$outdir" || exit 2
bin="$outdir/$(basename "$src" .c).mpich"
# same flags as the Locus build of the tests; the binary must not carry
# an rpath to MPICH (Debian's wrapper adds none)
if ! "$mpicc" -std=gnu11 -O2 -g -D_GNU_SOURCE -pthread -o "$bin" "$src"; then
    echo "FAIL: $mpicc could not build $src" >&2
    exit 1
fi
libdir=$(cd "$libdir" && pwd) || exit 1
resolved=$(LD_LIBRARY_PATH="$libdir" ldd "$bin" | awk '$1 ~ /^libmpich\.so\.12/ { print $3 }')
case "$resolved" in
"$libdir"/*) echo "libmpich.so.12 -> $resolved ($(readlink -f "$resolved"))" ;;
*)
    echo "FAIL: with LD_LIBRARY_PATH=$libdir, $bin loads libmpich.so.12 from '${resolved:-nowhere}'," \
        "not from Locus's $libdir" >&2
    exit 1 ;;
esac
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$here/../run_mpi_test.sh" "$mpiexec" "$np" "$bin" "$@"
