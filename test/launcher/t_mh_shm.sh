#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# /dev/shm cleanup on every host: each rank creates
# /dev/shm/locus-<kvsname>-probe<rank> in its host's private /dev/shm; when
# the job ends, normally or after a remote crash, every host's proxy (and
# mpiexec on its own host) has removed them.  Objects of other jobs stay.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 3

# shm_left HOST: locus objects of this job's kvsname left on HOST.
shm_left() {
    "$LC_HOSTS" run "$HOSTS_NAME" "$1" sh -c "ls /dev/shm | grep -c '^locus-$kvs-' || true"
}

other=locus-lc1x00000000-not-ours-$$
for h in $HOSTS; do "$LC_HOSTS" run "$HOSTS_NAME" "$h" touch "/dev/shm/$other" || fail "touch on $h"; done

for how in normal crash; do
    if [ $how = normal ]; then
        mh -hosts h1:1,h2:2,h3:1 "$PMI_PROBE" shmall
        expect_rc 0
    else
        mh -hosts h1:1,h2:2,h3:1 "$PMI_PROBE" shmall crash 2
        expect_rc 137
        expect_err "^mpiexec: rank 2 (pid [0-9]* on h2) killed by signal 9"
        expect_gone_within 3000
    fi
    expect_lines "^SHM /dev/shm/locus-lc[0-9]*x[0-9a-f]*-probe[0-3] h[1-3]\$" 4 "$T/out"
    kvs=$(sed -n 's|^SHM /dev/shm/locus-\(lc[0-9]*x[0-9a-f]*\)-.*|\1|p' "$T/out" | head -1)
    # Each object was made in its own host's /dev/shm, not in ours.
    [ -n "$(ls /dev/shm | grep "^locus-$kvs-")" ] && fail "objects of the job appeared in the root /dev/shm"
    for h in $HOSTS; do
        [ "$(shm_left $h)" = 0 ] || fail "$how end: objects of $kvs left on $h"
    done
done
for h in $HOSTS; do
    "$LC_HOSTS" run "$HOSTS_NAME" "$h" test -e "/dev/shm/$other" || fail "another job's object was removed on $h"
done
expect_hosts_clean
echo "PASS"
