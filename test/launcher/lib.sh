# SPDX-License-Identifier: BSD-3-Clause
# Shared helpers for the launcher tests (sourced by t_*.sh).
# Environment (set by CMake): MPIEXEC, PMI_PROBE, PMI2_CLIENT, HELLO_MPICH.
set -u
T=$(mktemp -d "${TMPDIR:-/tmp}/locus-launcher-test.XXXXXX")
trap 'rm -rf "$T"' EXIT

fail() {
    echo "FAIL: $*" >&2
    for f in out err; do
        [ -s "$T/$f" ] && { echo "--- std$f of the last run:" >&2; head -c 4000 "$T/$f" >&2; }
    done
    exit 1
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run CMD...: run with a hard time limit; sets RC and ELAPSED_MS, output
# in $T/out and $T/err.  A run that needs the limit is a failure in itself.
run() {
    t0=$(now_ms)
    timeout -k 2 20 "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    END_MS=$(now_ms)
    ELAPSED_MS=$(( END_MS - t0 ))
    [ "$RC" -eq 124 ] && fail "timed out (hung): $*"
    [ "$RC" -eq 137 ] && [ "$ELAPSED_MS" -ge 20000 ] && fail "killed by the time limit: $*"
    return 0
}

expect_rc() { [ "$RC" -eq "$1" ] || fail "exit code $RC, expected $1"; }
expect_err() { grep -q -- "$1" "$T/err" || fail "stderr lacks: $1"; }
expect_out() { grep -q -- "$1" "$T/out" || fail "stdout lacks: $1"; }
expect_lines() { # PATTERN COUNT FILE
    n=$(grep -c -- "$1" "$3")
    [ "$n" -eq "$2" ] || fail "$n lines match '$1' in $3, expected $2"
}
expect_fast() { [ "$ELAPSED_MS" -lt "$1" ] || fail "took ${ELAPSED_MS} ms, limit $1 ms"; }
# The job ended within LIMIT ms of the failure the probe announced with
# "FAIL_AT <ms>" (startup time, which a loaded machine stretches, excluded).
expect_gone_within() {
    at=$(sed -n 's/^\(\[[0-9]*\] \)\{0,1\}FAIL_AT //p' "$T/out" | head -1)
    [ -n "$at" ] || fail "the probe did not announce its failure"
    [ $((END_MS - at)) -lt "$1" ] || fail "job ended $((END_MS - at)) ms after the failure, limit $1 ms"
}
# wait_lines PATTERN COUNT FILE [TRIES]: poll every 50 ms, TRIES times (200
# unless given), until COUNT lines of FILE match PATTERN (a background job's
# ranks announcing themselves); a failure otherwise.
wait_lines() {
    i=0
    until [ "$(grep -c -- "$1" "$3" 2>/dev/null)" -ge "$2" ]; do
        i=$((i + 1))
        [ $i -gt "${4:-200}" ] && fail "$(grep -c -- "$1" "$3" 2>/dev/null) of $2 lines match '$1' in $3 after $i polls: $(tail -c 2000 "$3" 2>/dev/null)"
        sleep 0.05
    done
}
# signal_job SIG: send SIG (TERM or INT) to the background mpiexec whose pid
# is $mp and wait for it; it must exit with 128 + the signal's number within
# 2 s.  Sets RC and ELAPSED_MS, clears mp.
signal_job() {
    t0=$(now_ms)
    kill -"$1" "$mp"
    wait "$mp"
    RC=$?
    mp=""
    ELAPSED_MS=$(( $(now_ms) - t0 ))
    case $1 in TERM) expect_rc 143 ;; INT) expect_rc 130 ;; esac
    expect_fast 2000
}
