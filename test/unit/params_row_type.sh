#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# params_row_type.sh CC SRC_DIR GENERATED_DIR: the parameter table's row
# macros accept a field of the right C type and refuse every other one at
# compile time (params_row_type.c holds one good row per type and, behind
# a macro, one wrong row per case).
set -u
cc=$1
src=$2
gen=$3
here=$(dirname "$0")
compile() {
    # shellcheck disable=SC2086 # $cc may hold words ("ccache gcc")
    $cc -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE -I"$src" -I"$gen" -fsyntax-only "$@" \
        "$here/params_row_type.c" 2>&1
}
fail=0
if ! out=$(compile); then
    echo "FAILED: rows of the right types do not compile:"
    echo "$out"
    fail=1
fi
for case in SIZE_AS_INT INT_AS_BOOL BOOL_AS_SIZE STRING_AS_INT; do
    if out=$(compile -DLC_BAD_ROW_$case); then
        echo "FAILED: a row with a field of the wrong type ($case) compiles"
        fail=1
    elif ! echo "$out" | grep -q '_Generic\|generic association'; then
        echo "FAILED: $case is refused, but not by the type check:"
        echo "$out"
        fail=1
    else
        echo "ok: $case refused"
    fi
done
exit $fail
