#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# PMI across emulated hosts: put/fence/get among ranks on 2 and 3 hosts
# with 1-3 ranks each (local ranks of mpiexec's host and remote ranks
# behind proxies mixed), with mpiexec's own host holding no rank, and a
# raw PMI-2 client; every rank runs on the host placement says.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 3

for layout in h1:1,h2:1 h1:2,h2:2 h1:3,h2:3 h1:1,h2:3 h1:1,h2:2,h3:3 h1:3,h2:1,h3:2 h2:2,h3:1; do
    n=0
    for e in $(echo "$layout" | tr ',' ' '); do n=$((n + ${e#*:})); done
    mh -hosts "$layout" "$PMI_PROBE" kvs
    expect_rc 0
    expect_lines "kvs ok kvsname=lc[0-9]*x[0-9a-f]\{8\} appnum=0\$" "$n" "$T/out"
    [ "$(sed 's/.*kvsname=//' "$T/out" | sort -u | wc -l)" -eq 1 ] || fail "$layout: ranks disagree on kvsname"
    for r in $(seq 0 $((n - 1))); do expect_out "^rank $r/$n kvs ok"; done
    expect_hosts_clean

    mh -hosts "$layout" "$PMI_PROBE" where
    expect_rc 0
    r=0
    for e in $(echo "$layout" | tr ',' ' '); do
        for k in $(seq 1 "${e#*:}"); do
            [ "$(rank_host $r)" = "${e%:*}" ] || fail "$layout: rank $r ran on '$(rank_host $r)', not ${e%:*}"
            r=$((r + 1))
        done
    done
done

# PMI-2 spoken raw by remote and local ranks; the mapping says 2 nodes.
run "$LC_HOSTS" run "$HOSTS_NAME" h1 env PMI2_EXPECT_MAPPING="(vector,(0,2,2))" \
    "$MPIEXEC" -launcher-exec "$AGENT" -hosts h1:2,h2:2 "$PMI2_CLIENT"
expect_rc 0
expect_lines "^pmi2 rank [0-3]/4 ok jobid=lc" 4 "$T/out"
expect_hosts_clean
echo "PASS"
