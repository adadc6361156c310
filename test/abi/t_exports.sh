#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# abi.exports: libmpi exports exactly the functions api/mpi_functions.txt
# describes, each as PMPI_<name> (strong) and MPI_<name> (weak, so a
# profiling library can interpose it), and include/mpi.h is generated from
# that description (scripts/gen_api.py --check).
# usage: t_exports.sh SOURCE_DIR LIBMPI
set -eu
src=$1 lib=$2
python3 "$src/scripts/gen_api.py" --check || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 "$src/scripts/gen_api.py" --names | sort > "$T/described"
# nm -D: "address type name"; functions are T (strong) or W (weak).
nm -D --defined-only "$lib" | awk '$2 == "W" && $3 ~ /^MPI_/ {print $3}' | sort > "$T/weak"
nm -D --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^PMPI_/ {sub(/^P/, "", $3); print $3}' | sort > "$T/pmpi"
# Anything else named MPI_/PMPI_ with a function type (T/W/i) must be neither.
nm -D --defined-only "$lib" | awk '($2 == "T" && $3 ~ /^MPI_/) || ($2 == "W" && $3 ~ /^PMPI_/) {print $3}' > "$T/odd"
rc=0
if ! cmp -s "$T/described" "$T/weak"; then
    echo "MPI_ (weak) exports differ from api/mpi_functions.txt (< described only, > exported only):"
    diff "$T/described" "$T/weak" | grep '^[<>]' || true
    rc=1
fi
if ! cmp -s "$T/described" "$T/pmpi"; then
    echo "PMPI_ exports differ from api/mpi_functions.txt (< described only, > exported only):"
    diff "$T/described" "$T/pmpi" | grep '^[<>]' || true
    rc=1
fi
if [ -s "$T/odd" ]; then
    echo "exported with the wrong binding (MPI_ must be weak, PMPI_ strong):"
    cat "$T/odd"
    rc=1
fi
[ $rc -eq 0 ] && echo "abi.exports: $(wc -l < "$T/described") functions, MPI_ and PMPI_, match the description"
exit $rc
