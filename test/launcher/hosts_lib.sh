# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the multi-host launcher tests (sourced after lib.sh).
# Environment (set by CMake): LC_HOSTS (scripts/lc-hosts), MPIEXEC, ...
#
# hosts_up N builds emulated hosts h1..hN (scripts/lc-hosts) under a name
# unique to this test run, and tears them down when the test exits, fails
# or is interrupted (trap), or is killed outright (a detached watchdog that
# outlives a SIGKILLed test by at most a second).  The hosts also expire on
# their own after HOSTS_TTL seconds, should even that fail.  Without the
# rights to build namespaces the test is skipped (exit 77).

HOSTS_TTL=${HOSTS_TTL:-300}
HOSTS_NAME=""
CONTAINERS=""

hosts_down() {
    [ -n "$HOSTS_NAME" ] && "$LC_HOSTS" down "$HOSTS_NAME"
    rm -rf "$T"
}

hosts_up() { # N
    if ! "$LC_HOSTS" check > "$T/check" 2>&1; then
        cat "$T/check"
        echo "SKIP: cannot build emulated hosts here"
        exit 77
    fi
    HOSTS_NAME="lt-$(basename "$0" .sh | sed 's/^t_//')-$$"
    trap 'hosts_down' EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    "$LC_HOSTS" down "$HOSTS_NAME" # leftovers of an earlier run with this pid
    # The watchdog is re-parented away from us at once, so a kill of the
    # test's process tree does not reach it; it ends with the test.
    (setsid sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; "$2" down "$3"' \
        watchdog $$ "$LC_HOSTS" "$HOSTS_NAME" < /dev/null > /dev/null 2>&1 &)
    "$LC_HOSTS" up "$HOSTS_NAME" "$1" --ttl "$HOSTS_TTL" > "$T/up" 2>&1 || { cat "$T/up"; fail "lc-hosts up $1"; }
    AGENT=$("$LC_HOSTS" agent "$HOSTS_NAME") || fail "lc-hosts agent"
    HOSTS=$(seq -f 'h%g' 1 "$1")
}

# container_up CNAME HOST [OPTIONS]: a container in HOST (lc-hosts
# container); its line (name address host directory) in $T/ct-CNAME.
container_up() {
    _ct_c=$1 _ct_h=$2
    shift 2
    "$LC_HOSTS" container "$HOSTS_NAME" "$_ct_h" "$_ct_c" "$@" > "$T/ct-$_ct_c" 2>&1 ||
        { cat "$T/ct-$_ct_c"; fail "lc-hosts container $_ct_h $_ct_c $*"; }
    CONTAINERS="$CONTAINERS $_ct_c"
}

# on NODE CMD...: run CMD inside emulated host or container NODE (with the
# run limit).
on() {
    _on_node=$1
    shift
    run "$LC_HOSTS" run "$HOSTS_NAME" "$_on_node" "$@"
}

# mh ARGS...: mpiexec on h1, remote hosts reached through the lc-hosts agent.
mh() {
    on h1 "$MPIEXEC" -launcher-exec "$AGENT" "$@"
}

# expect_hosts_clean [MS]: within MS (default 1000) ms, no process is left
# in any host or container but its holder: the job is gone everywhere.
expect_hosts_clean() {
    limit=${1:-1000}
    t_end=$(( $(now_ms) + limit ))
    while :; do
        left=""
        for _clean_n in $HOSTS $CONTAINERS; do
            _clean_p=$("$LC_HOSTS" procs "$HOSTS_NAME" "$_clean_n" | tr '\n' ';')
            [ -n "$_clean_p" ] && left="$left [$_clean_n: $_clean_p]"
        done
        [ -z "$left" ] && return 0
        [ "$(now_ms)" -ge "$t_end" ] && fail "processes left after the job:$left"
        sleep 0.1
    done
}

# rank_host RANK: the host a `pmi_probe where` run placed RANK on.
rank_host() {
    sed -n "s/^\(\[[0-9]*\] \)\{0,1\}WHERE rank=$1 host=\([^ ]*\) .*/\2/p" "$T/out"
}
