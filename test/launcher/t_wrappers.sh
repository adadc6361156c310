#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpicc / mpicxx: flags, MPICH's query options, compiler overrides, the
# prefix found through symlinks, the order of -L against a system -L
# (that one links when the library is built; FindMPI: t_findmpi).
. "$(dirname "$0")/lib.sh"
BIN=$(dirname "$MPIEXEC")
PREFIX=$(cd "$BIN/.." && pwd -P)
INC="-I$PREFIX/include"
# In a sanitizer build the wrappers also link the sanitizer runtimes.
SAN=""
case $("$BIN/mpicc" -link-info) in
    *-fsanitize=*) SAN="-fsanitize=address,undefined " ;;
esac
LIBS="$SAN-Wl,-rpath,$PREFIX/lib -lmpi"
# When linking, Locus's -L comes before the user's arguments (so a user's
# -L/usr/lib/<triplet> cannot make -lmpi find another MPI's libmpi.so).
LDIR="-L$PREFIX/lib"
unset LOCUS_CC LOCUS_CXX MPICH_CC MPICH_CXX

same() { [ "$1" = "$2" ] || fail "got:      $1
expected: $2"; }

same "$("$BIN/mpicc" -show a.c -o a)"           "cc $INC $LDIR a.c -o a $LIBS"
same "$("$BIN/mpicc" -show -c a.c)"             "cc $INC -c a.c"
same "$("$BIN/mpicc" -show -E a.c)"             "cc $INC -E a.c"
same "$("$BIN/mpicc" -show -S a.c)"             "cc $INC -S a.c"
same "$("$BIN/mpicc" -show -M a.c)"             "cc $INC -M a.c"
same "$("$BIN/mpicc" -show -MMD a.c)"           "cc $INC $LDIR -MMD a.c $LIBS"
same "$("$BIN/mpicxx" -show a.cc)"              "c++ $INC $LDIR a.cc $LIBS"
same "$("$BIN/mpicc" -compile-info)"            "cc $INC"
same "$("$BIN/mpicc" -link-info)"               "cc $SAN$LDIR -Wl,-rpath,$PREFIX/lib -lmpi"
same "$("$BIN/mpicc" -cc=clang -show a.c)"      "clang $INC $LDIR a.c $LIBS"
same "$("$BIN/mpicxx" -cxx=clang++ -show a.cc)" "clang++ $INC $LDIR a.cc $LIBS"
same "$(MPICH_CC=gcc "$BIN/mpicc" -show a.c)"   "gcc $INC $LDIR a.c $LIBS"
same "$(MPICH_CC=gcc LOCUS_CC=clang "$BIN/mpicc" -show a.c)" "clang $INC $LDIR a.c $LIBS"
same "$(MPICH_CXX=g++ "$BIN/mpicxx" -show a.cc)" "g++ $INC $LDIR a.cc $LIBS"
same "$(LOCUS_CC='ccache gcc' "$BIN/mpicc" -show a.c)" "ccache gcc $INC $LDIR a.c $LIBS"
# Arguments with spaces and quotes survive, and -show quotes them.
same "$("$BIN/mpicc" -show -c 'my file.c' -DMSG='"hi there"')" "cc $INC -c 'my file.c' '-DMSG=\"hi there\"'"
# A symlink elsewhere still finds the real prefix.
ln -s "$BIN/mpicc" "$T/mpicc"
same "$("$T/mpicc" -show a.c)" "cc $INC $LDIR a.c $LIBS"
# Open MPI's query options are refused (FindMPI then tries MPICH's).
"$BIN/mpicc" -showme:compile >/dev/null 2>"$T/err" && fail "-showme:compile accepted"
expect_err "Open MPI"

# A real compile: mpi.h is found, and arguments reach the compiler intact.
if [ -f "$PREFIX/include/mpi.h" ]; then
    printf '#include <mpi.h>\n#include <string.h>\nint f(void) { return (int)strlen(MSG) + (int)sizeof(MPI_Comm); }\n' > "$T/my file.c"
    "$BIN/mpicc" -c "$T/my file.c" -DMSG='"hi there"' -o "$T/a.o" 2>"$T/err" || fail "mpicc -c failed"
    [ -s "$T/a.o" ] || fail "no object file"
    "$BIN/mpicxx" -x c++ -c "$T/my file.c" -DMSG='"hi there"' -o "$T/b.o" 2>"$T/err" || fail "mpicxx -c failed"
else
    echo "note: $PREFIX/include/mpi.h missing, compile check skipped"
fi
# A real link with the system library directory first on the command line
# (as setuptools links Python extensions) still takes Locus's libmpi.so.12,
# not the system's libmpi.so (Open MPI's on Debian).
if [ -e "$PREFIX/lib/libmpi.so.12" ] && command -v readelf >/dev/null; then
    sysdir=/usr/lib/$(cc -print-multiarch 2>/dev/null)
    printf '#include <mpi.h>\nint main(void) { return MPI_Init(0, 0); }\n' > "$T/l.c"
    "$BIN/mpicc" "$T/l.c" -L"$sysdir" -o "$T/l" 2>"$T/err" || fail "mpicc link with -L$sysdir failed"
    readelf -d "$T/l" > "$T/dyn" || fail "readelf failed"
    grep -q 'NEEDED.*\[libmpi\.so\.12\]' "$T/dyn" || fail "linked against another libmpi: $(grep NEEDED "$T/dyn")"
fi
echo "PASS"
