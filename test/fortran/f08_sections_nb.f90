! SPDX-License-Identifier: BSD-3-Clause
! f08_sections_nb.f90: `use mpi_f08` array sections that only a contiguous
! copy can carry (MPI 4.1 §19.1.12, MPI_SUBARRAYS_SUPPORTED), given to
! nonblocking and persistent calls: the copy is tied to the request,
! copied back into the section when the operation completes (whichever
! call completes it: Wait, Test, Waitall, Waitany, Waitsome, Testall, a
! completion after Request_free, Cancel + Wait) and, for a persistent
! request, copied in again at every MPI_Start.  Each case compares the
! section with the same call made on contiguous arrays and checks that
! the elements outside it are untouched.
!   - reductions (a send and a receive buffer sharing one datatype):
!     Iallreduce, Ireduce, Iscan, Ireduce_scatter_block, Allreduce_init;
!   - 2-D sections where the count is per rank: Iscatter, Iallgather;
!   - point-to-point with MPI_INTEGER8 over INTEGER sections (an item
!     straddles two elements: no datatype can describe it): Send_init /
!     Recv_init started twice, Irecv + Cancel, Irecv + Request_free.
! Run at 2 and 4 ranks; rank 0 prints "No Errors" when all checks passed.
program f08sectionsnb
  use mpi_f08
  implicit none
  integer, parameter :: n = 40
  integer :: src(n), dst(n), ref(n), tmp(n), keep(n)
  integer :: m2(8, 12), r2(8, 12), c2(4 * 12)
  integer :: rank, nprocs, i, k, peer, from, ierr, idx, outc, errs = 0
  integer :: outs(4)
  logical :: flag
  type(MPI_Request) :: reqs(4), preq(2)
  type(MPI_Status) :: st
  type(MPI_Comm) :: comm

  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, nprocs)
  peer = mod(rank + 1, nprocs)
  from = mod(rank + nprocs - 1, nprocs)
  do i = 1, n
    src(i) = 1000 * rank + i
  end do
  keep = src
  ! each case starts from null handles: where a call is refused (main
  ! before the copies were tied), the waits complete nothing and every
  ! later case still reports for itself

  reqs = MPI_REQUEST_NULL
  preq = MPI_REQUEST_NULL
  ! --- Iallreduce(x(1:n:2), y(2:n:4)): completed by MPI_Wait
  dst = -1
  call MPI_Iallreduce(src(1:n:2), dst(2:n:4), 10, MPI_INTEGER, MPI_SUM, comm, reqs(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Iallreduce over sections starts')
  if (ierr == MPI_SUCCESS) call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  tmp(1:20) = src(1:n:2)
  call MPI_Allreduce(tmp, ref, 10, MPI_INTEGER, MPI_SUM, comm)
  call check(all(dst(2:n:4) == ref(1:10)) .and. count(dst == -1) == n - 10, 'Iallreduce over sections')
  call check(all(src == keep), 'Iallreduce left its send section alone')

  reqs = MPI_REQUEST_NULL
  preq = MPI_REQUEST_NULL
  ! --- Ireduce(reversed section, strided section): completed by MPI_Test
  dst = -1
  call MPI_Ireduce(src(n:1:-2), dst(1:n:2), 20, MPI_INTEGER, MPI_MAX, 0, comm, reqs(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Ireduce over sections starts')
  flag = ierr /= MPI_SUCCESS
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, MPI_STATUS_IGNORE)
  end do
  tmp(1:20) = src(n:1:-2)
  call MPI_Reduce(tmp, ref, 20, MPI_INTEGER, MPI_MAX, 0, comm)
  if (rank == 0) then
    call check(all(dst(1:n:2) == ref(1:20)) .and. all(dst(2:n:2) == -1), 'Ireduce over sections')
  else
    call check(all(dst == -1), 'Ireduce left a non-root receive section alone')
  end if

  reqs = MPI_REQUEST_NULL
  preq = MPI_REQUEST_NULL
  ! --- Iscan and Ireduce_scatter_block: completed by MPI_Waitall
  dst = -1
  r2 = -1
  call MPI_Iscan(src(1:n:3), dst(1:n:3), 13, MPI_INTEGER, MPI_SUM, comm, reqs(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Iscan over sections starts')
  call MPI_Ireduce_scatter_block(src(2:n:3), r2(1:8:4, :), 2, MPI_INTEGER, MPI_SUM, comm, reqs(2), ierr)
  call check(ierr == MPI_SUCCESS, 'Ireduce_scatter_block over sections starts')
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  tmp(1:14) = src(1:n:3)
  call MPI_Scan(tmp, ref, 13, MPI_INTEGER, MPI_SUM, comm)
  call check(all(dst(1:37:3) == ref(1:13)) .and. count(dst == -1) == n - 13, 'Iscan over sections')
  tmp(1:13) = src(2:n:3)
  call MPI_Reduce_scatter_block(tmp, ref, 2, MPI_INTEGER, MPI_SUM, comm)
  call check(r2(1, 1) == ref(1) .and. r2(5, 1) == ref(2) .and. count(r2 == -1) == 96 - 2, &
             'Ireduce_scatter_block into a 2-D section')

  reqs = MPI_REQUEST_NULL
  preq = MPI_REQUEST_NULL
  ! --- 2-D sections with a count per rank: Iscatter (a copy read only)
  ! and Iallgather (a copy written): completed by MPI_Waitany, MPI_Waitsome
  call fill2(m2, rank)
  dst = -1
  r2 = -1
  call MPI_Iscatter(m2(7:8, 1:2 * nprocs:2), 2, MPI_INTEGER, dst(1:4:3), 2, MPI_INTEGER, 0, comm, reqs(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Iscatter from a 2-D section starts')
  call MPI_Iallgather(src(1:n:7), 2, MPI_INTEGER, r2(1:5:2, 1:nprocs), 2, MPI_INTEGER, comm, reqs(2), ierr)
  call check(ierr == MPI_SUCCESS, 'Iallgather into a 2-D section starts')
  call MPI_Waitany(2, reqs, idx, st)
  k = 1
  do while (k < 2)
    call MPI_Waitsome(2, reqs, outc, outs, MPI_STATUSES_IGNORE)
    if (outc == MPI_UNDEFINED) exit
    k = k + outc
  end do
  c2(1:2 * nprocs) = reshape(m2(7:8, 1:2 * nprocs:2), [2 * nprocs])
  call MPI_Scatter(c2, 2, MPI_INTEGER, ref, 2, MPI_INTEGER, 0, comm)
  call check(dst(1) == ref(1) .and. dst(4) == ref(2) .and. count(dst == -1) == n - 2, 'Iscatter from a 2-D section')
  tmp(1:2) = src(1:8:7)
  call MPI_Allgather(tmp, 2, MPI_INTEGER, ref, 2, MPI_INTEGER, comm)
  call check(all(reshape(r2(1:5:2, 1:nprocs), [3 * nprocs]) == [ref(1:2 * nprocs), (-1, i = 1, nprocs)]) .and. &
             count(r2 == -1) == 96 - 2 * nprocs, 'Iallgather into a 2-D section')

  reqs = MPI_REQUEST_NULL
  preq = MPI_REQUEST_NULL
  ! --- persistent: MPI_Allreduce_init on sections, started twice (the
  ! copy is made at each MPI_Start: the second round sees new data)
  dst = -1
  call MPI_Allreduce_init(src(1:n:2), dst(2:n:4), 10, MPI_INTEGER, MPI_SUM, comm, MPI_INFO_NULL, preq(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Allreduce_init over sections')
  if (ierr == MPI_SUCCESS) then
    do k = 1, 2
      src(1:n:2) = src(1:n:2) + k
      call MPI_Start(preq(1))
      call MPI_Wait(preq(1), MPI_STATUS_IGNORE)
      tmp(1:20) = src(1:n:2)
      call MPI_Allreduce(tmp, ref, 10, MPI_INTEGER, MPI_SUM, comm)
      call check(all(dst(2:n:4) == ref(1:10)) .and. count(dst == -1) == n - 10, 'Allreduce_init round')
      dst(2:n:4) = -2
    end do
    call MPI_Request_free(preq(1))
    call check(all(dst(2:n:4) == -2) .and. count(dst == -1) == n - 10, 'Request_free left the section alone')
  end if
  src = keep

  reqs = MPI_REQUEST_NULL
  preq = MPI_REQUEST_NULL
  ! --- Send_init / Recv_init: MPI_INTEGER8 over INTEGER sections (5 items
  ! of 2 elements each), a ring, started twice, completed by MPI_Testall
  dst = -1
  call MPI_Recv_init(dst(2:20:2), 5, MPI_INTEGER8, from, 3, comm, preq(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Recv_init of INTEGER8 over an INTEGER section')
  call MPI_Send_init(src(1:n:4), 5, MPI_INTEGER8, peer, 3, comm, preq(2), ierr)
  call check(ierr == MPI_SUCCESS, 'Send_init of INTEGER8 over an INTEGER section')
  if (all(preq /= MPI_REQUEST_NULL)) then
    do k = 1, 2
      src(1:n:4) = keep(1:n:4) + 100000 * k
      call MPI_Startall(2, preq)
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(2, preq, flag, MPI_STATUSES_IGNORE)
      end do
      call check(all(dst(2:20:2) == [(1000 * from + 4 * i - 3 + 100000 * k, i = 1, 10)]) .and. &
                 count(dst == -1) == n - 10, 'Send_init/Recv_init round')
    end do
    call MPI_Request_free(preq(1))
    call MPI_Request_free(preq(2))
  end if
  src = keep

  reqs = MPI_REQUEST_NULL
  preq = MPI_REQUEST_NULL
  ! --- Irecv on such a section, cancelled: the section as it was
  dst = -1
  dst(3:n:3) = 7
  call MPI_Irecv(dst(3:n:3), 4, MPI_INTEGER8, rank, 99, comm, reqs(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Irecv of INTEGER8 over an INTEGER section')
  if (ierr == MPI_SUCCESS) then
    call MPI_Cancel(reqs(1))
    call MPI_Wait(reqs(1), st)
    call MPI_Test_cancelled(st, flag)
    call check(flag, 'the Irecv was cancelled')
    call check(count(dst == 7) == 13 .and. count(dst == -1) == n - 13, 'a cancelled Irecv left the section alone')
  end if

  reqs = MPI_REQUEST_NULL
  preq = MPI_REQUEST_NULL
  ! --- Irecv on such a section, freed while active: copied back when it
  ! completes (the next message from the same rank comes after it)
  dst = -1
  call MPI_Irecv(dst(1:16:2), 4, MPI_INTEGER8, from, 4, comm, reqs(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Irecv to free')
  if (ierr == MPI_SUCCESS) call MPI_Request_free(reqs(1))
  call MPI_Send(src(1:8), 4, MPI_INTEGER8, peer, 4, comm)
  call MPI_Send(src(1:1), 1, MPI_INTEGER, peer, 5, comm)
  call MPI_Recv(tmp(1:1), 1, MPI_INTEGER, from, 5, comm, MPI_STATUS_IGNORE)
  call check(all(dst(1:16:2) == [(1000 * from + i, i = 1, 8)]) .and. count(dst == -1) == n - 8, &
             'a freed Irecv copied back at its completion')

  call MPI_Comm_free(comm)
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. errs == 0) print '(a)', 'No Errors'
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

  subroutine fill2(m, r)
    integer, intent(out) :: m(:, :)
    integer, intent(in) :: r
    integer :: i, j
    do j = 1, size(m, 2)
      do i = 1, size(m, 1)
        m(i, j) = 10000 * r + 100 * j + i
      end do
    end do
  end subroutine
end program
