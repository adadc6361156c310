! SPDX-License-Identifier: BSD-3-Clause
! f90_io.f90: MPI-IO and generalized requests with `use mpi`
! (INTEGER file handles).  Each rank writes a strided row of a Fortran array
! through a derived type (write_at), reads it back (read_at), then all
! write interleaved through a file view (set_view with a resized
! filetype, write_at_all); rank 0 reads the whole file back.  Also
! get_view, get_size, get_amode, atomicity (LOGICAL), error codes (a
! missing file), close (the handle becomes MPI_FILE_NULL), delete, and
! MPI_Grequest_start with Fortran query/free/cancel callbacks.
! Rank 0 prints "No Errors" when all checks passed.
module f90io_cb
  use mpi, only: MPI_STATUS_SIZE, MPI_ADDRESS_KIND, MPI_SOURCE, MPI_TAG, MPI_ERROR
  implicit none
  integer :: nfree = 0
contains
  subroutine query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: status(MPI_STATUS_SIZE)
    integer :: ierror
    status(MPI_SOURCE) = int(extra_state)
    status(MPI_TAG) = 77
    status(MPI_ERROR) = 0
    ierror = 0
  end subroutine
  subroutine gfree(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    if (extra_state > 0) nfree = nfree + 1
    ierror = 0
  end subroutine
  subroutine gcancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    if (extra_state < 0 .or. complete) ierror = 0
    ierror = 0
  end subroutine
end module

program f90io
  use mpi
  use f90io_cb
  implicit none
  integer, parameter :: n = 4
  integer :: a(10, n), b(n), rank, nprocs, i, r, ierr, amode, cls, pid
  integer, allocatable :: whole(:)
  integer :: errs = 0
  integer :: fh, fh2, row, ftype, etype, ft2, st(MPI_STATUS_SIZE), greq
  integer(kind=MPI_OFFSET_KIND) :: disp, fsize
  integer(kind=MPI_ADDRESS_KIND) :: extra
  character(len=MPI_MAX_DATAREP_STRING) :: rep
  character(len=64) :: fname
  logical :: atom

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  write (fname, '(a,i0,a)') '/tmp/lc_f90_io_', pid, '.dat'
  do i = 1, n
    do r = 1, 10
      a(r, i) = 1000 * rank + 10 * i + r
    end do
  end do

  ! a missing file: an error code, not an abort (files return errors)
  call MPI_File_open(MPI_COMM_WORLD, trim(fname) // '.missing', MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  call MPI_Error_class(ierr, cls, i)
  call check(ierr /= MPI_SUCCESS .and. cls == MPI_ERR_NO_SUCH_FILE, 'open of a missing file')

  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS .and. fh /= MPI_FILE_NULL, 'open')
  call MPI_File_get_amode(fh, amode, ierr)
  call check(amode == MPI_MODE_CREATE + MPI_MODE_RDWR, 'get_amode')
  call MPI_File_set_atomicity(fh, .true., ierr)
  call MPI_File_get_atomicity(fh, atom, ierr)
  call check(atom, 'atomicity')
  call MPI_File_set_atomicity(fh, .false., ierr)

  ! row 3 of a (stride 10) through a vector type, at this rank's block
  call MPI_Type_vector(n, 1, 10, MPI_INTEGER, row, ierr)
  call MPI_Type_commit(row, ierr)
  disp = rank * n * 4
  call MPI_File_write_at(fh, disp, a(3, 1), 1, row, st, ierr)
  call check(ierr == MPI_SUCCESS, 'write_at')
  call MPI_Get_count(st, MPI_INTEGER, i, ierr)
  call check(i == n, 'write_at count')
  b = -1
  call MPI_File_read_at(fh, disp, b, n, MPI_INTEGER, st, ierr)
  call check(all(b == a(3, :)), 'read_at back')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! interleaved: element i of rank r at integer (i-1)*nprocs + r
  call MPI_Type_create_resized(MPI_INTEGER, 0_MPI_ADDRESS_KIND, int(nprocs * 4, MPI_ADDRESS_KIND), ftype, ierr)
  call MPI_Type_commit(ftype, ierr)
  disp = rank * 4
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ftype, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_get_view(fh, disp, etype, ft2, rep, ierr)
  call check(disp == rank * 4 .and. etype == MPI_INTEGER .and. rep == 'native', 'get_view')
  if (ft2 /= ftype) call MPI_Type_free(ft2, ierr)
  call MPI_File_write_at_all(fh, 0_MPI_OFFSET_KIND, a(5, :), n, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == nprocs * n * 4, 'get_size')
  if (rank == 0) then
    allocate (whole(nprocs * n))
    call MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_RDONLY, MPI_INFO_NULL, fh2, ierr)
    call MPI_File_read_at(fh2, 0_MPI_OFFSET_KIND, whole, nprocs * n, MPI_INTEGER, st, ierr)
    do r = 0, nprocs - 1
      do i = 1, n
        call check(whole((i - 1) * nprocs + r + 1) == 1000 * r + 10 * i + 5, 'interleaved file')
      end do
    end do
    call MPI_File_close(fh2, ierr)
    deallocate (whole)
  end if
  call MPI_File_close(fh, ierr)
  call check(ierr == MPI_SUCCESS .and. fh == MPI_FILE_NULL, 'close')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_File_delete(fname, MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'delete')
  end if
  call MPI_Type_free(row, ierr)
  call MPI_Type_free(ftype, ierr)

  ! a generalized request with Fortran callbacks
  extra = 40 + rank
  call MPI_Grequest_start(query, gfree, gcancel, extra, greq, ierr)
  call MPI_Grequest_complete(greq, ierr)
  call MPI_Wait(greq, st, ierr)
  call check(st(MPI_SOURCE) == 40 + rank .and. st(MPI_TAG) == 77, 'grequest query status')
  call check(nfree == 1 .and. greq == MPI_REQUEST_NULL, 'grequest free')

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errs = errs + 1
      write (0, '(a,i0,a,a)') 'FAIL rank ', rank, ': ', what
    end if
  end subroutine
end program
