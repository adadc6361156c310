#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_mpich_fortran.sh: a Fortran MPI program built by Debian's mpif90.mpich
# (MPICH's mpif.h or mpi module, linked with libmpichfort.so.12 and
# libmpich.so.12) runs on Locus with LD_LIBRARY_PATH only.
#
# usage: run_mpich_fortran.sh <mpiexec> <nprocs> <locus-libdir> <source> <outdir> [args...]
#
# Checks that the loader resolves MPICH's libmpichfort.so.12 (and
# libmpich.so.12 when the binary asks for it: the linker may drop it) to
# Locus's (symlinks to libmpifort / libmpi), then runs the program through
# test/run_mpi_test.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 5 ]; then
    echo "usage: run_mpich_fortran.sh <mpiexec> <nprocs> <locus-libdir> <source> <outdir> [args...]" >&2
    exit 2
fi
mpiexec="$1"; np="$2"; libdir="$3"; src="$4"; outdir="$5"; shift 5
fc="${MPIF90_MPICH:-mpif90.mpich}"
command -v "$fc" >/dev/null || { echo "FAIL: $fc not found (Debian package mpich)" >&2; exit 1; }
mkdir -p "$outdir" || exit 2
name=$(basename "$src"); name=${name%.*}
bin="$outdir/$name.mpich"
# its own module directory: MPICH's mpi.mod, not ours
(cd "$outdir" && "$fc" -O2 -g -o "$bin" "$src") || { echo "FAIL: $fc could not build $src" >&2; exit 1; }
libdir=$(cd "$libdir" && pwd) || exit 1
for lib in libmpichfort.so.12 libmpich.so.12; do
    resolved=$(LD_LIBRARY_PATH="$libdir" ldd "$bin" | awk -v l="$lib" '$1 == l { print $3 }')
    [ -z "$resolved" ] && [ "$lib" = libmpich.so.12 ] && continue
    case "$resolved" in
    "$libdir"/*) echo "$lib -> $resolved ($(readlink -f "$resolved"))" ;;
    *) echo "FAIL: with LD_LIBRARY_PATH=$libdir, $bin loads $lib from '${resolved:-nowhere}'" >&2
       exit 1 ;;
    esac
done
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$here/../run_mpi_test.sh" --timeout 60 "$mpiexec" "$np" "$bin" "$@"
