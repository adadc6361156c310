#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# params_doc.sh doc|names LOCUS_INFO SOURCE_DIR
#
#   doc    docs/params.md is exactly what the built `locus-info --params
#          --markdown` prints: the parameter documentation is generated
#          from the tables, never edited by hand.
#   names  every LOCUS_<NAME> that README.md, docs/*.md or a string in
#          src/ and tools/ mentions is a parameter of the tables (or one of
#          the few variables that are not parameters, listed below), so no
#          text names a variable that does not exist.
set -u
mode=$1
info=$2
top=$3

case "$mode" in
doc)
    want=$(mktemp)
    trap 'rm -f "$want"' EXIT
    if ! "$info" --params --markdown >"$want"; then
        echo "FAILED: $info --params --markdown did not run"
        exit 1
    fi
    if ! diff -u "$top/docs/params.md" "$want" >"$want.diff"; then
        head -60 "$want.diff"
        rm -f "$want.diff"
        echo "FAILED: docs/params.md differs from what locus-info prints (above: - the file, + the tables)."
        echo "Regenerate it: build/bin/locus-info --params --markdown > docs/params.md  (or: make params-doc)"
        exit 1
    fi
    rm -f "$want.diff"
    echo "docs/params.md matches the tables"
    ;;
names)
    # Not parameters: the compiler wrappers' LOCUS_CC/LOCUS_CXX/LOCUS_FC
    # (shell scripts), and what mpiexec sets for each rank (LOCUS_LOCAL_*).
    others="LOCUS_CC LOCUS_CXX LOCUS_FC LOCUS_LOCAL_RANK LOCUS_LOCAL_SIZE"
    known=$("$info" --params | sed -n 's/^\(LOCUS_[A-Z0-9_]*\) .*/\1/p')
    if [ -z "$known" ]; then
        echo "FAILED: $info --params listed no parameter"
        exit 1
    fi
    bad=0
    for file in "$top/README.md" "$top"/docs/*.md $(find "$top/src" "$top/tools" -name '*.[ch]'); do
        case "$file" in
        *.md) names=$(grep -oE 'LOCUS_[A-Z][A-Z0-9_]*' "$file") ;;
        *) names=$(grep -oE '"[^"]*"' "$file" | grep -oE 'LOCUS_[A-Z][A-Z0-9_]*') ;;
        esac
        for name in $(echo "$names" | sort -u); do
            case "$name" in *_) continue ;; esac # a prefix: LOCUS_COLL_<NAME>, LOCUS_OFI_*
            if ! echo "$known $others" | tr ' ' '\n' | grep -qx "$name"; then
                echo "FAILED: ${file#"$top"/} names $name, which is no parameter (locus-info --params)"
                bad=1
            fi
        done
    done
    [ $bad -eq 0 ] && echo "every LOCUS_* name in the docs and messages is a parameter"
    exit $bad
    ;;
*)
    echo "usage: params_doc.sh doc|names LOCUS_INFO SOURCE_DIR" >&2
    exit 2
    ;;
esac
