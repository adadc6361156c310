#!/bin/sh
# A rank killed mid-job across emulated hosts (test/mpi/kill_rank.c: every
# rank exchanges 64 KiB messages with both ring neighbours, shared-memory
# and network peers mixed; the victim SIGKILLs itself after 0.5 s with
# transfers in flight).
# usage: t_kill_rank.sh NHOSTS "LAYOUT VICTIM" ...
# For each job: mpiexec (on h1) exits non-zero, the job ends within
# KILL_LIMIT_MS (default 8000, start-up included, as test/mpi/kill_rank.sh)
# of its start, stderr names the dead rank together with its host (the
# launcher's "rank V (pid P on hK)" or the library's "rank V (host hK)";
# a victim on h1, mpiexec's own host, is named without a host by the
# launcher), mpiexec's own verdict is the death ("rank V ... killed by
# signal"), not the abort of a survivor that lost its peer, no rank reports "No Errors", and nothing of the job is left
# on any host (processes, /dev/shm objects).
here=$(dirname "$0")
. "$here/../launcher/lib.sh"
. "$here/../launcher/hosts_lib.sh"
. "$here/mh_mpi_lib.sh"
[ $# -ge 2 ] || { echo "usage: t_kill_rank.sh NHOSTS \"LAYOUT VICTIM\" ..." >&2; exit 2; }
kill_limit=${KILL_LIMIT_MS:-8000}  # (expect_hosts_clean sets $limit)
nhosts=$1
shift
hosts_up "$nhosts"
for spec in "$@"; do
    # shellcheck disable=SC2086 # the spec is split into words on purpose
    set -- $spec
    layout=$1 victim=$2
    vhost=$(layout_hosts "$layout" | sed -n "$((victim + 1))p")
    [ -n "$vhost" ] || { echo "t_kill_rank.sh: victim $victim not in $layout" >&2; exit 2; }
    what="kill_rank on $layout, victim rank $victim on $vhost"
    job "$LC_HOSTS" run "$HOSTS_NAME" h1 "$MPIEXEC" -launcher-exec "$AGENT" -hosts "$layout" \
        "$MPI_TEST_DIR/kill_rank" "$victim"
    [ "$RC" -ne 0 ] || fail "$what: mpiexec exited 0"
    grep -qw 'No Errors' "$T/out" && fail "$what: 'No Errors' printed"
    [ "$ELAPSED_MS" -lt "$kill_limit" ] || fail "$what: the job took $ELAPSED_MS ms, limit $kill_limit ms"
    if [ "$vhost" = h1 ]; then
        named="rank $victim (pid [0-9]*)\|rank $victim (host h1)"
    else
        named="rank $victim (pid [0-9]* on $vhost)\|rank $victim (host $vhost)"
    fi
    grep -q "$named" "$T/err" || fail "$what: stderr does not name rank $victim and its host"
    grep -q "^mpiexec: rank $victim (pid [0-9]*.*) killed by signal" "$T/err" ||
        fail "$what: mpiexec does not report rank $victim killed: $(grep '^mpiexec:' "$T/err")"
    expect_hosts_clean
    expect_shm_clean
    said=$(grep -m1 "$named" "$T/err")
    launcher=$(grep -m1 "^mpiexec:" "$T/err")
    [ "$launcher" = "$said" ] && launcher=""
    echo "ok: $what: exit $RC after $ELAPSED_MS ms; $said${launcher:+; $launcher}"
done
echo "PASS"
