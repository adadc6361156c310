#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare the constants of Locus's `mpi` and `mpi_f08` modules with MPICH's.

usage: compare_modules.py <locus build dir> <MPICH include dir> <work dir>

For each module, one program that prints every integer constant both
mpif.h files define (handles of mpi_f08 as their MPI_VAL) is built twice,
against Locus's module and library and against MPICH's, and run; the two
outputs must agree line by line.  A constant one module lacks (the build
names it) is left out and listed.  Differences on purpose: MPI_SUBVERSION
(Locus implements MPI 4.1, MPICH 4.0.2 says 4.0); in mpi_f08, the
MPI_MAX_* string lengths, which MPICH's mpi_f08 gives with C's value
(counting the NUL) while its mpif.h and mpi give one less -- Locus gives
one less in all three (no MPICH binary depends on mpi_f08's values: its
F08 ABI is not Locus's).  Exit 0 only if equal.
"""
import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(HERE))
import compare_mpif  # noqa: E402
import gen_fortran_f08  # noqa: E402
import gen_fortran_parse  # noqa: E402

ALLOWED = {"MPI_SUBVERSION"}


def program(module, names, typed):
    lines = [f"program consts_{module}", f"  use {module}", "  implicit none"]
    for n in names:
        expr = f"{n}%MPI_VAL" if module == "mpi_f08" and typed.get(n) in gen_fortran_f08.F08_HANDLES else n
        lines.append(f"  write (*, '(a,1x,i0)') '{n}', {expr}")
    lines.append("end program")
    return "\n".join(lines) + "\n"


def build_and_run(work, tag, module, names, typed, inc, libs):
    """(output lines, names dropped because the module lacks them)."""
    dropped = []
    for _ in range(5):
        src = work / f"{module}_{tag}.f90"
        exe = work / f"{module}_{tag}"
        src.write_text(program(module, names, typed))
        mod_dir = work / f"mod_{module}_{tag}"  # keep our .mod files apart
        mod_dir.mkdir(exist_ok=True)
        r = subprocess.run(["gfortran", "-ffree-line-length-none", f"-I{inc}", f"-J{mod_dir}", "-o", str(exe),
                            str(src)] + libs, capture_output=True, text=True)
        if r.returncode == 0:
            out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
            return out.splitlines(), dropped
        missing = set(re.findall(r"Symbol ‘(\w+)’ at \(1\) has no IMPLICIT type", r.stderr))
        missing |= set(re.findall(r"Symbol '(\w+)' at \(1\) has no IMPLICIT type", r.stderr))
        missing = {m.upper() for m in missing}
        if not missing:
            sys.exit(f"{tag} {module}: build failed:\n{r.stderr[:3000]}")
        dropped += sorted(missing)
        names = [n for n in names if n not in missing]
    sys.exit(f"{tag} {module}: still failing after dropping {dropped}")


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    build, mpich_inc, work = pathlib.Path(argv[0]), pathlib.Path(argv[1]), pathlib.Path(argv[2])
    work.mkdir(parents=True, exist_ok=True)
    locus_p, _, _ = compare_mpif.read(build / "include" / "mpif.h")
    mpich_p, _, _ = compare_mpif.read(mpich_inc / "mpif.h")
    names = sorted(n for n in set(locus_p) & set(mpich_p)
                   if not locus_p[n].startswith(".") and n not in ALLOWED)
    typed = {n: t for n, _, t in gen_fortran_parse.constants(typed=True)}
    # (a sanitizer build of Locus needs its runtimes in the program too)
    extra = os.environ.get("LC_F_EXTRA_LDFLAGS", "").split()
    locus_libs = [f"-L{build / 'lib'}", f"-Wl,-rpath,{build / 'lib'}", "-lmpifort", "-lmpi"] + extra
    mpich_libs = ["-lmpichfort", "-lmpich"]
    fails = 0
    for module in ("mpi", "mpi_f08"):
        ours, d1 = build_and_run(work, "locus", module, names, typed, build / "include", locus_libs)
        theirs, d2 = build_and_run(work, "mpich", module, names, typed, mpich_inc, mpich_libs)
        a = dict(line.split(None, 1) for line in ours)
        b = dict(line.split(None, 1) for line in theirs)
        both = sorted(set(a) & set(b))
        diff = [n for n in both if a[n] != b[n]]
        if module == "mpi_f08":
            for n in [n for n in diff if n.startswith("MPI_MAX_") and int(b[n]) == int(a[n]) + 1]:
                print(f"note: mpi_f08: {n}: Locus {a[n]} (as mpif.h), MPICH's mpi_f08 {b[n]} (C's)")
                diff.remove(n)
        for n in diff:
            print(f"FAIL: {module}: {n}: Locus {a[n]}, MPICH {b[n]}")
        if d1:
            print(f"FAIL: {module}: not in Locus's module: {' '.join(d1)}")
        if d2:
            print(f"note: {module}: not in MPICH's module: {' '.join(d2)}")
        print(f"{module}: {len(both) - len(diff)} constants equal")
        fails += len(diff) + bool(d1)
    print("PASS" if not fails else f"{fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
