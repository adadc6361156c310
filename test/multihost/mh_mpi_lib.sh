# SPDX-License-Identifier: BSD-3-Clause
# Helpers for the MPI-across-hosts tests (sourced after
# test/launcher/lib.sh and test/launcher/hosts_lib.sh, which build and
# tear down the emulated hosts).
# Environment (set by CMake): LC_HOSTS, MPIEXEC, MPI_TEST_DIR (the
# programs of test/mpi), MH_RUN_LIMIT (seconds one job may take).

MH_RUN_LIMIT=${MH_RUN_LIMIT:-60}

# job CMD...: like lib.sh's run, with the limit MH_RUN_LIMIT (a job with
# 16 MiB messages on 6 oversubscribed ranks needs more than run's 20 s on a
# busy machine).  Sets RC, ELAPSED_MS, END_MS; output in $T/out, $T/err.
job() {
    t0=$(now_ms)
    timeout -k 3 "$MH_RUN_LIMIT" "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    END_MS=$(now_ms)
    ELAPSED_MS=$(( END_MS - t0 ))
    [ "$RC" -eq 124 ] && fail "timed out (hung) after ${MH_RUN_LIMIT} s: $*"
    [ "$RC" -eq 137 ] && [ "$ELAPSED_MS" -ge $((MH_RUN_LIMIT * 1000)) ] && fail "killed by the time limit: $*"
    return 0
}

# layout_hosts LAYOUT: the host of every rank, one a line, in rank order
# (mpiexec places ranks in blocks: h1:2,h2:1 -> h1 h1 h2).
layout_hosts() {
    for _lh_e in $(echo "$1" | tr ',' ' '); do
        _lh_i=0
        while [ $_lh_i -lt "${_lh_e#*:}" ]; do echo "${_lh_e%:*}"; _lh_i=$((_lh_i + 1)); done
    done
}

# expect_channels LAYOUT OFI_LABEL: the matrix LOCUS_SHOW_CHANNELS=1 made
# rank 0 print says self for a rank to itself, shared memory between ranks
# of one host and the network channel (label matching OFI_LABEL, an
# extended regex) between ranks of different hosts: the job really mixed
# the two kinds of peers.
expect_channels() {
    layout_hosts "$1" > "$T/rank_hosts"
    n=$(wc -l < "$T/rank_hosts")
    [ "$(grep -c '^  rank [0-9]*: ' "$T/out")" -eq "$n" ] ||
        fail "$1: no channel matrix of $n rows in the output (LOCUS_SHOW_CHANNELS=1)"
    grep '^  rank [0-9]*: ' "$T/out" | awk -v ofi="^($2)\$" '
        NR == FNR { host[NR - 1] = $1; n = NR; next }
        {
            r = $2; sub(":", "", r)
            if (NF - 2 != n) { print "row " r ": " NF - 2 " entries, expected " n; bad = 1; next }
            for (c = 0; c < n; c++) {
                ch = $(c + 3)
                if (c == r + 0) ok = (ch == "self")
                else if (host[r] == host[c]) ok = (ch ~ /^shm/)
                else ok = (ch ~ ofi)
                if (!ok) { print "rank " r " (" host[r] ") -> rank " c " (" host[c] "): " ch; bad = 1 }
            }
        }
        END { exit bad }' "$T/rank_hosts" - > "$T/chk" ||
        fail "$1: wrong channels: $(tr '\n' ';' < "$T/chk")"
}

# expect_shm_clean: no /dev/shm/locus-* object is left in any host's
# private /dev/shm.
expect_shm_clean() {
    for _sc_h in $HOSTS; do
        _sc_l=$("$LC_HOSTS" run "$HOSTS_NAME" "$_sc_h" sh -c 'ls /dev/shm | grep "^locus-" || true')
        [ -z "$_sc_l" ] || fail "left in /dev/shm on $_sc_h: $(echo "$_sc_l" | tr "\n" " ")"
    done
}

# mpi_run LAYOUT PROG ENVS MAX_MS [ARG]...: one test program of test/mpi
# across the hosts of LAYOUT (mpiexec on h1, other hosts through the
# lc-hosts agent), ENVS (NAME=VALUE words) in the job's environment
# (mpiexec passes it on to every rank, local or remote).  Passes when the
# job exits 0, rank 0 prints "No Errors", no rank reports a failed check,
# the channels are the expected mix, the job took less than MAX_MS ms (if
# not empty), and nothing of the job is left on any host (processes,
# /dev/shm objects).
mpi_run() {
    layout=$1 prog=$2 envs=$3 max_ms=$4
    shift 4
    ofi_label="ofi|ofi\\+rma"
    # the streamed rendezvous does not pull: the peer is plain "ofi"
    case " $envs " in *" LOCUS_OFI_RMA=0 "*) ofi_label="ofi" ;; esac
    what="$prog on $layout${envs:+ with$envs}${*:+ args $*}"
    # shellcheck disable=SC2086 # envs is a list of words
    job "$LC_HOSTS" run "$HOSTS_NAME" h1 env LOCUS_SHOW_CHANNELS=1 $envs \
        "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$layout" "$MPI_TEST_DIR/$prog" "$@"
    [ "$RC" -eq 0 ] || fail "$what: exit code $RC"
    grep -qw 'No Errors' "$T/out" || fail "$what: 'No Errors' not printed"
    grep -q '^\[rank [0-9]*\] \(FAIL\|FATAL\)' "$T/err" && fail "$what: a rank reported a failure"
    [ -z "$max_ms" ] || [ "$ELAPSED_MS" -lt "$max_ms" ] || fail "$what: the job took $ELAPSED_MS ms, limit $max_ms ms"
    expect_channels "$layout" "$ofi_label"
    expect_hosts_clean
    expect_shm_clean
    echo "ok: $what (${ELAPSED_MS} ms)"
}

# mpi_run_failing LAYOUT PROG ENVS VICTIM MAX_MS [ARG]...: a job that must
# fail (e.g. test/mpi/kill_rank.c: every rank exchanges 64 KiB messages
# with both ring neighbours, shared-memory and network peers mixed; the
# victim SIGKILLs itself after 0.5 s with transfers in flight).  Passes
# when mpiexec exits non-zero, no rank prints "No Errors", the job ends
# within MAX_MS ms of its start (if not empty; start-up included), and
# nothing of the job is left on any host (processes, /dev/shm objects).
# With a VICTIM rank, also: stderr names the dead rank together with its
# host (the launcher's "rank V (pid P on hK)" or the library's "rank V
# (host hK)"; a victim on h1, mpiexec's own host, is named without a host
# by the launcher), and mpiexec's own verdict is the death ("rank V ...
# killed by signal"), not the abort of a survivor that lost its peer.
mpi_run_failing() {
    layout=$1 prog=$2 envs=$3 victim=$4 max_ms=$5
    shift 5
    what="$prog on $layout${envs:+ with$envs}${*:+ args $*}"
    if [ -n "$victim" ]; then
        vhost=$(layout_hosts "$layout" | sed -n "$((victim + 1))p")
        [ -n "$vhost" ] || { echo "t_mpi.sh: victim $victim not in $layout" >&2; exit 2; }
        what="$what, victim rank $victim on $vhost"
    fi
    # shellcheck disable=SC2086 # envs is a list of words
    job "$LC_HOSTS" run "$HOSTS_NAME" h1 env $envs \
        "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$layout" "$MPI_TEST_DIR/$prog" "$@"
    [ "$RC" -ne 0 ] || fail "$what: mpiexec exited 0"
    grep -qw 'No Errors' "$T/out" && fail "$what: 'No Errors' printed"
    [ -z "$max_ms" ] || [ "$ELAPSED_MS" -lt "$max_ms" ] || fail "$what: the job took $ELAPSED_MS ms, limit $max_ms ms"
    said="" launcher=""
    if [ -n "$victim" ]; then
        if [ "$vhost" = h1 ]; then
            named="rank $victim (pid [0-9]*)\|rank $victim (host h1)"
        else
            named="rank $victim (pid [0-9]* on $vhost)\|rank $victim (host $vhost)"
        fi
        grep -q "$named" "$T/err" || fail "$what: stderr does not name rank $victim and its host"
        grep -q "^mpiexec: rank $victim (pid [0-9]*.*) killed by signal" "$T/err" ||
            fail "$what: mpiexec does not report rank $victim killed: $(grep '^mpiexec:' "$T/err")"
        said="; $(grep -m1 "$named" "$T/err")"
        launcher=$(grep -m1 "^mpiexec:" "$T/err")
        [ "; $launcher" = "$said" ] && launcher=""
    fi
    expect_hosts_clean
    expect_shm_clean
    echo "ok: $what: exit $RC after $ELAPSED_MS ms$said${launcher:+; $launcher}"
}
