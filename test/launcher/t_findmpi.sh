#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# CMake's FindMPI with our mpicc: it must find the include dir and the
# library through -compile-info/-link-info and build a program that then
# runs under our mpiexec.
#  1. against a prefix holding MPICH's mpi.h and libmpich as "libmpi" (tests
#     the wrapper with a complete MPI library, whatever the state of ours);
#  2. against the build tree itself, once libmpi.so is built.
. "$(dirname "$0")/lib.sh"
command -v cmake >/dev/null || { echo "SKIP: no cmake"; exit 77; }
BIN=$(dirname "$MPIEXEC")
SRC=$(cd "$(dirname "$0")" && pwd)
ran=0

findmpi() { # PREFIX LABEL
    rm -rf "$T/proj" "$T/build"
    mkdir -p "$T/proj"
    cp "$SRC/hello_mpich.c" "$T/proj/hello.c"
    cat > "$T/proj/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(findmpi_check C)
find_package(MPI REQUIRED C)
message(STATUS "CHECK_INCLUDE_DIRS=${MPI_C_INCLUDE_DIRS}")
message(STATUS "CHECK_LIBRARIES=${MPI_C_LIBRARIES}")
add_executable(hello hello.c)
target_link_libraries(hello MPI::MPI_C)
CM
    timeout 120 cmake -S "$T/proj" -B "$T/build" -DMPI_C_COMPILER="$1/bin/mpicc" > "$T/out" 2> "$T/err" ||
        fail "$2: cmake configure with FindMPI failed"
    grep -q "CHECK_INCLUDE_DIRS=.*$1/include" "$T/out" || fail "$2: FindMPI did not take $1/include"
    grep -q "CHECK_LIBRARIES=.*$1/lib/libmpi.so" "$T/out" || fail "$2: FindMPI did not take $1/lib/libmpi.so"
    timeout 120 cmake --build "$T/build" > "$T/out" 2> "$T/err" || fail "$2: build failed"
    run env -u LD_LIBRARY_PATH "$MPIEXEC" -n 2 "$T/build/hello"
    expect_rc 0
    expect_lines "^hello from [01] of 2 sum 1\$" 2 "$T/out"
    echo "$2: FindMPI ok"
    ran=1
}

if [ -f /usr/include/x86_64-linux-gnu/mpich/mpi.h ] && [ -f /usr/lib/x86_64-linux-gnu/libmpich.so.12 ]; then
    P=$T/mpich-prefix
    mkdir -p "$P/bin" "$P/lib" "$P/include"
    cp "$BIN/mpicc" "$P/bin/mpicc"
    ln -s /usr/include/x86_64-linux-gnu/mpich/*.h "$P/include/"
    ln -s /usr/lib/x86_64-linux-gnu/libmpich.so.12 "$P/lib/libmpi.so"
    findmpi "$(cd "$P" && pwd -P)" "MPICH library behind our mpicc"
fi
PREFIX=$(cd "$BIN/.." && pwd -P)
if [ -e "$PREFIX/lib/libmpi.so" ]; then
    findmpi "$PREFIX" "Locus build tree"
else
    echo "note: $PREFIX/lib/libmpi.so not built: Locus part skipped"
fi
[ $ran -eq 1 ] || { echo "SKIP: neither MPICH nor libmpi available"; exit 77; }
echo "PASS"
