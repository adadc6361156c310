#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run_fuzz.sh BINARY SEEDS SECONDS: run a libFuzzer target for SECONDS from
# the committed seeds (read-only; new inputs go to a scratch directory).
# No binary (clang missing): skipped, 77.  A crash leaves its input in the
# scratch directory's parent, printed for the report.
bin=$1 seeds=$2 secs=${3:-20}
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "SKIP: no libFuzzer target (clang with -fsanitize=fuzzer was not found at configure time)"
    exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/locus-fuzz.XXXXXX") || exit 1
mkdir "$work/corpus"
# The suite's ASan settings (make test-asan) are for the library; the fuzzer
# wants its own (it reports and exits itself).
unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
cd "$work" || exit 1
"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
    -artifact_prefix="$work/" "$work/corpus" "$seeds"
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL: the fuzzer found a problem (exit $rc); inputs kept in $work" >&2
    ls -l "$work" >&2
    exit 1
fi
rm -rf "$work"
echo "PASS"
