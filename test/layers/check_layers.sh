#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check_layers.sh — the layer rule of docs/architecture.md ("Layers"), checked
# on what was really built.
#
# usage: check_layers.sh symbols  NM LAYER=ARCHIVE...        (lowest layer first)
#        check_layers.sh includes SRC_DIR LAYER...           (lowest layer first)
#        check_layers.sh mpiexec  NM MPIEXEC ALLOWED LAYER=ARCHIVE...
#
#   symbols   no archive has an undefined symbol that only a higher layer's
#             archive defines.  The shared library is linked with
#             --whole-archive, so the linker accepts such an upward call;
#             this check does not.
#   includes  no file of src/<layer>/ includes a header of a higher layer
#             (types and inline functions are dependencies too, and nm
#             cannot see a struct).
#   mpiexec   the launcher takes from Locus's archives only the members named
#             in ALLOWED ("pmi/lc_pmi_wire util/lc_params ..."): it must run
#             without the library, libfabric or hwloc.  Every symbol name in
#             the linked program that an archive member defines pulls that
#             member in.
#
# Exit 0 = rule kept, 1 = violations (each printed on one line), 2 = usage.
set -u

die_usage() {
    sed -n '4,6p' "$0" >&2
    exit 2
}

# Every LAYER=ARCHIVE names an archive that exists (else exit 2).
need_archives() {
    for pair in "$@"; do
        if [ ! -f "${pair#*=}" ]; then
            echo "check_layers: archive ${pair#*=} of layer ${pair%%=*} not found; build first" >&2
            exit 2
        fi
    done
}

# "INDEX LAYER MEMBER SYMBOL TYPE" for every symbol of every archive given
# as LAYER=ARCHIVE, INDEX counting from 0 at the lowest layer.
archive_symbols() {
    nm_tool=$1
    shift
    i=0
    for pair in "$@"; do
        layer=${pair%%=*}
        archive=${pair#*=}
        # POSIX format with file names: "lib.a[member.o]: symbol type value size"
        "$nm_tool" -A -P "$archive" | awk -v i="$i" -v layer="$layer" '
            NF >= 3 {
                member = $1
                sub(/^.*\[/, "", member)
                sub(/\]:$/, "", member)
                print i, layer, member, $2, $3
            }'
        i=$((i + 1))
    done
}

check_symbols() {
    [ $# -ge 2 ] || die_usage
    nm_tool=$1
    shift
    need_archives "$@"
    archive_symbols "$nm_tool" "$@" | awk '
        # A global definition: upper case except U (undefined), or u (unique global).
        function is_def(t) { return (t ~ /^[A-TV-Z]$/ || t == "u") }
        {
            idx = $1 + 0; layer[idx] = $2; member = $3; sym = $4; type = $5
            if (type == "U") {
                nu++; u_idx[nu] = idx; u_member[nu] = member; u_sym[nu] = sym
            } else if (is_def(type)) {
                if (!(sym in low) || idx < low[sym]) { low[sym] = idx; low_member[sym] = member }
            }
        }
        END {
            bad = 0
            for (k = 1; k <= nu; k++) {
                s = u_sym[k]
                if (!(s in low) || low[s] <= u_idx[k]) continue
                key = u_idx[k] SUBSEP u_member[k] SUBSEP s
                if (key in said) continue
                said[key] = 1
                printf("layer %s: %s calls %s, which only the higher layer %s defines (%s); a lower layer "   \
                       "never calls a higher one: move the code down, or let the higher layer register a " \
                       "callback at start-up (docs/architecture.md, \"Layers\")\n",
                       layer[u_idx[k]], u_member[k], s, layer[low[s]], low_member[s])
                bad++
            }
            n = 0
            for (i in layer) n++
            if (bad) { printf("%d upward call(s)\n", bad); exit 1 }
            printf("%d archives, no upward call\n", n)
        }'
}

check_includes() {
    [ $# -ge 2 ] || die_usage
    src=$1
    shift
    bad=0
    i=0
    for layer in "$@"; do
        j=0
        for higher in "$@"; do
            if [ "$j" -gt "$i" ] && [ -d "$src/$layer" ]; then
                hits=$(grep -n "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$higher/" \
                       "$src/$layer"/*.c "$src/$layer"/*.h 2>/dev/null)
                if [ -n "$hits" ]; then
                    echo "$hits" | while IFS= read -r hit; do
                        echo "layer $layer includes a header of the higher layer $higher: ${hit#"$src"/}"
                    done
                    bad=$((bad + 1))
                fi
            fi
            j=$((j + 1))
        done
        i=$((i + 1))
    done
    if [ "$bad" -ne 0 ]; then
        echo "a lower layer never depends on a higher one (docs/architecture.md, \"Layers\")"
        exit 1
    fi
    echo "$i layers, no upward include"
}

check_mpiexec() {
    [ $# -ge 4 ] || die_usage
    nm_tool=$1
    program=$2
    allowed=$3
    shift 3
    if [ ! -f "$program" ]; then
        echo "check_layers: $program not found; build first" >&2
        exit 2
    fi
    need_archives "$@"
    # The archives' definitions first, then every symbol name of the program
    # (hidden symbols of the archives become local ones in it, type t/d/b).
    { archive_symbols "$nm_tool" "$@"; echo "--program--"; "$nm_tool" -P "$program"; } | awk -v allowed="$allowed" '
        BEGIN { n = split(allowed, a, " "); for (k = 1; k <= n; k++) ok[a[k]] = 1 }
        $0 == "--program--" { prog = 1; next }
        !prog {
            if ($5 ~ /^[A-TV-Z]$/ || $5 == "u") {
                name = $3; sub(/\.c\.o(bj)?$/, "", name); sub(/\.o(bj)?$/, "", name)
                def[$4] = $2 "/" name
            }
            next
        }
        { nprog++ }
        ($1 in def) { used[def[$1]] = used[def[$1]] " " $1 }
        END {
            if (!nprog) { print "check_layers: the program has no symbol table (stripped?)"; exit 2 }
            bad = 0
            for (m in used) {
                if (m in ok) { printf("mpiexec links %s (allowed)\n", m); continue }
                printf("mpiexec links %s (symbols:%s), but may take from Locus only: %s\n", m, used[m], allowed)
                bad++
            }
            exit bad ? 1 : 0
        }'
}

[ $# -ge 1 ] || die_usage
mode=$1
shift
case "$mode" in
symbols) check_symbols "$@" ;;
includes) check_includes "$@" ;;
mpiexec) check_mpiexec "$@" ;;
*) die_usage ;;
esac
