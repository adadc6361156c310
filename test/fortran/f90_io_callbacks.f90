! SPDX-License-Identifier: BSD-3-Clause
! f90_io_callbacks.f90: the I/O routines that take Fortran procedures,
! with `use mpi` (src/fortran/lc_f_file_errhandler.c, lc_f_datarep.c):
!   1. MPI_FILE_CREATE_ERRHANDLER: a handler that counts its calls and
!      records the INTEGER file handle and the code it gets, set on
!      MPI_FILE_NULL (an open of a missing file: handle MPI_FILE_NULL)
!      and on a file (MPI_FILE_CALL_ERRHANDLER, then a failing read_at:
!      the file's own handle, the code the call returned);
!   2. MPI_REGISTER_DATAREP: 'lcfscale' keeps INTEGERs multiplied by
!      EXTRA_STATE (3) in the file (items POSITION+1... of USERBUF, the
!      first COUNT of FILEBUF, MPI 4.1 §14.5.3); written through it at each rank's
!      offset, read back through a native view (scaled) and through it
!      (as written); 'lcfnull' with MPI_CONVERSION_FN_NULL (native bytes);
!      the same name twice: MPI_ERR_DUP_DATAREP.
! (MPICH 4.0.2's `mpi` module lacks MPI_CONVERSION_FN_NULL, its mpif.h
! declares it EXTERNAL: register_null, below, does the same.)
! Rank 0 prints "No Errors" when all checks passed.  MPICH 4.0.2 (ROMIO)
! refuses registered representations in set_view: part 2 skipped there;
! and it gives a Fortran file handler the low 32 bits of its C MPI_File
! pointer, not the INTEGER handle: the handle is not checked there; and it
! crashes calling a Fortran handler set on MPI_FILE_NULL (an open of a
! missing file, at -O0): not done there.
module f90iocb
  use mpi
  implicit none
  integer :: ncalls = 0, lastfh = -99, lastcode = -99
  integer :: nread = 0, nwrite = 0, nextent = 0
contains
  subroutine fhandler(fh, code)
    integer :: fh, code
    ncalls = ncalls + 1
    lastfh = fh
    lastcode = code
  end subroutine

  subroutine wconv(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: i
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. position < 0) then
      ierror = MPI_ERR_TYPE
      return
    end if
    do i = 1, count
      filebuf(i) = userbuf(position + i) * int(extra_state)
    end do
    nwrite = nwrite + 1
  end subroutine

  subroutine rconv(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    integer :: userbuf(*), filebuf(*), datatype, count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: i
    ierror = MPI_SUCCESS
    if (datatype /= MPI_INTEGER .or. position < 0) then
      ierror = MPI_ERR_TYPE
      return
    end if
    do i = 1, count
      userbuf(position + i) = filebuf(i) / int(extra_state)
    end do
    nread = nread + 1
  end subroutine

  subroutine extentfn(datatype, extent, extra_state, ierror)
    integer :: datatype, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
    call MPI_Type_size_x(datatype, extent, ierror)
    if (extra_state /= 3 .and. extra_state /= 0) ierror = MPI_ERR_ARG
    nextent = nextent + 1
  end subroutine
end module

program f90iocallbacks
  use mpi
  use f90iocb
  implicit none
  integer, parameter :: n = 50
  integer :: ierr, rank, nprocs, fh, eh, cls, vlen, pid, i, rc, errs
  integer :: a(n), b(n), st(MPI_STATUS_SIZE)
  integer(kind=MPI_OFFSET_KIND) :: off
  integer(kind=MPI_ADDRESS_KIND) :: extra
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  character(len=64) :: fname
  logical :: mpich

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Get_library_version(lib, vlen, ierr)
  mpich = index(lib, 'MPICH') > 0 .and. index(lib, 'Locus') == 0
  pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  write (fname, '(a,i0,a)') '/tmp/lc_f90_iocb_', pid, '.dat'

  ! 1. file error handlers
  call MPI_File_create_errhandler(fhandler, eh, ierr)
  call check(ierr == MPI_SUCCESS, 'file_create_errhandler')
  if (mpich) then
    ncalls = 1  ! (MPICH crashes calling a Fortran handler on MPI_FILE_NULL)
  else
    call MPI_File_set_errhandler(MPI_FILE_NULL, eh, ierr)
    call MPI_File_open(MPI_COMM_SELF, '/nonexistent_lc_dir/x', MPI_MODE_RDONLY, MPI_INFO_NULL, fh, rc)
    call check(rc /= MPI_SUCCESS, 'open of a missing file succeeded')
    call check(ncalls == 1, 'the handler on MPI_FILE_NULL was not called once')
    call check(lastfh == MPI_FILE_NULL, 'the handler on MPI_FILE_NULL got another handle')
    call check(lastcode == rc, 'the handler got another code than open returned')
    call MPI_Error_class(lastcode, cls, ierr)
    call check(cls == MPI_ERR_NO_SUCH_FILE .or. cls == MPI_ERR_FILE .or. cls == MPI_ERR_IO, 'open: class')
    call MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN, ierr)
  end if

  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'open')
  call MPI_File_set_errhandler(fh, eh, ierr)
  call MPI_Errhandler_free(eh, ierr)   ! the file keeps it
  call MPI_File_call_errhandler(fh, MPI_ERR_OTHER, ierr)
  call check(ierr == MPI_SUCCESS, 'file_call_errhandler')
  call check(ncalls == 2, 'call_errhandler: the handler was not called')
  call check(lastfh == fh .or. mpich, 'call_errhandler: the handler got another file handle')
  call check(lastcode == MPI_ERR_OTHER, 'call_errhandler: the handler got another code')
  off = -1
  call MPI_File_read_at(fh, off, b, 1, MPI_INTEGER, st, rc)
  call check(rc /= MPI_SUCCESS, 'read_at a negative offset succeeded')
  call check(ncalls == 3, 'read_at: the handler was not called')
  call check(lastfh == fh .or. mpich, 'read_at: the handler got another file handle')
  call check(lastcode == rc, 'read_at: the handler got another code than read_at returned')
  call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN, ierr)

  ! 2. registered data representations
  if (.not. mpich) then
    do i = 1, n
      a(i) = rank * 1000 + i
    end do
    extra = 3
    call MPI_Register_datarep('lcfscale', rconv, wconv, extentfn, extra, ierr)
    call check(ierr == MPI_SUCCESS, 'register_datarep')
    call MPI_Register_datarep('lcfscale', rconv, wconv, extentfn, extra, rc)
    call MPI_Error_class(rc, cls, ierr)
    call check(cls == MPI_ERR_DUP_DATAREP, 'register_datarep twice: not MPI_ERR_DUP_DATAREP')
    off = 0
    call MPI_File_set_view(fh, off, MPI_INTEGER, MPI_INTEGER, 'lcfscale', MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'set_view lcfscale')
    off = rank * n
    call MPI_File_write_at(fh, off, a, n, MPI_INTEGER, st, ierr)
    call check(ierr == MPI_SUCCESS .and. nwrite > 0, 'write_at through lcfscale')
    call MPI_File_sync(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_File_sync(fh, ierr)
    b = 0
    call MPI_File_read_at(fh, off, b, n, MPI_INTEGER, st, ierr)
    call check(ierr == MPI_SUCCESS .and. nread > 0 .and. all(b == a), 'read_at through lcfscale')
    off = 0
    call MPI_File_set_view(fh, off, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    off = rank * n
    b = 0
    call MPI_File_read_at(fh, off, b, n, MPI_INTEGER, st, ierr)
    call check(ierr == MPI_SUCCESS .and. all(b == 3 * a), 'the file does not hold the values times 3')
    call check(nextent > 0, 'the extent function was never called')

    call register_null(ierr)
    call check(ierr == MPI_SUCCESS, 'register_datarep with MPI_CONVERSION_FN_NULL')
    off = 0
    call MPI_File_set_view(fh, off, MPI_INTEGER, MPI_INTEGER, 'lcfnull', MPI_INFO_NULL, ierr)
    i = nwrite
    off = rank * n
    call MPI_File_write_at(fh, off, a, n, MPI_INTEGER, st, ierr)
    call check(ierr == MPI_SUCCESS .and. nwrite == i, 'write_at through lcfnull')
    call MPI_File_sync(fh, ierr)
    off = 0
    call MPI_File_set_view(fh, off, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
    off = rank * n
    b = 0
    call MPI_File_read_at(fh, off, b, n, MPI_INTEGER, st, ierr)
    call check(ierr == MPI_SUCCESS .and. all(b == a), 'lcfnull: the file does not hold the native values')
  end if

  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errs = errs + 1
      print '(a,i0,a,a)', 'rank ', rank, ': ', what
    end if
  end subroutine
end program

! MPI_CONVERSION_FN_NULL as mpif.h declares it (see the head comment)
subroutine register_null(ierr)
  use mpi, only: MPI_ADDRESS_KIND
  use f90iocb, only: extentfn
  implicit none
  external :: MPI_CONVERSION_FN_NULL, MPI_REGISTER_DATAREP
  integer :: ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra
  extra = 0
  call MPI_REGISTER_DATAREP('lcfnull', MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extentfn, extra, ierr)
end subroutine
