! SPDX-License-Identifier: BSD-3-Clause
! f90_sizeof_mpich.f90: MPI_SIZEOF in a program built with MPICH's `mpi`
! module (fortran.mpich_binary.f90_sizeof_mpich only): it calls MPICH's
! module procedures (__mpi_sizeofs_MOD_mpi_sizeof_i...), which Locus's
! libmpifort provides (module mpi_sizeofs, scripts/gen_fortran.py).  Every
! specific of MPICH's module, scalar and array; 1 rank.
program f90sizeofmpich
  use mpi
  implicit none
  integer :: errs, ierr, sz, tsz
  integer :: i, iv(2)
  integer(kind=1) :: i1, i1v(2)
  integer(kind=2) :: i2, i2v(2)
  integer(kind=8) :: i8, i8v(2)
  real :: r, rv(2)
  double precision :: d, dv(2)
  complex :: c, cv(2)
  logical :: l, lv(2)
  character :: ch, chv(2)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Type_size(MPI_INTEGER, tsz, ierr)
  call MPI_SIZEOF(i, sz, ierr); call expect(sz, tsz)
  call MPI_SIZEOF(iv, sz, ierr); call expect(sz, tsz)
  call MPI_SIZEOF(i1, sz, ierr); call expect(sz, 1)
  call MPI_SIZEOF(i1v, sz, ierr); call expect(sz, 1)
  call MPI_SIZEOF(i2, sz, ierr); call expect(sz, 2)
  call MPI_SIZEOF(i2v, sz, ierr); call expect(sz, 2)
  call MPI_SIZEOF(i8, sz, ierr); call expect(sz, 8)
  call MPI_SIZEOF(i8v, sz, ierr); call expect(sz, 8)
  call MPI_Type_size(MPI_REAL, tsz, ierr)
  call MPI_SIZEOF(r, sz, ierr); call expect(sz, tsz)
  call MPI_SIZEOF(rv, sz, ierr); call expect(sz, tsz)
  call MPI_Type_size(MPI_DOUBLE_PRECISION, tsz, ierr)
  call MPI_SIZEOF(d, sz, ierr); call expect(sz, tsz)
  call MPI_SIZEOF(dv, sz, ierr); call expect(sz, tsz)
  call MPI_Type_size(MPI_COMPLEX, tsz, ierr)
  call MPI_SIZEOF(c, sz, ierr); call expect(sz, tsz)
  call MPI_SIZEOF(cv, sz, ierr); call expect(sz, tsz)
  call MPI_Type_size(MPI_LOGICAL, tsz, ierr)
  call MPI_SIZEOF(l, sz, ierr); call expect(sz, tsz)
  call MPI_SIZEOF(lv, sz, ierr); call expect(sz, tsz)
  call MPI_SIZEOF(ch, sz, ierr); call expect(sz, 1)
  call MPI_SIZEOF(chv, sz, ierr); call expect(sz, 1)
  if (errs == 0) then
    print '(a)', ' No Errors'
  else
    print '(a,i0,a)', ' Found ', errs, ' errors'
  end if
  call MPI_Finalize(ierr)
contains
  subroutine expect(got, want)
    integer, intent(in) :: got, want
    if (got /= want .or. ierr /= MPI_SUCCESS) then
      errs = errs + 1
      write (0, '(a,i0,a,i0,a,i0)') 'FAIL: MPI_SIZEOF gave ', got, ', want ', want, ', ierror ', ierr
    end if
  end subroutine
end program
