#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# t_wrappers_fortran.sh: the Fortran compiler wrappers and CMake's FindMPI.
#
# usage: t_wrappers_fortran.sh <build-dir> <test/fortran source dir> <work dir>
#
#  1. mpifort, mpif90, mpif77: -show, -compile-info, -link-info name
#     gfortran, <build>/include (mpif.h, mpi.mod) and -lmpifort -lmpi;
#  2. f77_basic.f built with mpif77 and f90_module.f90 with mpif90 run
#     ("No Errors") under Locus's mpiexec;
#  3. find_package(MPI COMPONENTS Fortran) with MPI_Fortran_COMPILER=mpifort
#     takes Locus's include dir and libraries, sees mpif.h and the mpi
#     module, and builds a program that runs.
set -u
build=$(cd "$1" && pwd -P); src=$(cd "$2" && pwd); work=$3
bin=$build/bin
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
rm -rf "$work"; mkdir -p "$work" || exit 2
cd "$work" || exit 2

for w in mpifort mpif90 mpif77; do
    [ -x "$bin/$w" ] || { fail "$bin/$w missing"; continue; }
    show=$("$bin/$w" -show -o x x.f90)
    case "$show" in
    gfortran*" -I$build/include "*"-lmpifort -lmpi"*) echo "$w -show: $show" ;;
    *) fail "$w -show: $show" ;;
    esac
    ci=$("$bin/$w" -compile-info)
    [ "$ci" = "gfortran -I$build/include -fallow-argument-mismatch" ] || fail "$w -compile-info: $ci"
    li=$("$bin/$w" -link-info)
    case "$li" in gfortran*"-L$build/lib"*"-lmpifort -lmpi") ;; *) fail "$w -link-info: $li" ;; esac
    fc=$(LOCUS_FC=my-gfortran "$bin/$w" -show x.f)
    case "$fc" in my-gfortran*) ;; *) fail "$w: LOCUS_FC not honoured: $fc" ;; esac
done

"$bin/mpif77" -o f77_basic "$src/f77_basic.f" 2> f77.err || { cat f77.err; fail "mpif77 could not build f77_basic.f"; }
"$bin/mpif90" -o f90_module "$src/f90_module.f90" || fail "mpif90 could not build f90_module.f90"
for p in f77_basic f90_module; do
    [ -x "$p" ] || continue
    "$src/../run_mpi_test.sh" --timeout 50 "$bin/mpiexec" 2 "./$p" > "$p.out" 2>&1 ||
        { cat "$p.out"; fail "$p built by the wrapper did not pass"; }
done

if command -v cmake > /dev/null; then
    mkdir -p proj
    cat > proj/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.18)
project(findmpi_fortran Fortran)
find_package(MPI REQUIRED COMPONENTS Fortran)
message(STATUS "CHECK_INCLUDE_DIRS=${MPI_Fortran_INCLUDE_DIRS}")
message(STATUS "CHECK_LIBRARIES=${MPI_Fortran_LIBRARIES}")
message(STATUS "CHECK_F77_HEADER=${MPI_Fortran_HAVE_F77_HEADER}")
message(STATUS "CHECK_F90_MODULE=${MPI_Fortran_HAVE_F90_MODULE}")
add_executable(hello hello.f90)
target_link_libraries(hello MPI::MPI_Fortran)
CM
    cat > proj/hello.f90 <<'F'
program hello
  use mpi
  implicit none
  integer :: ierr, rank, size, total
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == size * (size - 1) / 2) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
end program
F
    if timeout 120 cmake -S proj -B pbuild -DMPI_Fortran_COMPILER="$bin/mpifort" > cmake.out 2>&1; then
        grep -q "CHECK_INCLUDE_DIRS=.*$build/include" cmake.out || fail "FindMPI did not take $build/include"
        grep -q "CHECK_LIBRARIES=.*$build/lib/libmpifort.so" cmake.out || fail "FindMPI did not take libmpifort"
        grep -q "CHECK_LIBRARIES=.*$build/lib/libmpi.so" cmake.out || fail "FindMPI did not take libmpi"
        grep -q "CHECK_F77_HEADER=TRUE" cmake.out || fail "FindMPI did not find mpif.h"
        grep -q "CHECK_F90_MODULE=TRUE" cmake.out || fail "FindMPI did not find the mpi module"
        grep CHECK_ cmake.out
        if timeout 120 cmake --build pbuild > cbuild.out 2>&1; then
            "$src/../run_mpi_test.sh" --timeout 50 "$bin/mpiexec" 2 pbuild/hello > hello.out 2>&1 ||
                { cat hello.out; fail "the FindMPI-built program did not pass"; }
        else
            cat cbuild.out; fail "FindMPI project did not build"
        fi
    else
        cat cmake.out; fail "cmake configure with FindMPI (Fortran) failed"
    fi
else
    echo "note: no cmake: FindMPI part skipped"
fi
[ $fails -eq 0 ] && echo PASS
exit $((fails > 0))
