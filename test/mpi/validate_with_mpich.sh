#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# validate_with_mpich.sh: check the tests themselves against Debian's
# MPICH (a test that fails there is a wrong test).  Builds every
# test/mpi/*.c with mpicc.mpich (same warnings as the CMake build, with
# gcc and clang) into a scratch directory, then runs every one-host run of
# testlist (test/testlist.py runs) with mpiexec.mpich, one job at a time.
# Left out: coll= lines (LOCUS_COLL_* means nothing to MPICH: each would
# repeat the plain run), net=, hosts= and build=mpich runs.  blame= runs
# are checked without the rank name: Hydra reports the pid of a dead
# process, not its rank.
#
# usage: validate_with_mpich.sh [workdir] [name-regex]
here=$(cd "$(dirname "$0")" && pwd)
work="${1:-/tmp/locus-mpich-validate}"
filter="${2:-.}"
mkdir -p "$work" || exit 2
flags=(-std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -pthread)

built=0
for src in "$here"/*.c; do
    name=$(basename "$src" .c)
    [[ "$name" =~ $filter ]] || continue
    if ! mpicc.mpich "${flags[@]}" -Wno-stringop-overflow -o "$work/$name" "$src"; then
        echo "BUILD FAIL (gcc): $name"; exit 1
    fi
    if command -v clang >/dev/null &&
        ! MPICH_CC=clang mpicc.mpich "${flags[@]}" -o "$work/$name.clang" "$src"; then
        echo "BUILD FAIL (clang): $name"; exit 1
    fi
    rm -f "$work/$name.clang"
    built=$((built + 1))
done
echo "built $built programs in $work"

runs=$(python3 "$here/../testlist.py" runs) || { echo "test/testlist.py could not read the testlist"; exit 2; }
pass=0; fail=0; failed=(); n=0
while read -r name np rest; do
    [[ "$name" =~ $filter ]] || continue
    args=(); envs=(); opts=()
    for f in $rest; do
        case "$f" in
        arg=*) args+=("${f#arg=}") ;;
        env=*) envs+=("${f#env=}") ;;
        expect=failure) opts+=(--expect-failure) ;;
        blame=*) ;; # expect=failure is given too; Hydra does not name the rank
        maxsec=*) opts+=(--max-seconds "${f#maxsec=}") ;;
        timeout=*) opts+=(--timeout $(( ${f#timeout=} - 10 ))) ;;
        *) echo "testlist.py runs: unknown field $f"; exit 2 ;;
        esac
    done
    n=$((n + 1))
    log="$work/run$n.$name.$np.log"
    start=$(date +%s)
    if env "${envs[@]}" "$here/../run_mpi_test.sh" "${opts[@]}" mpiexec.mpich "$np" \
        "$work/$name" "${args[@]}" >"$log" 2>&1; then
        pass=$((pass + 1)); res=PASS
    else
        fail=$((fail + 1)); res=FAIL; failed+=("$name $np ${args[*]} ${envs[*]}")
    fi
    printf '%-4s %-22s %2s ranks %-8s %3ss\n' "$res" "$name" "$np" "${args[*]}" $(( $(date +%s) - start ))
done <<<"$runs"

for f in "${failed[@]}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
