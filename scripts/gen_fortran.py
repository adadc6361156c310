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
  mpich_f08.f90, lc_f_mpich_f08_types.c
                MPICH's mpi_f08 entry points (render_mpich_f08);
  lc_mpi_sizeof.f90
                MPI_SIZEOF (module lc_mpi_sizeof, which mpi and mpi_f08
                re-export) and MPICH's modules' MPI_SIZEOF entry points.

    scripts/gen_fortran.py OUTDIR          write the files
    scripts/gen_fortran.py --list          print bound / left-out functions
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import gen_api  # noqa: E402
from gen_fortran_sizeof import render_sizeof  # noqa: E402

HINTS = ROOT / "api" / "fortran_hints.txt"
MPI_H = ROOT / "include" / "mpi.h"

# C-only functions (MPI 4.1 §19.3.4-5): no Fortran binding exists.
C_ONLY = re.compile(r"(_c2f|_f2c|_c2f08|_f082c|_f2f08|_f082f|_toint|_fromint)$")

# Widths of the C integer types Fortran sees (x86-64 LP64, as mpi.h).
KIND_OF = {"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Offset": "MPI_OFFSET_KIND",
           "MPI_Count": "MPI_COUNT_KIND"}
HANDLES = {"MPI_Comm", "MPI_Group", "MPI_Datatype", "MPI_Op", "MPI_Errhandler",
           "MPI_Request", "MPI_Message", "MPI_Info", "MPI_Win", "MPI_Session", "int",
           "MPI_Fint"}


# ---------------------------------------------------------------- parsing
def parse_hints(path=HINTS):
    hints, skips = {}, {}
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, _, rest = line.partition(" ")
        if rest.startswith("skip:"):
            skips[name] = rest[5:].strip()
            continue
        args = {}
        for item in rest.split():
            if item in ("nof08", "handwritten"):
                args["@" + item] = (item, "")
                continue
            arg, eq, kind = item.partition("=")
            if not eq:
                sys.exit(f"{path}:{lineno}: '{item}' is not <arg>=<kind>")
            kind, _, param = kind.partition(":")
            args[arg] = (kind, param)
        hints[name] = args
    return hints, skips


class Arg:
    """One C parameter: its declaration text, name, base type, shape."""

    def __init__(self, text):
        self.text = text.strip()
        m = re.match(r"^(?P<type>.*?)(?P<name>\w+)\s*(?P<dims>(\[[^\]]*\])*)$", self.text)
        if not m:
            raise ValueError(f"cannot parse parameter '{text}'")
        self.name = m["name"]
        self.dims = m["dims"]
        t = m["type"].strip()
        self.const = t.startswith("const ")
        t = t.removeprefix("const ").strip()
        self.stars = t.count("*")
        self.base = t.replace("*", "").strip()
        self.by_value = self.stars == 0 and not self.dims
        self.array = bool(self.dims)


def split_args(args):
    if args.strip() == "void":
        return []
    # C varargs (MPI_Pcontrol's "...") have no Fortran counterpart: dropped.
    return [Arg(a) for a in args.split(",") if a.strip() != "..."]


def functions():
    """[(name, ret, [Arg], hints)] of every function with a Fortran binding,
    and [(name, why)] of those without."""
    hints, skips = parse_hints()
    bound, left = [], []
    names = set()
    sections = gen_api.parse()
    all_names = {name for _, funcs in sections for name, _, _ in funcs}
    for _, funcs in sections:
        for name, ret, args in funcs:
            names.add(name)
            large = name.endswith("_c") and name[:-2] in all_names
            if large and name in skips:
                left.append((name, skips[name]))
            elif large:
                # MPI 4.1: the large-count forms are mpi_f08's only
                # (overloads of the same name, or MPI_Xxx_c where the two
                # cannot be told apart)
                a = split_args(args)
                h = dict(hints.get(name, {}))
                h["@large"] = ("large", "")
                bound.append((name, ret, a, h))
            elif C_ONLY.search(name):
                left.append((name, "C-only conversion function"))
            elif name.startswith("T_"):
                left.append((name, "MPI_T is C only (MPI 4.1 §15.3)"))
            elif name in skips:
                left.append((name, skips[name]))
            else:
                a = split_args(args)
                h = hints.get(name, {})
                for k in h:
                    if not k.startswith("@") and k not in [x.name for x in a]:
                        sys.exit(f"{HINTS}: MPI_{name} has no argument '{k}'")
                bound.append((name, ret, a, h))
    for n in list(hints) + list(skips):
        if n not in names:
            sys.exit(f"{HINTS}: MPI_{n} is not in api/mpi_functions.txt")
    return bound, left


def kind_of(arg, h):
    """The binding kind of one argument."""
    if arg.name in h:
        return h[arg.name]
    if arg.base == "void" and arg.stars == 1:
        return ("choice", "")
    if arg.base == "char" and arg.stars + bool(arg.array) == 1:
        if not arg.const:
            sys.exit(f"output string '{arg.text}' needs an outstr hint")
        return ("instr", "")
    if arg.base == "MPI_File":
        # C's MPI_File is a pointer, Fortran's an INTEGER (MPI_File_c2f):
        # converted both ways; MPI_File * is an output unless hinted
        return ("file_in", "") if arg.by_value else ("file_out", "")
    if arg.base == "MPI_Status":
        return ("statuses", "") if arg.array else ("status", "")
    if arg.name == "flag" and arg.base == "int" and arg.stars == 1:
        return ("logical", "")
    if arg.base == "int" and arg.array and arg.name.endswith("weights"):
        return ("weights", "")  # MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY
    if arg.base == "int" and arg.array and arg.name == "array_of_errcodes":
        return ("errcodes", "")  # MPI_ERRCODES_IGNORE
    if arg.base.endswith("_function") or arg.base.endswith("_fn"):
        sys.exit(f"callback '{arg.text}' needs a proc hint or a skip")
    if arg.stars > 1:
        sys.exit(f"'{arg.text}': no default Fortran binding")
    return ("plain", "")


# ---------------------------------------------------------------- C glue
GLUE_HEAD = """\
/* Generated by scripts/gen_fortran.py from api/mpi_functions.txt and
 * api/fortran_hints.txt: do not edit.  The Fortran entry points of
 * libmpifort (MPICH's Fortran ABI); helpers in src/fortran/lc_f_glue.h. */
#include "lc_f_glue.h"
"""


# Attribute values from Fortran are integers, C's are addresses (MPI 4.1
# §19.3.7): these go to libmpi's Fortran entry points (src/mpi/
# lc_mpi_attr.h), which keep the value's form; the second item is the
# set forms' mpi1 argument (MPI_ATTR_PUT's default INTEGER).
ATTR_F = {"Comm_set_attr": ("lc_mpi_comm_attr_set_f", "0"), "Attr_put": ("lc_mpi_comm_attr_set_f", "1"),
          "Comm_get_attr": ("lc_mpi_comm_attr_get_f", None), "Attr_get": ("lc_mpi_comm_attr_get_f", None),
          "Type_set_attr": ("lc_mpi_type_attr_set_f", None), "Type_get_attr": ("lc_mpi_type_attr_get_f", None),
          "Win_set_attr": ("lc_mpi_win_attr_set_f", None), "Win_get_attr": ("lc_mpi_win_attr_get_f", None)}


def glue_function(name, ret, args, h, prefix):
    lname = f"{prefix.lower()}{name.lower()}"
    cname = f"{prefix}{name}"
    if name in ATTR_F:
        cname = ATTR_F[name][0]
    if "@large" in h:
        lname = f"lc_f08_{name.lower()}"
    params, strlens, pre, call, post, frees = [], [], [], [], [], []
    for a in args:
        kind, param = kind_of(a, h)
        n = a.name
        if kind == "omit":
            call.append(param)
            continue
        if kind == "choice" or kind == "detach":
            params.append(f"void *{n}")
            if kind == "detach":
                # MPI 4.1 §3.6.1: Fortran gets no address back from detach.
                pre.append(f"void *c_{n} = NULL;")
                pre.append(f"(void){n};")
                call.append(f"&c_{n}")
            else:
                call.append(f"LC_F_BUF({n})")
        elif kind == "instr":
            params.append(f"char *{n}")
            strlens.append(f"size_t {n}_len")
            # MPI 4.1 §10: in Fortran, leading and trailing blanks of info
            # keys and values are stripped (elsewhere only trailing ones)
            strin = "lc_f_str_in_info" if name.startswith("Info_") else "lc_f_str_in"
            pre.append(f"char *c_{n} = {strin}({n}, {n}_len);")
            call.append(f"c_{n}")
            frees.append(f"c_{n}")
        elif kind == "outstr":
            params.append(f"char *{n}")
            strlens.append(f"size_t {n}_len")
            pre.append(f"char *c_{n} = lc_f_str_buf((size_t)({param}));")
            call.append(f"c_{n}")
            # With a flag (Info_get), a key not found leaves the string as it
            # was (MPI 4.1 §10): *flag is still C's here (converted after)
            has_flag = any(a.name == "flag" and kind_of(a, h)[0] == "logical" for a in args)
            guard = "if (*flag) " if has_flag else ""
            post.append(f"{guard}lc_f_str_out({n}, {n}_len, c_{n});")
            frees.append(f"c_{n}")
        elif kind in ("weights", "errcodes"):
            params.append(f"MPI_Fint *{n}")
            call.append(f"LC_F_{kind.upper()}({n})")
        elif kind == "file_in":
            params.append(f"MPI_Fint *{n}")
            call.append(f"PMPI_File_f2c(*{n})")
        elif kind in ("file_out", "file_inout"):
            params.append(f"MPI_Fint *{n}")
            init = f"PMPI_File_f2c(*{n})" if kind == "file_inout" else "MPI_FILE_NULL"
            pre.append(f"MPI_File c_{n} = {init};")
            call.append(f"&c_{n}")
            post.append(f"*{n} = PMPI_File_c2f(c_{n});")
        elif kind == "status":
            params.append(f"MPI_Fint *{n}")
            call.append(f"LC_F_STATUS({n})")
        elif kind == "statuses":
            params.append(f"MPI_Fint *{n}")
            call.append(f"LC_F_STATUSES({n})")
        elif kind == "logical":
            params.append(f"MPI_Fint *{n}")
            if a.by_value:
                call.append(f"(*{n} != 0)")
            else:
                call.append(n)
                if not a.array and not a.const:
                    post.append(f"*{n} = LC_F_LOGICAL(*{n});")
        elif kind == "index":
            params.append(f"MPI_Fint *{n}")
            call.append(n)
            post.append(f"if (*{n} >= 0) *{n} += 1;")
        elif kind == "indices":
            params.append(f"MPI_Fint *{n}")
            call.append(n)
            post.append(f"if (*{param} != MPI_UNDEFINED) for (int i = 0; i < *{param}; i++) {n}[i] += 1;")
        elif kind in ("aint_in", "fint_in"):
            t = "MPI_Aint" if kind == "aint_in" else "MPI_Fint"
            params.append(f"{t} *{n}")
            call.append(f"(MPI_Aint)*{n}")  # sign-extended (an ATTR_F function)
            if ATTR_F[name][1] is not None:
                call.append(ATTR_F[name][1])
        elif kind in ("aint_out", "fint_out"):
            t = "MPI_Aint" if kind == "aint_out" else "MPI_Fint"
            params.append(f"{t} *{n}")
            pre.append(f"MPI_Aint c_{n} = 0;")
            call.append(f"&c_{n}")
            post.append(f"if (*flag) *{n} = ({t})c_{n};")  # MPI_ATTR_GET: the low bytes
        elif kind == "addr_out":
            params.append(f"MPI_Aint *{n}")
            pre.append(f"void *c_{n} = NULL;")
            call.append(f"&c_{n}")
            post.append(f"*{n} = (MPI_Aint)c_{n};")
        elif kind == "keyval":
            params.append(f"MPI_Fint *{n}")
            call.append(f"lc_f_keyval(*{n})")
        elif kind == "fint_aint_in":
            params.append(f"MPI_Fint *{n}")
            call.append(f"(MPI_Aint)*{n}")
        elif kind == "fint_aint_out":
            params.append(f"MPI_Fint *{n}")
            pre.append(f"MPI_Aint c_{n} = 0;")
            call.append(f"&c_{n}")
            post.append(f"*{n} = (MPI_Fint)c_{n};")
        elif kind == "fint_aint_array":
            params.append(f"MPI_Fint *{n}")
            pre.append(f"MPI_Aint *c_{n} = lc_f_aint_array({n}, *{param});")
            call.append(f"c_{n}")
            frees.append(f"c_{n}")
        elif kind == "proc":
            params.append(a.text.replace("const ", ""))
            call.append(n)
        elif kind == "plain":
            if a.by_value:
                params.append(f"{a.base} *{n}")
                call.append(f"*{n}")
            else:
                params.append(a.text)
                call.append(n)
        else:
            sys.exit(f"MPI_{name}: unknown kind '{kind}' for {n}")
    if ret == "int":
        params.append("MPI_Fint *ierr")
        rtype = "void"
    else:
        rtype = ret
    params += strlens
    plist = ", ".join(params) if params else "void"
    out = [f"LC_F_API {rtype} {lname}_({plist});",
           f"LC_F_API {rtype} {lname}_({plist})", "{"]
    out += [f"    {s}" for s in pre]
    if frees:
        cond = " || ".join(f"!c_{f[2:]}" for f in frees)
        out.append(f"    if ({cond}) {{")
        out += [f"        free({f});" for f in frees]
        out.append("        *ierr = lc_f_nomem(\"MPI_" + name + "\");")
        out.append("        return;")
        out.append("    }")
    callexpr = f"{cname}({', '.join(call)})"
    if ret == "int":
        out.append(f"    int rc = {callexpr};")
        if post:
            # MPI_ERR_IN_STATUS: the outputs are valid too (Waitsome...)
            out.append("    if (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) {")
            out += [f"        {s}" for s in post]
            out.append("    }")
        out += [f"    free({f});" for f in frees]
        out.append("    *ierr = rc;")
    else:
        out.append(f"    return {callexpr};")
    out.append("}")
    if "@large" in h:
        return "\n".join(out)
    for alias in (lname, f"{lname}__", f"{prefix}{name.upper()}"):
        out.append(f"LC_F_ALIAS({lname}_, {alias})")
    if any(kind_of(a, h)[0] == "addr_out" for a in args):
        # MPI_ALLOC_MEM_CPTR... (MPI 4.1 §19.1.5): the TYPE(C_PTR) form,
        # module mpi's specific of the generic (mpif.h may call it too).
        # A C_PTR by reference is a pointer-sized object, as the
        # INTEGER(KIND=MPI_ADDRESS_KIND) of the other form: the same code.
        for alias in (f"{lname}_cptr_", f"{lname}_cptr", f"{lname}_cptr__", f"{prefix}{name.upper()}_CPTR"):
            out.append(f"LC_F_ALIAS({lname}_, {alias})")
    if prefix == "PMPI_" and ret != "int" and "@nof08" not in h:  # mpi_f08's PMPI_Wtime...
        out.append(f"LC_F_ALIAS({lname}_, lc_f08p_{name.lower()}_)")
    if prefix == "MPI_" and "@nof08" not in h:  # what module mpi_f08's procedures call
        out.append(f"LC_F_ALIAS({lname}_, lc_f08_{name.lower()}_)")
    return "\n".join(out)


def render_glue(bound):
    parts = [GLUE_HEAD]
    for name, ret, args, h in bound:
        if "@large" in h and "@handwritten" in h:
            parts.append(f"/* MPI_{name}: module mpi_f08 only, src/fortran (handwritten) */")
            continue
        if "@large" in h:
            parts.append(f"/* MPI_{name}: module mpi_f08 only */")
            parts.append(glue_function(name, ret, args, h, "MPI_"))
            continue
        if "@handwritten" in h:
            parts.append(f"/* MPI_{name}: src/fortran (handwritten in api/fortran_hints.txt) */")
            continue
        parts.append(f"/* MPI_{name} */")
        for prefix in ("MPI_", "PMPI_"):
            parts.append(glue_function(name, ret, args, h, prefix))
    return "\n".join(parts) + "\n"


# ---------------------------------------------------------------- constants
SKIP_CONST = re.compile(r"^(MPI_F_|MPI_AINT_FMT|MPI_BOTTOM$|MPI_IN_PLACE$|MPI_STATUS(ES)?_IGNORE$|"
                        r"MPI_ERRCODES_IGNORE$|MPI_ARGVS?_NULL$|MPI_.*_FN$|MPI_T_)")


def constants(path=MPI_H, typed=False):
    """[(name, int value)] of every integer constant of mpi.h, in order;
    with typed=True, [(name, value, C handle type or None)]."""
    text = path.read_text()
    text = text.split(gen_api.BEGIN)[0]
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    raw = []
    for m in re.finditer(r"^#define\s+(MPI_\w+)\s+(.+?)\s*$", text, re.M):
        raw.append((m[1], m[2]))
    for body in re.findall(r"enum\s*\{(.*?)\}", text, re.S):
        for item in body.split(","):
            if "=" in item:
                k, v = item.split("=")
                raw.append((k.strip(), v.strip()))
    values, types, out = {}, {}, []
    for name, expr in raw:
        if SKIP_CONST.match(name):
            continue
        e, ctype = expr, None
        while True:  # strip ((Type)X) and (X)
            m = re.fullmatch(r"\(\((MPI_\w+|int)\)\s*(.+)\)", e)
            if m:
                ctype = ctype or (m[1] if m[1] != "int" else None)
                e = m[2]
                continue
            m = re.fullmatch(r"\((.+)\)", e)
            if not m:
                break
            e = m[1]
        if e in values:
            v = values[e]
            ctype = ctype or types.get(e)
        elif re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)", e):
            v = int(e, 0)
        else:
            continue  # strings, pointers, function-like macros
        if v >= 2**31:
            v -= 2**32  # handles above 2^31 are negative Fortran INTEGERs
        values[name], types[name] = v, ctype
        out.append((name, v, ctype) if typed else (name, v))
    return out


def ctype_size(ctype, path=MPI_H):
    m = re.search(rf"typedef\s+(\w[\w ]*?)\s+{ctype};", path.read_text())
    return {"int": 4, "long": 8, "long long": 8}[m[1]]


# Predefined attribute keys: MPICH's mpif.h gives them C's value plus one
# (the Fortran binding maps them back, lc_f_keyval).
FORTRAN_KEYVALS = {"MPI_TAG_UB", "MPI_HOST", "MPI_IO", "MPI_WTIME_IS_GLOBAL", "MPI_UNIVERSE_SIZE",
                   "MPI_LASTUSEDCODE", "MPI_APPNUM", "MPI_WIN_BASE", "MPI_WIN_SIZE", "MPI_WIN_DISP_UNIT",
                   "MPI_WIN_CREATE_FLAVOR", "MPI_WIN_MODEL"}


def fortran_constants():
    """(integer constants, logical constants) as Fortran sees them."""
    # MPI_MAX_* string lengths count C's terminating NUL; Fortran's are
    # one less (MPI 4.1 §19.1.1; MPICH's values).
    consts = [(n, v + 1 if n in FORTRAN_KEYVALS else v - 1 if n.startswith("MPI_MAX_") else v)
              for n, v in constants()]
    extra = [("MPI_SOURCE", 3), ("MPI_TAG", 4), ("MPI_ERROR", 5), ("MPI_STATUS_SIZE", 5),
             ("MPI_ADDRESS_KIND", ctype_size("MPI_Aint")), ("MPI_OFFSET_KIND", ctype_size("MPI_Offset")),
             ("MPI_COUNT_KIND", ctype_size("MPI_Count")), ("MPI_INTEGER_KIND", ctype_size("MPI_Fint"))]
    logicals = [("MPI_SUBARRAYS_SUPPORTED", ".FALSE."), ("MPI_ASYNC_PROTECTS_NONBLOCKING", ".FALSE.")]
    return extra + consts, logicals


# Sentinels: MPICH's common blocks, names and layout (binaries built with
# MPICH's mpif.h refer to them; src/fortran/lc_f_sentinels.c defines them).
SENTINELS = """\
      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)
      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)
      INTEGER MPI_ERRCODES_IGNORE(1)
      CHARACTER*1 MPI_ARGVS_NULL(1,1)
      CHARACTER*1 MPI_ARGV_NULL(1)
      INTEGER MPI_BOTTOM, MPI_IN_PLACE, MPI_UNWEIGHTED
      INTEGER MPI_WEIGHTS_EMPTY
      COMMON /MPIFCMB5/ MPI_UNWEIGHTED
      COMMON /MPIFCMB9/ MPI_WEIGHTS_EMPTY
      COMMON /MPIPRIV1/ MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS_IGNORE
      COMMON /MPIPRIV2/ MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE
      COMMON /MPIPRIVC/ MPI_ARGVS_NULL, MPI_ARGV_NULL
      SAVE /MPIFCMB5/, /MPIFCMB9/, /MPIPRIV1/, /MPIPRIV2/, /MPIPRIVC/
"""


def decls(ints, logicals):
    # 6 blanks + text: valid fixed form (columns 7-72) and free form.
    out = []
    for name, v in ints:
        # MPI 4.1 A.1.1: MPI_DISPLACEMENT_CURRENT is INTEGER(KIND=MPI_OFFSET_KIND)
        # in Fortran (MPICH: integer*8); a default INTEGER passed as
        # MPI_FILE_SET_VIEW's DISP left 4 garbage bytes in the offset read
        t = "INTEGER(KIND=MPI_OFFSET_KIND)" if name == "MPI_DISPLACEMENT_CURRENT" else "INTEGER"
        out.append(f"      {t} {name}")
        out.append(f"      PARAMETER ({name}={v})")
    for name, v in logicals:
        out.append(f"      LOGICAL {name}")
        out.append(f"      PARAMETER ({name}={v})")
    for line in out:
        assert len(line) <= 72, line
    return out


# The predefined attribute callbacks (src/fortran/lc_f_keyval.c).
CALLBACKS = ["MPI_COMM_NULL_COPY_FN", "MPI_COMM_DUP_FN", "MPI_COMM_NULL_DELETE_FN",
             "MPI_NULL_COPY_FN", "MPI_DUP_FN", "MPI_NULL_DELETE_FN",
             "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_DUP_FN", "MPI_TYPE_NULL_DELETE_FN",
             "MPI_WIN_NULL_COPY_FN", "MPI_WIN_DUP_FN", "MPI_WIN_NULL_DELETE_FN",
             "MPI_CONVERSION_FN_NULL"]  # (src/fortran/lc_f_datarep.c)


def render_mpif(bound):
    ints, logicals = fortran_constants()
    lines = ["! mpif.h: Locus MPI's Fortran header (MPICH's Fortran ABI).",
             "! Generated by scripts/gen_fortran.py from include/mpi.h: do not edit.",
             "! Fixed and free form alike."]
    lines += decls(ints, logicals)
    lines += SENTINELS.rstrip("\n").split("\n")
    lines += [f"      EXTERNAL {c}" for c in CALLBACKS]
    for name, ret, _, h in bound:
        if ret != "int" and "@large" not in h:
            t = "DOUBLE PRECISION" if ret == "double" else "INTEGER(KIND=MPI_ADDRESS_KIND)"
            for p in ("MPI_", "PMPI_"):
                lines.append(f"      EXTERNAL {p}{name.upper()}")
                lines.append(f"      {t} {p}{name.upper()}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- module mpi
def ftype(a, kind):
    """Fortran declaration (type, dims suffix) of one dummy argument."""
    base = a.base
    if kind == "choice" or kind == "detach":
        return "type(*)", "(*)"
    if kind in ("instr", "outstr"):
        return "character(len=*)", ""
    if kind in ("argv", "strings"):
        return "character(len=*)", "(*)"
    if kind == "argvs":
        return "character(len=*)", "(count,*)"
    if kind in ("file_in", "file_out", "file_inout"):
        return "integer", ""
    if kind == "status":
        return "integer", "(MPI_STATUS_SIZE)"
    if kind == "statuses":
        return "integer", "(MPI_STATUS_SIZE,*)"
    if kind == "logical":
        return "logical", "(*)" if a.array else ""
    if kind in ("aint_in", "aint_out", "addr_out"):
        return "integer(kind=MPI_ADDRESS_KIND)", ""
    if kind in ("fint_in", "fint_out", "index", "keyval", "fint_aint_in", "fint_aint_out"):
        return "integer", ""
    if kind == "fint_aint_array":
        return "integer", "(*)"
    if kind in ("indices", "weights", "errcodes"):
        return "integer", "(*)"
    if kind == "proc":
        return "external", ""
    t = f"integer(kind={KIND_OF[base]})" if base in KIND_OF else "integer"
    if base not in HANDLES and base not in KIND_OF:
        sys.exit(f"no Fortran type for '{a.text}'")
    if a.dims == "[][3]":
        return t, "(3,*)"
    if a.array:
        return t, "(*)"
    return t, ""


def render_module(bound):
    ints, logicals = fortran_constants()
    out = ["! module mpi: Locus MPI's Fortran 90 interface (MPICH's Fortran ABI).",
           "! Generated by scripts/gen_fortran.py: do not edit.",
           "! Explicit interfaces for every routine; choice buffers are",
           "! TYPE(*), DIMENSION(*) with gfortran's NO_ARG_CHECK, so any",
           "! type and rank is accepted (as with mpif.h); other array",
           "! arguments are NO_ARG_CHECK too, so a scalar is accepted.",
           "module mpi",
           "      use lc_mpi_sizeof, only: MPI_SIZEOF  ! (render_sizeof)",
           "      implicit none"]
    out += decls(ints, logicals)
    out += SENTINELS.rstrip("\n").split("\n")
    out += [f"      EXTERNAL {c}" for c in CALLBACKS]
    out.append("      interface")
    cptr_generics = []
    for name, ret, args, h in bound:
        if "@large" in h:
            continue
        dummies, decl = [], []
        cptr = any(kind_of(a, h)[0] == "addr_out" for a in args)
        for a in args:
            kind, _ = kind_of(a, h)
            if kind == "omit":
                continue
            dummies.append(a.name)
            t, dims = ftype(a, kind)
            # Choice buffers take anything; other assumed-size arrays take
            # a scalar too, as where MPICH's module has no interface (legacy
            # codes pass one request, one dimension as a scalar).
            # (not CHARACTER arrays: gfortran allows it on numeric types only)
            if kind in ("choice", "detach") or (dims.endswith("*)") and not t.startswith("character")):
                decl.append(f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {a.name}")
            decl.append(f"{t} :: {a.name}{dims}" if t != "external" else f"external :: {a.name}")
        if ret == "int":
            dummies.append("ierror")
            decl.append("integer :: ierror")
            head = f"subroutine MPI_{name.upper()}({', '.join(dummies)})"
            tail = "end subroutine"
        else:
            t = "double precision" if ret == "double" else "integer(kind=MPI_ADDRESS_KIND)"
            head = f"{t} function MPI_{name.upper()}({', '.join(dummies)})"
            tail = "end function"
        uses = [n for n, _ in ints if any(n in d for d in decl)]
        # Functions (Wtime, Wtick, Aint_add, Aint_diff) get their PMPI_
        # names declared too, as in mpif.h: without an interface a PMPI_WTIME
        # reference is an implicit REAL (MPICH's f90/timer/wtimef90)
        if cptr:
            # MPI_ALLOC_MEM, MPI_WIN_ALLOCATE(_SHARED), MPI_WIN_SHARED_QUERY:
            # generic over the base pointer, INTEGER(KIND=MPI_ADDRESS_KIND)
            # (Cray pointers) or TYPE(C_PTR) (MPI 4.1 §19.1.5: the specific
            # MPI_XXX_CPTR, C's code under another name, see glue_function)
            up = f"MPI_{name.upper()}"
            addr = [a.name for a in args if kind_of(a, h)[0] == "addr_out"]
            cdecl = [f"type(c_ptr) :: {n}" if d == f"integer(kind=MPI_ADDRESS_KIND) :: {n}" else d
                     for d in decl for n in addr[:1]]
            cptr_generics.append(f"      interface {up}")
            for hd, dl, use in ((head, decl, []),
                                (head.replace(f" {up}(", f" {up}_CPTR(", 1), cdecl,
                                 ["use, intrinsic :: iso_c_binding, only: c_ptr"])):
                cptr_generics.append(wrap("        " + hd))
                cptr_generics += ["          " + u for u in use]
                if uses:
                    cptr_generics.append(wrap("          import :: " + ", ".join(sorted(set(uses)))))
                cptr_generics += [wrap("          " + d) for d in dl]
                cptr_generics.append("        " + tail)
            cptr_generics.append(f"      end interface {up}")
            continue
        for p in ("MPI_",) if ret == "int" else ("MPI_", "PMPI_"):
            out.append(wrap("        " + (head if p == "MPI_" else head.replace(" MPI_", " PMPI_", 1))))
            if uses:
                out.append(wrap("          import :: " + ", ".join(sorted(set(uses)))))
            out += [wrap("          " + d) for d in decl]
            out.append("        " + tail)
    # (src/fortran/lc_f_support.c)
    out += ["        subroutine MPI_F_SYNC_REG(buf)",
            "!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf",
            "          type(*), dimension(*) :: buf",
            "        end subroutine"]
    out.append("      end interface")
    out += cptr_generics
    out.append("end module mpi")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- mpi_f08
F08_HANDLES = ["MPI_Comm", "MPI_Datatype", "MPI_Errhandler", "MPI_File", "MPI_Group", "MPI_Info",
               "MPI_Message", "MPI_Op", "MPI_Request", "MPI_Session", "MPI_Win"]


def f08_type(a, kind):
    """(declaration, dims) of one dummy in module mpi_f08."""
    if a.base in F08_HANDLES and kind == "plain":
        return f"type({a.base})", "(*)" if a.array else ""
    if kind in ("file_in", "file_out", "file_inout"):
        return "type(MPI_File)", ""
    if kind == "status":
        return "type(MPI_Status)", ""
    if kind == "statuses":
        return "type(MPI_Status)", "(*)"
    return ftype(a, kind)


# MPI_Xxx whose large-count form overloads the name in mpi_f08 (set by
# render_f08; render_mpich_f08 binds MPICH's mpi_xxx_f08*_large_ for them)
F08_GENERICS = {}


def render_f08(bound):
    ints, logicals = fortran_constants()
    typed = {n: t for n, _, t in constants(typed=True)}
    out = ["! module mpi_f08: Locus MPI's Fortran 2008 interface.",
           "! Generated by scripts/gen_fortran.py: do not edit.",
           "! Handles are TYPE(MPI_Comm) etc. holding the C handle (MPI_VAL),",
           "! statuses TYPE(MPI_Status) laid out as C's MPI_Status, ierror is",
           "! OPTIONAL.  Each procedure calls the glue of libmpifort (the same",
           "! code as mpif.h's, under the name lc_f08_<name>_).  Choice buffers",
           "! are TYPE(*), DIMENSION(*) with NO_ARG_CHECK (MPI_SUBARRAYS_SUPPORTED",
           "! is .FALSE.).  The large-count forms overload the name (MPI_Send",
           "! with an INTEGER(KIND=MPI_COUNT_KIND) count) or, where the kinds",
           "! cannot tell them apart, are MPI_Xxx_c.",
           "module mpi_f08",
           "  use, intrinsic :: iso_c_binding, only: c_int, c_ptr, c_char",
           "  use lc_mpi_sizeof, only: MPI_Sizeof  ! (render_sizeof)",
           "  implicit none",
           "  private :: c_int, c_ptr, c_char"]
    for h in F08_HANDLES:
        out += [f"  type, bind(C) :: {h}", "    integer(c_int) :: MPI_VAL", f"  end type {h}"]
    out += ["  type, bind(C) :: MPI_Status",
            "    integer(c_int) :: count_lo, count_hi_and_cancelled",
            "    integer(c_int) :: MPI_SOURCE, MPI_TAG, MPI_ERROR",
            "  end type MPI_Status"]
    for name, v in ints:
        t = typed.get(name)
        if t in F08_HANDLES:
            out.append(f"  type({t}), parameter :: {name} = {t}({v})")
        elif name == "MPI_DISPLACEMENT_CURRENT":  # (as in decls above)
            out.append(f"  integer(kind=MPI_OFFSET_KIND), parameter :: {name} = {v}")
        else:
            out.append(f"  integer, parameter :: {name} = {v}")
    for name, v in logicals:
        out.append(f"  logical, parameter :: {name} = {v}")
    # Sentinels: objects of this module, recognised by address in the glue.
    out += ["  integer(c_int), bind(C, name='MPIR_F08_MPI_BOTTOM') :: MPI_BOTTOM",
            "  integer(c_int), bind(C, name='MPIR_F08_MPI_IN_PLACE') :: MPI_IN_PLACE",
            "  type(MPI_Status), bind(C, name='MPIR_F08_MPI_STATUS_IGNORE_OBJ') :: MPI_STATUS_IGNORE",
            "  type(MPI_Status), bind(C, name='MPIR_F08_MPI_STATUSES_IGNORE_OBJ') :: MPI_STATUSES_IGNORE(1)",
            # spawn's: MPICH's module mpi_f08_link_constants (its link names)
            "  integer(c_int), bind(C, name='__mpi_f08_link_constants_MOD_mpi_errcodes_ignore') :: &",
            "      MPI_ERRCODES_IGNORE(1)",
            "  character(kind=c_char, len=1), bind(C, name='__mpi_f08_link_constants_MOD_mpi_argv_null') :: &",
            "      MPI_ARGV_NULL(1)",
            "  character(kind=c_char, len=1), bind(C, name='__mpi_f08_link_constants_MOD_mpi_argvs_null') :: &",
            "      MPI_ARGVS_NULL(1,1)",
            # graph weights (lc_f_weights), as MPICH's: INTEGER, DIMENSION(1)
            "  integer(c_int), bind(C, name='__mpi_f08_link_constants_MOD_mpi_unweighted') :: &",
            "      MPI_UNWEIGHTED(1)",
            "  integer(c_int), bind(C, name='__mpi_f08_link_constants_MOD_mpi_weights_empty') :: &",
            "      MPI_WEIGHTS_EMPTY(1)"]
    out += ["  abstract interface",
            "    subroutine MPI_User_function(invec, inoutvec, len, datatype)",
            "      import :: c_ptr, MPI_Datatype",
            "      type(c_ptr), value :: invec, inoutvec",
            "      integer :: len",
            "      type(MPI_Datatype) :: datatype",
            "    end subroutine",
            "    subroutine MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, &",
            "        attribute_val_in, attribute_val_out, flag, ierror)",
            "      import :: MPI_Comm, MPI_ADDRESS_KIND",
            "      type(MPI_Comm) :: oldcomm",
            "      integer :: comm_keyval, ierror",
            "      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out",
            "      logical :: flag",
            "    end subroutine",
            "    subroutine MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)",
            "      import :: MPI_Comm, MPI_ADDRESS_KIND",
            "      type(MPI_Comm) :: comm",
            "      integer :: comm_keyval, ierror",
            "      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state",
            "    end subroutine",
            "    subroutine MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, &",
            "        attribute_val_in, attribute_val_out, flag, ierror)",
            "      import :: MPI_Datatype, MPI_ADDRESS_KIND",
            "      type(MPI_Datatype) :: oldtype",
            "      integer :: type_keyval, ierror",
            "      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out",
            "      logical :: flag",
            "    end subroutine",
            "    subroutine MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, extra_state, ierror)",
            "      import :: MPI_Datatype, MPI_ADDRESS_KIND",
            "      type(MPI_Datatype) :: datatype",
            "      integer :: type_keyval, ierror",
            "      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state",
            "    end subroutine",
            "    subroutine MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, &",
            "        attribute_val_in, attribute_val_out, flag, ierror)",
            "      import :: MPI_Win, MPI_ADDRESS_KIND",
            "      type(MPI_Win) :: oldwin",
            "      integer :: win_keyval, ierror",
            "      integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out",
            "      logical :: flag",
            "    end subroutine",
            "    subroutine MPI_Win_delete_attr_function(win, win_keyval, attribute_val, extra_state, ierror)",
            "      import :: MPI_Win, MPI_ADDRESS_KIND",
            "      type(MPI_Win) :: win",
            "      integer :: win_keyval, ierror",
            "      integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state",
            "    end subroutine",
            "    subroutine MPI_Win_errhandler_function(win, error_code)",
            "      import :: MPI_Win",
            "      type(MPI_Win) :: win",
            "      integer :: error_code",
            "    end subroutine",
            "    subroutine MPI_Session_errhandler_function(session, error_code)",
            "      import :: MPI_Session",
            "      type(MPI_Session) :: session",
            "      integer :: error_code",
            "    end subroutine",
            "    subroutine MPI_File_errhandler_function(file, error_code)",
            "      import :: MPI_File",
            "      type(MPI_File) :: file",
            "      integer :: error_code",
            "    end subroutine",
            "    subroutine MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, &",
            "        position, extra_state, ierror)",
            "      import :: c_ptr, MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND",
            "      type(c_ptr), value :: userbuf, filebuf",
            "      type(MPI_Datatype) :: datatype",
            "      integer :: count, ierror",
            "      integer(kind=MPI_OFFSET_KIND) :: position",
            "      integer(kind=MPI_ADDRESS_KIND) :: extra_state",
            "    end subroutine",
            "    subroutine MPI_Datarep_conversion_function_c(userbuf, datatype, count, filebuf, &",
            "        position, extra_state, ierror)",
            "      import :: c_ptr, MPI_Datatype, MPI_OFFSET_KIND, MPI_ADDRESS_KIND, MPI_COUNT_KIND",
            "      type(c_ptr), value :: userbuf, filebuf",
            "      type(MPI_Datatype) :: datatype",
            "      integer(kind=MPI_COUNT_KIND) :: count",
            "      integer :: ierror",
            "      integer(kind=MPI_OFFSET_KIND) :: position",
            "      integer(kind=MPI_ADDRESS_KIND) :: extra_state",
            "    end subroutine",
            "    subroutine MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)",
            "      import :: MPI_Datatype, MPI_ADDRESS_KIND",
            "      type(MPI_Datatype) :: datatype",
            "      integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state",
            "      integer :: ierror",
            "    end subroutine",
            "    subroutine MPI_Comm_errhandler_function(comm, error_code)",
            "      import :: MPI_Comm",
            "      type(MPI_Comm) :: comm",
            "      integer :: error_code",
            "    end subroutine",
            "    subroutine MPI_Grequest_query_function(extra_state, status, ierror)",
            "      import :: MPI_Status, MPI_ADDRESS_KIND",
            "      integer(kind=MPI_ADDRESS_KIND) :: extra_state",
            "      type(MPI_Status) :: status",
            "      integer :: ierror",
            "    end subroutine",
            "    subroutine MPI_Grequest_free_function(extra_state, ierror)",
            "      import :: MPI_ADDRESS_KIND",
            "      integer(kind=MPI_ADDRESS_KIND) :: extra_state",
            "      integer :: ierror",
            "    end subroutine",
            "    subroutine MPI_Grequest_cancel_function(extra_state, complete, ierror)",
            "      import :: MPI_ADDRESS_KIND",
            "      integer(kind=MPI_ADDRESS_KIND) :: extra_state",
            "      logical :: complete",
            "      integer :: ierror",
            "    end subroutine",
            "  end interface",
            "  procedure(MPI_Comm_copy_attr_function) :: MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN",
            "  procedure(MPI_Comm_delete_attr_function) :: MPI_COMM_NULL_DELETE_FN",
            "  procedure(MPI_Type_copy_attr_function) :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN",
            "  procedure(MPI_Type_delete_attr_function) :: MPI_TYPE_NULL_DELETE_FN",
            "  procedure(MPI_Win_copy_attr_function) :: MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN",
            "  procedure(MPI_Win_delete_attr_function) :: MPI_WIN_NULL_DELETE_FN",
            "  procedure(MPI_Datarep_conversion_function) :: MPI_CONVERSION_FN_NULL",
            "  procedure(MPI_Datarep_conversion_function_c) :: MPI_CONVERSION_FN_NULL_C"]
    for h in F08_HANDLES:
        short = h[4:].lower()
        out.append(f"  interface operator(==)\n    module procedure lc_eq_{short}\n  end interface")
        out.append(f"  interface operator(/=)\n    module procedure lc_ne_{short}\n  end interface")
        out.append(f"  private :: lc_eq_{short}, lc_ne_{short}")
    glue_ifaces, procs, pmpi_procs, pmpi_private = [], [], [], []
    # name -> the Fortran declarations of its dummies (to tell whether a
    # large-count form can overload the name: not when all kinds agree,
    # e.g. MPI_Aint and MPI_Count are both 8 bytes)
    sigs = {}
    kinds = {"MPI_ADDRESS_KIND": ctype_size("MPI_Aint"), "MPI_OFFSET_KIND": ctype_size("MPI_Offset"),
             "MPI_COUNT_KIND": ctype_size("MPI_Count")}

    def kind_value(t):
        for k, v in kinds.items():
            t = t.replace(k, str(v))
        return t
    for name, ret, args, h in bound:
        sig = []
        for a in args:
            kind, _ = kind_of(a, h)
            if kind != "omit":
                t, dims = f08_type(a, kind) if kind not in ("choice", "detach") else ("choice", "")
                sig.append((kind_value(t), dims))
        sigs[name] = sig
    generics = {}  # MPI_Xxx -> [specific procedure names]
    procname = {}
    for name, ret, args, h in bound:
        if "@large" in h and sigs[name] != sigs[name[:-2]]:
            generics[name[:-2]] = [f"lc_mpi_{name[:-2].lower()}", f"lc_mpi_{name.lower()}"]
            procname[name[:-2]] = f"lc_mpi_{name[:-2].lower()}"
            procname[name] = f"lc_mpi_{name.lower()}"
    # MPI_Alloc_mem, MPI_Win_allocate(_shared)(_c), MPI_Win_shared_query(_c):
    # MPI 4.1's mpi_f08 form takes TYPE(C_PTR); the
    # INTEGER(KIND=MPI_ADDRESS_KIND) form stays (Cray pointers, programs
    # written for module mpi): a generic of both (name -> its generic)
    cptr_of = {}
    for name, ret, args, h in bound:
        if "@nof08" in h or not any(kind_of(a, h)[0] == "addr_out" for a in args):
            continue
        g = name[:-2] if "@large" in h and name[:-2] in generics else name
        if g not in generics:
            generics[g] = [f"lc_mpi_{name.lower()}"]
            procname[name] = f"lc_mpi_{name.lower()}"
        cptr_of[name] = g
    large_generics = {g: list(v) for g, v in generics.items() if g not in cptr_of or len(v) > 1}
    for name, g in cptr_of.items():
        generics[g].append(f"lc_mpi_{name.lower()}_cptr")
    for name, ret, args, h in bound:
        if "@nof08" in h:
            continue
        pname = procname.get(name, f"MPI_{name}")
        dummies, idecl, wdecl = [], [], []
        for a in args:
            kind, _ = kind_of(a, h)
            if kind == "omit":
                continue
            n = a.name
            dummies.append(n)
            t, dims = f08_type(a, kind)
            if kind in ("choice", "detach"):
                d = [f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {n}", f"type(*), dimension(*) :: {n}"]
                idecl += d
                wdecl += d
            elif kind == "proc":
                iface = {"MPI_User_function": "MPI_User_function",
                         "MPI_Comm_copy_attr_function": "MPI_Comm_copy_attr_function",
                         "MPI_Comm_delete_attr_function": "MPI_Comm_delete_attr_function",
                         "MPI_Type_copy_attr_function": "MPI_Type_copy_attr_function",
                         "MPI_Type_delete_attr_function": "MPI_Type_delete_attr_function",
                         "MPI_Win_copy_attr_function": "MPI_Win_copy_attr_function",
                         "MPI_Win_delete_attr_function": "MPI_Win_delete_attr_function",
                         "MPI_Win_errhandler_function": "MPI_Win_errhandler_function",
                         "MPI_Session_errhandler_function": "MPI_Session_errhandler_function",
                         "MPI_Comm_errhandler_function": "MPI_Comm_errhandler_function",
                         "MPI_File_errhandler_function": "MPI_File_errhandler_function",
                         "MPI_Datarep_conversion_function": "MPI_Datarep_conversion_function",
                         "MPI_Datarep_conversion_function_c": "MPI_Datarep_conversion_function_c",
                         "MPI_Datarep_extent_function": "MPI_Datarep_extent_function",
                         "MPI_Handler_function": "MPI_Comm_errhandler_function",
                         "MPI_Grequest_query_function": "MPI_Grequest_query_function",
                         "MPI_Grequest_free_function": "MPI_Grequest_free_function",
                         "MPI_Grequest_cancel_function": "MPI_Grequest_cancel_function"}.get(a.base)
                if iface is None:
                    sys.exit(f"gen_fortran: {name}: no mpi_f08 interface for callback type {a.base}; "
                             "add one next to MPI_Comm_copy_attr_function")
                idecl.append(f"procedure({iface}) :: {n}")
                wdecl.append(f"procedure({iface}) :: {n}")
            else:
                idecl.append(f"{t} :: {n}{dims}")
                intent = ", intent(in)" if a.by_value else ""
                wdecl.append(f"{t}{intent} :: {n}{dims}")
        lname = f"lc_f08_{name.lower()}"
        if ret == "int":
            ih = f"subroutine {lname}({', '.join(dummies + ['ierror'])})"
            idecl.append("integer :: ierror")
            it = "end subroutine"
            wh = f"subroutine {pname}({', '.join(dummies + ['ierror'])})"
            wdecl.append("integer, optional, intent(out) :: ierror")
            wdecl.append("integer :: lc_ierr")
            body = [f"call {lname}({', '.join(dummies + ['lc_ierr'])})",
                    "if (present(ierror)) ierror = lc_ierr"]
            wt = "end subroutine"
        else:
            t = "double precision" if ret == "double" else "integer(kind=MPI_ADDRESS_KIND)"
            ih = f"{t} function {lname}({', '.join(dummies)})"
            it = "end function"
            wh = f"{t} function {pname}({', '.join(dummies)})"
            body = [f"{pname} = {lname}({', '.join(dummies)})"]
            wt = "end function"
            # PMPI_Wtime, PMPI_Wtick, PMPI_Aint_add, PMPI_Aint_diff: functions
            # have their PMPI_ names here too, as in module mpi (MPICH's
            # f08/timer/wtimef90 calls PMPI_WTIME with `use mpi_f08`); they
            # call the pmpi_ glue, under lc_f08p_<name>_ (glue_function)
            glue_ifaces.append(wrap(f"    {t} function lc_f08p_{name.lower()}({', '.join(dummies)})"))
            glue_ifaces.append("      import")
            glue_ifaces += [wrap("      " + d) for d in idecl]
            glue_ifaces.append("    end function")
            pmpi_procs.append(wrap(f"  {t} function PMPI_{name}({', '.join(dummies)})"))
            pmpi_procs += [wrap("    " + d) for d in wdecl]
            pmpi_procs.append(wrap(f"    PMPI_{name} = lc_f08p_{name.lower()}({', '.join(dummies)})"))
            pmpi_procs += ["  end function", ""]
            pmpi_private.append(f"lc_f08p_{name.lower()}")
        glue_ifaces.append(wrap("    " + ih))
        glue_ifaces.append("      import")
        glue_ifaces += [wrap("      " + d) for d in idecl]
        glue_ifaces.append("    " + it)
        procs.append(wrap("  " + wh))
        procs += [wrap("    " + d) for d in wdecl]
        procs += [wrap("    " + b) for b in body]
        procs.append("  " + wt)
        procs.append("")
        if name in cptr_of:
            # the TYPE(C_PTR) specific: the same glue, the address it
            # writes (pointer-sized) carried over by TRANSFER
            n = next(a.name for a in args if kind_of(a, h)[0] == "addr_out")
            cdecl = [f"type(c_ptr), intent(out) :: {n}" if d == f"integer(kind=MPI_ADDRESS_KIND) :: {n}" else d
                     for d in wdecl] + ["integer(kind=MPI_ADDRESS_KIND) :: lc_addr"]
            cdummies = ["lc_addr" if d == n else d for d in dummies]
            procs.append(wrap(f"  subroutine lc_mpi_{name.lower()}_cptr({', '.join(dummies + ['ierror'])})"))
            procs += [wrap("    " + d) for d in cdecl]
            procs += [wrap(f"    call {lname}({', '.join(cdummies + ['lc_ierr'])})"),
                      f"    {n} = transfer(lc_addr, {n})",
                      "    if (present(ierror)) ierror = lc_ierr",
                      "  end subroutine", ""]
    F08_GENERICS.clear()
    # (only the large-count generics: render_mpich_f08 binds their _large_ names)
    F08_GENERICS.update(large_generics)
    for g, specifics in generics.items():
        out.append(f"  interface MPI_{g}")
        out.append(wrap(f"    module procedure {', '.join(specifics)}"))
        out.append(f"  end interface MPI_{g}")
        out.append(wrap(f"  private :: {', '.join(specifics)}"))
    glue_ifaces += ["    subroutine lc_f08_f_sync_reg(buf)  ! (src/fortran/lc_f_support.c)",
                    "      !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf",
                    "      type(*), dimension(*) :: buf",
                    "    end subroutine"]
    # MPI_Status_f082f, MPI_Status_f2f08 (MPI 4.1 §19.3.5): the two
    # statuses have one layout, C's MPI_Status (5 C ints), so a copy
    procs += ["  subroutine MPI_Status_f082f(f08_status, f_status, ierror)",
              "    type(MPI_Status), intent(in) :: f08_status",
              "    integer, intent(out) :: f_status(MPI_STATUS_SIZE)",
              "    integer, optional, intent(out) :: ierror",
              "    f_status = transfer(f08_status, f_status)",
              "    if (present(ierror)) ierror = MPI_SUCCESS",
              "  end subroutine", "",
              "  subroutine MPI_Status_f2f08(f_status, f08_status, ierror)",
              "    integer, intent(in) :: f_status(MPI_STATUS_SIZE)",
              "    type(MPI_Status), intent(out) :: f08_status",
              "    integer, optional, intent(out) :: ierror",
              "    f08_status = transfer(f_status, f08_status)",
              "    if (present(ierror)) ierror = MPI_SUCCESS",
              "  end subroutine", ""]
    procs += pmpi_procs
    procs += ["  subroutine MPI_F_sync_reg(buf)",
              "    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf",
              "    type(*), dimension(*) :: buf",
              "    call lc_f08_f_sync_reg(buf)",
              "  end subroutine", ""]
    out.append("  interface")
    out += glue_ifaces
    out.append("  end interface")
    out.append("  private :: lc_f08_f_sync_reg")
    out += [f"  private :: {n}" for n in pmpi_private]
    out += [f"  private :: lc_f08_{n.lower()}" for n, _, _, h in bound if "@nof08" not in h]
    out.append("contains")
    for h in F08_HANDLES:
        short = h[4:].lower()
        for op, fn in (("==", "eq"), ("/=", "ne")):
            out += [f"  elemental logical function lc_{fn}_{short}(a, b)",
                    f"    type({h}), intent(in) :: a, b",
                    f"    lc_{fn}_{short} = a%MPI_VAL {op} b%MPI_VAL",
                    "  end function"]
    out += procs
    out.append("end module mpi_f08")
    return "\n".join(out) + "\n"



# ---------------------------------------------------------------- MPICH's mpi_f08 ABI
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
    """(count, datatype) dummies that describe choice buffer n, or None."""
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
            return c, t
    return None


def render_mpich_f08(bound):
    out = ["! MPICH's mpi_f08 entry points (mpi_xxx_f08_, mpi_xxx_f08ts_) on Locus.",
           "! Generated by scripts/gen_fortran.py: do not edit.  See the comment",
           "! above render_mpich_f08 there.",
           "module lc_f08ts",
           "  use, intrinsic :: iso_c_binding, only: c_int, c_ptr",
           "  implicit none",
           "  interface",
           "    integer(c_int) function lc_f08ts_buf(buf, count, datatype, addr, newcount, newtype) &",
           "        bind(C, name='lc_f08ts_buf')",
           "      import :: c_int, c_ptr",
           "      type(*), dimension(..) :: buf",
           "      integer(c_int), value :: count, datatype",
           "      type(c_ptr) :: addr",
           "      integer(c_int) :: newcount, newtype",
           "    end function",
           "    subroutine lc_f08ts_done(newtype, datatype) bind(C, name='lc_f08ts_done')",
           "      import :: c_int",
           "      integer(c_int), value :: newtype, datatype",
           "    end subroutine",
           "  end interface",
           "end module lc_f08ts",
           ""]
    names = []
    for name, ret, args, h in bound:
        if "@nof08" in h:
            continue
        large = "@large" in h
        if large and name[:-2] not in F08_GENERICS:
            continue  # MPI_Type_get_extent_c...: MPICH 4.0 has no F08 form
        kinds = [(a, kind_of(a, h)[0]) for a in args]
        kinds = [(a, k) for a, k in kinds if k != "omit"]
        bufs = [a for a, k in kinds if k == "choice"]
        base = name[:-2] if large else name
        ext = f"MPI_{base}_f08ts" if bufs else f"MPI_{base}_f08"
        if large:
            ext += "_large"
        names.append(ext.lower() + "_")
        dummies = [a.name for a, _ in kinds]
        decl = []
        for a, kind in kinds:
            n = a.name
            t, dims = f08_type(a, kind)
            if kind == "choice":
                decl.append(f"type(*), dimension(..) :: {n}")
            elif kind == "detach":
                decl += [f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {n}", f"type(*), dimension(*) :: {n}"]
            elif kind == "proc":
                decl.append(f"external :: {n}")
            else:
                decl.append(f"{t} :: {n}{dims}")
        body, actual = [], {d: d for d in dummies}
        # A (count, datatype) pair shared by two buffers (the reductions)
        # cannot describe two layouts: those buffers must be contiguous.
        pairs = {b.name: buffer_pair(name, args, b.name) for b in bufs}
        for b in bufs:
            if list(pairs.values()).count(pairs[b.name]) > 1:
                pairs[b.name] = None
        made = []
        for b in bufs:
            pair = pairs[b.name]
            # -1: no count of its own (contiguous needed); -2: only its
            # address matters (MPI_Get_address of a section's first element)
            c, t = pair if pair else ("-2" if name == "Get_address" else "-1", None)
            wide = pair is not None and any(a.name == c and a.base == "MPI_Count" for a in args)
            decl += [f"type(c_ptr) :: lc_p_{b.name}",
                     f"integer, pointer, contiguous :: lc_a_{b.name}(:)",
                     f"integer :: lc_m_{b.name}",
                     f"type(MPI_Datatype) :: lc_t_{b.name}"]
            if pair:
                decl.append(f"integer{'(kind=MPI_COUNT_KIND)' if wide else ''} :: lc_n_{b.name}")
            tv = f"{t}%MPI_VAL" if t else "MPI_DATATYPE_NULL%MPI_VAL"
            # the helper's count is a C int: a large count is clamped for
            # it, and kept when the helper leaves the buffer as it is
            cin = f"int(min({c}, int(huge(0), MPI_COUNT_KIND)))" if wide else c
            body += [f"lc_rc = lc_f08ts_buf({b.name}, {cin}, {tv}, lc_p_{b.name}, lc_m_{b.name}, "
                     f"lc_t_{b.name}%MPI_VAL)",
                     "if (lc_rc /= MPI_SUCCESS) then"]
            body += [f"  call lc_f08ts_done(lc_t_{m}%MPI_VAL, {mt}%MPI_VAL)" for m, mt in made]
            body += ["  if (present(ierror)) ierror = lc_rc",
                     "  return",
                     "end if",
                     f"call c_f_pointer(lc_p_{b.name}, lc_a_{b.name}, [1])"]
            if pair:
                body += [f"lc_n_{b.name} = lc_m_{b.name}",
                         f"if (lc_t_{b.name}%MPI_VAL == {t}%MPI_VAL) lc_n_{b.name} = {c}"]
            actual[b.name] = f"lc_a_{b.name}"
            if pair:
                actual[c] = f"lc_n_{b.name}"
                actual[t] = f"lc_t_{b.name}"
                made.append((b.name, t))
        frees = [f"call lc_f08ts_done(lc_t_{m}%MPI_VAL, {mt}%MPI_VAL)" for m, mt in made]
        if bufs:
            decl.append("integer :: lc_rc")
        call_args = ", ".join(actual[d] for d in dummies)
        head_use = ["use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer", "use lc_f08ts"] if bufs else []
        if ret == "int":
            head = f"subroutine {ext}({', '.join(dummies + ['ierror'])})"
            decl.append("integer, optional, intent(out) :: ierror")
            body.append(f"call MPI_{base}({call_args + ', ' if call_args else ''}ierror)")
            tail = "end subroutine"
        else:
            t = "double precision" if ret == "double" else "integer(kind=MPI_ADDRESS_KIND)"
            head = f"{t} function {ext}({', '.join(dummies)})"
            body.append(f"{ext} = MPI_{base}({call_args})")
            tail = "end function"
        body += frees
        out.append(wrap(head))
        out += ["  " + u for u in head_use]
        out += ["  use mpi_f08", "  implicit none"]
        out += [wrap("  " + d) for d in decl]
        out += [wrap("  " + b) for b in body]
        out += [tail, ""]
        if ret != "int" and not large:
            # MPICH's PMPI_ form of the four functions (pmpir_wtime_f08_...)
            pext = "PMPIR" + ext[3:]
            names.append(pext.lower() + "_")
            out.append(wrap(head.replace(f" {ext}(", f" {pext}(", 1)))
            out += ["  use mpi_f08", "  implicit none"]
            out += [wrap("  " + d) for d in decl]
            out.append(wrap(f"  {pext} = PMPI_{base}({call_args})"))
            out += [tail, ""]
    # MPI_F_sync_reg: the call itself is what matters (the compiler must
    # assume buf was read and written); nothing to do
    out += ["subroutine MPI_F_sync_reg_f08ts(buf)", "  implicit none",
            "  type(*), dimension(..) :: buf", "  if (.false.) print *, rank(buf)", "end subroutine", ""]
    names.append("mpi_f_sync_reg_f08ts_")
    return "\n".join(out) + "\n", names


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

def wrap(line, width=100):
    if len(line) <= width or line.lstrip().startswith("!") or "," not in line[:width]:
        return line
    parts, cur = [], line
    while len(cur) > width:
        cut = cur.rfind(",", 0, width) + 1
        parts.append(cur[:cut] + " &")
        cur = "            " + cur[cut:].lstrip()
    parts.append(cur)
    return "\n".join(parts)


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
                        ("lc_mpi_sizeof.f90", render_sizeof())):
        p = outdir / fname
        if not p.exists() or p.read_text() != text:
            p.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
