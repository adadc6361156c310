# SPDX-License-Identifier: BSD-3-Clause
"""The C API as Fortran sees it, for scripts/gen_fortran.py and its
renderers: the functions with a Fortran binding (api/mpi_functions.txt
through gen_api.parse, api/fortran_hints.txt), the binding kind of each
argument, mpi.h's constants, and the line wrapper of the free-form
sources."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import gen_api  # noqa: E402

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
