#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""testlist.py: the one parser of test/mpi/testlist, the list of every run
of an MPI test program (one host, over the network, across emulated hosts,
as an MPICH-built binary).  The grammar is described at the top of the
list and in test/README.md.

    testlist.py ctest --out FILE --build-dir DIR --locus-info PATH
                      [--mpicc-mpich PATH]
        Write a CTest file that registers every run as one test, with its
        labels (test/mpi/CMakeLists.txt runs this at build time; ctest
        includes FILE).  `coll=NAME` lines are expanded with the algorithms
        `locus-info --coll-algorithms` prints from the selection tables,
        and every collective it prints must be named by some coll= line.
    testlist.py runs [--area AREA]
        Print the runs of AREA (default: mpi) one per line, in the list's
        own grammar with every field explicit, leaving out coll= lines:
        for test/mpi/validate_with_mpich.sh, which runs them with MPICH
        (where LOCUS_COLL_* changes nothing).

Exit status 2, with the file and line, for a list it cannot accept.
"""

import argparse
import copy
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LIST = os.path.join(HERE, "mpi", "testlist")

# Per area: the test name's first part, the ctest labels, the default
# ctest timeout, and how much of it the job itself may use (the rest is
# left to the runner to kill the job, check for leftovers and clean up).
AREAS = {
    "mpi": {"labels": ["mpi"], "timeout": 60, "margin": 12},
    "ofi": {"labels": ["ofi"], "timeout": 60, "margin": 12},
    "multihost": {"labels": ["multihost", "mpi"], "timeout": 90, "margin": 30},
    "abi.mpich_binary": {"labels": ["abi"], "timeout": 90, "margin": 20},
}
NETS = {
    "shm": [],
    "ofi": ["LOCUS_NET_FORCE=1"],  # every non-self peer through libfabric
    "mixed": ["LOCUS_NET_BLOCK=2"],  # ranks 2k, 2k+1 share memory, the rest is ofi
}
REPEATABLE = ("arg", "env", "label")
SINGLE = ("net", "hosts", "build", "coll", "expect", "blame", "maxsec", "timeout", "name")


class ListError(Exception):
    pass


class Run:
    """One job: a program on a number of ranks, with everything that
    decides how it runs and how it is judged."""

    def __init__(self, prog, np, lineno):
        self.prog, self.np, self.lineno = prog, np, lineno
        self.args, self.envs, self.labels = [], [], []
        self.net, self.hosts, self.build, self.coll = "shm", None, None, None
        self.expect_failure, self.blame, self.maxsec = False, None, None
        self.timeout, self.name = None, None

    def area(self):
        if self.build == "mpich":
            return "abi.mpich_binary"
        if self.hosts:
            return "multihost"
        return "mpi" if self.net == "shm" else "ofi"

    def job_envs(self):
        return NETS[self.net] + self.envs

    def ctest_timeout(self):
        if self.timeout:
            return self.timeout
        # 8 ranks already oversubscribe the machine: they get longer
        return AREAS[self.area()]["timeout"] * (2 if self.np >= 8 else 1)

    def test_name(self):
        parts = [self.area(), self.prog, str(self.np)]
        if self.hosts:
            parts.append(layout_short(self.hosts))
        if self.name:
            parts.append(self.name)
            return ".".join(parts)
        parts += self.args
        if self.net == "mixed":
            parts.append("mixed")
        # variants of one run differ by their environment: name them so
        parts += [re.sub(r"^locus_", "", e.lower()) for e in self.envs]
        return ".".join(parts)


def fail(lineno, msg):
    raise ListError("%s:%s: %s" % (os.path.relpath(LIST), lineno, msg))


def layout_ranks(layout, lineno):
    """h1:2,h2:1 -> [2, 1]: ranks per host h1, h2, ... (0 for a host of
    the set that holds none, e.g. h1 in h2:2,h3:1: mpiexec runs there)."""
    counts = {}
    for entry in layout.split(","):
        m = re.fullmatch(r"h([1-9][0-9]*):([1-9][0-9]*)", entry)
        if not m or int(m.group(1)) in counts:
            fail(lineno, "hosts=%s: want h<N>:<ranks>,... with each host once (e.g. hosts=h1:2,h2:1)" % layout)
        counts[int(m.group(1))] = int(m.group(2))
    return [counts.get(h, 0) for h in range(1, max(counts) + 1)]


def layout_short(layout):
    return "+".join(str(n) for n in layout_ranks(layout, 0))


def positive(value, field, lineno):
    if not re.fullmatch(r"[1-9][0-9]*", value):
        fail(lineno, "%s=%s: want a positive whole number" % (field, value))
    return int(value)


def set_field(run, key, value, lineno):
    if key == "arg":
        run.args.append(value)
    elif key == "env":
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=[^;]*", value):
            fail(lineno, "env=%s: want env=NAME=VALUE (no ';' in VALUE)" % value)
        run.envs.append(value)
    elif key == "label":
        run.labels.append(value)
    elif key == "net":
        if value not in NETS:
            fail(lineno, "net=%s: want one of %s" % (value, ", ".join(NETS)))
        run.net = value
    elif key == "hosts":
        placed = sum(layout_ranks(value, lineno))
        if placed != run.np:
            fail(lineno, "hosts=%s places %d ranks, the line says %d" % (value, placed, run.np))
        run.hosts = value
    elif key == "build":
        if value != "mpich":
            fail(lineno, "build=%s: the only other build is build=mpich" % value)
        run.build = value
    elif key == "coll":
        if not re.fullmatch(r"[A-Z_]+", value):
            fail(lineno, "coll=%s: want the NAME of LOCUS_COLL_<NAME>, e.g. coll=BCAST" % value)
        run.coll = value
    elif key == "expect":
        if value != "failure":
            fail(lineno, "expect=%s: the only expectation to state is expect=failure" % value)
        run.expect_failure = True
    elif key == "blame":
        if not re.fullmatch(r"[0-9]+", value) or int(value) >= run.np:
            fail(lineno, "blame=%s: want a rank of the job (0..%d)" % (value, run.np - 1))
        run.blame, run.expect_failure = int(value), True
    elif key in ("maxsec", "timeout"):
        setattr(run, key, positive(value, key, lineno))
    elif key == "name":
        if not re.fullmatch(r"[A-Za-z0-9_+=-]+", value):
            fail(lineno, "name=%s: want one word of letters, digits, _ + = -" % value)
        run.name = value


def check_combination(run, lineno):
    if run.hosts and run.net != "shm":
        fail(lineno, "hosts= and net= do not combine: across hosts the placement decides the channels")
    if run.build and (run.net != "shm" or run.hosts or run.coll or run.expect_failure or run.maxsec):
        fail(lineno, "build=mpich takes only arg=, env=, timeout=, name=, label=")
    if run.coll and run.name:
        fail(lineno, "coll= makes one run per algorithm: name= cannot name them all")
    if run.timeout and run.timeout <= AREAS[run.area()]["margin"]:
        fail(lineno, "timeout=%d: the runner needs more than %d s" % (run.timeout, AREAS[run.area()]["margin"]))


def parse_line(line, lineno):
    words = line.split()
    if len(words) < 2:
        fail(lineno, "want: program ranks [key=value]...")
    prog = words[0]
    if not os.path.exists(os.path.join(HERE, "mpi", prog + ".c")):
        fail(lineno, "no test program test/mpi/%s.c" % prog)
    run = Run(prog, positive(words[1], "ranks", lineno), lineno)
    seen = set()
    for word in words[2:]:
        key, eq, value = word.partition("=")
        if not eq or key not in REPEATABLE + SINGLE:
            fail(lineno, "unknown field '%s' (fields: %s)" % (word, ", ".join(k + "=" for k in REPEATABLE + SINGLE)))
        if key in SINGLE and key in seen:
            fail(lineno, "%s= given twice" % key)
        seen.add(key)
        set_field(run, key, value, lineno)
    check_combination(run, lineno)
    return run


def read_list():
    runs = []
    with open(LIST) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if line:
                runs.append(parse_line(line, lineno))
    return runs


def read_algorithms(locus_info):
    """{collective: [algorithm, ...]} from the real selection tables."""
    out = subprocess.run([locus_info, "--coll-algorithms"], capture_output=True, text=True)
    if out.returncode != 0:
        raise ListError("%s --coll-algorithms failed (%d): %s" % (locus_info, out.returncode, out.stderr.strip()))
    algs = {}
    for line in out.stdout.splitlines():
        coll, alg = line.split()
        algs.setdefault(coll, []).append(alg)
    if not algs:
        raise ListError("%s --coll-algorithms printed no algorithm" % locus_info)
    return algs


def expand_coll(runs, algs):
    """coll=NAME: one run per algorithm of NAME, forced by
    LOCUS_COLL_NAME=<algorithm>; none when NAME has a single algorithm
    (forcing it is the plain run, listed on its own)."""
    named = set()
    out = []
    for run in runs:
        if not run.coll:
            out.append(run)
            continue
        if run.coll not in algs:
            fail(run.lineno, "coll=%s: no such collective (locus-info --coll-algorithms: %s)" %
                 (run.coll, " ".join(algs)))
        named.add(run.coll)
        for alg in algs[run.coll] if len(algs[run.coll]) > 1 else []:
            forced = copy.copy(run)
            forced.coll, forced.envs = None, run.envs + ["LOCUS_COLL_%s=%s" % (run.coll, alg)]
            out.append(forced)
    missing = [c for c in algs if c not in named]
    if missing:
        raise ListError("%s: no coll= line for %s: add one naming the program that calls it (e.g. "
                        "'coll_bcast 3 coll=BCAST'), so that each of its algorithms is tested forced" %
                        (os.path.relpath(LIST), ", ".join(missing)))
    return out


def ctest_quote(word):
    if "]==]" in word:
        raise ListError("cannot quote %r for CTest" % word)
    return "[==[" + word + "]==]"


def run_command(run, b):
    """The command line of one run, and the environment of the test."""
    area = run.area()
    inner = str(run.ctest_timeout() - AREAS[area]["margin"])
    prog = os.path.join(b.test_dir, run.prog)
    envs = run.job_envs()
    if area == "multihost":
        cmd = ["sh", os.path.join(HERE, "multihost", "t_mpi.sh"), "--job-limit", inner]
        cmd += [w for e in envs for w in ("--env", e)]
        envs = ["LC_HOSTS=" + b.lc_hosts, "MPIEXEC=" + b.mpiexec, "MPI_TEST_DIR=" + b.test_dir]
    elif area == "abi.mpich_binary":
        cmd = [os.path.join(HERE, "abi", "run_mpich_binary.sh"), b.mpiexec, str(run.np), b.lib_dir,
               os.path.join(HERE, "mpi", run.prog + ".c"), os.path.join(b.build_dir, "test", "abi", "mpich_binaries")]
        return cmd + run.args, envs + ["LC_TEST_TIMEOUT=" + inner]
    else:
        cmd = [os.path.join(HERE, "run_mpi_test.sh")]
    if run.expect_failure:
        cmd.append("--expect-failure")
    if run.blame is not None:
        cmd += ["--blame", str(run.blame)]
    if run.maxsec:
        cmd += ["--max-seconds", str(run.maxsec)]
    if area == "multihost":
        return cmd + [run.hosts, run.prog] + run.args, envs
    return cmd + ["--timeout", inner, b.mpiexec, str(run.np), prog] + run.args, envs


def ctest_lines(run, b):
    cmd, envs = run_command(run, b)
    name = ctest_quote(run.test_name())
    props = [("LABELS", ";".join(AREAS[run.area()]["labels"] + run.labels)),
             ("TIMEOUT", str(run.ctest_timeout())), ("PROCESSORS", str(run.np))]
    if envs:
        props.append(("ENVIRONMENT", ";".join(envs)))
    if run.area() == "multihost":
        props.append(("SKIP_RETURN_CODE", "77"))  # no emulated hosts here (needs root)
    if run.np >= 8:
        props.append(("RUN_SERIAL", "TRUE"))  # already oversubscribed: never two at once
    return ["add_test(%s %s)" % (name, " ".join(ctest_quote(w) for w in cmd)),
            "set_tests_properties(%s PROPERTIES %s)" % (name, " ".join(k + " " + ctest_quote(v) for k, v in props))]


def write_ctest(runs, b, out):
    names = {}
    lines = ["# Generated by test/testlist.py from test/mpi/testlist: do not edit."]
    for run in runs:
        if run.build and not b.mpicc_mpich:
            continue  # no MPICH here (test/abi/CMakeLists.txt warns at configure time)
        name = run.test_name()
        if name in names:
            fail(run.lineno, "run named %s again (first at line %d): tell them apart with name=" %
                 (name, names[name]))
        names[name] = run.lineno
        lines += ctest_lines(run, b)
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, out)  # ctest never sees half a file
    print("testlist: %d runs registered in %s" % (len(names), out))


def print_runs(runs, area):
    for run in runs:
        if run.area() != area or run.coll:
            continue
        words = [run.prog, str(run.np)] + ["arg=" + a for a in run.args] + ["env=" + e for e in run.job_envs()]
        words += ["expect=failure"] if run.expect_failure else []
        words += ["blame=%d" % run.blame] if run.blame is not None else []
        words += ["maxsec=%d" % run.maxsec] if run.maxsec else []
        words += ["timeout=%d" % run.ctest_timeout()]
        print(" ".join(words))


def main():
    ap = argparse.ArgumentParser(description="test/mpi/testlist: register or print its runs")
    sub = ap.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("ctest")
    c.add_argument("--out", required=True)
    c.add_argument("--build-dir", required=True)
    c.add_argument("--locus-info", required=True)
    c.add_argument("--mpicc-mpich", default="")
    r = sub.add_parser("runs")
    r.add_argument("--area", default="mpi", choices=sorted(AREAS))
    a = ap.parse_args()
    try:
        runs = read_list()
        if a.mode == "runs":
            print_runs(runs, a.area)
            return 0
        a.build_dir = os.path.abspath(a.build_dir)
        a.test_dir = os.path.join(a.build_dir, "test", "mpi")
        a.lib_dir = os.path.join(a.build_dir, "lib")
        a.mpiexec = os.path.join(a.build_dir, "bin", "mpiexec")
        a.lc_hosts = os.path.join(os.path.dirname(HERE), "scripts", "lc-hosts")
        write_ctest(expand_coll(runs, read_algorithms(a.locus_info)), a, a.out)
    except ListError as e:
        print("testlist: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
