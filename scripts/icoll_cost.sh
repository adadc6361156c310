#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# icoll_cost.sh — instructions per small collective on rank 0 of a 2-rank
# job, counted by callgrind (bench/icoll_cost.c says how): the way issue
# 14's "nonblocking within 1.2x of blocking" is measured on a machine
# whose timings are noisy.  Counts, unlike times, repeat to within a few
# instructions from run to run.
#
#   scripts/icoll_cost.sh [-b BUILD]... [-n COUNT] [-i ITERS] [-d USEC] [-r RANKS] [-R] [OP...]
#
# BUILD: a build directory with bin/mpiexec, bin/mpicc and lib/ (default:
# build); several -b compare libraries (the program is built once, with
# the first one's mpicc, and run on each one's library: same ABI).  OPs
# default to "allreduce iallreduce".  The peer's messages are in rank 0's
# unexpected queue when it calls (Locus's MPI_T variable tells), or with
# -R still in its ring (rank 0 waits for a shared-memory flag the peer
# sets just before its call, then sleeps -d µs).  Prints, per build and
# operation, instructions (Ir) and progress passes (lc_progress calls) per
# operation.  The passes show whether rank 0 waited: none when the
# messages were in the unexpected queue, one (or the operation's few)
# when they were in the ring; more means rank 0 polled for a message not
# yet sent (~10 instructions a fruitless pass), which -R cannot rule out
# on a loaded machine (its peer may be descheduled after its flag): the
# unexpected-queue figure is the exact one.  Needs valgrind.
set -eu

builds=""
count=2
iters=2000
delay=300
ranks=2
ring=""
while getopts "b:n:i:d:r:R" opt; do
    case $opt in
    b) builds="$builds $(cd "$OPTARG" && pwd)" ;;
    n) count=$OPTARG ;;
    i) iters=$OPTARG ;;
    d) delay=$OPTARG ;;
    r) ranks=$OPTARG ;;
    R) ring=-r ;;
    *) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;/^set -eu/d' >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$builds" ] || builds="$top/build"
ops=${*:-allreduce iallreduce}
command -v valgrind >/dev/null || { echo "icoll_cost.sh: valgrind is not installed" >&2; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/icoll_cost.XXXXXX")
trap 'rm -rf "$work"' EXIT
first=$(echo $builds | cut -d' ' -f1)
"$first/bin/mpicc" -O2 -g -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -o "$work/icoll_cost" "$top/bench/icoll_cost.c"

# Sum callgrind's call counts per callee name (uncompressed output).
calls() {
    awk -v want="$2" '
        /^cfn=/ { name = $0; sub(/^cfn=(\([0-9]+\) )?/, "", name); cur = name; next }
        /^calls=/ { if (cur == want) { split($0, a, /[= ]/); n += a[2] } cur = ""; next }
        END { print n + 0 }' "$1"
}

printf "%-10s %-15s %10s %12s\n" build op Ir/op progress/op
for b in $builds; do
    for op in $ops; do
        out="$work/cg.$op"
        rm -f "$out"
        LD_LIBRARY_PATH="$b/lib" "$b/bin/mpiexec" -n "$ranks" sh -c '
            if [ "$PMI_RANK" = 0 ]; then
                exec valgrind -q --tool=callgrind --collect-atstart=no --compress-strings=no \
                    --compress-pos=no --callgrind-out-file="$0" "$@"
            fi
            exec "$@"' "$out" "$work/icoll_cost" -o "$op" -n "$count" -i "$iters" -d "$delay" $ring >"$work/log" 2>&1 ||
            { cat "$work/log" >&2; exit 1; }
        grep -q VALIDATION "$work/log" && { cat "$work/log" >&2; exit 1; }
        ir=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$out")
        prog=$(calls "$out" lc_progress)
        printf "%-10s %-15s %10.1f %12.2f\n" "$(basename "$b")" "$op" \
            "$(echo "$ir / $iters" | bc -l)" "$(echo "$prog / $iters" | bc -l)"
    done
done
