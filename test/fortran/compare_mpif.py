#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare Locus's mpif.h with MPICH's, constant by constant.

usage: compare_mpif.py <locus mpif.h> <mpich mpif.h>

Every PARAMETER both headers define must have the same value (after
resolving one constant defined as another); the Fortran-only constants
(MPI_STATUS_SIZE, MPI_SOURCE/TAG/ERROR, the KINDs) must be in Locus's;
the sentinels (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE, ...) must
be declared with the same shapes in the same common blocks, in the same
order, since MPICH-built programs find them there.  Constants MPICH has
and Locus does not are listed as notes (Locus declares only what it
implements).  Exit 0 only without failures.
"""
import re
import sys

REQUIRED = ["MPI_STATUS_SIZE", "MPI_SOURCE", "MPI_TAG", "MPI_ERROR", "MPI_ADDRESS_KIND",
            "MPI_OFFSET_KIND", "MPI_COUNT_KIND", "MPI_INTEGER_KIND", "MPI_SUCCESS",
            "MPI_COMM_WORLD", "MPI_INTEGER", "MPI_DOUBLE_PRECISION", "MPI_SUM", "MPI_TAG_UB",
            "MPI_ANY_SOURCE", "MPI_UNDEFINED", "MPI_VERSION", "MPI_SUBVERSION",
            "MPI_SUBARRAYS_SUPPORTED", "MPI_ASYNC_PROTECTS_NONBLOCKING"]

# Differences on purpose (as in the C header test).
ALLOWED = {"MPI_SUBVERSION": "Locus implements MPI 4.1, MPICH 4.0.2 says 4.0"}


def read(path):
    text = open(path).read()
    lines = [l for l in text.splitlines() if not re.match(r"^[!cC*]", l)]
    raw = {}
    for body in re.findall(r"^\s+PARAMETER\s*\((.*)\)\s*$", "\n".join(lines), re.I | re.M):
        for item in re.split(r",(?![^(]*\))", body):  # NAME=EXPR, ...
            name, _, val = item.partition("=")
            raw[name.strip().upper()] = val.strip().upper()
    params = {}
    for name, val in raw.items():  # integers, (-32766), 512-1, other names
        expr = val
        for _ in range(10):
            expr2 = re.sub(r"\b(MPI_\w+)\b", lambda m: f"({raw.get(m[1], m[1])})", expr)
            if expr2 == expr:
                break
            expr = expr2
        try:
            params[name] = str(eval(expr, {"__builtins__": {}})) if re.fullmatch(r"[-+()\d\s*]+", expr) else expr
        except SyntaxError:
            params[name] = expr
    def norm(l):
        return re.sub(r"\s+", "", l).upper()
    commons = [norm(l) for l in lines if re.match(r"^\s+COMMON\s*/", l, re.I)]
    sentinel_decls = sorted(norm(l) for l in lines
                            if re.search(r"(IGNORE|_NULL)\s*\(", l) and re.match(r"^\s+(INTEGER|CHARACTER)", l, re.I))
    return params, commons, sentinel_decls


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    locus, lcommons, ldecls = read(argv[0])
    mpich, mcommons, mdecls = read(argv[1])
    fails, same = [], 0
    for name in sorted(set(locus) & set(mpich)):
        if name in ALLOWED:
            print(f"note: {name}: Locus {locus[name]}, MPICH {mpich[name]} ({ALLOWED[name]})")
        elif locus[name] != mpich[name]:
            fails.append(f"{name}: Locus {locus[name]}, MPICH {mpich[name]}")
        else:
            same += 1
    for name in REQUIRED:
        if name not in locus:
            fails.append(f"{name}: missing from Locus's mpif.h")
    if lcommons != mcommons:
        fails.append(f"common blocks differ:\n  Locus {lcommons}\n  MPICH {mcommons}")
    if ldecls != mdecls:
        fails.append(f"sentinel declarations differ:\n  Locus {ldecls}\n  MPICH {mdecls}")
    missing = sorted(set(mpich) - set(locus))
    extra = sorted(set(locus) - set(mpich))
    print(f"{same} constants equal; {len(missing)} of MPICH's not in Locus's mpif.h (not implemented):")
    print("  " + " ".join(missing))
    if extra:
        print(f"note: in Locus's mpif.h only: {' '.join(extra)}")
    print(f"common blocks: {len(lcommons)} declared alike" if lcommons == mcommons else "")
    for f in fails:
        print(f"FAIL: {f}")
    print("PASS" if not fails else f"{len(fails)} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
