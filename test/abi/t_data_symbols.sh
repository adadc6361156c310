#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# abi.data_symbols: every data object MPICH's libmpich.so.12 exports
# (MPI_UNWEIGHTED, MPI_F_STATUS_IGNORE, ... : what a binary built against
# MPICH's mpi.h may take the address of, and what makes a binary fail to
# load with "undefined symbol" when missing) is exported by Locus's
# library as a data object of the same size; so is MPIR_Dup_fn, the
# function MPICH's header names MPI_DUP_FN.  The MPII_Version_* strings
# describe Locus, so only their presence is compared.
# usage: t_data_symbols.sh LOCUS_LIBMPI [MPICH_LIBMPICH]
set -eu
locus=$1
mpich=${2:-/usr/lib/x86_64-linux-gnu/libmpich.so.12}
if [ ! -e "$mpich" ]; then
    echo "FAIL: $mpich not found (Debian package libmpich12)" >&2
    exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# nm -D -S: "address size type name" for objects with a size.
objects() { nm -D -S --defined-only "$1" | awk 'NF == 4 && $3 ~ /^[BbDdRrGgSsVv]$/ {print $4, $2}' | sort; }
objects "$mpich" > "$T/mpich"
objects "$locus" > "$T/locus"
rc=0
n=0
while read -r name size; do
    n=$((n + 1))
    got=$(awk -v n="$name" '$1 == n {print $2}' "$T/locus")
    if [ -z "$got" ]; then
        echo "MISSING: $name (a data object of $((0x$size)) bytes in MPICH)"
        rc=1
    elif [ "$got" != "$size" ] && [ "${name#MPII_Version_}" = "$name" ]; then
        echo "SIZE DIFFERS: $name is $((0x$got)) bytes in Locus, $((0x$size)) in MPICH"
        rc=1
    fi
done < "$T/mpich"
if ! nm -D --defined-only "$locus" | awk '$2 == "T" && $3 == "MPIR_Dup_fn"' | grep -q .; then
    echo "MISSING: MPIR_Dup_fn (MPICH's mpi.h defines MPI_DUP_FN / MPI_COMM_DUP_FN as it)"
    rc=1
fi
[ "$n" -gt 0 ] || { echo "FAIL: found no data object in $mpich"; exit 1; }
[ $rc -eq 0 ] && echo "abi.data_symbols: all $n data objects of $(basename "$mpich") and MPIR_Dup_fn are exported"
exit $rc
