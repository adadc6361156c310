#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_mpi_test.sh: run one MPI test program and judge it.
#
# usage: run_mpi_test.sh [options] <mpiexec> <nprocs> <program> [args...]
#   --expect-failure     the job must fail (non-zero exit, not a timeout)
#   --blame R            the job must fail because rank R died: stderr
#                        names it ("rank 2", "rank: 2", "rank=2", "rank #2"
#                        as a word, not "kill_rank(+0x2")
#   --stderr-regex RE    stderr must match the extended regex RE
#   --max-seconds S      the job must end within S seconds (wall clock)
#   --timeout S          end the job after S seconds (default
#                        $LC_TEST_TIMEOUT, else 55); a timeout is a failure
#
# At the time limit the job is not just killed: first the stacks of its
# processes (gdb, when installed; else the kernel's wait channel) go to
# stderr, then mpiexec gets SIGTERM and says which ranks had not exited and
# what each was doing, then whatever is left gets SIGKILL 3 s later.  A
# hang that happens once in hundreds of runs leaves its evidence.
#
# A normal test passes when the job exits 0 and prints "No Errors".
# Either way the run fails if it leaves behind
#   - a /dev/shm/locus-* file created during this run that no live
#     process holds open, mapped or locked (Locus must unlink its
#     segments; held is judged by inode, see below), or
#   - a process of this job still alive after mpiexec returned (each job
#     is tagged with a unique LC_TEST_RUN_ID environment variable that the
#     launcher passes on to the ranks).
# Such leftovers are removed/killed so the next test starts clean.  Works with any mpiexec taking `-n N` (Locus's, or
# Debian's mpiexec.mpich to validate the tests themselves).
set -u

expect_failure=0
stderr_regex=""
max_seconds=""
timeout_s="${LC_TEST_TIMEOUT:-55}"
while [ $# -gt 0 ]; do
    case "$1" in
    --expect-failure) expect_failure=1; shift ;;
    --blame)
        expect_failure=1
        stderr_regex="(^|[^a-z0-9_])rank[ :=#]{1,3}$2([^0-9]|\$)"
        shift 2 ;;
    --stderr-regex) stderr_regex="$2"; shift 2 ;;
    --max-seconds) max_seconds="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --) shift; break ;;
    -*) echo "run_mpi_test.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
if [ $# -lt 3 ]; then
    echo "usage: run_mpi_test.sh [options] <mpiexec> <nprocs> <program> [args...]" >&2
    exit 2
fi
mpiexec="$1"; nprocs="$2"; prog="$3"; shift 3

if [ ! -x "$prog" ]; then
    echo "FAIL: test program $prog does not exist or is not executable" >&2
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lc_mpitest.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
run_id="lc$$x${RANDOM}x$(date +%s%N)"

# The directory watched for leaks: /dev/shm (LC_TEST_SHM_DIR: another, for
# test/launcher/t_harness_shm.sh only).
shm_dir="${LC_TEST_SHM_DIR:-/dev/shm}"
shm_list() { (cd "$shm_dir" 2>/dev/null && ls -1d locus-* 2>/dev/null) | sort; }
shm_list >"$tmp/shm.before"

# Processes of this job (the marker variable is in their environment):
# one grep over every environ, not one per process (a fork per process
# costs seconds on a loaded machine).
job_procs() {
    grep -lzxF "LC_TEST_RUN_ID=$run_id" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}

# The job's process tree under `timeout` (pid $1): /proc's children
# lists, not a scan of every process (1-2 s on a loaded machine).
job_tree() {
    local c
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$c"
        job_tree "$c"
    done
}

# Stacks of the job's processes (mpiexec and at most 7 ranks), all
# attached at once and bounded to 4 s (LC_TEST_STACK_SECONDS: another
# bound, for t_harness_timeout.sh under a sanitizer): the runner has only the margin
# testlist.py leaves between the job's limit and ctest's (12 s for
# one-host runs) for stacks, SIGTERM and clean-up.
job_stacks() {
    local p n=0 comm shown=""
    for p in $(job_tree "$job_pid"); do
        comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
        n=$((n + 1))
        [ $n -le 8 ] || { echo "(more processes not shown)" >"$tmp/stack.more"; break; }
        shown="$shown $p"
        {
            echo "--- pid $p ($comm): $(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null) in $(cat "/proc/$p/wchan" 2>/dev/null)"
            if command -v gdb >/dev/null; then
                timeout -k 1 "${LC_TEST_STACK_SECONDS:-4}" gdb -nx -batch -ex 'thread apply all bt' -p "$p" 2>&1 |
                    grep -E '^(Thread|#)' | head -60
            else
                head -30 "/proc/$p/stack" 2>/dev/null
            fi
        } >"$tmp/stack.$p" 2>&1 &
    done
    wait
    for p in $shown; do cat "$tmp/stack.$p"; done
    cat "$tmp/stack.more" 2>/dev/null
}

echo "run: $mpiexec -n $nprocs $prog $* (timeout ${timeout_s}s)"
start_ns=$(date +%s%N)
# Only the job gets the marker variable, not this script's other children.
# `timeout` is the backstop should the watchdog below itself hang.
LC_TEST_RUN_ID="$run_id" timeout -k 5 "$((timeout_s + 30))" \
    "$mpiexec" -n "$nprocs" "$prog" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null &
job_pid=$!
# The watchdog: at the limit, stacks, then SIGTERM (forwarded by timeout to
# mpiexec, which reports its unexited ranks), then SIGKILL to what is left.
(
    limit_ns=$((start_ns + timeout_s * 1000000000))
    while kill -0 "$job_pid" 2>/dev/null; do
        if [ "$(date +%s%N)" -ge "$limit_ns" ]; then
            : >"$tmp/timed_out"
            job_stacks >"$tmp/stacks" 2>&1
            kill -TERM "$job_pid" 2>/dev/null
            for _ in $(seq 30); do kill -0 "$job_pid" 2>/dev/null || exit 0; sleep 0.1; done
            for p in $(job_procs); do kill -KILL "$p" 2>/dev/null; done
            exit 0
        fi
        sleep 0.2
    done
) &
watchdog_pid=$!
wait "$job_pid"
rc=$?
end_ns=$(date +%s%N)
elapsed_ms=$(( (end_ns - start_ns) / 1000000 ))
# Done with the job: the watchdog goes (it signals nothing once it is gone).
kill "$watchdog_pid" 2>/dev/null
wait "$watchdog_pid" 2>/dev/null

cat "$tmp/out"
cat "$tmp/err" >&2
if [ -s "$tmp/stacks" ]; then
    echo "--- stacks of the job's processes at the time limit (${timeout_s}s):" >&2
    cat "$tmp/stacks" >&2
fi

failures=()

# The watchdog fired; or timeout's backstop (124, or 137 once the time is
# up: a job may end by 128+9 itself, a rank killed by 9).
if [ -e "$tmp/timed_out" ] || [ "$rc" -eq 124 ] ||
    { [ "$rc" -eq 137 ] && [ "$elapsed_ms" -ge $((timeout_s * 1000)) ]; }; then
    failures+=("job timed out after ${timeout_s}s (exit $rc)")
elif [ "$expect_failure" -eq 1 ]; then
    [ "$rc" -ne 0 ] || failures+=("job was expected to fail but exited 0")
    if grep -qw 'No Errors' "$tmp/out"; then
        failures+=("job was expected to fail but printed 'No Errors'")
    fi
else
    [ "$rc" -eq 0 ] || failures+=("exit code $rc")
    grep -qw 'No Errors' "$tmp/out" || failures+=("'No Errors' not printed")
fi
if [ -n "$stderr_regex" ] && ! grep -qiE -- "$stderr_regex" "$tmp/err"; then
    failures+=("stderr does not match /$stderr_regex/")
fi
if [ -n "$max_seconds" ] && [ "$elapsed_ms" -gt $((max_seconds * 1000)) ]; then
    failures+=("job took ${elapsed_ms} ms, limit ${max_seconds} s")
fi

# Processes of this job still alive.  Give a short grace period: a
# launcher may return while its children are still being reaped.
left=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
    left=$(job_procs)
    [ -z "$left" ] && break
    sleep 0.2
done
if [ -n "$left" ]; then
    desc=""
    for p in $left; do
        desc="$desc $p:$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60)"
    done
    failures+=("processes of this job still running after mpiexec returned:$desc")
    for p in $left; do kill -KILL "$p" 2>/dev/null; done
fi

# /dev/shm objects (directories since issue 12, or files) this run created
# and nobody holds any more.  What is held is read in one pass over /proc
# (every descriptor and mapping into /dev/shm), not one pass per object:
# the objects new during the run include those of concurrent jobs (a
# 64-rank job starting meanwhile makes 64), and at load 55 the old scan
# (two forks per process per object) took 134 s for 64 of them — past
# ctest's limit, after the job had printed "No Errors" and ended (session
# 11's CI timeout of abi.mpich_binary.persistent.2).
#
# Held means by inode, not by name: the library builds a ring segment
# unnamed (O_TMPFILE) and links it into its directory once it is ready,
# so its creator's descriptor and mapping read "$shm_dir/#<inode>
# (deleted)" in /proc, never its name, and until the first peer opens
# it the creator is its only holder.  Matched by name, a concurrent
# job's segments in that window (seconds, for a slow or oversubscribed
# MPI_Init) looked unheld, and this check removed a live job's rings
# ("cannot open .../rings: No such file or directory" in that job's
# wire-up; launcher.harness_shm's unnamed objects).  Inode numbers are
# compared without the device: every one read here lies under $shm_dir.
#
# shm_objects: "<name> <inode>" for each new object and for each entry in
# it (one pass of find), read BEFORE the holders, so
# that whatever is listed was created, and had its creator's descriptor
# open, before /proc is read.
shm_objects() { # new names on stdin
    cat >"$tmp/shm.want"
    find "$shm_dir" -mindepth 1 -maxdepth 2 -printf '%i %P\n' 2>/dev/null |
        awk -v wantf="$tmp/shm.want" '
            BEGIN { while ((getline l < wantf) > 0) want[l] = 1 }
            { top = $2; sub("/.*", "", top); if (top in want) print top, $1 }'
}
shm_held_inodes() {
    find /proc/[0-9]*/fd -maxdepth 1 -lname "$shm_dir/*" -print0 2>/dev/null |
        xargs -0 -r stat -L -c '%i' 2>/dev/null
    grep -hF " $shm_dir/" /proc/[0-9]*/maps 2>/dev/null | awk '{ print $5 }'
}
# shm_locked: of the names on stdin, those with a file on which a live
# process holds an fcntl lock.  /proc shows only the processes of this
# PID namespace, but a job in another container that shares /dev/shm
# lives too: its ring segments carry their creator's lock from before
# they get their names until the creator dies (lc_shm.c, lc_shm_hold),
# and the kernel answers F_GETLK across namespaces, as it does for the
# library's own sweep of dead jobs (lc_shm_sweep.c).  Without python3,
# nothing is judged this way.
shm_locked() {
    command -v python3 >/dev/null 2>&1 || { cat >/dev/null; return 0; }
    python3 -c '
import fcntl, os, struct, sys
fmt = "hhqqi4x"  # struct flock: l_type, l_whence, l_start, l_len, l_pid
def locked(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        r = fcntl.fcntl(fd, fcntl.F_GETLK, struct.pack(fmt, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0))
        return struct.unpack(fmt, r)[0] != fcntl.F_UNLCK
    except OSError:
        return False
    finally:
        os.close(fd)
for name in sys.stdin.read().split():
    p = os.path.join(sys.argv[1], name)
    try:
        paths = [os.path.join(p, e) for e in os.listdir(p)] if os.path.isdir(p) and not os.path.islink(p) else [p]
    except OSError:
        paths = []
    if any(locked(q) for q in paths):
        print(name)
' "$shm_dir" 2>/dev/null
}
# shm_unheld [locks]: of the names on stdin, those no live process holds
# open or mapped (and, with "locks", locked: a python3 start, seconds
# through a pyenv shim at load 40, so only for the final verdict).
shm_unheld() {
    shm_objects >"$tmp/shm.objs"
    shm_held_inodes >"$tmp/shm.held"
    # An object counts as held when it or anything in it is.
    awk -v heldf="$tmp/shm.held" '
        BEGIN { while ((getline l < heldf) > 0) held[l] = 1 }
        { seen[$1] = 1; if ($2 in held) h[$1] = 1 }
        END { for (n in seen) if (!(n in h)) print n }' "$tmp/shm.objs" >"$tmp/shm.cand"
    if [ "${1:-}" = locks ] && [ -s "$tmp/shm.cand" ]; then
        shm_locked <"$tmp/shm.cand" >"$tmp/shm.locked"
        grep -vxF -f "$tmp/shm.locked" "$tmp/shm.cand"
    else
        cat "$tmp/shm.cand"
    fi
}
# Remove a leaked object: its entries listed when it was judged, then the
# directory if that emptied it — never whatever it holds by now (rm -rf):
# an empty directory may be a live creator's between its mkdir and its
# link, and must fail that link (the library draws another name) rather
# than lose what it links.
shm_remove() {
    local f="$1" i e
    if [ -d "$shm_dir/$f" ] && [ ! -L "$shm_dir/$f" ]; then
        for e in "$shm_dir/$f"/*; do
            [ -e "$e" ] || continue
            i=$(stat -c '%i' "$e" 2>/dev/null) || continue
            grep -qxF "$f $i" "$tmp/shm.objs" && rm -f "$e"
        done
        rmdir "$shm_dir/$f" 2>/dev/null
    else
        rm -f "$shm_dir/$f"
    fi
}
shm_leak=()
for try in 1 2 3 4 5 6 7 8 9 10; do
    shm_list >"$tmp/shm.after"
    comm -13 "$tmp/shm.before" "$tmp/shm.after" >"$tmp/shm.new"
    shm_leak=()
    [ -s "$tmp/shm.new" ] || break
    # Ours or not, a new object counts only when nobody holds it (the
    # job's own processes are gone or killed above).  Not by the pid in
    # its name: $job_pid is timeout's, not mpiexec's, and as a run of
    # digits it matched other jobs' names (a rank number, a hex token),
    # which were then removed whoever held them.
    mapfile -t shm_leak < <(shm_unheld $([ "$try" -eq 10 ] && echo locks) <"$tmp/shm.new" | sort)
    [ ${#shm_leak[@]} -eq 0 ] && break
    sleep 0.2
done
if [ ${#shm_leak[@]} -gt 0 ]; then
    failures+=("left behind in $shm_dir: ${shm_leak[*]}")
    for f in "${shm_leak[@]}"; do shm_remove "$f"; done
fi

if [ ${#failures[@]} -eq 0 ]; then
    echo "PASS: $(basename "$prog") on $nprocs ranks (${elapsed_ms} ms)"
    exit 0
fi
for f in "${failures[@]}"; do
    echo "FAIL: $(basename "$prog") on $nprocs ranks: $f" >&2
done
exit 1
