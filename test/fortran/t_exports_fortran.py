#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""libmpifort exports the Fortran entry points of the C API, as MPICH does.

usage: t_exports_fortran.py <libmpifort.so> [<MPICH's libmpichfort.so.12>]

For every function scripts/gen_fortran.py binds (api/mpi_functions.txt
minus the large-count, C-only and hint-skipped ones), the library must
export the eight names MPICH's libmpichfort exports for it: mpi_x_,
mpi_x, mpi_x__, MPI_X and the same four as pmpi_/PMPI_ -- and each of
those must be among MPICH's names for a function MPICH binds.  Functions
Locus exports in C whose Fortran form MPICH has but Locus leaves out
are listed with the reason from api/fortran_hints.txt.

MPICH's mpi_f08 entry points (mpi_x_f08_, mpi_x_f08ts_, _large_, the ==
and /= of its module mpi_f08_types, the callbacks of mpi_f08_callbacks):
each is exported, or left out with a reason (F08_LEFT_OUT).

Data: every object MPICH's libmpichfort exports (the common blocks of
mpif.h, the C-visible sentinel pointers), gfortran module data aside, is
exported by libmpifort or libmpi (next to it) with at least MPICH's size;
MPIR_F_NeedInit, MPICH's own "sentinels not yet located" flag, is not
needed (Locus's common blocks are its own objects).
"""
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import gen_fortran_parse  # noqa: E402


def exports(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if len(line.split()) >= 3}


def objects(lib):
    out = subprocess.run(["readelf", "-W", "--dyn-syms", lib], check=True, capture_output=True, text=True).stdout
    objs = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "OBJECT" and f[6] != "UND":
            objs[f[7].split("@")[0]] = int(f[2], 0)
    return objs


NOT_NEEDED = {"MPIR_F_NeedInit"}
# MPICH mpi_f08 entry points Locus leaves out, and why (docs/fortran.md)
F08_LEFT_OUT = {
    "mpi_delete_error_": "MPICH's pre-4.1 names of MPI_Remove_error_*",
}
FORTRAN_ONLY = ["F_sync_reg", "Comm_null_copy_fn", "Comm_dup_fn", "Comm_null_delete_fn", "Null_copy_fn",
                "Dup_fn", "Null_delete_fn", "Conversion_fn_null"]


def names(name):
    low, up = name.lower(), name.upper()
    return [f"{p}{low}{s}" for p in ("mpi_", "pmpi_") for s in ("_", "", "__")] + [f"MPI_{up}", f"PMPI_{up}"]


def main(argv):
    ours = exports(argv[0])
    mpich = exports(argv[1]) if len(argv) > 1 and pathlib.Path(argv[1]).exists() else None
    bound, left = gen_fortran_parse.functions()
    large = [b for b in bound if "@large" in b[3]]  # mpi_f08's only: lc_f08_<name>_
    bound = [b for b in bound if "@large" not in b[3]]
    fails = [f"MPI_{name}: lc_f08_{name.lower()}_ not exported" for name, *_ in large
             if f"lc_f08_{name.lower()}_" not in ours]
    for name, *_ in bound:
        for n in names(name):
            if n not in ours:
                fails.append(f"MPI_{name}: {n} not exported")
            elif mpich is not None and f"mpi_{name.lower()}_" in mpich and n not in mpich:
                fails.append(f"MPI_{name}: {n} is not one of MPICH's names")
    # Fortran-only routines (src/fortran): each of MPICH's names for them
    for name in FORTRAN_ONLY:
        for n in names(name):
            if (mpich is None or n in mpich) and n not in ours:
                fails.append(f"MPI_{name.upper()}: {n} not exported")
    # MPI 4.1 §19.1.5's TYPE(C_PTR) specifics (MPI_ALLOC_MEM_CPTR...)
    cptr = [name for name, _, args, h in bound if any(gen_fortran_parse.kind_of(a, h)[0] == "addr_out" for a in args)]
    for name in cptr:
        for n in names(name + "_cptr"):
            if n not in ours:
                fails.append(f"MPI_{name.upper()}_CPTR: {n} not exported")
    print(f"{len(cptr)} TYPE(C_PTR) forms: " + ", ".join(f"MPI_{n.upper()}_CPTR" for n in cptr))
    if mpich is not None:
        # MPI_SIZEOF's specifics in MPICH's module mpi_sizeofs (programs
        # built with MPICH's `mpi` module call them)
        sz = sorted(n for n in mpich if n.startswith("__mpi_sizeofs_MOD_")
                    or n.startswith("__mpi_f08_types_MOD_mpi_sizeof_"))
        fails += [f"MPICH's MPI_SIZEOF specific {n} not exported" for n in sz if n not in ours]
        print(f"{len(sz)} of MPICH's MPI_SIZEOF specifics checked")
    print(f"{len(bound)} functions bound, {len(bound) * 8} entry points checked; "
          f"{len(large)} large-count forms for mpi_f08")
    if mpich is not None:
        for name, why in left:
            if f"mpi_{name.lower()}_" in mpich and not name.endswith("_c"):
                print(f"note: MPI_{name} has a Fortran form in MPICH, not in Locus: {why}")
    if mpich is not None:
        # MPICH's mpi_f08 entry points (programs built with MPICH's mpi_f08
        # module call them): mpi_x_f08_, mpi_x_f08ts_ (+ _large_), and the
        # module procedures of mpi_f08_types (==, /=) and mpi_f08_callbacks
        f08 = sorted(n for n in mpich if re.fullmatch(r"mpi_\w+_f08(ts)?(_large)?_", n)
                     or re.fullmatch(r"pmpir_(wtime|wtick|aint_add|aint_diff)_f08_", n)
                     or re.fullmatch(r"__mpi_f08_types_MOD_mpi_status_(f082f|f2f08)", n)
                     or re.fullmatch(r"__mpi_f08_types_MOD_mpi_\w+_(eq|neq|f08_eq_f|f08_neq_f|f_eq_f08|f_neq_f08)", n)
                     or n.startswith("__mpi_f08_callbacks_MOD_"))
        missing = [n for n in f08 if n not in ours]
        unexplained = [n for n in missing if not any(n.startswith(k) or k in n for k in F08_LEFT_OUT)]
        print(f"{len(f08)} of MPICH's mpi_f08 entry points checked, {len(missing)} left out: "
              + ", ".join(sorted({k for n in missing for k in F08_LEFT_OUT if n.startswith(k) or k in n})))
        fails += [f"MPICH's mpi_f08 entry point {n} not exported" for n in unexplained]
    if mpich is not None:
        ours_obj = objects(argv[0])
        libmpi = pathlib.Path(argv[0]).resolve().parent / "libmpi.so.12"
        if libmpi.exists():
            ours_obj.update(objects(str(libmpi)))
        theirs = {n: z for n, z in objects(argv[1]).items() if "_MOD_" not in n and n not in NOT_NEEDED}
        for n, size in sorted(theirs.items()):
            if n not in ours_obj:
                fails.append(f"data object {n} ({size} bytes in MPICH) not exported")
            elif ours_obj[n] < size:
                fails.append(f"data object {n}: {ours_obj[n]} bytes, MPICH's {size}")
        print(f"{len(theirs)} of MPICH's data objects checked")
    for f in fails:
        print(f"FAIL: {f}")
    print("PASS" if not fails else f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
