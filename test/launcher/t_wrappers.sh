#!/bin/sh
# mpicc / mpicxx: flags, MPICH's query options, compiler overrides, the
# prefix found through symlinks.  Needs no library (link test: t_findmpi).
. "$(dirname "$0")/lib.sh"
BIN=$(dirname "$MPIEXEC")
PREFIX=$(cd "$BIN/.." && pwd -P)
INC="-I$PREFIX/include"
LINK="-L$PREFIX/lib -Wl,-rpath,$PREFIX/lib -lmpi"
# In a sanitizer build the wrappers also link the sanitizer runtimes.
case $("$BIN/mpicc" -link-info) in
    *-fsanitize=*) LINK="-fsanitize=address,undefined $LINK" ;;
esac
unset LOCUS_CC LOCUS_CXX MPICH_CC MPICH_CXX

same() { [ "$1" = "$2" ] || fail "got:      $1
expected: $2"; }

same "$("$BIN/mpicc" -show a.c -o a)"           "cc $INC a.c -o a $LINK"
same "$("$BIN/mpicc" -show -c a.c)"             "cc $INC -c a.c"
same "$("$BIN/mpicc" -show -E a.c)"             "cc $INC -E a.c"
same "$("$BIN/mpicc" -show -S a.c)"             "cc $INC -S a.c"
same "$("$BIN/mpicc" -show -M a.c)"             "cc $INC -M a.c"
same "$("$BIN/mpicc" -show -MMD a.c)"           "cc $INC -MMD a.c $LINK"
same "$("$BIN/mpicxx" -show a.cc)"              "c++ $INC a.cc $LINK"
same "$("$BIN/mpicc" -compile-info)"            "cc $INC"
same "$("$BIN/mpicc" -link-info)"               "cc $LINK"
same "$("$BIN/mpicc" -cc=clang -show a.c)"      "clang $INC a.c $LINK"
same "$("$BIN/mpicxx" -cxx=clang++ -show a.cc)" "clang++ $INC a.cc $LINK"
same "$(MPICH_CC=gcc "$BIN/mpicc" -show a.c)"   "gcc $INC a.c $LINK"
same "$(MPICH_CC=gcc LOCUS_CC=clang "$BIN/mpicc" -show a.c)" "clang $INC a.c $LINK"
same "$(MPICH_CXX=g++ "$BIN/mpicxx" -show a.cc)" "g++ $INC a.cc $LINK"
same "$(LOCUS_CC='ccache gcc' "$BIN/mpicc" -show a.c)" "ccache gcc $INC a.c $LINK"
# Arguments with spaces and quotes survive, and -show quotes them.
same "$("$BIN/mpicc" -show -c 'my file.c' -DMSG='"hi there"')" "cc $INC -c 'my file.c' '-DMSG=\"hi there\"'"
# A symlink elsewhere still finds the real prefix.
ln -s "$BIN/mpicc" "$T/mpicc"
same "$("$T/mpicc" -show a.c)" "cc $INC a.c $LINK"
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
echo "PASS"
