#!/bin/bash
# validate_with_mpich.sh: check the tests themselves against Debian's
# MPICH (a test that fails there is a wrong test).  Builds every
# test/mpi/*.c with mpicc.mpich (same warnings as the CMake build, with
# gcc and clang) into a scratch directory, then runs every testlist line
# and the kill_rank driver with mpiexec.mpich, one job at a time.
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

pass=0; fail=0; failed=()
while read -r name np rest; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    [[ "$name" =~ $filter ]] || continue
    args=(); envs=(); opts=(--timeout $([ "$np" -ge 8 ] && echo 110 || echo 50))
    for f in $rest; do
        case "$f" in
        arg=*) args+=("${f#arg=}") ;;
        env=*) envs+=("${f#env=}") ;;
        expect=failure) opts+=(--expect-failure) ;;
        maxsec=*) opts+=(--max-seconds "${f#maxsec=}") ;;
        *) echo "testlist: unknown field $f"; exit 2 ;;
        esac
    done
    log="$work/$name.$np${args:+.${args[*]}}.log"
    start=$(date +%s)
    if env "${envs[@]}" "$here/../run_mpi_test.sh" "${opts[@]}" mpiexec.mpich "$np" \
        "$work/$name" "${args[@]}" >"$log" 2>&1; then
        pass=$((pass + 1)); res=PASS
    else
        fail=$((fail + 1)); res=FAIL; failed+=("$name $np ${args[*]}")
    fi
    printf '%-4s %-22s %2s ranks %-8s %3ss\n' "$res" "$name" "$np" "${args[*]}" $(( $(date +%s) - start ))
done <"$here/testlist"

if [[ "kill_rank" =~ $filter ]]; then
    for victim in 2 0; do
        if "$here/kill_rank.sh" --no-rank-check mpiexec.mpich "$work/kill_rank" "$victim" \
            >"$work/kill_rank.$victim.log" 2>&1; then
            pass=$((pass + 1)); res=PASS
        else
            fail=$((fail + 1)); res=FAIL; failed+=("kill_rank victim $victim")
        fi
        printf '%-4s %-22s  4 ranks victim=%s (rank name check skipped: Hydra)\n' "$res" kill_rank "$victim"
    done
fi
for f in "${failed[@]}"; do echo "failed: $f"; done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
