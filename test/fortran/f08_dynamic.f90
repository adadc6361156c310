! SPDX-License-Identifier: BSD-3-Clause
! f08_dynamic.f90: with `use mpi_f08`, the routines whose Fortran glue is
! hand-written (src/fortran/lc_f_spawn.c, lc_f_file_errhandler.c,
! lc_f_datarep.c):
!   1. MPI_Comm_spawn of 2 children, argv 'x y', 'z' (CHARACTER*8: the
!      padding goes), MPI_ERRCODES_IGNORE; MPI_Comm_spawn_multiple of
!      1 + 1 children with MPI_ARGVS_NULL and an errcodes array; each
!      child checks its arguments and reports to parent rank 0;
!   2. MPI_File_create_errhandler: TYPE(MPI_File) handle and code;
!   3. MPI_Register_datarep (values times EXTRA_STATE in the file): the
!      conversion functions take TYPE(C_PTR), VALUE buffers; items
!      POSITION+1... of the user's.  (MPI_Register_datarep_c: f08_datarep_c,
!      which MPICH 4.0.2's mpi_f08 does not have.)
! Registered on 1 rank (a lone parent; f90_spawn runs on 2).
! Rank 0 prints "No Errors" when all checks passed.  On MPICH 4.0.2
! (ch4:ucx cannot spawn; ROMIO refuses registered representations and
! gives a Fortran file handler its C pointer) those checks are skipped.
module f08dyn_cb
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: ncalls = 0, lastfh = -99, lastcode = -99, nconv = 0
contains
  subroutine fhandler(file, error_code)
    type(MPI_File) :: file
    integer :: error_code
    ncalls = ncalls + 1
    lastfh = file%MPI_VAL
    lastcode = error_code
  end subroutine

  subroutine wconv(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    f = u(position + 1:) * int(extra_state)
    ierror = merge(MPI_SUCCESS, MPI_ERR_TYPE, datatype == MPI_INTEGER)
    nconv = nconv + 1
  end subroutine

  subroutine rconv(userbuf, datatype, count, filebuf, position, extra_state, ierror)
    type(c_ptr), value :: userbuf, filebuf
    type(MPI_Datatype) :: datatype
    integer :: count, ierror
    integer(kind=MPI_OFFSET_KIND) :: position
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer, pointer :: u(:), f(:)
    call c_f_pointer(userbuf, u, [position + count])
    call c_f_pointer(filebuf, f, [count])
    u(position + 1:) = f / int(extra_state)
    ierror = merge(MPI_SUCCESS, MPI_ERR_TYPE, datatype == MPI_INTEGER)
    nconv = nconv + 1
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

program f08dynamic
  use mpi_f08
  use f08dyn_cb
  implicit none
  integer, parameter :: n = 40
  integer :: rank, nprocs, vlen, ierr, rc, errs, pid, c, codes(2), got(2), maxprocs(2)
  integer :: a(n), b(n)
  type(MPI_Comm) :: parent, ic
  type(MPI_File) :: fh
  type(MPI_Errhandler) :: eh
  type(MPI_Status) :: st
  type(MPI_Info) :: infos(2)
  integer(kind=MPI_OFFSET_KIND) :: off
  integer(kind=MPI_ADDRESS_KIND) :: extra
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  character(len=512) :: me, cmds(2)
  character(len=8) :: args(3)
  character(len=64) :: fname
  logical :: mpich

  errs = 0
  call MPI_Init()
  call MPI_Comm_get_parent(parent)
  if (parent /= MPI_COMM_NULL) then
    call child()
    call MPI_Finalize()
    stop
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Get_library_version(lib, vlen)
  mpich = index(lib, 'MPICH') > 0 .and. index(lib, 'Locus') == 0
  call get_command_argument(0, me)

  ! 1. spawn
  if (.not. mpich) then
    args = ' '
    args(1) = 'x y'
    args(2) = 'z'
    call MPI_Comm_spawn(me, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, MPI_ERRCODES_IGNORE, ierr)
    call check(ierr == MPI_SUCCESS, 'spawn')
    call collect(2)
    cmds = me
    maxprocs = 1
    infos = MPI_INFO_NULL
    codes = -1
    call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, maxprocs, infos, 0, MPI_COMM_WORLD, ic, codes, ierr)
    call check(ierr == MPI_SUCCESS .and. all(codes == MPI_SUCCESS), 'spawn_multiple')
    call collect(2)
  end if

  ! 2. a file error handler
  pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  write (fname, '(a,i0,a)') '/tmp/lc_f08_dyn_', pid, '.dat'
  call MPI_File_create_errhandler(fhandler, eh, ierr)
  call check(ierr == MPI_SUCCESS, 'file_create_errhandler')
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'open')
  call MPI_File_set_errhandler(fh, eh)
  call MPI_Errhandler_free(eh)
  off = -1
  call MPI_File_read_at(fh, off, b, 1, MPI_INTEGER, st, rc)
  call check(rc /= MPI_SUCCESS .and. ncalls == 1 .and. lastcode == rc, 'read_at: the handler')
  call check(lastfh == fh%MPI_VAL .or. mpich, 'read_at: the handler got another file handle')
  call MPI_File_call_errhandler(fh, MPI_ERR_OTHER)
  call check(ncalls == 2 .and. lastcode == MPI_ERR_OTHER, 'call_errhandler')
  call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN)

  ! 3. registered representations
  if (.not. mpich) then
    a = [(rank * 1000 + c, c = 1, n)]
    extra = 5
    call MPI_Register_datarep('lcf08x5', rconv, wconv, extentfn, extra, ierr)
    call check(ierr == MPI_SUCCESS, 'register_datarep')
    call through('lcf08x5', 5)
    call check(nconv >= 2, 'the conversion functions were not called')
  end if

  call MPI_File_close(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) call MPI_File_delete(fname, MPI_INFO_NULL)
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

  ! write a through representation rep, read it back through it and as
  ! native INTEGERs (factor times a)
  subroutine through(rep, factor)
    character(len=*), intent(in) :: rep
    integer, intent(in) :: factor
    off = 0
    call MPI_File_set_view(fh, off, MPI_INTEGER, MPI_INTEGER, rep, MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'set_view '//rep)
    off = rank * n
    call MPI_File_write_at(fh, off, a, n, MPI_INTEGER, st)
    call MPI_File_sync(fh)
    call MPI_Barrier(MPI_COMM_WORLD)
    call MPI_File_sync(fh)
    b = 0
    call MPI_File_read_at(fh, off, b, n, MPI_INTEGER, st)
    call check(all(b == a), rep//': read back')
    off = 0
    call MPI_File_set_view(fh, off, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL)
    off = rank * n
    call MPI_File_read_at(fh, off, b, n, MPI_INTEGER, st)
    call check(all(b == factor * a), rep//': the file does not hold the converted values')
    call MPI_Barrier(MPI_COMM_WORLD)
  end subroutine

  subroutine collect(nkids)
    integer, intent(in) :: nkids
    call MPI_Comm_remote_size(ic, c)
    call check(c == nkids, 'spawn: remote size')
    if (rank == 0) then
      do c = 0, nkids - 1
        call MPI_Recv(got, 2, MPI_INTEGER, c, 7, ic, st)
        call check(got(1) == 0, 'a child found errors')
        call check(got(2) == nprocs, 'a child sees a parent group of the wrong size')
      end do
    end if
    call MPI_Comm_disconnect(ic)
  end subroutine

  subroutine child()
    integer :: nargs, csize, l1, res(2)
    character(len=16) :: a1, a2
    call MPI_Comm_size(MPI_COMM_WORLD, csize)
    nargs = command_argument_count()
    res = 0
    if (csize == 2 .and. nargs == 2) then     ! MPI_Comm_spawn's children
      call get_command_argument(1, a1, l1)
      call get_command_argument(2, a2)
      if (a1 /= 'x y' .or. l1 /= 3 .or. a2 /= 'z') res(1) = 1
    else if (nargs /= 0) then                 ! MPI_ARGVS_NULL: none
      res(1) = 1
    end if
    if (res(1) /= 0) print '(a,i0,a)', 'child: ', nargs, ' arguments'
    call MPI_Comm_remote_size(parent, res(2))
    call MPI_Send(res, 2, MPI_INTEGER, 0, 7, parent)
    call MPI_Comm_disconnect(parent)
  end subroutine
end program
