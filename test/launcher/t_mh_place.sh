#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Placement across hosts, as hydra does it: block by slots, wrapping when
# -n exceeds them; -ppn; host files with comments; -n defaulting to the
# slots.  Per-host LOCUS_LOCAL_RANK/SIZE and PMI_process_mapping; the
# environment (-genv and mpiexec's own) and the working directory reach
# remote ranks; -iface.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/hosts_lib.sh"
hosts_up 3

# expect_where "R:HOST:LOCAL/SIZE ..." MAPPING
expect_where() {
    expect_rc 0
    n=0
    for w in $1; do
        r=${w%%:*}
        rest=${w#*:}
        expect_out "^WHERE rank=$r host=${rest%%:*} local=${rest#*:} mapping=$2\$"
        n=$((n + 1))
    done
    expect_lines "^WHERE" "$n" "$T/out"
}

mh -hosts h1:2,h2:2 -n 6 "$PMI_PROBE" where     # wraps: h1 h1 h2 h2 h1 h1
expect_where "0:h1:0/4 1:h1:1/4 2:h2:0/2 3:h2:1/2 4:h1:2/4 5:h1:3/4" "(vector,(0,2,2),(0,1,2))"
mh -hosts h1,h2,h3 -n 5 "$PMI_PROBE" where      # 1 slot each
expect_where "0:h1:0/2 1:h2:0/2 2:h3:0/1 3:h1:1/2 4:h2:1/2" "(vector,(0,3,1),(0,2,1))"
mh -hosts h1:4,h2:4,h3:4 -ppn 2 -n 6 "$PMI_PROBE" where
expect_where "0:h1:0/2 1:h1:1/2 2:h2:0/2 3:h2:1/2 4:h3:0/2 5:h3:1/2" "(vector,(0,3,2))"
mh -hosts h3:1,h1:2 "$PMI_PROBE" where          # no -n: all slots
expect_where "0:h3:0/1 1:h1:0/2 2:h1:1/2" "(vector,(0,1,1),(1,1,2))"

# localhost and h1 are both mpiexec's host: one host, one local numbering.
mh -hosts localhost:1,h2:1,h1:1 "$PMI_PROBE" where
expect_where "0:h1:0/2 1:h2:0/1 2:h1:1/2" "(vector,(0,2,1),(0,1,1))"

printf '# a host file\nh2:2   # two slots\n\n  h3 \nh1:1\n' > "$T/hostfile"
mh -f "$T/hostfile" -n 4 "$PMI_PROBE" where
expect_where "0:h2:0/2 1:h2:1/2 2:h3:0/1 3:h1:0/1" "(vector,(0,1,2),(1,2,1))"

# Environment and directory: remote ranks see mpiexec's variables (not the
# agent's clean login environment) and -genv, and start in mpiexec's cwd.
mkdir -p "$T/work dir"
run "$LC_HOSTS" run "$HOSTS_NAME" h1 sh -c 'cd "$1/work dir" && shift && LOCUS_MH_VAR=from-mpiexec exec "$@"' \
    sh "$T" "$MPIEXEC" -launcher-exec "$AGENT" -hosts h1:1,h2:1 -genv LOCUS_MH_GENV "a b" \
    sh -c 'echo "ENV $PMI_RANK $(hostname) $LOCUS_MH_VAR [$LOCUS_MH_GENV] $MPI_LOCALRANKID/$MPI_LOCALNRANKS $(pwd)"'
expect_rc 0
expect_out "^ENV 0 h1 from-mpiexec \[a b\] 0/1 $T/work dir\$"
expect_out "^ENV 1 h2 from-mpiexec \[a b\] 0/1 $T/work dir\$"

# -iface: the address of the named interface goes to the proxies.
mh -iface eth0 -hosts h1:1,h2:1 "$PMI_PROBE" kvs
expect_rc 0
expect_lines "kvs ok" 2 "$T/out"
mh -iface nosuch0 -hosts h1:1,h2:1 "$PMI_PROBE" kvs
expect_rc 1
expect_err "^mpiexec: -iface nosuch0: no such network interface"

# Usage errors of the host options.
mh -hosts h1:0 -n 2 "$PMI_PROBE" kvs;        expect_rc 1; expect_err "bad slot count in 'h1:0'"
mh -hosts h1:x "$PMI_PROBE" kvs;             expect_rc 1; expect_err "bad slot count"
mh -f "$T/no-such-file" "$PMI_PROBE" kvs;    expect_rc 1; expect_err "cannot open host file"
mh -hosts h1 -f "$T/hostfile" "$PMI_PROBE";  expect_rc 1; expect_err "either -hosts or -f"
mh -ppn 0 -hosts h1 "$PMI_PROBE";            expect_rc 1; expect_err "invalid -ppn"
expect_hosts_clean
echo "PASS"
