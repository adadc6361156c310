#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run mpi4py's own test suite on Locus: code nobody here wrote, as a judge.

  mpi4py.py setup --build DIR [--variant source|wheel]
      Makes DIR/mpi4py/<variant>/venv (Debian's python3) holding mpi4py
      MPI4PY_VERSION: 'source' builds it from PyPI's sdist with Locus's
      mpicc (mpi4py probes which MPI functions exist, as configure does);
      'wheel' installs PyPI's binary wheel, built for the MPICH ABI, which
      then loads Locus's libmpi.so.12 through LD_LIBRARY_PATH.  The sdist's
      test/ directory is unpacked next to it.  Rebuilt only when mpi.h or the
      API description changed.
  mpi4py.py run --build DIR --np N [--variant V] [--timeout S] [--json F]
                [--against mpich|openmpi]
      Runs every test module as its own job (mpiexec -n N, one timeout per
      module so one hang cannot hide the rest), reads each rank's XML report,
      and prints per module: tests, passed, skipped, failed.  Exits 1 when a
      test fails, errors or hangs unless test/mpi4py/exclude.txt names it
      (each exclusion with its reason and the issue that removes it).
      Excluded tests still run, so a run also fails when every test an
      exclusion names passes (the list shrinks as Locus grows); only the
      modules the list names whole (they hang) are not started.
      --against runs the wheel on Debian's MPICH or Open MPI instead of
      Locus, to report their counts on the same suite (no exclusions; the
      exit status says only whether the harness worked).
"""
import argparse
import fcntl
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET

MPI4PY_VERSION = "4.1.2"
# What mpi4py's suite uses when it is there (numpy: buffers of numpy
# arrays and test_util_dtlib's dtype <-> datatype mapping; cffi, dill,
# yaml: more buffer and pickle variants).  Without them 36 of each run's
# tests skip (2 ranks: 107 skipped, 71 with them).  Pinned, as mpi4py is,
# so that a run does not change with what PyPI publishes next.
TEST_EXTRAS = ["numpy==2.4.6", "cffi==2.1.1", "dill==0.4.1", "PyYAML==6.0.4"]
ROOT = pathlib.Path(__file__).resolve().parent.parent
EXCLUDE = ROOT / "test" / "mpi4py" / "exclude.txt"
PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


def sh(cmd, **kw):
    print("+", " ".join(map(str, cmd)), flush=True)
    subprocess.run(list(map(str, cmd)), check=True, **kw)


def api_stamp():
    h = hashlib.sha256()
    for p in (ROOT / "include" / "mpi.h", ROOT / "api" / "mpi_functions.txt"):
        h.update(p.read_bytes())
    h.update(MPI4PY_VERSION.encode())
    return h.hexdigest()


def fetch_sdist(top):
    """The sdist, downloaded and unpacked once per build directory.  Both
    setups (source, wheel) need it and ctest starts them together: a lock
    makes the second wait for the first's download instead of racing it
    (two pip runs writing one file, and one cache, at once)."""
    top.mkdir(parents=True, exist_ok=True)
    with open(top / ".fetch.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return fetch_sdist_locked(top)


def fetch_sdist_locked(top):
    dist = top / "dist"
    tarball = dist / f"mpi4py-{MPI4PY_VERSION}.tar.gz"
    if not tarball.exists():
        dist.mkdir(parents=True, exist_ok=True)
        # No cache, as for the installs below: pip reads and writes the
        # user's wheel cache without a lock (a run that read another's
        # half-written origin.json failed: JSONDecodeError), and a
        # download should not depend on what other pip runs left there.
        sh([PYTHON, "-m", "pip", "download", "--no-cache-dir", "--no-deps", "--no-binary", ":all:", "-d", dist,
            f"mpi4py=={MPI4PY_VERSION}"])
    src = top / f"mpi4py-{MPI4PY_VERSION}"
    if not (src / "test" / "main.py").exists():
        with tarfile.open(tarball) as tf:
            tf.extractall(top, filter="data")
    return tarball, src


def setup(args):
    build = pathlib.Path(args.build).resolve()
    top = build / "mpi4py"
    tarball, _ = fetch_sdist(top)
    home = top / args.variant
    stamp = home / "stamp"
    want = (api_stamp() if args.variant == "source" else MPI4PY_VERSION) + " " + " ".join(TEST_EXTRAS)
    if stamp.exists() and stamp.read_text() == want:
        print(f"mpi4py ({args.variant}) is up to date in {home}")
        return 0
    shutil.rmtree(home, ignore_errors=True)
    sh([PYTHON, "-m", "venv", home / "venv"])
    pip = [home / "venv" / "bin" / "python", "-m", "pip", "install", "--no-cache-dir", "-q"]
    sh(pip + ["unittest-xml-reporting"] + TEST_EXTRAS)
    if args.variant == "source":
        env = dict(os.environ, MPICC=str(build / "bin" / "mpicc"))
        sh(pip + [tarball], env=env)
    else:
        sh(pip + ["--only-binary", ":all:", f"mpi4py=={MPI4PY_VERSION}"])
    stamp.write_text(want)
    return 0


def read_exclusions(variant):
    """exclude.txt: '<pattern>  # reason (issue N)'; a pattern ending in '.py'
    excludes a whole module (it is not started at all); a pattern prefixed
    'source:' or 'wheel:' applies to that variant only."""
    pats, modules = [], []
    for line in EXCLUDE.read_text().splitlines():
        pat = line.split("#", 1)[0].strip()
        if not pat:
            continue
        only, sep, rest = pat.partition(":")
        if sep and only in ("source", "wheel"):
            if only != variant:
                continue
            pat = rest.strip()
        (modules if pat.endswith(".py") else pats).append(pat)
    return pats, modules


def matches(test_id, pats):
    return any(p in test_id for p in pats)


def read_reports(xmldir):
    """Each rank's XML reports -> {test id: worst outcome over ranks}."""
    order = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
    out = {}
    for f in sorted(xmldir.glob("*.xml")):
        for case in ET.parse(f).getroot().iter("testcase"):
            tid = f"{case.get('classname')}.{case.get('name')}"
            kind = "passed"
            for child in case:
                if child.tag in ("failure", "error", "skipped"):
                    kind = {"failure": "failed", "error": "error", "skipped": "skipped"}[child.tag]
            if order[kind] >= order.get(out.get(tid, "passed"), 0):
                out[tid] = kind
    return out


def run(args):
    build = pathlib.Path(args.build).resolve()
    top = build / "mpi4py"
    home = top / args.variant
    src = top / f"mpi4py-{MPI4PY_VERSION}"
    python = home / "venv" / "bin" / "python"
    if not python.exists():
        print(f"mpi4py ({args.variant}) is not set up: run {sys.argv[0]} setup --build {args.build}", file=sys.stderr)
        return 2
    pats, skip_modules = read_exclusions(args.variant)
    env = dict(os.environ, LD_LIBRARY_PATH=str(build / "lib"))
    mpiexec = [build / "bin" / "mpiexec"]
    if args.variant == "wheel":
        env["MPI4PY_MPIABI"] = "mpich"
    if args.against:
        if args.variant != "wheel":
            print("--against needs --variant wheel (the source build is linked to Locus)", file=sys.stderr)
            return 2
        pats, skip_modules = [], []
        mpiexec = [shutil.which(f"mpiexec.{args.against}")]
        if args.against == "openmpi":
            env["MPI4PY_MPIABI"] = "openmpi"
            mpiexec += ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
            env.pop("LD_LIBRARY_PATH")
        else:
            # The wheel loads libmpi.so.12; Debian names MPICH's libmpich.so.12.
            libdir = top / "mpich-lib"
            libdir.mkdir(exist_ok=True)
            link = libdir / "libmpi.so.12"
            if not link.exists():
                link.symlink_to("/usr/lib/x86_64-linux-gnu/libmpich.so.12")
            env["LD_LIBRARY_PATH"] = str(libdir)
        home = top / f"wheel-on-{args.against}"
        home.mkdir(exist_ok=True)
    modules = sorted(p.name for p in (src / "test").glob("test_*.py"))
    if args.only:
        modules = [m for m in modules if any(o in m for o in args.only)]
    results, bad, unexpected_pass, summary = {}, [], [], []
    t_all = time.time()
    for mod in modules:
        if mod in skip_modules:
            summary.append((mod, "excluded", 0, 0, 0, 0, 0, 0.0))
            continue
        xmldir = home / "xml" / f"np{args.np}" / mod[:-3]
        shutil.rmtree(xmldir, ignore_errors=True)
        xmldir.mkdir(parents=True)
        cmd = mpiexec + ["-n", str(args.np), python, src / "test" / "main.py",
               "--xml", xmldir, "--no-builddir", mod]
        t0 = time.time()
        try:
            p = subprocess.run(list(map(str, cmd)), cwd=src / "test", env=env, capture_output=True,
                               text=True, timeout=args.timeout)
            rc, out = p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out = "timeout", (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
        dt = time.time() - t0
        got = read_reports(xmldir)
        results.update(got)
        counts = {k: sum(1 for v in got.values() if v == k) for k in ("passed", "skipped", "failed", "error")}
        fails = [t for t, v in got.items() if v in ("failed", "error")]
        expected = [t for t in fails if matches(t, pats)]
        fails = [t for t in fails if t not in expected]
        if rc == "timeout" or (rc != 0 and not fails and not expected):
            status = "HANG" if rc == "timeout" else f"EXIT {rc}"
            bad.append(f"{mod}: {status}")
            if args.verbose:
                print(out[-3000:])
        else:
            status = "FAIL" if fails else "ok (x)" if expected else "ok"
        for t in fails:
            bad.append(f"{mod}: {got[t].upper()} {t}")
        summary.append((mod, status, len(got), counts["passed"], counts["skipped"],
                        counts["failed"] + counts["error"], len(expected), dt))
        if fails and args.verbose:
            print(out[-6000:])
        print(f"{mod:32s} {status:8s} tests {len(got):4d}  passed {counts['passed']:4d}  "
              f"skipped {counts['skipped']:4d}  failed {counts['failed'] + counts['error']:3d} "
              f"(excluded {len(expected):3d})  {dt:6.1f} s", flush=True)
    # An exclusion that no longer hides a failure is stale: say so.
    for pat in pats:
        hit = [t for t in results if pat in t]
        if hit and all(results[t] == "passed" for t in hit):
            unexpected_pass.append(pat)
    tot = {k: sum(1 for v in results.values() if v == k) for k in ("passed", "skipped", "failed", "error")}
    nexp = sum(1 for t, v in results.items() if v in ("failed", "error") and matches(t, pats))
    on = f" on {args.against}" if args.against else ""
    print(f"\nmpi4py {MPI4PY_VERSION} ({args.variant}{on}) at {args.np} rank(s): {len(results)} tests, "
          f"{tot['passed']} passed, {tot['skipped']} skipped by mpi4py, {tot['failed'] + tot['error']} failed "
          f"({nexp} of them excluded); {len(skip_modules)} modules not started; {time.time() - t_all:.0f} s")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"np": args.np, "variant": args.variant, "totals": tot,
                                                       "modules": summary, "problems": bad}, indent=1))
    for b in bad:
        print("PROBLEM", b)
    for u in unexpected_pass:
        print(f"STALE exclusion (every matching test passes now; remove it from {EXCLUDE.name}): {u}")
    if args.against:
        return 0
    return 1 if bad or unexpected_pass else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("setup")
    s.add_argument("--build", required=True)
    s.add_argument("--variant", choices=("source", "wheel"), default="source")
    r = sub.add_parser("run")
    r.add_argument("--build", required=True)
    r.add_argument("--variant", choices=("source", "wheel"), default="source")
    r.add_argument("--np", type=int, default=1)
    r.add_argument("--timeout", type=float, default=240.0, help="seconds per test module")
    r.add_argument("--only", action="append", help="run only modules whose name contains this")
    r.add_argument("--json")
    r.add_argument("--against", choices=("mpich", "openmpi"), help="run the wheel on this MPI, not Locus")
    r.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    return setup(args) if args.cmd == "setup" else run(args)


if __name__ == "__main__":
    sys.exit(main())
