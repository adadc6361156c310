! SPDX-License-Identifier: BSD-3-Clause
! f08_datarep_c.f90: MPI_Register_datarep_c with `use mpi_f08`
! (src/fortran/lc_f_datarep.c): conversion functions with an
! INTEGER(KIND=MPI_COUNT_KIND) count and TYPE(C_PTR), VALUE buffers; the
! file holds the values negated (written through the representation,
! read back through it and through a native view); a read function that
! fails gives its code back (MPI_ERR_CONVERSION class or the code);
! MPI_CONVERSION_FN_NULL_C (native bytes).  Built against Locus's module
! only: MPICH 4.0.2's mpi_f08 has no MPI_Register_datarep_c.
! Rank 0 prints "No Errors" when all checks passed.
module f08dc_cb
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: nconv = 0
contains
  ! EXTRA_STATE: 1 = write (user -> file), 2 = read, 3 = fail
  subroutine neg_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    ierror = merge(MPI_SUCCESS, MPI_ERR_TYPE, datatype == MPI_INTEGER)
    if (extra_state == 1) then
      f = -u(position + 1:)
    else if (extra_state == 2) then
      u(position + 1:) = -f
    else
      ierror = MPI_ERR_OTHER
    end if
    nconv = nconv + 1
  end subroutine

  subroutine write_c(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_COUNT_KIND) :: count
    integer :: ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, one
    one = 1
    call neg_c(userbuf, datatype, count, filebuf, position, one, ierror)
    if (extra_state == 0) ierror = MPI_ERR_ARG
  end subroutine

  subroutine extentfn(datatype, extent, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    integer :: ierror, sz
    call MPI_Type_size(datatype, sz, ierror)
    extent = sz
    if (extra_state < 0) ierror = MPI_ERR_ARG
  end subroutine
end module

program f08datarepc
  use mpi_f08
  use f08dc_cb
  implicit none
  integer, parameter :: n = 30
  integer :: rank, ierr, rc, errs, pid, i, a(n), b(n)
  type(MPI_File) :: fh
  type(MPI_Status) :: st
  integer(kind=MPI_ADDRESS_KIND) :: extra
  character(len=64) :: fname

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  pid = getpid()
  write (fname, '(a,i0,a,i0,a)') '/tmp/lc_f08_drc_', pid, '_', rank, '.dat'
  a = [(100 * rank + i, i = 1, n)]
  call MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh)
  extra = 2
  call MPI_Register_datarep_c('lcf08neg', neg_c, write_c, extentfn, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'register_datarep_c')
  call view('lcf08neg')
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, a, n, MPI_INTEGER, st, ierr)
  call check(ierr == MPI_SUCCESS .and. nconv > 0, 'write_at through lcf08neg')
  b = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, b, n, MPI_INTEGER, st, ierr)
  call check(ierr == MPI_SUCCESS .and. all(b == a), 'read_at through lcf08neg')
  call view('native')
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, b, n, MPI_INTEGER, st, ierr)
  call check(all(b == -a), 'the file does not hold the values negated')

  ! a read conversion that fails: its code comes back
  extra = 3
  call MPI_Register_datarep_c('lcf08fail', neg_c, write_c, extentfn, extra, ierr)
  call view('lcf08fail')
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, b, n, MPI_INTEGER, st, rc)
  call check(rc /= MPI_SUCCESS, 'a failing read conversion: read_at succeeded')

  ! MPI_CONVERSION_FN_NULL_C: the native bytes
  extra = 0
  call MPI_Register_datarep_c('lcf08null', MPI_CONVERSION_FN_NULL_C, MPI_CONVERSION_FN_NULL_C, extentfn, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'register_datarep_c with MPI_CONVERSION_FN_NULL_C')
  call view('lcf08null')
  i = nconv
  call MPI_File_write_at(fh, 0_MPI_OFFSET_KIND, a, n, MPI_INTEGER, st, ierr)
  call view('native')
  b = 0
  call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, b, n, MPI_INTEGER, st, ierr)
  call check(all(b == a) .and. nconv == i, 'lcf08null: the file does not hold the native values')

  call MPI_File_close(fh)
  call MPI_File_delete(fname, MPI_INFO_NULL)
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize()

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errs = errs + 1
      print '(a,i0,a,a)', 'rank ', rank, ': ', what
    end if
  end subroutine

  subroutine view(rep)
    character(len=*), intent(in) :: rep
    call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_INTEGER, MPI_INTEGER, rep, MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'set_view '//rep)
  end subroutine
end program
