! SPDX-License-Identifier: BSD-3-Clause
! f08_sizeof_mpich.f90: MPI_Sizeof in a program built with MPICH's
! `mpi_f08` module (fortran.mpich_binary.f08_sizeof_mpich only): it calls
! MPICH's module procedures __mpi_f08_types_MOD_mpi_sizeof_xint8...
! (assumed-rank X, optional ierror), which Locus's libmpifort provides
! (scripts/gen_fortran.py, render_sizeof).  Every specific, scalar and
! arrays of rank 1 and 2; 1 rank.
program f08sizeofmpich
  use mpi_f08
  implicit none
  integer :: errs, ierr, sz
  integer(kind=1) :: i1(2, 2)
  integer(kind=2) :: i2
  integer :: i4(3)
  integer(kind=8) :: i8
  real :: r4(2)
  double precision :: r8(2, 3)
  real(kind=16) :: r16
  complex :: c4
  complex(kind=8) :: c8(2)
  complex(kind=16) :: c16
  logical :: l(2)
  character :: ch(3)

  errs = 0
  call MPI_Init()
  call MPI_Sizeof(i1, sz); call expect(sz, 1)
  call MPI_Sizeof(i2, sz); call expect(sz, 2)
  call MPI_Sizeof(i4, sz); call expect(sz, 4)
  call MPI_Sizeof(i8, sz); call expect(sz, 8)
  call MPI_Sizeof(r4, sz); call expect(sz, 4)
  call MPI_Sizeof(r8, sz); call expect(sz, 8)
  call MPI_Sizeof(r16, sz); call expect(sz, 16)
  call MPI_Sizeof(c4, sz); call expect(sz, 8)
  call MPI_Sizeof(c8, sz); call expect(sz, 16)
  call MPI_Sizeof(c16, sz); call expect(sz, 32)
  call MPI_Sizeof(l, sz); call expect(sz, 4)
  ierr = -1
  call MPI_Sizeof(ch, sz, ierr); call expect(sz, 1)
  if (ierr /= MPI_SUCCESS) call expect(ierr, MPI_SUCCESS)
  if (errs == 0) then
    print '(a)', ' No Errors'
  else
    print '(a,i0,a)', ' Found ', errs, ' errors'
  end if
  call MPI_Finalize()
contains
  subroutine expect(got, want)
    integer, intent(in) :: got, want
    if (got /= want) then
      errs = errs + 1
      write (0, '(a,i0,a,i0)') 'FAIL: MPI_Sizeof gave ', got, ', want ', want
    end if
  end subroutine
end program
