#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# abi_check.sh: compare Locus's mpi.h with MPICH's, constant by constant.
#
# usage: abi_check.sh <locus-include-dir> <work-dir> [mpich-include-dir]
#
# One probe program, generated from abi_names.txt, is compiled twice
# (against each mpi.h) and run; it prints every item: the value of each
# constant (error classes, predefined handles, null handles, MPI_ANY_*,
# MPI_PROC_NULL, MPI_UNDEFINED, thread levels, MPI_MAX_* lengths,
# MPI_IN_PLACE/MPI_BOTTOM/MPI_STATUS_IGNORE, ...), sizeof of the handle
# and integer types, offsetof/sizeof of the MPI_Status fields.  Items a
# header lacks are found first by compiling one line per item and
# reading which lines the compiler rejects; the probe is then built with
# -DLC_ABSENT_<n> for those and prints "absent".  The probe is not linked
# with any MPI library: an MPICH-ABI mpi.h has compile-time constants.
#
# Result: every item present in both must be equal; an item of scope
# `req` or `info` (see abi_names.txt) missing from Locus fails; other
# missing items are listed as notes.  Exit 0 only without failures.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 2 ]; then
    echo "usage: abi_check.sh <locus-include-dir> <work-dir> [mpich-include-dir]" >&2
    exit 2
fi
locus_inc="$1"
work="$2"
mpich_inc="${3:-/usr/include/x86_64-linux-gnu/mpich}"
names="$here/abi_names.txt"
cc="${CC:-cc}"
mkdir -p "$work" || exit 2

for d in "$locus_inc" "$mpich_inc"; do
    if [ ! -f "$d/mpi.h" ]; then
        echo "FAIL: no mpi.h in $d" >&2
        exit 1
    fi
done

# items: parallel arrays, index = position in abi_names.txt
mapfile -t items < <(grep -v '^#' "$names" | awk 'NF == 3')
n=${#items[@]}

# ---- discovery source: the item's test expression sits on a line of its
# own; the map file says which line belongs to which item.
gen_discovery() {
    local i name kind scope line=4
    echo '#include <stddef.h>'
    echo '#include <stdint.h>'
    echo '#include <mpi.h>'
    : >"$work/disc.map"
    for ((i = 0; i < n; i++)); do
        read -r name kind scope <<<"${items[$i]}"
        case "$kind" in
        flag)
            printf '#ifndef %s\n#error absent\n#endif\n' "$name"
            echo "$((line + 1)) $i" >>"$work/disc.map"
            line=$((line + 3))
            continue ;;
        val | str) printf 'static void lc_chk_%d(void) { (void)(%s); }\n' "$i" "$name" ;;
        fn) printf 'static void lc_chk_%d(void) { (void)sizeof((%s) == 0); }\n' "$i" "$name" ;;
        extern | type | itype) printf 'static void lc_chk_%d(void) { (void)sizeof(%s); }\n' "$i" "$name" ;;
        field) printf 'static void lc_chk_%d(void) { (void)offsetof(MPI_Status, %s); }\n' "$i" "$name" ;;
        *) echo "abi_names.txt: unknown kind $kind for $name" >&2; exit 2 ;;
        esac
        echo "$line $i" >>"$work/disc.map"
        line=$((line + 1))
    done
}

# ---- probe source: the same for both headers
gen_probe() {
    local i name kind scope
    echo '#include <stddef.h>'
    echo '#include <stdint.h>'
    echo '#include <stdio.h>'
    echo '#include <mpi.h>'
    echo 'int main(void)'
    echo '{'
    for ((i = 0; i < n; i++)); do
        read -r name kind scope <<<"${items[$i]}"
        echo "#ifndef LC_ABSENT_$i"
        case "$kind" in
        val) printf '    printf("%%s = %%lld\\n", "%s", (long long)(intptr_t)(%s));\n' "$name" "$name" ;;
        str) printf '    printf("%%s = \\"%%s\\"\\n", "%s", %s);\n' "$name" "$name" ;;
        fn | extern | flag) printf '    printf("%%s defined\\n", "%s");\n' "$name" ;;
        type) printf '    printf("%%s sizeof %%zu\\n", "%s", sizeof(%s));\n' "$name" "$name" ;;
        itype) printf '    printf("%%s sizeof %%zu signed %%d\\n", "%s", sizeof(%s), (%s)-1 < (%s)0);\n' \
                   "$name" "$name" "$name" "$name" ;;
        field) printf '    printf("MPI_Status.%%s offset %%zu sizeof %%zu\\n", "%s", offsetof(MPI_Status, %s), sizeof(((MPI_Status *)0)->%s));\n' \
                   "$name" "$name" "$name" ;;
        esac
        echo '#else'
        if [ "$kind" = field ]; then
            printf '    printf("MPI_Status.%%s absent\\n", "%s");\n' "$name"
        else
            printf '    printf("%%s absent\\n", "%s");\n' "$name"
        fi
        echo '#endif'
    done
    echo '    return 0;'
    echo '}'
}

gen_discovery >"$work/abi_discover.c" || exit 2
gen_probe >"$work/abi_probe.c" || exit 2

# probe_for <tag> <include-dir>: discover, build, run -> $work/<tag>.out
probe_for() {
    local tag="$1" inc="$2" flags=() l i
    # -w: every diagnostic left belongs to an error
    "$cc" -std=gnu11 -w -fsyntax-only -I"$inc" "$work/abi_discover.c" >"$work/$tag.disc.log" 2>&1
    grep -o 'abi_discover\.c:[0-9]*' "$work/$tag.disc.log" | cut -d: -f2 | sort -un >"$work/$tag.badlines"
    while read -r l; do
        i=$(awk -v l="$l" '$1 == l { print $2 }' "$work/disc.map")
        [ -n "$i" ] && flags+=("-DLC_ABSENT_$i")
    done <"$work/$tag.badlines"
    if ! "$cc" -std=gnu11 -w -I"$inc" "${flags[@]}" -o "$work/abi_probe_$tag" "$work/abi_probe.c" \
        >"$work/$tag.build.log" 2>&1; then
        echo "FAIL: the ABI probe does not build against $inc/mpi.h:" >&2
        head -40 "$work/$tag.build.log" >&2
        echo "(constants of an MPICH-ABI mpi.h must be compile-time constants that need no library)" >&2
        return 1
    fi
    "$work/abi_probe_$tag" >"$work/$tag.out" || {
        echo "FAIL: ABI probe built against $inc/mpi.h crashed" >&2
        return 1
    }
}

probe_for mpich "$mpich_inc" || exit 1
probe_for locus "$locus_inc" || exit 1

# ---- compare line by line (both outputs list the items in order)
fail=0; compared=0; missing_req=(); missing_opt=(); only_locus=(); diffs=(); notes=()
mapfile -t mout <"$work/mpich.out"
mapfile -t lout <"$work/locus.out"
if [ ${#mout[@]} -ne "$n" ] || [ ${#lout[@]} -ne "$n" ]; then
    echo "FAIL: probe output has ${#mout[@]} (MPICH) / ${#lout[@]} (Locus) lines, expected $n" >&2
    exit 1
fi
for ((i = 0; i < n; i++)); do
    read -r name kind scope <<<"${items[$i]}"
    m="${mout[$i]}"; l="${lout[$i]}"
    m_abs=0; l_abs=0
    [[ "$m" == *" absent" ]] && m_abs=1
    [[ "$l" == *" absent" ]] && l_abs=1
    if [ $m_abs -eq 1 ] && [ $l_abs -eq 1 ]; then continue; fi
    if [ $m_abs -eq 1 ]; then only_locus+=("$l"); continue; fi
    if [ $l_abs -eq 1 ]; then
        if [ "$scope" = opt ]; then missing_opt+=("$name"); else missing_req+=("$name"); fi
        continue
    fi
    compared=$((compared + 1))
    if [ "$m" != "$l" ]; then
        if [ "$scope" = info ]; then
            notes+=("differs (informational): MPICH: $m | Locus: $l")
        else
            diffs+=("MPICH: $m | Locus: $l")
        fi
    fi
done

# object-like MPI_* macros of MPICH's header that abi_names.txt lacks
uncovered=$(grep -oE '^#define[[:space:]]+MPI_[A-Za-z0-9_]+([[:space:]]|$)' "$mpich_inc/mpi.h" |
    awk '{print $2}' | sort -u | comm -23 - <(grep -v '^#' "$names" | awk '{print $1}' | sort -u) |
    grep -vx 'MPI_INCLUDED' | tr '\n' ' ')

echo "ABI probe: $n items, $compared present in both headers and compared"
for d in "${diffs[@]}"; do echo "DIFFERENT: $d"; done
for x in "${missing_req[@]}"; do echo "MISSING IN LOCUS (in scope): $x"; done
if [ ${#missing_opt[@]} -gt 0 ]; then
    echo "missing in Locus (outside the scope, not a failure): ${missing_opt[*]}"
fi
for x in "${only_locus[@]}"; do echo "note: only in Locus: $x"; done
for x in "${notes[@]}"; do echo "note: $x"; done
[ -n "$uncovered" ] && echo "note: MPICH macros not probed (add to abi_names.txt?): $uncovered"

if [ ${#diffs[@]} -gt 0 ] || [ ${#missing_req[@]} -gt 0 ]; then
    echo "FAIL: ${#diffs[@]} different, ${#missing_req[@]} missing in scope"
    exit 1
fi
echo "No Errors"
exit 0
