#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""compare.py - run the Locus micro-benchmarks side by side on Locus, MPICH
and Open MPI and report medians and Locus/best-peer ratios.

Usage
-----
    python3 bench/compare.py --quick            # ~5 min: pt2pt, hosts2, containers2,
                                                # coll4, coll8
    python3 bench/compare.py --scenario hosts2  # 2 emulated hosts (needs root)
    python3 bench/compare.py --scenario containers2  # 2 emulated containers (root)
    python3 bench/compare.py                    # default repetitions (longer)
    python3 bench/compare.py --scenario pt2pt --reps 9
    python3 bench/compare.py --mpis mpich,openmpi --scenario coll4
    python3 bench/compare.py --list             # scenarios and what they measure
    python3 bench/compare.py --quick --scenario io4,io8   # MPI-IO (~5 min each
                                                # quick; not in the default list)
    python3 bench/compare.py --quick --scenario rma,rma-containers2,rma-hosts2
                                                # one-sided, one host / two containers /
                                                # two hosts (not in the default list)

What it does
------------
1. Finds the MPIs: Locus (build/bin/mpicc + build/bin/mpiexec, when built),
   MPICH (mpicc.mpich/mpiexec.mpich), Open MPI (mpicc.openmpi/mpiexec.openmpi).
2. Builds bench/lc_osu_pt2pt.c, bench/lc_osu_coll.c, bench/lc_dt_pingpong.c,
   bench/lc_thread_rate.c
   and bench/lc_io_array.c (each with bench/lc_bench_util.c) with each MPI's own
   compiler wrapper into build/bench/<mpi>/ (always rebuilt; it takes seconds).
3. Runs each scenario R times, alternating the MPIs run by run (Locus,
   MPICH, Open MPI, Locus, ...), every run under a timeout; a run that fails,
   hangs or fails data validation (-c) is reported as such, never as a number.
4. Prints one table per scenario with the median per metric and the ratio
   subject/best-peer (subject = Locus when present): for latency
   Locus/min(peers), lower is better; for bandwidth Locus/max(peers), higher
   is better.  Writes build/bench/report.md, results.csv (every run),
   summary.csv, results.json, logs/ (each run's output) and, when matplotlib
   is importable, one PNG per scenario.

Scenario hosts2 builds two emulated hosts with scripts/lc-hosts (a set
named bench-<pid>-<n>, with a TTL), runs each MPI's launcher inside h1 with
its own remote launch pointed at the set's agent, checks after every run
that nothing is left on either host, and tears the set down when the
scenario ends, fails or is interrupted.  Scenario containers2 does the same
with one host and two Docker-like containers in it (lc-hosts container),
one rank in each, the launcher in c1; Locus gets LOCUS_SHM_DIR on the host
directory bind-mounted into both, and is also measured with both ranks in
c1 as "Locus (1 container)", the reference of its Locus/Locus (1 container)
ratio (never a peer in the best-peer ratio).

Python 3 standard library only.  See docs/performance.md for the methodology.
"""

import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import shlex
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH_SRC = ROOT / "bench"
UTIL_SRC = BENCH_SRC / "lc_bench_util.c"
PROGRAMS = {"pt2pt": BENCH_SRC / "lc_osu_pt2pt.c", "coll": BENCH_SRC / "lc_osu_coll.c",
            "dt": BENCH_SRC / "lc_dt_pingpong.c", "io": BENCH_SRC / "lc_io_array.c",
            "icoll": BENCH_SRC / "lc_osu_icoll.c", "threads": BENCH_SRC / "lc_thread_rate.c",
            "rma": BENCH_SRC / "lc_osu_rma.c"}
# The switch that turns on each MPI's asynchronous progress thread; the
# icoll scenarios also measure each MPI that has one with it on, as the
# variant "<MPI> +async" (Open MPI 4.1 has no such switch).
ASYNC_SWITCH = {"locus": "LOCUS_ASYNC_PROGRESS", "mpich": "MPICH_ASYNC_PROGRESS"}
# Locus with each large-message protocol forced, measured beside its
# automatic choice in the one-host point-to-point scenario (issue 13: the
# automatic choice within 5 % of the better forced protocol): key suffix,
# label suffix, environment.
# "CMA forced" is one core's pull (LOCUS_CMA_SPLIT=auto splits only where
# the pick measures, and a fixed threshold does not); "CMA split forced"
# splits every pull that can be (more than one 128 KiB chunk) with the
# sender (docs/architecture.md, "The split copy").
PROTOCOL_VARIANTS = [("cma", "CMA forced", {"LOCUS_CMA_THRESHOLD": "0", "LOCUS_CMA_SPLIT": "0"}),
                     ("cmasplit", "CMA split forced", {"LOCUS_CMA_THRESHOLD": "0", "LOCUS_CMA_SPLIT": "1"}),
                     ("pipe", "pipeline forced", {"LOCUS_CMA_THRESHOLD": "1g"})]
CFLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-D_GNU_SOURCE"]

KiB = 1024
MiB = 1024 * 1024


# ---------------------------------------------------------------- helpers

def fmt_size(n):
    """8 -> '8B', 4096 -> '4KiB', 1048576 -> '1MiB'."""
    if n >= MiB and n % MiB == 0:
        return f"{n // MiB}MiB"
    if n >= KiB and n % KiB == 0:
        return f"{n // KiB}KiB"
    return f"{n}B"


def shown_path(p):
    """Path relative to the repository when inside it, else absolute."""
    p = Path(p).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def progress(msg):
    try:
        print(msg, file=sys.stderr, flush=True)
    except OSError:
        pass  # stderr closed (e.g. piped into head): keep measuring


def ncores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def loadavg():
    try:
        return Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        return ["?", "?", "?"]


def cpu_busy(seconds=1.0):
    """Cores' worth of CPU in use by everything on the host over a short
    sample (0.0 = idle, 2.0 = two cores busy), from /proc/stat."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)
        return sum(v), idle
    try:
        t1, i1 = sample()
        time.sleep(seconds)
        t2, i2 = sample()
    except (OSError, ValueError):
        return None
    if t2 <= t1:
        return None
    return ncores() * (1.0 - (i2 - i1) / (t2 - t1))


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# ------------------------------------------------------- process control

def session_pids(sid):
    """Pids of processes in session `sid` or process group `sid` (the
    launcher is started with start_new_session, so its pid is both)."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        # Fields after the parenthesised command: state ppid pgrp session
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) >= 4 and (int(fields[2]) == sid or int(fields[3]) == sid):
            pids.append(int(d.name))
    return pids


def kill_session(sid):
    """Ends every process the launcher started (by id), TERM then KILL."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = session_pids(sid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.time() + 2.0
        while time.time() < deadline and session_pids(sid):
            time.sleep(0.05)


def run_cmd(argv, env, timeout):
    """Runs argv in its own session. Returns (status, stdout, stderr, secs)
    where status is 'ok', 'exit N' or 'timeout'."""
    t0 = time.time()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, env=env, text=True,
                         errors="replace", start_new_session=True)
    try:
        try:
            out, err = p.communicate(timeout=timeout)
            status = "ok" if p.returncode == 0 else f"exit {p.returncode}"
        except subprocess.TimeoutExpired:
            status = "timeout"
            kill_session(p.pid)
            try:
                out, err = p.communicate(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
    finally:
        # Also on success or Ctrl-C: nothing of this run may outlive it.
        if p.poll() is None:
            p.kill()
            p.wait()
        kill_session(p.pid)
    return status, out or "", err or "", time.time() - t0


# ------------------------------------------------------------------ MPIs

class Mpi:
    def __init__(self, key, label, cc, cc_env, mpiexec):
        self.key = key            # locus, mpich, openmpi
        self.label = label        # Locus, MPICH, OpenMPI
        self.cc = cc
        self.cc_env = cc_env      # variable that selects the C compiler
        self.mpiexec = mpiexec
        self.env = {}             # extra environment for runs (--env)
        self.bins = {}            # program -> path
        self.error = None         # why it is unusable
        self.library = None       # from the benchmark header
        self.linked = None        # ldd line of the MPI library
        self.ref_of = None        # reference placement of this MPI key (below)
        self.variant_of = None    # the MPI this one is a configuration of (below)

    def one_container_reference(self):
        """A pseudo-MPI for the container scenarios: the same MPI (same
        binaries and launcher) with all ranks in ONE container, measured
        alongside as the reference for its cross-container numbers.  It is
        never a peer: best-peer ratios ignore it."""
        ref = Mpi(f"{self.key}-1ct", f"{self.label} (1 container)", self.cc,
                  self.cc_env, self.mpiexec)
        ref.env, ref.bins, ref.linked, ref.ref_of = self.env, self.bins, self.linked, self.key
        return ref

    def one_guest_reference(self):
        """As one_container_reference, for the VM scenarios: all ranks in
        the first guest (shared memory inside one kernel)."""
        ref = self.one_container_reference()
        ref.key, ref.label = f"{self.key}-1vm", f"{self.label} (1 guest)"
        return ref

    def variant(self, suffix, label, env):
        """A pseudo-MPI: the same MPI (binaries, launcher) run with `env`
        added.  A variant of the subject is compared with the best peer in
        a column of its own; a variant of another MPI is one more peer."""
        v = Mpi(f"{self.key}-{suffix}", f"{self.label} {label}", self.cc, self.cc_env, self.mpiexec)
        v.env = dict(self.env, **env)
        v.bins, v.linked, v.variant_of = self.bins, self.linked, self.key
        return v

    def async_variant(self):
        """This MPI with its asynchronous progress thread on (ASYNC_SWITCH)."""
        return self.variant("async", "+async", {ASYNC_SWITCH[self.key]: "1"})

    def locus_genv(self, env):
        """-genv options that pass `env` to Locus' ranks (none for others:
        LOCUS_* variables mean nothing to MPICH or Open MPI)."""
        if (self.ref_of or self.key) != "locus":
            return []
        return [a for k, v in sorted(env.items()) for a in ("-genv", k, v)]

    def launch_local(self, np_, env):
        """Launcher argv (Locus' mpiexec) for np_ unbound ranks where the
        launcher itself runs (inside one container)."""
        return [self.mpiexec] + self.locus_genv(env) + ["-n", str(np_)]

    def launch(self, np_, bind, extra_cores):
        """Launcher argv up to the program.  bind: True binds each rank to
        its own core; False leaves ranks unbound."""
        if self.key == "openmpi":
            argv = [self.mpiexec]
            if os.geteuid() == 0:
                argv.append("--allow-run-as-root")
            argv += ["--bind-to", "core" if bind else "none"]
            if np_ > extra_cores:
                argv.append("--oversubscribe")
            return argv + ["-n", str(np_)]
        # Hydra (MPICH) and Locus' mpiexec take the same spelling; both
        # leave ranks unbound by default.
        argv = [self.mpiexec]
        if bind:
            argv += ["-bind-to", "core"]
        return argv + ["-n", str(np_)]

    def launch_hosts(self, hosts, agent, env=None):
        """Launcher argv up to the program for one rank on each of `hosts`
        (emulated hosts or containers), each MPI starting its remote
        processes through its own remote-launch mechanism pointed at the
        lc-hosts agent (an ssh look-alike).  The launcher itself runs inside
        hosts[0].  Ranks are left unbound: each host's launcher would
        otherwise put its one rank on core 0, both ranks on the same core.
        env: variables for Locus' ranks (-genv), e.g. LOCUS_SHM_DIR."""
        n = str(len(hosts))
        if self.key == "locus":
            return [self.mpiexec, "-launcher-exec", agent] + self.locus_genv(env or {}) + \
                   ["-hosts", ",".join(f"{h}:1" for h in hosts), "-n", n]
        if self.key == "mpich":
            # Hydra: ssh launcher with our agent as its executable; -iface
            # makes the proxies call back on the hosts' network.
            return [self.mpiexec, "-launcher", "ssh", "-launcher-exec", agent,
                    "-iface", "eth0", "-hosts", ",".join(f"{h}:1" for h in hosts),
                    "-n", n]
        # Open MPI: rsh/ssh launcher with our agent; TCP BTL (ob1) on eth0,
        # and its out-of-band channel (daemon wire-up) on eth0 too.
        argv = [self.mpiexec]
        if os.geteuid() == 0:
            argv.append("--allow-run-as-root")
        return argv + ["--mca", "plm_rsh_agent", agent,
                       "--host", ",".join(hosts), "--bind-to", "none",
                       "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
                       "--mca", "btl_tcp_if_include", "eth0",
                       "--mca", "oob_tcp_if_include", "eth0", "-n", n]


def find_mpis(args):
    found = []
    locus_bin = Path(args.locus_bin)
    cands = [
        ("locus", "Locus", locus_bin / "mpicc", "LOCUS_CC", locus_bin / "mpiexec"),
        ("mpich", "MPICH", shutil.which("mpicc.mpich"), "MPICH_CC",
         shutil.which("mpiexec.mpich")),
        ("openmpi", "OpenMPI", shutil.which("mpicc.openmpi"), "OMPI_CC",
         shutil.which("mpiexec.openmpi")),
    ]
    wanted = [m.strip() for m in args.mpis.split(",") if m.strip()]
    for key in wanted:
        if key not in [c[0] for c in cands]:
            sys.exit(f"compare.py: unknown MPI '{key}' (locus, mpich, openmpi)")
    for key, label, cc, cc_env, mpiexec in cands:
        if key not in wanted:
            continue
        m = Mpi(key, label, str(cc) if cc else None, cc_env,
                str(mpiexec) if mpiexec else None)
        if not (cc and mpiexec and os.access(cc, os.X_OK) and os.access(mpiexec, os.X_OK)):
            m.error = "not found"
        found.append(m)
    for spec in args.env:
        try:
            key, assign = spec.split(":", 1)
            var, val = assign.split("=", 1)
        except ValueError:
            sys.exit(f"compare.py: --env wants MPI:VAR=VALUE, got '{spec}'")
        for m in found:
            if m.key == key:
                m.env[var] = val
    return found


def build(mpi, outdir, werror):
    """Builds every benchmark program with the MPI's wrapper."""
    d = outdir / mpi.key
    d.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if os.environ.get("CC") and mpi.cc_env:
        env[mpi.cc_env] = os.environ["CC"]
    for prog, src in PROGRAMS.items():
        exe = d / src.stem
        cmd = [mpi.cc] + CFLAGS + (["-Werror"] if werror else []) + \
              ["-o", str(exe), str(src), str(UTIL_SRC)]
        progress(f"build  {mpi.label:8s} {shown_path(exe)}")
        status, out, err, _ = run_cmd(cmd, env, 120)
        if status != "ok":
            mpi.error = f"build of {src.name} failed ({status}): " + \
                        (err.strip().splitlines() or ["?"])[-1][:300]
            (d / f"build-{prog}.log").write_text(" ".join(cmd) + "\n" + out + err)
            return False
        mpi.bins[prog] = str(exe)
    try:
        ldd = subprocess.run(["ldd", mpi.bins["pt2pt"]], capture_output=True,
                             text=True, timeout=20).stdout
        lines = [l.strip() for l in ldd.splitlines() if "libmpi" in l]
        mpi.linked = "; ".join(lines) if lines else "?"
    except (OSError, subprocess.SubprocessError):
        lines, mpi.linked = [], "?"
    if mpi.key == "locus":
        # A wrapper's bare -lmpi silently picks up another MPI's libmpi.so
        # when Locus' own library is missing: measuring that as "Locus"
        # would be a fake result, so insist on Locus' lib directory.
        libdir = str(Path(mpi.cc).resolve().parent.parent / "lib") + "/"
        resolved = [l.split("=>", 1)[1].strip().split(" (")[0] for l in lines if "=>" in l]
        if not resolved or not all(r.startswith(libdir) for r in resolved):
            mpi.error = (f"binaries link {mpi.linked or 'no MPI library'}, not Locus' "
                         f"library in {libdir} (is libmpi.so.12 built?)")
            return False
    return True


# -------------------------------------------------------------- scenarios

class Metric:
    def __init__(self, label, test, size, col, unit, lower_better):
        self.label, self.test, self.size, self.col = label, test, size, col
        self.unit, self.lower_better = unit, lower_better


class Job:
    """One benchmark invocation per MPI per repetition."""

    def __init__(self, name, prog, args, metrics):
        self.name, self.prog, self.args, self.metrics = name, prog, args, metrics


class Scenario:
    def __init__(self, name, desc, np_, bind, jobs, reps, timeout, hosts=0, containers=0,
                 async_variants=False, vms=0, protocol_variants=False):
        self.name, self.desc, self.np, self.bind = name, desc, np_, bind
        self.async_variants = async_variants  # also run each MPI with its progress thread
        self.protocol_variants = protocol_variants  # also run Locus with each protocol forced
        self.jobs, self.reps, self.timeout = jobs, reps, timeout
        # hosts > 0: emulated hosts; without containers, one rank on each.
        # containers > 0: that many containers in h1, one rank in each, and
        # Locus also measured with all ranks in the first container
        # (pseudo-MPI "Locus (1 container)", the reference of its ratio).
        self.hosts, self.containers = hosts, containers
        # vms > 0: that many QEMU guests (scripts/vm/run-guests.sh), one
        # rank in each, and Locus also with all ranks in the first guest.
        self.vms = vms
        self.accel = None         # "kvm: why" / "tcg: why" (run_scenario_vms)
        self.hostset = None       # the HostSet while (and after) it runs
        self.mpis = []            # what it runs, in run order (set by main)
        self.bins = {}            # MPI key -> {program: path} staged for the containers
        self.skip = {}            # MPI key -> why it cannot run here

    def with_references(self, usable):
        """The MPIs this scenario runs, in run (and column) order: the usable
        MPIs, then in container scenarios Locus' one-container reference."""
        refs = [m.one_container_reference() for m in usable
                if self.containers and m.key == "locus"]
        refs += [m.one_guest_reference() for m in usable if self.vms and m.key == "locus"]
        variants = [m.async_variant() for m in usable
                    if self.async_variants and m.key in ASYNC_SWITCH]
        variants += [m.variant(*pv) for m in usable if self.protocol_variants and m.key == "locus"
                     for pv in PROTOCOL_VARIANTS]
        # Each variant right after its MPI: runs alternate base, +async, ...
        order = []
        for m in usable:
            order.append(m)
            order += [v for v in variants if v.variant_of == m.key]
        return order + refs

    def locus_env(self):
        """Environment for Locus' ranks that the placement calls for: in
        containers the bind-mounted host directory as LOCUS_SHM_DIR (what
        docs/containers.md tells users to do)."""
        if not self.containers:
            return {}
        return {"LOCUS_SHM_DIR": self.hostset.shared_dir or "DIR"}

    def launch(self, mpi, cores):
        """Full launcher argv up to the program, as the harness runs it."""
        if self.vms:
            return vms_launch(mpi, self.vms)
        if self.hosts:
            hs = self.hostset
            nodes = hs.containers or hs.hosts
            if mpi.ref_of:
                return hs.run_argv(nodes[0]) + mpi.launch_local(self.np, self.locus_env())
            return hs.run_argv(nodes[0]) + \
                mpi.launch_hosts(nodes, hs.agent or "AGENT", self.locus_env())
        return mpi.launch(self.np, self.bind, cores)

    def pinning(self):
        """Argv prefix that runs a rank on its emulated host's own core:
        host hK on core (K-1) mod cores, the same for every MPI (their own
        binding is off), as real hosts each have their own CPUs.  Unpinned,
        the two ranks of hosts2 sometimes shared a core with the other's
        softirq work, and the 8 B latency of every MPI jumped between
        about 6.3 and 8.5 us from run to run.  Containers share their host's
        cores (as Docker's do): not pinned."""
        if not self.hosts or self.containers:
            return []
        return ["/bin/sh", "-c",
                'n=$(hostname); exec taskset -c $(( (${n#h} - 1) % $(nproc --all) )) "$@"',
                "lc-pin"]

    def program(self, mpi, prog):
        """Path of a benchmark program as the ranks see it."""
        return self.bins.get(mpi.ref_of or mpi.key, {}).get(prog, mpi.bins[prog])


# ------------------------------------------------------------ emulated hosts

LC_HOSTS = ROOT / "scripts" / "lc-hosts"


class HostSet:
    """A set of emulated hosts (scripts/lc-hosts) made for one scenario.
    Its name is unique to this harness process; `down` is idempotent and is
    called when the scenario ends, fails or is interrupted.  A TTL makes the
    set expire by itself even if the harness is killed outright."""

    def __init__(self, n, ttl):
        self.name = f"bench-{os.getpid()}-{int(time.time()) % 100000}"
        self.hosts = [f"h{i}" for i in range(1, n + 1)]
        self.n, self.ttl = n, int(ttl)
        self.agent = None
        self.is_up = False
        self.containers = []      # containers made (add_container), in order
        self.shared_dir = None    # the host directory bind-mounted into them

    def _lc(self, *args, timeout=60):
        return subprocess.run([str(LC_HOSTS)] + [str(a) for a in args],
                              capture_output=True, text=True, timeout=timeout)

    def up(self):
        """None when the hosts are up, else why not."""
        r = self._lc("check")
        if r.returncode != 0:
            return "emulated hosts cannot be built here: " + \
                   (r.stderr.strip() or f"lc-hosts check exit {r.returncode}")
        self.is_up = True  # from here on, down() must run
        r = self._lc("up", self.name, self.n, "--ttl", self.ttl)
        if r.returncode != 0:
            return f"lc-hosts up {self.name} failed: {r.stderr.strip()}"
        r = self._lc("agent", self.name)
        if r.returncode != 0 or not r.stdout.strip():
            return f"lc-hosts agent {self.name} failed: {r.stderr.strip()}"
        self.agent = r.stdout.strip()
        return None

    def add_container(self, cname, host):
        """Container cname in host, Docker-default namespaces plus the set's
        shared directory.  None when it is up, else why not."""
        r = self._lc("container", self.name, host, cname)
        if r.returncode != 0:
            return f"lc-hosts container {self.name} {host} {cname} failed: {r.stderr.strip()}"
        # "name address host directory"
        fields = r.stdout.split()
        if len(fields) != 4 or not fields[3].startswith("/"):
            return f"lc-hosts container printed '{r.stdout.strip()}', not a shared directory"
        if self.shared_dir not in (None, fields[3]):
            return (f"containers {self.containers[0]} and {cname} got different shared "
                    f"directories ({self.shared_dir}, {fields[3]})")
        self.shared_dir = fields[3]
        self.containers.append(cname)
        return None

    def run_argv(self, node):
        return [str(LC_HOSTS), "run", self.name, node]

    def missing(self, node, paths):
        """Those of paths that are not executable files inside node (a
        container's /tmp, for one, is its own)."""
        r = self._lc("run", self.name, node, "sh", "-c",
                     'for f; do [ -f "$f" ] && [ -x "$f" ] || echo "$f"; done', "sh", *paths)
        if r.returncode != 0:
            return list(paths)
        return [l for l in r.stdout.splitlines() if l]

    def leftovers(self):
        """{pid: command} of processes still running in any host or container."""
        left = {}
        for h in self.hosts + self.containers:
            try:
                r = self._lc("procs", self.name, h, timeout=20)
            except subprocess.TimeoutExpired:
                continue
            for line in r.stdout.splitlines():
                pid, _, cmd = line.partition(" ")
                if pid.isdigit():
                    left[int(pid)] = f"{h}: {cmd}"
        return left

    def clean(self, grace=5.0):
        """After a run: wait for the job's processes on every host to end
        (the agent hangs remote commands up when their client is gone),
        then end the rest by process id.  Returns what had to be killed."""
        deadline = time.time() + grace
        left = self.leftovers()
        while left and time.time() < deadline:
            time.sleep(0.2)
            left = self.leftovers()
        if not left:
            return {}
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in self.leftovers():
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            time.sleep(1.0)
        return left

    def down(self):
        if not self.is_up:
            return
        try:
            r = self._lc("down", self.name)
            if r.returncode != 0:
                progress(f"warning: lc-hosts down {self.name}: {r.stderr.strip()}")
            else:
                self.is_up = False
        except (OSError, subprocess.SubprocessError) as e:
            progress(f"warning: lc-hosts down {self.name}: {e}")


def lat_job(sizes, iters=None):
    args = ["-t", "lat", "-S", ",".join(map(str, sizes))]
    if iters:
        args += iters
    return Job("lat", "pt2pt", args,
               [Metric(f"lat {fmt_size(s)} (us)", "lat", s, "latency_us", "us", True)
                for s in sizes])


def bw_job(test, sizes, iters=None):
    args = ["-t", test, "-S", ",".join(map(str, sizes))]
    if iters:
        args += iters
    return Job(test, "pt2pt", args,
               [Metric(f"{test} {fmt_size(s)} (MB/s)", test, s, "bandwidth_MBps", "MB/s", False)
                for s in sizes])


def rma_jobs(flavor, quick):
    """One-sided (bench/lc_osu_rma.c, the OSU method): put/get latency with
    lock + flush per iteration, bandwidth with 32 per flush, 8 B put/get
    latency with fence, and 8 B Accumulate, Fetch_and_op and
    Compare_and_swap latency with lock + flush; 8 B puts and accumulates
    with 20,000 per flush (time per operation); rank 1 waits in a barrier.
    flavor "allocate" (MPI_Win_allocate) or "create" (MPI_Win_create on
    malloc'd memory).  Compare_and_swap runs as a job of its own: Open MPI
    4.1.4 crashes in it on one host, and the other figures stay."""
    args = ["500" if quick else "2000", flavor]
    tag = "" if flavor == "allocate" else " create"
    ms = [Metric(f"put{tag} {fmt_size(s)} (us)", "put_latency", s, "value", "us", True) for s in (8, 64 * KiB)]
    ms += [Metric(f"get{tag} {fmt_size(s)} (us)", "get_latency", s, "value", "us", True) for s in (8, 64 * KiB)]
    ms += [Metric(f"put fence{tag} 8B (us)", "put_fence_latency", 8, "value", "us", True),
           Metric(f"get fence{tag} 8B (us)", "get_fence_latency", 8, "value", "us", True)]
    ms += [Metric(f"put_bw{tag} {fmt_size(s)} (MB/s)", "put_bw", s, "value", "MB/s", False) for s in (MiB,)]
    ms += [Metric(f"get_bw{tag} {fmt_size(s)} (MB/s)", "get_bw", s, "value", "MB/s", False) for s in (MiB,)]
    ms += [Metric(f"put x20000/flush{tag} 8B (us)", "put_epoch", 8, "value", "us", True),
           Metric(f"accumulate x20000/flush{tag} 8B (us)", "acc_epoch", 8, "value", "us", True)]
    ms += [Metric(f"accumulate{tag} 8B (us)", "acc_latency", 8, "value", "us", True),
           Metric(f"fetch_and_op{tag} 8B (us)", "fetch_and_op_latency", 8, "value", "us", True)]
    name = "rma" if flavor == "allocate" else "rmac"
    return [Job(name, "rma", args + ["nocas"], ms),
            Job(name + "-cas", "rma", args + ["cas"],
                [Metric(f"compare_and_swap{tag} 8B (us)", "cas_latency", 8, "value", "us", True)])]


def mr_job(sizes):
    args = ["-t", "mr", "-S", ",".join(map(str, sizes))]
    return Job("mr", "pt2pt", args,
               [Metric(f"msg rate {fmt_size(s)} (msg/s)", "mr", s, "messages_per_s", "msg/s", False)
                for s in sizes])


def thread_rate_job(threads, quick, by="comm"):
    """Multi-threaded message rate (bench/lc_thread_rate.c): T threads per
    rank, thread t of rank 0 paired with thread t of rank 1 on its own
    communicator (by="tag": one communicator, a tag per pair), windows of
    64 8 B Isend/Irecv; messages/s over all pairs.  -i is shared out among
    the threads (Open MPI 4.1 moves ~5k msg/s with 2+ threads here).  Each program run asks
    for MPI_THREAD_MULTIPLE and prints the level provided (it fails
    without it).  Run length: at 2-6 M msg/s the old -i 2000 (quick) and
    6000 lasted 20-200 ms per T, a few scheduler slices of 4 threads on 2
    cores, so where the kernel first put the threads decided the figure
    (one set: Locus 4 pairs 6.1 M above its 2 pairs' 1.9 M, MPICH 2 pairs
    45 k-3.8 M); now ~0.3-2 s per T for both MPIs (session 18, h2)."""
    args = ["-T", ",".join(map(str, threads)), "-m", by] + \
        (["-i", "20000", "-x", "200"] if quick else ["-i", "60000", "-x", "500"])
    return Job(f"thr-{by}", "threads", args,
               [Metric(f"{by} {t} thr x pairs 8B (msg/s)", f"mr_t{t}", 8, "messages_per_s",
                       "msg/s", False) for t in threads])


COLLS = ["barrier", "bcast", "reduce", "allreduce", "gather", "scatter",
         "allgather", "alltoall", "reduce_scatter"]


def dt_job(quick):
    """Derived-datatype ping-pong (bench/lc_dt_pingpong.c): bandwidth of
    packed data per layout: vectors of 64 B blocks at a 128 B stride
    (4 KiB - 16 MiB), the x/y/z faces of N^3 arrays of doubles (N = 32 ..
    512: 8 KiB - 2 MiB), and the same bytes contiguous (MPI_BYTE) beside
    each vector and face size."""
    vec = [4 * KiB, 64 * KiB, 256 * KiB, MiB, 4 * MiB, 16 * MiB]
    face = [8 * KiB, 32 * KiB, 128 * KiB, 512 * KiB, 2 * MiB]
    layouts = [(t, s) for s in vec for t in ("vector", "contig")]
    layouts += [(t, s) for s in face for t in ("face_x", "face_y", "face_z", "contig")]
    return Job("dt", "dt", ["--quick"] if quick else [],
               [Metric(f"{t} {fmt_size(s)} (MB/s)", t, s, "bandwidth_MBps", "MB/s", False)
                for t, s in layouts])


# Where the I/O scenarios put their files: tmpfs, and the machine's disk
# (/var/tmp is on the root file system; /tmp may be tmpfs elsewhere).
IO_DIRS = [("shm", "/dev/shm"), ("disk", "/var/tmp")]


def io_jobs(quick):
    """MPI-IO (bench/lc_io_array.c): collective (write_all/read_all) and
    independent (write_at/read_at) write and read of a block-distributed
    3-D array of doubles through a subarray view, one job per file system;
    MiB/s = array bytes / slowest rank's time, best of the program's -r
    repetitions, the write including MPI_File_sync."""
    sizes = [64 * MiB, 256 * MiB] if quick else [64 * MiB, 256 * MiB, 1024 * MiB]
    tests = ["coll_write", "coll_read", "indep_write", "indep_read"]
    jobs = []
    for fs, d in IO_DIRS:
        args = ["-d", d, "-S", ",".join(f"{s // MiB}M" for s in sizes),
                "-r", "2" if quick else "3"]
        jobs.append(Job(f"io-{fs}", "io", args,
                        [Metric(f"{fs} {t.replace('_', ' ')} {fmt_size(s)} (MiB/s)", t, s,
                                "bandwidth_MiBps", "MiB/s", False)
                         for s in sizes for t in tests]))
    return jobs


def coll_job(sizes, iters):
    metrics = [Metric("barrier (us)", "barrier", 0, "avg_latency_us", "us", True)]
    for c in COLLS[1:]:
        for s in sizes:
            metrics.append(Metric(f"{c} {fmt_size(s)} (us)", c, s, "avg_latency_us", "us", True))
    return Job("coll", "coll", ["-t", "all", "-S", ",".join(map(str, sizes))] + iters, metrics)


def icoll_job(quick):
    """Nonblocking collectives (bench/lc_osu_icoll.c): 8 B latency of the
    blocking and nonblocking barrier and allreduce, and for Iallreduce and
    Ialltoall of 1 MiB the OSU overlap: compute as long as the operation
    between start and wait, without MPI calls (only a progress thread
    overlaps) and with 16 MPI_Test calls spread over it."""
    lat = [("ibarrier_latency", 0, "ibarrier"), ("barrier_latency", 0, "barrier"),
           ("iallreduce_latency", 8, "iallreduce 8 B"), ("allreduce_latency", 8, "allreduce 8 B")]
    metrics = [Metric(f"{label} (us)", t, sz, "value", "us", True) for t, sz, label in lat]
    for op in ("iallreduce", "ialltoall"):
        metrics.append(Metric(f"{op} 1 MiB (us)", f"{op}_pure", MiB, "value", "us", True))
        metrics.append(Metric(f"{op} 1 MiB overlap, no MPI calls (%)", f"{op}_overlap_tests0",
                              MiB, "value", "%", False))
        metrics.append(Metric(f"{op} 1 MiB overlap, 16 MPI_Test (%)", f"{op}_overlap_tests16",
                              MiB, "value", "%", False))
    return Job("icoll", "icoll", ["-s", str(MiB), "-i", "300" if quick else "1000"], metrics)


def scenarios(quick):
    """Scenario table.  --quick trims repetitions, sizes and iterations so
    that the default scenarios finish in a few minutes."""
    pt2pt_reps = 5 if quick else 9
    coll_reps = 3 if quick else 5
    coll_sizes = [8, 4 * KiB] if quick else [8, 4 * KiB, 64 * KiB]
    coll4_it = ["-i", "20", "-I", "5", "-x", "3", "-X", "1"] if quick else \
               ["-i", "100", "-I", "20", "-x", "10", "-X", "2"]
    coll8_it = ["-i", "20", "-I", "5", "-x", "3", "-X", "1"] if quick else \
               ["-i", "50", "-I", "10", "-x", "5", "-X", "1"]
    sweep = [2 ** k for k in range(0, 23, 1 if not quick else 2)]
    return {
        "pt2pt": Scenario(
            "pt2pt", "2 ranks on one host, each bound to its own core: "
            "ping-pong latency and windowed bandwidth",
            2, True,
            [lat_job([8, 4 * KiB]), bw_job("bw", [64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB])],
            pt2pt_reps, 60, protocol_variants=True),
        "sweep": Scenario(
            "sweep", "2 ranks on one host, bound: latency, bandwidth and "
            "bidirectional bandwidth over power-of-two sizes 1 B - 4 MiB",
            2, True,
            [lat_job(sweep), bw_job("bw", sweep), bw_job("bibw", sweep)],
            3 if quick else 5, 120),
        "mr": Scenario(
            "mr", "2 ranks on one host (1 pair), bound: small-message rate",
            2, True, [mr_job([1, 8, 64, 512, 4 * KiB])], 3 if quick else 5, 60),
        "threads2": Scenario(
            "threads2", "2 ranks on one host, unbound, MPI_THREAD_MULTIPLE: "
            "message rate of T = 1, 2, 4 thread pairs (one communicator per "
            "pair, and one shared communicator with a tag per pair)",
            2, False, [thread_rate_job([1, 2, 4], quick),
                       thread_rate_job([1, 2, 4], quick, "tag")],
            # MPICH's 2-4 pair runs take 60-110 s quick at load ~30
            3 if quick else 5, 300 if quick else 900),
        "dt2": Scenario(
            "dt2", "2 ranks on one host, each bound to its own core: ping-pong "
            "of derived datatypes (vectors of 64 B blocks at a 128 B stride, 4 KiB - 16 MiB; "
            "the x/y/z faces of N^3 arrays of doubles, N = 32 .. 512: 8 KiB - 2 MiB) "
            "with the type on both sides, and the same bytes contiguous for reference",
            2, True, [dt_job(quick)], 3 if quick else 5, 180),
        "hosts2": Scenario(
            "hosts2", "2 ranks on two emulated hosts (scripts/lc-hosts: network "
            "namespaces joined by veths and a bridge), one rank each, each host pinned to its own core; "
            "each MPI's launcher runs in h1 and starts the rank on h2 through "
            "the lc-hosts agent: ping-pong latency and windowed bandwidth",
            2, False,
            [lat_job([8, 4 * KiB], ["-i", "2000", "-x", "100"] if quick else None),
             bw_job("bw", [64 * KiB, 1 * MiB, 4 * MiB])],
            3 if quick else 7, 60, hosts=2),
        "rma": Scenario(
            "rma", "2 ranks on one host, each bound to its own core (as pt2pt): "
            "one-sided put/get latency and bandwidth with lock + flush, 8 B put/get "
            "with fence, 8 B Accumulate, Fetch_and_op and Compare_and_swap latency, "
            "on MPI_Win_allocate and MPI_Win_create windows (Locus: loads, stores "
            "and a lock in a shared segment for Win_allocate; on Win_create active "
            "messages answered in the target's packet handler; puts and gets "
            "by active message or CMA, measured per size class up to 64 KiB, "
            "LOCUS_RMA_AM_MAX)",
            2, True, rma_jobs("allocate", quick) + rma_jobs("create", quick),
            3 if quick else 5, 120),
        "rma-hosts2": Scenario(
            "rma-hosts2", "2 ranks on two emulated hosts placed as in hosts2: "
            "one-sided metrics as in rma "
            "(Locus: libfabric RMA for puts and gets, active messages for the rest)",
            2, False, rma_jobs("allocate", quick) + rma_jobs("create", quick),
            3 if quick else 5, 120, hosts=2),
        "rma-containers2": Scenario(
            "rma-containers2", "2 ranks in two emulated Docker-like containers "
            "placed as in containers2 (Locus with LOCUS_SHM_DIR on the shared "
            "directory, and as reference with both ranks in c1): one-sided "
            "metrics as in rma (Locus: Win_allocate in a segment of the shared "
            "directory, loads and stores across the containers; Win_create by "
            "active messages through the shared-memory rings, large puts and gets "
            "streamed through them like rendezvous messages, no CMA across PID "
            "namespaces)",
            2, False, rma_jobs("allocate", quick) + rma_jobs("create", quick),
            3 if quick else 5, 120, hosts=1, containers=2),
        "containers2": Scenario(
            "containers2", "2 ranks in two emulated Docker-like containers on "
            "one host (scripts/lc-hosts: own UTS, PID, IPC, mount and network "
            "namespaces, private /dev/shm; one host directory bind-mounted into "
            "both), one rank each, unbound; launchers run in c1 and start the "
            "rank in c2 through the lc-hosts agent; Locus with LOCUS_SHM_DIR on "
            "that directory, and as reference with both ranks in c1: ping-pong "
            "latency and windowed bandwidth",
            2, False,
            [lat_job([8, 4 * KiB]), bw_job("bw", [64 * KiB, 1 * MiB, 4 * MiB])],
            3 if quick else 7, 60, hosts=1, containers=2),
        "vms2": Scenario(
            "vms2", "2 ranks in two co-resident QEMU/KVM guests (scripts/vm/run-guests.sh: "
            "Debian kernel, the host root over 9p, virtio-net on a private segment, one "
            "ivshmem-plain region), one rank each; every launcher runs in vm1 and starts "
            "the rank in vm2 through the guests' agent: Locus over IVSHMEM, MPICH and "
            "Open MPI over the virtio network, and Locus with both ranks in vm1 as "
            "reference: 8 B latency and 1 MiB bandwidth (not in the default list; "
            "refused where guests would run under TCG)",
            2, False,
            [lat_job([8], ["-i", "2000", "-x", "100"] if quick else None),
             bw_job("bw", [1 * MiB])],
            3 if quick else 7, 60, vms=2),
        "coll4": Scenario(
            "coll4", "4 ranks on one host, unbound (oversubscribed where "
            "the host has fewer cores): collective latency", 4, False,
            [coll_job(coll_sizes, coll4_it)], coll_reps, 120 if quick else 300),
        "coll8": Scenario(
            "coll8", "8 ranks on one host, unbound (oversubscribed where "
            "the host has fewer cores): collective latency", 8, False,
            [coll_job(coll_sizes, coll8_it)], coll_reps, 120 if quick else 600),
        "icoll2": Scenario(
            "icoll2", "2 ranks on one host, unbound: nonblocking collective latency and "
            "overlap (OSU method), each MPI as is and, where it has one, with its "
            "asynchronous progress thread (+async: LOCUS_ASYNC_PROGRESS=1, "
            "MPICH_ASYNC_PROGRESS=1)",
            2, False, [icoll_job(quick)], 3 if quick else 5, 120, async_variants=True),
        "icoll4": Scenario(
            "icoll4", "4 ranks on one host, unbound (oversubscribed where the host has "
            "fewer cores; with +async every rank has a second thread): as icoll2",
            4, False, [icoll_job(quick)], 3 if quick else 5, 180, async_variants=True),
        "io4": Scenario(
            "io4", "4 ranks on one host, unbound: MPI-IO collective and independent "
            "write (+ MPI_File_sync) and read of a block-distributed 3-D array of "
            "doubles (subarray view), on tmpfs (/dev/shm) and on disk (/var/tmp, ext4)",
            4, False, io_jobs(quick), 3 if quick else 5, 300 if quick else 900),
        "io8": Scenario(
            "io8", "8 ranks on one host, unbound (oversubscribed where the host has "
            "fewer cores): MPI-IO as io4", 8, False, io_jobs(quick), 3 if quick else 5,
            300 if quick else 900),
    }


DEFAULT_SCENARIOS = "pt2pt,dt2,hosts2,containers2,coll4,coll8,icoll2,threads2,rma,rma-containers2,rma-hosts2"


# ---------------------------------------------------------------- running

def record_run(results, sc, job, m, rep, status, out, log):
    """One run's metric values (or why there is none) appended to results;
    returns their "label=value" texts for the progress line."""
    rows = parse_csv_output(out) if status == "ok" else {}
    shown = []
    for met in job.metrics:
        val, st = None, status
        if status == "ok":
            try:
                val, st = float(rows.get((met.test, met.size))[met.col]), "ok"
            except (TypeError, KeyError, ValueError):
                st = "missing"
        results.append({"scenario": sc.name, "metric": met.label, "unit": met.unit,
                        "mpi": m.key, "rep": rep, "value": val, "status": st, "log": log})
        shown.append(f"{met.label}={val:g}" if val is not None else f"{met.label}={st}")
    return shown


def parse_csv_output(text):
    """Benchmark CSV output -> {(test, size): row dict}.  Lines starting
    with '#' are comments; a line starting with 'test,' is a header."""
    rows, header = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("test,"):
            header = line.split(",")
            continue
        if header is None:
            continue
        vals = line.split(",")
        if len(vals) != len(header):
            continue
        row = dict(zip(header, vals))
        try:
            rows[(row["test"], int(row["size"]))] = row
        except (KeyError, ValueError):
            continue
    return rows


def library_line(text):
    for line in text.splitlines():
        if line.startswith("# MPI library:"):
            # MPICH separates fields with tabs; keep the report on one line.
            return " ".join(line[len("# MPI library:"):].split())
    return None


# Messages that say why a run failed, shown in its table cell.
FAILURE_REASONS = [
    ("unexpectedly disconnected", "peer disconnected"),
    ("ORTE was unable to reliably start", "daemon start failed"),
    ("lost the connection to", "agent connection lost"),
    ("Connection refused", "connection refused"),
    ("No route to host", "no route to host"),
]


def failure_reason(err):
    for pattern, why in FAILURE_REASONS:
        if pattern in err:
            return why
    return None


def probe_binding(mpi, sc, cores, env, timeout):
    """Which CPUs each rank may run on, as the launcher sets it up."""
    script = ('echo "$(grep Cpus_allowed_list: /proc/self/status | cut -f2)"')
    if sc.hosts:
        # Also where each rank ran: proves the placement (one per host or
        # container; both in c1 for the one-container reference).
        script = 'echo "$(hostname): $(grep Cpus_allowed_list: /proc/self/status | cut -f2)"'
    argv = sc.launch(mpi, cores) + sc.pinning() + ["/bin/sh", "-c", script]
    status, out, err, _ = run_cmd(argv, env, timeout)
    if status != "ok":
        return f"probe {status}"
    cpus = sorted(l.strip() for l in out.splitlines() if l.strip())
    if sc.hosts and sc.hostset:
        sc.hostset.clean()
    return " | ".join(cpus) if cpus else "?"


def skip_runs(sc, m, status, results, step, total_steps, why):
    """Records every run of m in sc as not made, with status as its cells'
    reason, and says so."""
    for rep in range(1, sc.reps + 1):
        for job in sc.jobs:
            step[0] += 1
            for met in job.metrics:
                results.append({"scenario": sc.name, "metric": met.label,
                                "unit": met.unit, "mpi": m.key, "rep": rep,
                                "value": None, "status": status, "log": ""})
    progress(f"[{step[0]:3d}/{total_steps}] {sc.name} {m.label}: {status}: {why}")


def stage_programs(sc, mpis):
    """Makes sure the containers see each MPI's launcher and programs.  A
    container's /tmp is its own, so programs built under /tmp (--out) are
    copied into the shared host directory, which both containers see at
    the same path (and which vanishes with the host).  A launcher they do
    not see makes that MPI unusable in the scenario (sc.skip)."""
    hs = sc.hostset
    for m in mpis:
        if m.ref_of:
            continue  # the same launcher and programs as the MPI it refers to
        if any(hs.missing(c, [m.mpiexec]) for c in hs.containers):
            sc.skip[m.key] = (f"{m.mpiexec} is not visible inside the containers (their "
                              f"/tmp is private): use an MPI build outside /tmp")
            continue
        missing = sorted({p for c in hs.containers for p in hs.missing(c, m.bins.values())})
        if not missing:
            continue
        dest = f"{hs.shared_dir}/bench-programs/{m.key}"
        progress(f"stage  {m.label:8s} {' '.join(shown_path(p) for p in missing)} -> {dest} "
                 f"(not visible in the containers)")
        r = hs._lc("run", hs.name, hs.hosts[0], "sh", "-c",
                   'd=$1; shift; mkdir -p "$d" && cp -p "$@" "$d"/', "sh", dest, *missing)
        staged = {prog: f"{dest}/{Path(p).name}" for prog, p in m.bins.items() if p in missing}
        if r.returncode != 0 or any(hs.missing(c, staged.values()) for c in hs.containers):
            sc.skip[m.key] = (f"its programs are not visible inside the containers and "
                              f"copying them to {dest} failed: {r.stderr.strip()}")
            continue
        sc.bins[m.key] = staged


def run_scenario(sc, mpis, args, logdir, results, step, total_steps):
    if sc.vms:
        return run_scenario_vms(sc, mpis, args, logdir, results, step, total_steps)
    if not sc.hosts:
        return run_scenario_here(sc, mpis, args, logdir, results, step, total_steps)
    # Long enough for every run to hit its timeout, so that the set outlives
    # the scenario only if the harness itself is killed outright.
    ttl = 300 + sum(sc.reps * len(mpis) * ((args.timeout or sc.timeout) + 10)
                    for _ in sc.jobs)
    sc.hostset = HostSet(sc.hosts, ttl)
    try:
        progress(f"hosts  lc-hosts up {sc.hostset.name} {sc.hosts}")
        why = sc.hostset.up()
        for i in range(1, sc.containers + 1):
            if why:
                break
            progress(f"hosts  lc-hosts container {sc.hostset.name} h1 c{i}")
            why = sc.hostset.add_container(f"c{i}", "h1")
        if not why and sc.containers:
            stage_programs(sc, mpis)
        if why:
            status = "no containers" if sc.containers else "no hosts"
            for m in mpis:
                skip_runs(sc, m, status, results, step, total_steps, why)
            return {m.key: why for m in mpis}
        return run_scenario_here(sc, mpis, args, logdir, results, step, total_steps)
    finally:
        progress(f"hosts  lc-hosts down {sc.hostset.name}")
        sc.hostset.down()


def run_scenario_here(sc, mpis, args, logdir, results, step, total_steps):
    cores = ncores()
    timeout = args.timeout or sc.timeout
    bindings = {}
    run = []
    for m in mpis:
        why = sc.skip.get(m.ref_of or m.key)
        if why:
            bindings[m.key] = why
            skip_runs(sc, m, "not in containers", results, step, total_steps, why)
            continue
        run.append(m)
        env = dict(os.environ, **m.env)
        bindings[m.key] = probe_binding(m, sc, cores, env, 30)
    for rep in range(1, sc.reps + 1):
        for job in sc.jobs:
            for m in run:
                step[0] += 1
                env = dict(os.environ, **m.env)
                argv = sc.launch(m, cores) + sc.pinning() + [sc.program(m, job.prog)] + \
                    job.args + ["-f", "csv"] + ([] if args.no_validate else ["-c"])
                status, out, err, secs = run_cmd(argv, env, timeout)
                if sc.hosts:
                    # Nothing of this run may remain on any host when the
                    # next starts (e.g. a rank on h2 after a timeout).
                    killed = sc.hostset.clean()
                    if killed:
                        err += "\n# harness: killed leftovers: " + \
                               "; ".join(f"{p} {c}" for p, c in killed.items()) + "\n"
                        progress(f"warning: {m.label} left {len(killed)} processes "
                                 f"on the hosts; killed them")
                log = logdir / sc.name / f"{m.key}-{job.name}-rep{rep}.log"
                log.parent.mkdir(parents=True, exist_ok=True)
                log.write_text(f"$ {' '.join(argv)}\n# status: {status}, {secs:.1f} s\n"
                               f"--- stdout\n{out}--- stderr\n{err}")
                if status.startswith("exit 2") and "VALIDATION FAILED" in err:
                    status = "invalid data"
                elif status != "ok":
                    why = failure_reason(err)
                    if not why and status == "timeout" and "# validation passed" in out:
                        why = "hung after its results"   # e.g. in MPI_Finalize
                    if why:
                        status += ": " + why
                lib = library_line(out)
                if lib and not m.library:
                    m.library = lib
                summary = record_run(results, sc, job, m, rep, status, out,
                                     str(log.relative_to(logdir.parent)))[:3]
                more = " ..." if len(job.metrics) > 3 else ""
                progress(f"[{step[0]:3d}/{total_steps}] {sc.name} rep {rep}/{sc.reps} "
                         f"{m.label:8s} {job.name:5s} {status:8s} {secs:5.1f}s  "
                         f"{', '.join(summary)}{more}")
    return bindings


# ------------------------------------------------------------ QEMU guests

RUN_GUESTS = ROOT / "scripts" / "vm" / "run-guests.sh"
VM_AGENT = "@LC_AGENT@"   # stands for "$LC_AGENT" (known only inside vm1)
VM_MARK = "@@vms@@"       # starts the job script's structure lines


def vm_names(n):
    return [f"vm{i}" for i in range(1, n + 1)]


def vms_launch(mpi, n):
    """Launcher argv up to the program, as run in vm1: one rank in each
    guest, started through the guests' agent (each MPI with its own remote
    launch, as in hosts2), or for the reference all ranks in vm1."""
    if mpi.ref_of:
        return mpi.launch_local(n, {})
    hosts = vm_names(n)
    if mpi.key == "locus":
        return [mpi.mpiexec, "-iface", "eth0", "-launcher-exec", VM_AGENT] + \
            mpi.locus_genv(mpi.env) + ["-hosts", ",".join(f"{h}:1" for h in hosts),
                                       "-n", str(n)]
    return mpi.launch_hosts(hosts, VM_AGENT)


def vm_shell(argv):
    """argv as one line of the guest's job script."""
    return shlex.join(argv).replace(VM_AGENT, '"$LC_AGENT"')


# What may be left of a run in a guest: the launchers, their proxies and
# daemons, the agent's relays, the benchmark (the brackets keep pkill from
# matching the shell that runs it).
VM_LEFTOVERS = "[l]c_osu_|[m]piexec|[h]ydra_pmi_proxy|[o]rted|[p]rted|[b]usybox nc"


def vms_job_script(sc, runs, timeout, no_validate):
    """The script vm1 runs: per MPI a placement probe (host name of each
    rank), for Locus a channel probe (a short run with
    LOCUS_SHOW_CHANNELS), then every run, each under `timeout`, its output
    framed by VM_MARK lines for vms_parse.  After each, whatever is left
    of it in any guest is killed: a launcher's children outlive a
    `timeout` that killed the launcher (Open MPI puts them in groups of
    their own), and one holding the output file would write into the
    next run's (each run has its own files, too)."""
    others = " ".join(vm_names(sc.vms)[1:])
    lines = ["#!/bin/sh", "# compare.py scenario " + sc.name,
             "tidy() {",
             f"    pkill -9 -f '{VM_LEFTOVERS}' 2>/dev/null",
             f"    for h in {others}; do",
             f"        timeout 20 \"$LC_AGENT\" $h \"pkill -9 -f '{VM_LEFTOVERS}'\" < /dev/null",
             "    done",
             "    sleep 1",
             "}", "n=0"]

    def framed(tag, argv, limit):
        lines.append(f"n=$((n + 1)); o=$LC_JOB/run-$n.out e=$LC_JOB/run-$n.err")
        lines.append(f"echo '{VM_MARK} begin {tag}'")
        lines.append("t0=$(date +%s.%N)")
        lines.append(f"timeout -k 5 {int(limit)} {vm_shell(argv)} > $o 2> $e < /dev/null; rc=$?")
        lines.append(f"echo \"{VM_MARK} status $rc $(awk \"BEGIN {{ print $(date +%s.%N) - $t0 }}\")\"")
        lines.append("tidy")
        lines.append(f"cat $o; echo '{VM_MARK} stderr'; cat $e; echo '{VM_MARK} end'")
    for m in sc.mpis:
        framed(f"probe {m.key}", sc.launch(m, 0) + ["/bin/sh", "-c", 'echo "placement: $(hostname)"'],
               timeout)
        if m.key == "locus" or m.ref_of:
            argv = sc.launch(m, 0)
            argv = argv[:1] + ["-genv", "LOCUS_SHOW_CHANNELS", "1"] + argv[1:]
            framed(f"channels {m.key}", argv + [sc.program(m, "pt2pt"), "-t", "lat", "-S", "8",
                                                "-i", "10", "-x", "1"], timeout)
    for rep, job, m in runs:
        argv = sc.launch(m, 0) + [sc.program(m, job.prog)] + job.args + ["-f", "csv"] + \
            ([] if no_validate else ["-c"])
        framed(f"run {m.key} {job.name} {rep}", argv, timeout)
    return "\n".join(lines) + "\n"


def vms_parse(text):
    """{tag: (status, out, err, secs)} from the job's output."""
    found, tag, part, buf, status, secs = {}, None, None, {}, None, 0.0
    for line in text.splitlines(keepends=True):
        if line.startswith(VM_MARK + " "):
            word = line[len(VM_MARK) + 1:].strip()
            if word.startswith("begin "):
                tag, part, buf, status, secs = word[6:], None, {"out": "", "err": ""}, None, 0.0
            elif word.startswith("status ") and tag:
                f = word.split()
                rc = f[1] if len(f) > 1 else "?"
                status = "ok" if rc == "0" else "timeout" if rc in ("124", "137") else f"exit {rc}"
                try:
                    secs = float(f[2])
                except (IndexError, ValueError):
                    secs = 0.0
                part = "out"
            elif word == "stderr" and tag:
                part = "err"
            elif word == "end" and tag:
                found[tag] = (status or "?", buf["out"], buf["err"], secs)
                tag = part = None
            continue
        if tag and part:
            buf[part] += line
    return found


def run_scenario_vms(sc, mpis, args, logdir, results, step, total_steps):
    """Boots the guests once, runs every repetition of every MPI inside
    them (one job script in vm1), then records the runs as
    run_scenario_here does.  Refuses (every cell says why) where the
    guests would not get KVM: TCG timings would be fake figures."""
    r = subprocess.run(["sh", str(RUN_GUESTS), "--probe-accel"], capture_output=True,
                       text=True, timeout=30)
    sc.accel = r.stdout.strip() or f"unknown (run-guests.sh exit {r.returncode})"
    progress(f"vms    guests would run with {sc.accel}")
    why = None
    if not sc.accel.startswith("kvm"):
        if not args.vm_tcg:
            why = f"needs KVM: guests run under TCG here (run-guests.sh --probe-accel: {sc.accel})"
        else:
            sc.desc += "; RUN UNDER TCG (--vm-tcg): the timings say nothing"
    if not why:
        for m in mpis:
            for p in [m.mpiexec] + list(m.bins.values()):
                d = os.path.realpath(p) + "/"
                if d.startswith(("/tmp/", "/run/", "/dev/")):
                    why = (f"{p} is under /tmp, /run or /dev, which the guests mount afresh: "
                           f"build (and --out) outside them")
    if why:
        for m in mpis:
            status, paren, detail = why.partition(" (")
            skip_runs(sc, m, status if paren else "not in guests", results, step,
                      total_steps, paren.strip() + detail if paren else why)
        return {m.key: why for m in mpis}
    timeout = args.timeout or sc.timeout * (1 if sc.accel.startswith("kvm") else 5)
    runs = [(rep, job, m) for rep in range(1, sc.reps + 1) for job in sc.jobs for m in mpis]
    script = vms_job_script(sc, runs, timeout, args.no_validate)
    d = logdir / sc.name
    d.mkdir(parents=True, exist_ok=True)
    (d / "job.sh").write_text(script)
    total = 300 + (len(runs) + 2 * len(mpis)) * (timeout + 25)
    progress(f"vms    booting {sc.vms} guests; {len(runs)} runs inside (at most {total} s)")
    status, out, err, secs = run_cmd(["sh", str(RUN_GUESTS), "-n", str(sc.vms),
                                      "--timeout", str(total), str(d / "job.sh")],
                                     dict(os.environ), total + 60)
    (d / "run-guests.log").write_text(f"# status {status}, {secs:.0f} s\n--- stdout\n{out}"
                                      f"--- stderr\n{err}")
    found = vms_parse(out)
    bindings = {}
    for m in mpis:
        p = found.get(f"probe {m.key}")
        if not p:
            bindings[m.key] = f"no probe ({status})"
            continue
        hosts = sorted(l.split(":", 1)[1].strip() for l in p[1].splitlines()
                       if l.startswith("placement:"))
        bindings[m.key] = " | ".join(hosts) or f"probe {p[0]}"
        c = found.get(f"channels {m.key}", ("", "", "", 0))
        if m.key == "locus" and "ivshmem" not in c[1] + c[2]:
            # Measuring Locus over another channel as "over IVSHMEM" would lie.
            sc.skip[m.key] = "its ranks did not pick channel ivshmem (probe output in the log)"
    said = [l for l in err.splitlines() if l.startswith("run-guests.sh:")] or \
        err.strip().splitlines() or [status]
    guest_fail = said[-1].replace("run-guests.sh: ", "")[:120]
    for rep, job, m in runs:
        step[0] += 1
        got = found.get(f"run {m.key} {job.name} {rep}")
        if got is None:
            st, o, e, t = f"not run: {guest_fail}", "", "", 0.0
        else:
            st, o, e, t = got
        if m.key in sc.skip:
            st = "not over ivshmem"
        log = d / f"{m.key}-{job.name}-rep{rep}.log"
        log.write_text(f"$ (in vm1) {vm_shell(sc.launch(m, 0))} ...\n# status: {st}, "
                       f"{t:.1f} s\n--- stdout\n{o}--- stderr\n{e}")
        if st.startswith("exit 2") and "VALIDATION FAILED" in e:
            st = "invalid data"
        lib = library_line(o)
        if lib and not m.library:
            m.library = lib
        shown = record_run(results, sc, job, m, rep, st, o, str(log.relative_to(logdir.parent)))
        progress(f"[{step[0]:3d}/{total_steps}] {sc.name} rep {rep}/{sc.reps} {m.label:8s} "
                 f"{job.name:5s} {st:8s} {t:5.1f}s  {', '.join(shown)}")
    return bindings


def placement_vms(sc):
    """The report's placement paragraph of a VM scenario."""
    text = (f"none; one rank in each of {sc.vms} QEMU guests (vm1..vm{sc.vms}) booted "
            f"by scripts/vm/run-guests.sh for the scenario and torn down after it "
            f"(accelerator: {sc.accel or '?'}), 2 vCPUs and 768 MiB each, networked by "
            "virtio-net on a private segment, sharing one 64 MiB ivshmem-plain region; "
            "every launcher runs in vm1 and starts the rank in vm2 through the guests' "
            "agent (Locus `-launcher-exec`, MPICH `-launcher ssh -launcher-exec`, Open MPI "
            "`plm_rsh_agent`; MPICH and Open MPI on eth0, Open MPI with the TCP BTL). "
            "`Locus (1 guest)`: both Locus ranks in vm1, started by `mpiexec -n 2` there; "
            f"`{VM_AGENT}` below is the agent's path in vm1 ($LC_AGENT)")
    for key, why in sorted(sc.skip.items()):
        text += f". Not measured: {key}: {why}"
    return text


# ---------------------------------------------------------------- summary

def summarize(sc, mpis, results, subject):
    """Per metric: for each MPI median/min/max over successful runs, and
    the subject/best-peer ratio."""
    table = []
    for job in sc.jobs:
        for met in job.metrics:
            row = {"metric": met.label, "unit": met.unit,
                   "lower_better": met.lower_better, "mpis": {}}
            for m in mpis:
                runs = [r for r in results if r["scenario"] == sc.name and
                        r["metric"] == met.label and r["mpi"] == m.key]
                vals = [r["value"] for r in runs if r["status"] == "ok"]
                fails = [r["status"] for r in runs if r["status"] != "ok"]
                row["mpis"][m.key] = {
                    "median": statistics.median(vals) if vals else None,
                    "min": min(vals) if vals else None,
                    "max": max(vals) if vals else None,
                    "n_ok": len(vals), "n_fail": len(fails),
                    "failures": sorted(set(fails))}
            ratio = None
            subj = row["mpis"].get(subject, {}).get("median")
            # Peers are the other real MPIs, in every configuration measured
            # (MPICH +async is a peer): a reference placement of one of them
            # (Locus in one container) is not a competitor, nor is a
            # configuration of the subject itself (Locus +async).
            peers = [row["mpis"][m.key]["median"] for m in mpis
                     if m.key != subject and not m.ref_of and m.variant_of != subject
                     and row["mpis"][m.key]["median"] is not None]
            best = None
            if peers:
                best = min(peers) if met.lower_better else max(peers)
            if subj is not None and best:
                ratio = subj / best
            row["ratio"] = ratio
            # MPI / its own reference placement, e.g. Locus two containers /
            # Locus one container (lower is better for latency, higher for
            # bandwidth, as for the best-peer ratio).
            row["ref_ratios"] = {}
            for ref in [m for m in mpis if m.ref_of]:
                base = row["mpis"].get(ref.ref_of, {}).get("median")
                refv = row["mpis"][ref.key]["median"]
                row["ref_ratios"][ref.key] = base / refv if base is not None and refv else None
            # A configuration of the subject against the same best peer.
            for var in [m for m in mpis if m.variant_of == subject]:
                v = row["mpis"][var.key]["median"]
                row["ref_ratios"][var.key] = v / best if v is not None and best else None
            # The subject's automatic choice against the better of its forced
            # protocols (PROTOCOL_VARIANTS): 1.0 = as good as the better one.
            forced = [row["mpis"][f"{subject}-{pv[0]}"]["median"] for pv in PROTOCOL_VARIANTS
                      if row["mpis"].get(f"{subject}-{pv[0]}", {}).get("median") is not None]
            if forced and subj is not None:
                bestf = min(forced) if met.lower_better else max(forced)
                row["ref_ratios"][f"{subject}-forced"] = subj / bestf if bestf else None
            table.append(row)
    return table


def ref_ratio_heads(mpis, table=None):
    """(key, column head) of the reference ratios, e.g. 'Locus/Locus (1 container)',
    then of the subject's variants against the best peer, e.g. 'Locus +async/best-peer'
    (those summarize computed: the keys in the table's ref_ratios)."""
    labels = {m.key: m.label for m in mpis}
    keys = set(k for row in (table or []) for k in row["ref_ratios"])
    return [(m.key, f"{labels.get(m.ref_of, m.ref_of)}/{m.label}") for m in mpis if m.ref_of] + \
        [(m.key, f"{m.label}/best-peer") for m in mpis if m.variant_of and m.key in keys] + \
        [(f"{m.key}-forced", f"{m.label}/best forced") for m in mpis if f"{m.key}-forced" in keys]


def fmt_val(v, unit):
    if v is None:
        return "-"
    if unit == "us":
        return f"{v:.2f}" if v < 1000 else f"{v:.0f}"
    return f"{v:.0f}"


def cell(stat, unit):
    """Terminal cell: the median, or why there is none; '*' marks a median
    over fewer runs than asked because some failed."""
    if stat["median"] is None:
        return (stat["failures"][0] if stat["failures"] else "n/a").upper()
    return fmt_val(stat["median"], unit) + ("*" if stat["n_fail"] else "")


def render_table(table, mpis, subject_label, markdown=False, ranges=False):
    refs = ref_ratio_heads(mpis, table)
    heads = ["metric"] + [m.label for m in mpis] + [f"{subject_label}/best-peer"] + \
        [h for _, h in refs]
    rows = []
    for row in table:
        cells = [row["metric"]]
        for m in mpis:
            st = row["mpis"][m.key]
            c = cell(st, row["unit"])
            if ranges and st["median"] is not None:
                c += f" [{fmt_val(st['min'], row['unit'])}-{fmt_val(st['max'], row['unit'])}]"
            cells.append(c)
        cells.append(f"{row['ratio']:.2f}" if row["ratio"] is not None else "-")
        for key, _ in refs:
            r = row["ref_ratios"].get(key)
            cells.append(f"{r:.2f}" if r is not None else "-")
        rows.append(cells)
    if markdown:
        out = ["| " + " | ".join(heads) + " |",
               "|" + "|".join(["---"] + ["---:"] * (len(heads) - 1)) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(out)
    widths = [max(len(str(r[i])) for r in [heads] + rows) for i in range(len(heads))]
    lines = []
    for r in [heads] + rows:
        lines.append("  ".join(str(c).ljust(widths[i]) if i == 0 else str(c).rjust(widths[i])
                               for i, c in enumerate(r)))
    return "\n".join(lines)


def try_plot(sc, table, mpis, outdir):
    """One PNG per scenario when matplotlib is importable: bars per metric
    and MPI (median, whiskers min-max), one panel per unit."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    units = []
    for row in table:
        if row["unit"] not in units:
            units.append(row["unit"])
    fig, axes = plt.subplots(len(units), 1, figsize=(max(6, 0.9 * len(table) + 2),
                                                      3.2 * len(units)), squeeze=False)
    width = 0.8 / max(1, len(mpis))
    for ax, unit in zip(axes[:, 0], units):
        rows = [r for r in table if r["unit"] == unit]
        for i, m in enumerate(mpis):
            xs, ys, lo, hi = [], [], [], []
            for j, r in enumerate(rows):
                st = r["mpis"][m.key]
                if st["median"] is None:
                    continue
                xs.append(j + (i - (len(mpis) - 1) / 2) * width)
                ys.append(st["median"])
                lo.append(st["median"] - st["min"])
                hi.append(st["max"] - st["median"])
            # A reference placement (Locus in 1 container) is hatched: it is
            # not one more competitor.
            ax.bar(xs, ys, width, yerr=[lo, hi], capsize=2, label=m.label,
                   hatch="//" if m.ref_of else None)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([r["metric"] for r in rows], rotation=30, ha="right",
                           fontsize=8)
        ax.set_ylabel(unit + (" (lower is better)" if rows[0]["lower_better"]
                              else " (higher is better)"))
        if unit == "us":
            ax.set_yscale("log")
        ax.legend(fontsize=8)
    import textwrap
    # About 11 characters per inch at 9 pt.
    chars = int(fig.get_figwidth() * 11)
    fig.suptitle(textwrap.fill(f"{sc.name}: {sc.desc}", chars), fontsize=9)
    fig.tight_layout()
    path = outdir / f"{sc.name}.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def placement_containers(sc):
    """The report's placement paragraph of a container scenario."""
    hs = sc.hostset
    cts = ", ".join(hs.containers) or "(none: containers could not be built)"
    text = (f"none; one rank in each of the containers {cts} of emulated host h1 "
            f"(lc-hosts set {hs.name}, torn down after the scenario), made as Docker "
            "makes them: own UTS, PID, IPC, mount and network namespaces, private "
            f"/dev/shm and /tmp, and the host directory {hs.shared_dir or 'DIR'} "
            "bind-mounted into each; every launcher runs in the first container and "
            "starts the other rank through the lc-hosts agent; Locus gets "
            "`-genv LOCUS_SHM_DIR` on that directory (docs/containers.md), MPICH and "
            "Open MPI the same options as in `hosts2` (Open MPI `--bind-to none`). "
            "`Locus (1 container)`: both Locus ranks in the first container, started "
            "by Locus' `mpiexec -n 2` there, same `LOCUS_SHM_DIR`")
    if sc.bins:
        text += (". Programs built outside the containers' view (e.g. --out under "
                 "/tmp) were copied into the shared directory for: " +
                 ", ".join(sorted(sc.bins)))
    for key, why in sorted(sc.skip.items()):
        text += f". Not run: {key}: {why}"
    return text


def write_outputs(outdir, meta, mpis, scs, tables, bindings, results, subject_label, plots):
    outdir.mkdir(parents=True, exist_ok=True)
    with open(outdir / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "metric", "unit", "mpi", "rep", "value", "status", "log"])
        for r in results:
            w.writerow([r["scenario"], r["metric"], r["unit"], r["mpi"], r["rep"],
                        "" if r["value"] is None else r["value"], r["status"], r["log"]])
    with open(outdir / "summary.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "metric", "unit", "mpi", "median", "min", "max",
                    "n_ok", "n_fail", "failures", "subject_over_best_peer",
                    "mpi_over_its_reference"])
        for sc in scs:
            for row in tables[sc.name]:
                for m in sc.mpis:
                    st = row["mpis"][m.key]
                    # On the row of an MPI measured also in a reference
                    # placement: MPI / reference (Locus 2 / 1 container).
                    rr = [row["ref_ratios"][r.key] for r in sc.mpis if r.ref_of == m.key]
                    w.writerow([sc.name, row["metric"], row["unit"], m.key,
                                st["median"], st["min"], st["max"], st["n_ok"],
                                st["n_fail"], ";".join(st["failures"]),
                                "" if row["ratio"] is None else f"{row['ratio']:.4f}",
                                f"{rr[0]:.4f}" if rr and rr[0] is not None else ""])
    doc = {"meta": meta,
           "mpis": {m.key: {"label": m.label, "cc": m.cc, "mpiexec": m.mpiexec,
                            "library": m.library, "linked": m.linked, "env": m.env,
                            "error": m.error} for m in mpis},
           "scenarios": {sc.name: {"desc": sc.desc, "ranks": sc.np, "bind": sc.bind,
                                   "emulated_hosts": sc.hosts,
                                   "containers": sc.containers,
                                   "mpis": [m.key for m in sc.mpis],
                                   "references": {m.key: {"label": m.label, "of": m.ref_of}
                                                  for m in sc.mpis if m.ref_of},
                                   "staged_programs": sc.bins, "not_run": sc.skip,
                                   "reps": sc.reps, "binding_probe": bindings[sc.name],
                                   "jobs": [{"prog": j.prog, "args": j.args} for j in sc.jobs],
                                   "table": tables[sc.name]} for sc in scs},
           "runs": results}
    (outdir / "results.json").write_text(json.dumps(doc, indent=1))

    md = ["# Locus benchmark comparison", "",
          f"Generated {meta['date']} by `{meta['command']}`.", "",
          "## Setup", "",
          f"- Host: {meta['host']}, {meta['cpu']}, {meta['cores']} usable cores, "
          f"kernel {meta['kernel']}",
          f"- Other CPU use (cores busy, 1 s sample while the harness was idle): "
          f"before {meta['cpu_busy_start']}, after {meta['cpu_busy_end']}; "
          f"load average before {meta['load_start']}, after {meta['load_end']}"
          + (" — **the machine was busy; numbers are noisy**" if meta["busy"] else ""),
          f"- Benchmarks: bench/lc_osu_pt2pt.c, bench/lc_osu_coll.c, bench/lc_dt_pingpong.c, "
          f"bench/lc_io_array.c built with "
          f"`<mpicc> {' '.join(CFLAGS)}{'' if meta['no_werror'] else ' -Werror'}` "
          f"by each MPI's own wrapper; data "
          f"validation (-c, outside the timed loops) "
          f"{'off' if meta['no_validate'] else 'on'}",
          "- Each scenario alternates the MPIs run by run; a cell is the median "
          "over the repetitions, [min-max] in the detailed tables; `*` = some runs "
          "failed (median of the rest); FAIL/TIMEOUT/INVALID DATA = no successful run",
          f"- Ratio = {subject_label}/best peer: latency {subject_label}/min(peers) "
          f"(lower is better), bandwidth and rates {subject_label}/max(peers) "
          f"(higher is better)"]
    if any(m.ref_of for sc in scs for m in sc.mpis):
        md.append("- Container scenarios also measure Locus with all ranks in one "
                  "container (`Locus (1 container)`, a reference placement, not a "
                  "peer: best-peer ratios ignore it); `Locus/Locus (1 container)` is "
                  "Locus in the scenario's placement over that reference, for latency "
                  "(lower is better) and bandwidth (higher is better) alike")
    md += ["",
          "| MPI | library (as reported by MPI_Get_library_version) | linked | launcher |",
          "|---|---|---|---|"]
    for m in mpis:
        md.append(f"| {m.label} | {m.library or '-'} | {m.linked or '-'} | "
                  f"{m.mpiexec or '-'}{' (' + m.error + ')' if m.error else ''} |")
    md.append("")
    cores = ncores()
    for sc in scs:
        md += [f"## Scenario `{sc.name}`", "", f"{sc.desc}; {sc.np} ranks, "
               f"{sc.reps} repetitions per MPI.", "",
               "Binding: " + (placement_vms(sc) if sc.vms else
                              placement_containers(sc) if sc.containers else
                              "one rank on each emulated host, each host pinned to a "
                              "core of its own by the harness (`taskset` around the "
                              "program: hK on core K-1) "
                              f"(lc-hosts set {sc.hostset.name}, torn down after the "
                              "scenario; the MPIs' own binding off: Open MPI "
                              "`--bind-to none`, since each host's launcher would "
                              "otherwise bind its one rank to core 0)"
                              if sc.hosts else
                              "each rank bound to its own core (MPICH and Locus "
                              "`-bind-to core`, Open MPI `--bind-to core`)" if sc.bind else
                              "none (MPICH and Locus default, Open MPI `--bind-to none`); "
                              "Open MPI gets `--oversubscribe` when ranks exceed cores"),
               "", "Launch lines and the CPUs each rank was allowed on (probe"
               + (", with the host or container it ran on" if sc.hosts else "") + "):", ""]
        for m in sc.mpis:
            for j in sc.jobs:
                cmd = shlex.join(sc.launch(m, cores) + sc.pinning() + [
                    shown_path(sc.program(m, j.prog))] + j.args + ["-f", "csv"] +
                    ([] if meta["no_validate"] else ["-c"]))
                md.append(f"- {m.label}: `{cmd}`")
            md.append(f"  - CPUs per rank: {bindings[sc.name].get(m.key, '?')}")
        md += ["", render_table(tables[sc.name], sc.mpis, subject_label, markdown=True), "",
               "Detailed (median [min-max]):", "",
               render_table(tables[sc.name], sc.mpis, subject_label, markdown=True,
                            ranges=True), ""]
        if plots.get(sc.name):
            md += [f"![{sc.name}]({Path(plots[sc.name]).name})", ""]
    unusable = [m for m in mpis if m.error]
    if unusable:
        md += ["## MPIs not measured", ""]
        md += [f"- {m.label}: {m.error}" for m in unusable]
        md.append("")
    (outdir / "report.md").write_text("\n".join(md))


# ------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(
        description="Side-by-side MPI micro-benchmarks: Locus vs MPICH vs Open MPI.",
        epilog=f"Scenarios: {', '.join(scenarios(False))} (default {DEFAULT_SCENARIOS}).")
    ap.add_argument("--quick", action="store_true",
                    help="fewer repetitions, sizes and iterations (~5 min)")
    ap.add_argument("--reps", type=int, help="repetitions per MPI (overrides scenario)")
    ap.add_argument("--mpis", default="locus,mpich,openmpi",
                    help="comma list, run order (default locus,mpich,openmpi)")
    ap.add_argument("--scenario", default=DEFAULT_SCENARIOS,
                    help="comma list of scenarios, or 'all'")
    ap.add_argument("--subject", help="MPI compared with the best peer "
                    "(default locus if measured, else the first MPI)")
    ap.add_argument("--timeout", type=float, help="seconds per run (default per scenario)")
    ap.add_argument("--env", action="append", default=[], metavar="MPI:VAR=VALUE",
                    help="extra environment for one MPI's runs, e.g. "
                    "openmpi:OMPI_MCA_btl_vader_single_copy_mechanism=none")
    ap.add_argument("--locus-bin", default=str(ROOT / "build" / "bin"),
                    help="directory with Locus' mpicc and mpiexec")
    ap.add_argument("--out", default=str(ROOT / "build" / "bench"), help="output directory")
    ap.add_argument("--no-validate", action="store_true",
                    help="do not pass -c (data check outside the timed loop)")
    ap.add_argument("--no-werror", action="store_true", help="build without -Werror")
    ap.add_argument("--list", action="store_true", help="list scenarios and exit")
    ap.add_argument("--vm-tcg", action="store_true",
                    help="run the VM scenarios (vms2) even where the guests get TCG, not "
                    "KVM: checks the machinery; its timings say nothing")
    args = ap.parse_args()

    all_sc = scenarios(args.quick)
    if args.list:
        for sc in all_sc.values():
            print(f"{sc.name:11s} {sc.desc}")
            for j in sc.jobs:
                labels = [m.label for m in j.metrics]
                if len(labels) > 6:
                    labels = labels[:3] + [f"... ({len(labels)} metrics)"] + labels[-1:]
                print(f"            {', '.join(labels)}")
        return 0
    names = list(all_sc) if args.scenario == "all" else \
        [s.strip() for s in args.scenario.split(",") if s.strip()]
    for n in names:
        if n not in all_sc:
            sys.exit(f"compare.py: unknown scenario '{n}' (have {', '.join(all_sc)})")
    scs = [all_sc[n] for n in names]
    if args.reps is not None:
        if args.reps < 1:
            sys.exit("compare.py: --reps must be >= 1")
        for sc in scs:
            sc.reps = args.reps

    outdir = Path(args.out)
    logdir = outdir / "logs"
    if logdir.exists():
        shutil.rmtree(logdir)
    mpis = find_mpis(args)
    for m in mpis:
        if m.error:
            progress(f"skip   {m.label:8s} {m.error}")
        elif not build(m, outdir, not args.no_werror):
            progress(f"skip   {m.label:8s} {m.error}")
    usable = [m for m in mpis if not m.error]
    if not usable:
        progress("compare.py: no usable MPI")
        return 1
    subject = args.subject or ("locus" if any(m.key == "locus" for m in usable)
                               else usable[0].key)
    if subject not in [m.key for m in usable]:
        sys.exit(f"compare.py: subject '{subject}' is not among the measured MPIs")
    subject_label = next(m.label for m in usable if m.key == subject)

    la = loadavg()
    used = cpu_busy()
    # More than a fifth of a core busy while we are idle = someone else.
    busy = used is not None and used > 0.2
    if busy:
        progress(f"warning: {used:.1f} cores busy before starting (load average "
                 f"{' '.join(la)}); other work on this host makes the numbers noisy")
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"),
            "command": "python3 bench/compare.py " + " ".join(sys.argv[1:]),
            "host": platform.node(), "cpu": cpu_model(), "cores": ncores(),
            "kernel": platform.release(), "load_start": " ".join(la),
            "cpu_busy_start": None if used is None else round(used, 2),
            "busy": busy, "no_validate": args.no_validate, "no_werror": args.no_werror,
            "subject": subject}

    results, bindings, tables, plots = [], {}, {}, {}
    for sc in scs:
        sc.mpis = sc.with_references(usable)
    total = sum(sc.reps * len(sc.jobs) * len(sc.mpis) for sc in scs)
    step = [0]
    t0 = time.time()
    for sc in scs:
        progress(f"== {sc.name}: {sc.desc} ({sc.reps} reps)")
        bindings[sc.name] = run_scenario(sc, sc.mpis, args, logdir, results, step, total)
        tables[sc.name] = summarize(sc, sc.mpis, results, subject)
        print(f"\n== {sc.name}: {sc.desc}; median of {sc.reps} runs")
        print(render_table(tables[sc.name], sc.mpis, subject_label))
        print(flush=True)
    meta["load_end"] = " ".join(loadavg())
    used_end = cpu_busy()
    meta["cpu_busy_end"] = None if used_end is None else round(used_end, 2)
    meta["busy"] = busy or (used_end is not None and used_end > 0.2)
    meta["elapsed_s"] = round(time.time() - t0, 1)
    for sc in scs:
        p = try_plot(sc, tables[sc.name], sc.mpis, outdir)
        if p:
            plots[sc.name] = str(p)
    write_outputs(outdir, meta, mpis, scs, tables, bindings, results, subject_label, plots)
    progress(f"done in {meta['elapsed_s']} s; wrote {outdir / 'report.md'}, results.csv, "
             f"summary.csv, results.json" + (", PNG plots" if plots else
                                              " (no plots: matplotlib not importable)"))
    failed = sum(1 for r in results if r["status"] != "ok")
    if failed:
        progress(f"{failed} metric values missing because runs failed; see {logdir}")
        return 1
    return 0


def _terminate(signum, _frame):
    # Turn SIGTERM/SIGHUP into an exception so run_cmd's cleanup ends the
    # running MPI job instead of leaving its ranks behind.
    raise KeyboardInterrupt(f"signal {signum}")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _terminate)
    signal.signal(signal.SIGHUP, _terminate)
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
