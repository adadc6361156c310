#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generate Locus's Fortran bindings (mpif.h, the `mpi` module, the C glue).

Inputs, all in the source tree:
  api/mpi_functions.txt   the C API (read through gen_api.parse)
  api/fortran_hints.txt   what a C prototype cannot say (strings out,
                          logicals, 1-based indices, functions left out)
  include/mpi.h           the values of the constants

Outputs (into OUTDIR, normally build/generated/fortran, at build time):
  lc_f_glue.c   the Fortran entry points: for each function MPI_Xxx,
                mpi_xxx_ (strong) and mpi_xxx, mpi_xxx__, MPI_XXX as
                aliases (calling MPI_Xxx), and the same four pmpi_ names
                (calling PMPI_Xxx) -- the names Debian's libmpichfort
                exports;
  mpif.h        constants, sentinels in MPICH's common blocks, EXTERNALs;
  mpi.f90       module mpi: the same constants and explicit interfaces;
  mpi_f08.f90   module mpi_f08: handle types, MPI_Status, optional ierror
                (its procedures call the glue; compiled into libmpifort);
  mpich_f08.f90, lc_f_mpich_f08_types.c, lc_f_pmpir.ld
                MPICH's mpi_f08 entry points (render_mpich_f08; the
                linker script names the PMPI_ ones as MPICH does);
  lc_mpi_sizeof.f90
                MPI_SIZEOF (module lc_mpi_sizeof, which mpi and mpi_f08
                re-export) and MPICH's modules' MPI_SIZEOF entry points.

    scripts/gen_fortran.py OUTDIR          write the files
    scripts/gen_fortran.py --list          print bound / left-out functions

One module per output, beside this one: gen_fortran_parse.py (the
functions, argument kinds and constants every renderer reads),
gen_fortran_glue.py (lc_f_glue.c), gen_fortran_mpif.py (mpif.h),
gen_fortran_module.py (mpi.f90), gen_fortran_f08.py (mpi_f08.f90),
gen_fortran_mpich_f08.py (mpich_f08.f90, lc_f_mpich_f08_types.c),
gen_fortran_sizeof.py (lc_mpi_sizeof.f90).
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gen_fortran_f08 import render_f08  # noqa: E402
from gen_fortran_glue import render_glue  # noqa: E402
from gen_fortran_module import render_module  # noqa: E402
from gen_fortran_mpich_f08 import render_mpich_f08, render_mpich_f08_types, render_pmpir_ld  # noqa: E402
from gen_fortran_mpif import render_mpif  # noqa: E402
from gen_fortran_parse import functions  # noqa: E402
from gen_fortran_sizeof import render_sizeof  # noqa: E402


def main(argv):
    bound, left = functions()
    if "--mpich-f08-names" in argv:
        render_f08(bound)
        print("\n".join(render_mpich_f08(bound)[1]))
        return 0
    if "--list" in argv:
        for name, *_ in bound:
            print(f"bound MPI_{name}")
        for name, why in left:
            print(f"left  MPI_{name}: {why}")
        return 0
    if len(argv) != 1:
        sys.exit(__doc__)
    outdir = pathlib.Path(argv[0])
    outdir.mkdir(parents=True, exist_ok=True)
    f08 = render_f08(bound)
    mpich_f08, _ = render_mpich_f08(bound)
    for fname, text in (("lc_f_glue.c", render_glue(bound)), ("mpif.h", render_mpif(bound)),
                        ("mpi.f90", render_module(bound)), ("mpi_f08.f90", f08),
                        ("mpich_f08.f90", mpich_f08), ("lc_f_mpich_f08_types.c", render_mpich_f08_types()),
                        ("lc_f_pmpir.ld", render_pmpir_ld(bound)),
                        ("lc_mpi_sizeof.f90", render_sizeof())):
        p = outdir / fname
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
