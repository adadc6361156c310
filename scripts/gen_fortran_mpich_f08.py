# SPDX-License-Identifier: BSD-3-Clause
"""mpich_f08.f90 and lc_f_mpich_f08_types.c for scripts/gen_fortran.py:
the entry points of MPICH's mpi_f08 module, for programs built with it
(render_f08 runs first: it fills F08_GENERICS)."""
from gen_fortran_f08 import EXTERNALS, F08_GENERICS, F08_HANDLES
from gen_fortran_parse import kind_of, wrap


# A program built with MPICH's mpi_f08 module calls MPICH's external
# procedures: MPI_Xxx_f08 (gfortran: mpi_xxx_f08_) and, for routines with
# choice buffers, MPI_Xxx_f08ts, whose buffers are TYPE(*), DIMENSION(..)
# (assumed rank: gfortran passes its array descriptor).  Locus provides
# them as Fortran procedures with the same dummies, compiled by the same
# compiler, so the calling convention is the compiler's by construction;
# each calls module mpi_f08's procedure.  A buffer goes through
# lc_f08ts_buf (src/fortran/lc_f_cdesc.c), which sees the C descriptor of
# the actual argument: contiguous -> its address; an array section -> a
# datatype made from the descriptor's strides (freed after the call:
# MPI keeps a datatype alive while an operation uses it).

def buffer_pair(name, args, n):
    """(count, datatype, vcounts) dummies that describe choice buffer n, or
    None; vcounts: the counts are per rank (an array: the v-collectives)."""
    if name in ("Psend_init", "Precv_init"):
        return None  # count is per partition, not the buffer's
    names = {a.name: a for a in args}
    stem = n[:-3] if n.endswith("buf") else n[:-5] if n.endswith("_addr") else None
    cands = []
    if stem is not None:
        cands.append((f"{stem}count", f"{stem}type"))
        cands.append((f"{stem}_count", f"{stem}_datatype"))
    cands.append(("count", "datatype"))
    for c, t in cands:
        if c in names and t in names and names[c].by_value and names[c].base in ("int", "MPI_Count") \
                and names[t].base == "MPI_Datatype" and names[t].by_value:
            return c, t, False
    # Gatherv's recvcounts with recvtype, Scatterv's sendcounts with sendtype
    if stem is not None:
        c, t = f"{stem}counts", f"{stem}type"
        if c in names and t in names and names[c].array and names[c].base in ("int", "MPI_Count") \
                and names[t].base == "MPI_Datatype" and names[t].by_value:
            return c, t, True
    return None


# Calls that are done with their buffers when they return: a section
# there may go through a contiguous copy (lc_f_cdesc.c), copied back
# after the call.  Not the nonblocking, persistent or one-sided calls, nor
# those that keep the memory (MPI_Win_create, MPI_Buffer_attach).
COPY_OK = {"Send", "Bsend", "Ssend", "Rsend", "Recv", "Mrecv", "Sendrecv", "Sendrecv_replace",
           "Pack", "Unpack", "Pack_external", "Unpack_external", "Reduce_local",
           "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv", "Alltoall",
           "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter", "Reduce_scatter_block",
           "Scan", "Exscan", "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall",
           "Neighbor_alltoallv", "Neighbor_alltoallw"} | {
           f"File_{rw}{sfx}" for rw in ("read", "write")
           for sfx in ("", "_at", "_all", "_at_all", "_shared", "_ordered")}


def tied(name, args):
    """Whether a copy of a section given to MPI_<name> can be tied to the
    request it returns (lc_f08ts_tie): nonblocking and persistent
    point-to-point and collectives.  Not one-sided (MPI_Rget...: local
    completion goes through the window), partitioned (filled partition by
    partition) nor nonblocking file I/O."""
    base = name[:-2] if name.endswith("_c") else name
    if not any(a.name == "request" and a.base == "MPI_Request" and not a.array for a in args):
        return False
    if base.startswith(("File_", "Psend", "Precv", "Pready")) or base in ("Rput", "Rget", "Raccumulate",
                                                                          "Rget_accumulate"):
        return False
    return (base.startswith("I") and base[1].islower()) or base.endswith("_init")


def per_rank(name, buf):
    """Whether buffer `buf` of MPI_<name> holds `count` items per rank
    (a gather's receive buffer...), not `count` items in all."""
    base = name[:-2] if name.endswith("_c") else name
    base = base[:-5] if base.endswith("_init") else base
    base = base[1:].capitalize() if base.startswith("I") and base[1].islower() else base
    if base in ("Alltoall", "Neighbor_alltoall"):
        return True
    if base in ("Gather", "Allgather", "Neighbor_allgather"):
        return buf == "recvbuf"
    return base == "Scatter" and buf == "sendbuf"


def lc_glue_cptr(lines, bufs):
    """The glue's interface with each choice buffer TYPE(C_PTR), VALUE."""
    out = []
    for x in lines:
        w = x.strip()
        if w.startswith("!GCC$ ATTRIBUTES NO_ARG_CHECK ::") and w.split("::")[1].strip() in bufs:
            continue
        if w.startswith("type(*), dimension(*) ::") and w.split("::")[1].strip() in bufs:
            x = x[:len(x) - len(x.lstrip())] + f"type(c_ptr), value :: {w.split('::')[1].strip()}"
        out.append(x)
    return out


def render_mpich_f08(bound):
    out = ["! MPICH's mpi_f08 entry points (mpi_xxx_f08_, mpi_xxx_f08ts_) on Locus.",
           "! Generated by scripts/gen_fortran.py: do not edit.  See the comment",
           "! above render_mpich_f08 there.",
           "module lc_f08ts",
           "  use, intrinsic :: iso_c_binding, only: c_int, c_ptr",
           "  implicit none",
           "  interface",
           "    integer(c_int) function lc_f08ts_buf(buf, count, datatype, flags, addr, newcount, newtype, kind) &",
           "        bind(C, name='lc_f08ts_buf')",
           "      import :: c_int, c_ptr",
           "      type(*), dimension(..) :: buf",
           "      integer(c_int), value :: count, datatype, flags",
           "      type(c_ptr) :: addr",
           "      integer(c_int) :: newcount, newtype, kind",
           "    end function",
           "    subroutine lc_f08ts_done(kind, newtype, addr) bind(C, name='lc_f08ts_done')",
           "      import :: c_int, c_ptr",
           "      integer(c_int), value :: kind, newtype",
           "      type(c_ptr), value :: addr",
           "    end subroutine",
           "    integer(c_int) function lc_f08ts_tie(request, k1, t1, p1, k2, t2, p2) bind(C, name='lc_f08ts_tie')",
           "      import :: c_int, c_ptr",
           "      integer(c_int), value :: request, k1, t1, k2, t2",
           "      type(c_ptr), value :: p1, p2",
           "    end function",
           "  end interface",
           "contains",
           "  ! The address of a contiguous buffer (C_LOC needs TARGET, which the",
           "  ! specifics' dummies may not have: a tool's replacement declares them",
           "  ! as MPI 4.1 does).  Assumed rank is passed by descriptor, never",
           "  ! copied, so the address stays the actual argument's after the call;",
           "  ! small enough for gcc to inline into each specific.",
           "  type(c_ptr) function lc_f08ts_addr(buf)",
           "    use, intrinsic :: iso_c_binding, only: c_loc",
           "    type(*), dimension(..), target :: buf",
           "    lc_f08ts_addr = c_loc(buf)",
           "  end function",
           "end module lc_f08ts",
           ""]
    names = []
    for name, ret, args, h in bound:
        if "@nof08" in h:
            continue
        large = "@large" in h
        ext, dummies, xdecl, glue_of = EXTERNALS[name]
        kinds = [(a, kind_of(a, h)[0]) for a in args]
        kinds = [(a, k) for a, k in kinds if k != "omit"]
        bufs = [a for a, k in kinds if k == "choice"]
        base = name[:-2] if large else name
        decl = list(xdecl)
        body, actual = [], {d: d for d in dummies}
        # A (count, datatype) pair shared by two buffers (the reductions)
        # cannot describe two layouts: those buffers must be contiguous.
        # (both of them: decided before either is changed — main lost only
        # the first, and the second's datatype then described the first)
        found = {b.name: buffer_pair(name, args, b.name) for b in bufs}
        pairs = {n: (p if list(found.values()).count(p) == 1 else None) for n, p in found.items()}
        made = []
        tie = tied(name, args) and len(bufs) <= 2
        for b in bufs:
            pair = pairs[b.name]
            vcounts = bool(pair and pair[2])
            # a (count, datatype) shared with another buffer: no datatype
            # from it, but the copy is checked against COUNT (not for
            # MPI_Reduce's RECVBUF: significant at the root only)
            shared = None
            if pair is None and found[b.name] and not (name.startswith(("Reduce", "Ireduce")) and
                                                       "scatter" not in name and b.name == "recvbuf"):
                shared = found[b.name][:2]
            # -1: no count of its own (a copy, where the call allows);
            # -2: only its address matters (MPI_Get_address of a
            # section's first element)
            c, t = pair[:2] if pair else ("-2" if name == "Get_address" else "-1", None)
            wide = pair is not None and any(a.name == c and a.base == "MPI_Count" for a in args)
            decl += [f"type(c_ptr) :: lc_p_{b.name}",
                     f"integer :: lc_m_{b.name}, lc_k_{b.name}",
                     f"type(MPI_Datatype) :: lc_t_{b.name}"]
            if pair and not vcounts:
                decl.append(f"integer{'(kind=MPI_COUNT_KIND)' if wide else ''} :: lc_n_{b.name}")
            if shared:
                c, t = shared
                wide = any(a.name == c and a.base == "MPI_Count" for a in args)
            tv = f"{t}%MPI_VAL" if t else "MPI_DATATYPE_NULL%MPI_VAL"
            # the helper's count is a C int: a large count is clamped for
            # it, and kept when the helper leaves the buffer as it is
            cin = "0" if vcounts else f"int(min({c}, int(huge(0), MPI_COUNT_KIND)))" if wide else c
            # flags of lc_f_cdesc.c: per rank 1, counts per rank 2, a copy
            # may do 4, written by the call 8, (count, datatype) shared 16
            base_name = name[:-2] if name.endswith("_c") else name
            flags = (int(per_rank(name, b.name)) | 2 * int(vcounts) | 4 * int(base_name in COPY_OK or tie)
                     | 8 * int(not b.const) | 16 * int(shared is not None))
            # The contiguous case inline (the common one: ~25 instructions
            # a buffer; a call to a helper with the descriptor cost ~60,
            # a BIND(C) one ~100, gfortran converting its descriptor)
            n_of = []
            if pair and not vcounts:
                n_of = [f"  lc_n_{b.name} = {c}"]
            body += [f"if (is_contiguous({b.name})) then",
                     f"  lc_p_{b.name} = lc_f08ts_addr({b.name})",
                     f"  lc_t_{b.name} = {t if t else 'MPI_DATATYPE_NULL'}",
                     f"  lc_k_{b.name} = 0"] + n_of + ["else",
                     f"  lc_rc = lc_f08ts_buf({b.name}, {cin}, {tv}, {flags}, "
                     f"lc_p_{b.name}, lc_m_{b.name}, lc_t_{b.name}%MPI_VAL, lc_k_{b.name})",
                     "  if (lc_rc /= MPI_SUCCESS) then"]
            body += [f"    if (lc_k_{m} /= 0) call lc_f08ts_done(lc_k_{m}, lc_t_{m}%MPI_VAL, lc_p_{m})" for m in made]
            body += ["    if (present(ierror)) ierror = lc_rc",
                     "    return",
                     "  end if"]
            if pair and not vcounts:
                # (a large count is kept where the helper left the type)
                body += [f"  lc_n_{b.name} = lc_m_{b.name}",
                         f"  if (lc_t_{b.name}%MPI_VAL == {t}%MPI_VAL) lc_n_{b.name} = {c}"]
            body.append("end if")
            actual[b.name] = f"lc_p_{b.name}"
            if pair:
                if not vcounts:
                    actual[c] = f"lc_n_{b.name}"
                actual[t] = f"lc_t_{b.name}"
            made.append(b.name)
        frees = [f"if (lc_k_{m} /= 0) call lc_f08ts_done(lc_k_{m}, lc_t_{m}%MPI_VAL, lc_p_{m})" for m in made]
        if tie and made:
            # a call that started hands its copies to its request (copied
            # back and freed at its completion); one that failed frees them
            two = made + [None] * (2 - len(made))
            targs = ", ".join(f"lc_k_{m}, lc_t_{m}%MPI_VAL, lc_p_{m}" if m else "0, 0, c_null_ptr" for m in two)
            anyk = " .or. ".join(f"lc_k_{m} /= 0" for m in made)
            frees = [f"if ({anyk}) then",
                     "  if (lc_ierr == MPI_SUCCESS) then",
                     f"    lc_ierr = lc_f08ts_tie(request%MPI_VAL, {targs})",
                     "  else"] + ["    " + f for f in frees] + ["  end if", "end if"]
        if bufs:
            decl.append("integer :: lc_rc")
        call_args = [actual[d] for d in dummies]
        head_use = [f"use, intrinsic :: iso_c_binding, only: c_ptr{', c_null_ptr' if tie else ''}",
                    "use lc_f08ts"] if bufs else []
        bnames = {b.name for b in bufs}
        # the glue takes the buffers' addresses: TYPE(C_PTR), VALUE is the
        # same pointer as DIMENSION(*) passes, without a descriptor to build
        glue_of = {p: lc_glue_cptr(g, bnames) for p, g in glue_of.items()}
        for p in ("", "P"):
            pext = p + ext
            glue = f"lc_f08{p.lower()}_{name.lower()}"
            if ret == "int":
                head = f"subroutine {pext}({', '.join(dummies + ['ierror'])})"
                pdecl = decl + ["integer, optional, intent(out) :: ierror", "integer :: lc_ierr"]
                call = [f"call {glue}({', '.join(call_args + ['lc_ierr'])})"]
                done = frees + ["if (present(ierror)) ierror = lc_ierr"]
                tail = "end subroutine"
            else:
                t = "double precision" if ret == "double" else "integer(kind=MPI_ADDRESS_KIND)"
                head = f"{t} function {pext}({', '.join(dummies)})"
                pdecl = decl
                call = [f"{pext} = {glue}({', '.join(call_args)})"]
                done = frees
                tail = "end function"
            out.append(wrap(head))
            out += ["  " + u for u in head_use]
            out += ["  use lc_f08_base", "  implicit none"]
            out += [wrap("  " + d) for d in pdecl]
            out += ["  interface"] + [wrap("    " + x) for x in glue_of[p.lower()]] + ["  end interface"]
            out += [wrap("  " + x) for x in body + call + done]
            out += [tail, ""]
        if not large:
            names.append(ext.lower() + "_")
        if large and base in F08_GENERICS:
            # MPICH 4.0's name of the large-count form: mpi_send_f08ts_large_
            old = f"MPI_{base}_f08{'ts' if bufs else ''}_large"
            names.append(old.lower() + "_")
            out.append(wrap(f"subroutine {old}({', '.join(dummies + ['ierror'])})"))
            out += ["  use lc_f08_base", "  implicit none"]
            out += [wrap("  " + d) for d in xdecl + ["integer, optional, intent(out) :: ierror"]]
            out += ["  interface", wrap(f"    subroutine {ext}({', '.join(dummies + ['ierror'])})"), "      import"]
            out += [wrap("      " + d) for d in xdecl + ["integer, optional, intent(out) :: ierror"]]
            out += ["    end subroutine", "  end interface"]
            out.append(wrap(f"  call {ext}({', '.join(dummies + ['ierror'])})"))
            out += ["end subroutine", ""]
        if ret != "int" and not large:
            # MPICH's PMPI_ form of the four functions (pmpir_wtime_f08_...)
            pext = "PMPIR" + ext[3:]
            names.append(pext.lower() + "_")
            out.append(wrap(f"{t} function {pext}({', '.join(dummies)})"))
            out += ["  use lc_f08_base", "  implicit none"]
            out += [wrap("  " + d) for d in xdecl]
            out += ["  interface", wrap(f"    {t} function P{ext}({', '.join(dummies)})"), "      import"]
            out += [wrap("      " + d) for d in xdecl] + ["    end function", "  end interface"]
            out.append(wrap(f"  {pext} = P{ext}({', '.join(dummies)})"))
            out += ["end function", ""]
    # MPI_F_sync_reg: the call itself is what matters (the compiler must
    # assume buf was read and written); nothing to do
    out += ["subroutine MPI_F_sync_reg_f08ts(buf)", "  implicit none",
            "  type(*), dimension(..) :: buf", "  if (.false.) print *, rank(buf)", "end subroutine", ""]
    names.append("mpi_f_sync_reg_f08ts_")
    return "\n".join(out) + "\n", names


# MPICH's mpi_f08 calls PMPIR_Send_f08ts (pmpir_send_f08ts_) for
# PMPI_Send: a tool built with it calls those.  They are Locus's
# PMPI_Send_f08ts under another name: symbol assignments in a linker
# script given to the link of libmpifort (an alias needs no code; the
# four functions already have Fortran pmpir_ procedures).
def render_pmpir_ld(bound):
    out = ["/* Generated by scripts/gen_fortran.py: do not edit.  MPICH's names of",
           " * mpi_f08's PMPI_ specifics (render_pmpir_ld). */"]
    for name, ret, args, h in bound:
        if "@nof08" in h or ret != "int":
            continue
        ext = EXTERNALS[name][0]
        if "@large" in h:
            base = name[:-2]
            if base not in F08_GENERICS:
                continue
            old = ext.replace(f"MPI_{base}_c_f08", f"PMPIR_{base}_f08") + "_large"
        else:
            old = "PMPIR" + ext[3:]
        out.append(f"{old.lower()}_ = p{ext.lower()}_;")
    return "\n".join(out) + "\n"


# Handle comparisons of MPICH's module mpi_f08_types (module procedures
# a program built with MPICH's mpi_f08 calls for == and /=: elemental
# LOGICAL functions of two arguments by reference).
def render_mpich_f08_types():
    out = ["/* Generated by scripts/gen_fortran.py: do not edit.  The == and /= of",
           " * MPICH's module mpi_f08_types (gfortran names), for programs built",
           " * with MPICH's mpi_f08: TYPE(MPI_Xxx) and INTEGER handles alike. */",
           '#include <string.h>',
           '#include "lc_f_glue.h"']
    for h in F08_HANDLES:
        s = h[4:].lower()
        for fn, op in (("eq", "=="), ("neq", "!=")):
            for form in (f"mpi_{s}_{fn}", f"mpi_{s}_f08_{fn}_f", f"mpi_{s}_f_{fn}_f08"):
                sym = f"__mpi_f08_types_MOD_{form}"
                out.append(f"LC_F_API MPI_Fint {sym}(const MPI_Fint *a, const MPI_Fint *b);")
                out.append(f"LC_F_API MPI_Fint {sym}(const MPI_Fint *a, const MPI_Fint *b) "
                           f"{{ return LC_F_LOGICAL(*a {op} *b); }}")
    # MPI_Status_f082f / MPI_Status_f2f08 of MPICH's mpi_f08_types: (status
    # in, status out, OPTIONAL ierror: NULL when absent); one layout
    for form, src, dst in (("f082f", "f08_status", "f_status"), ("f2f08", "f_status", "f08_status")):
        sym = f"__mpi_f08_types_MOD_mpi_status_{form}"
        sig = f"LC_F_API void {sym}(const MPI_Fint *{src}, MPI_Fint *{dst}, MPI_Fint *ierror)"
        out += [sig + ";", sig, "{",
                f"    memcpy({dst}, {src}, sizeof(MPI_Status));",
                "    if (ierror)",
                "        *ierror = MPI_SUCCESS;",
                "}"]
    return "\n".join(out) + "\n"
