! SPDX-License-Identifier: BSD-3-Clause
! f08_sections.f90: `use mpi_f08` with array sections as choice buffers,
! the case MPICH's mpi_f08 passes as a C descriptor (mpi_send_f08ts_ ...):
! blocking and nonblocking point-to-point on strided sections (both
! directions), a section of a 2-D array, a collective on a section
! (MPI_Bcast), contiguous collectives, communicators (dup, split,
! comparison), status fields, and error codes (MPI_ERRORS_RETURN, a bad
! rank, a count beyond a section's elements).  Built with Locus's mpifort
! and with MPICH's mpifort.mpich (run on Locus by LD_LIBRARY_PATH, test
! fortran.mpich_binary.f08_sections).
! Rank 0 prints "No Errors" when all checks passed.
program f08sections
  use mpi_f08
  implicit none
  integer :: a(10, 4), b(10, 4), v(20), w(20), rank, nprocs, i, j, k, ierr, cls, cnt, peer
  integer :: errs = 0, sums(4)
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: dup, half
  logical :: ok

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  do j = 1, 4
    do i = 1, 10
      a(i, j) = 100 * rank + 10 * j + i
    end do
  end do

  ! ring: send every other element of column 2, receive into row 3
  peer = mod(rank + 1, nprocs)
  b = -1
  call MPI_Irecv(b(3, :), 4, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a(1:8:2, 2), 4, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  k = mod(rank + nprocs - 1, nprocs)
  do j = 1, 4
    call check(b(3, j) == 100 * k + 20 + 2 * j - 1, 'isend/irecv of sections')
  end do
  call check(all(b(1:2, :) == -1) .and. all(b(4:, :) == -1), 'irecv section left the rest alone')

  ! blocking: a 2-D section (rows 2..6 by 2, columns 1..4 by 3)
  b = -1
  if (rank == 0 .and. nprocs > 1) then
    call MPI_Send(a(2:6:2, 1:4:3), 6, MPI_INTEGER, 1, 6, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Recv(b(2:6:2, 1:4:3), 6, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call check(cnt == 6 .and. st%MPI_SOURCE == 0 .and. st%MPI_TAG == 6, 'status of a section recv')
    do j = 1, 4, 3
      do i = 2, 6, 2
        call check(b(i, j) == 10 * j + i, '2-D section')
      end do
    end do
    call check(b(3, 1) == -1 .and. b(2, 2) == -1, '2-D section left the rest alone')
  end if

  ! a count smaller than the section: the first elements in array order
  if (rank == 0 .and. nprocs > 1) then
    call MPI_Send(a(1, 1:4:2), 1, MPI_INTEGER, 1, 7, MPI_COMM_WORLD)
  else if (rank == 1) then
    v = -1
    call MPI_Recv(v(1:5:2), 2, MPI_INTEGER, 0, 7, MPI_COMM_WORLD, st)
    call MPI_Get_count(st, MPI_INTEGER, cnt)
    call check(cnt == 1 .and. v(1) == 11 .and. v(2) == -1 .and. v(3) == -1, 'short count on a section')
  end if

  ! collective on a section; contiguous collectives
  v = 0
  if (rank == 0) v = [(i, i = 1, 20)]
  call MPI_Bcast(v(2:20:3), 7, MPI_INTEGER, 0, MPI_COMM_WORLD)
  do i = 2, 20, 3
    call check(v(i) == i, 'bcast of a section')
  end do
  if (rank /= 0) call check(v(1) == 0 .and. v(3) == 0, 'bcast section left the rest alone')
  sums = a(1, :)
  call MPI_Allreduce(MPI_IN_PLACE, sums, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS, 'allreduce ierror')
  do j = 1, 4
    call check(sums(j) == 100 * nprocs * (nprocs - 1) / 2 + nprocs * (10 * j + 1), 'allreduce')
  end do
  w = -1
  call MPI_Allgather(rank, 1, MPI_INTEGER, w, 1, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(w(1:nprocs) == [(i, i = 0, nprocs - 1)]), 'allgather')

  ! communicators
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(dup /= MPI_COMM_WORLD .and. dup /= MPI_COMM_NULL, 'dup is a new communicator')
  call MPI_Comm_split(dup, mod(rank, 2), -rank, half)
  call MPI_Comm_rank(half, k)
  call MPI_Comm_size(half, cnt)
  call check(k == cnt - 1 - rank / 2, 'split with reversed keys')
  call MPI_Barrier(half)
  call MPI_Comm_free(half)
  call check(half == MPI_COMM_NULL, 'free gives MPI_COMM_NULL')

  ! error codes
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN)
  call MPI_Send(v, 1, MPI_INTEGER, nprocs + 5, 0, dup, ierr)
  call MPI_Error_class(ierr, cls)
  call check(ierr /= MPI_SUCCESS .and. cls == MPI_ERR_RANK, 'bad rank gives MPI_ERR_RANK')
  ! a count beyond the elements of a strided section (5 here)
  w = 0
  call MPI_Send(w(1:10:2), 6, MPI_INTEGER, rank, 0, dup, ierr)
  call MPI_Error_class(ierr, cls)
  call check(ierr /= MPI_SUCCESS .and. cls == MPI_ERR_BUFFER, 'count beyond a section gives MPI_ERR_BUFFER')
  call MPI_Initialized(ok)
  call check(ok, 'initialized')
  call MPI_Comm_free(dup)

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      errs = errs + 1
      write (0, '(a,i0,a,a)') 'FAIL rank ', rank, ': ', what
    end if
  end subroutine
end program
