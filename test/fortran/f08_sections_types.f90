! SPDX-License-Identifier: BSD-3-Clause
! f08_sections_types.f90: `use mpi_f08` array sections that need more
! than the datatype resized to the stride (MPI 4.1 §19.1.12: the
! section's elements in array element order, as if contiguous, with
! COUNT x DATATYPE over them; v-collective displacements in units of the
! datatype's extent over those elements):
!   - derived datatypes of several elements (3 INTEGERs; 2 INTEGERs with a hole
!     of one) over strided 1-D sections and 2-D sections, blocking and
!     nonblocking, both directions;
!   - v-collectives (Gatherv, Scatterv, Allgatherv, Alltoallv and
!     Igatherv, Iscatterv) with strided sections and displacements;
!   - reductions (Allreduce, Reduce, Reduce_scatter_block) on sections;
!   - 2-D sections in Gather, Scatter, Allgather, Alltoall (COUNT per rank).
! Every result is compared with the same call made on contiguous copies.
! Run at 1 to 4 ranks; rank 0 prints "No Errors" when all checks passed.
program f08sectionstypes
  use mpi_f08
  implicit none
  integer, parameter :: n = 60
  integer :: src(n), dst(n), ref(n), tmp(n)
  integer :: m2(8, 12), r2(8, 12), c2(4 * 12)
  integer :: rank, nprocs, i, peer, from, ierr, cls, errs = 0
  integer :: cnts(4), disp(4), scnt(4), sdisp(4)
  type(MPI_Datatype) :: t3, tv
  type(MPI_Request) :: reqs(2)
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
  ! three INTEGERs, and two INTEGERs one apart (extent 3 INTEGERs with a hole)
  call MPI_Type_contiguous(3, MPI_INTEGER, t3)
  call MPI_Type_commit(t3)
  call MPI_Type_vector(2, 1, 2, MPI_INTEGER, tv)
  call MPI_Type_commit(tv)

  ! --- multi-element datatypes over a strided section, point to point
  ! 4 items of t3 = the first 12 elements of src(1:n:4) (15 there)
  call ring(t3, 4, 4, .false.)
  call ring(t3, 4, 4, .true.)
  call ring(tv, 5, 3, .false.)
  call ring(tv, 5, 3, .true.)
  call ring(t3, 1, 5, .true.)

  ! --- a 2-D section with a multi-element datatype (enumerated)
  call fill2(m2, rank)
  r2 = -1
  tmp = -1
  call MPI_Irecv(r2(2:7:5, 1:12:2), 4, t3, from, 3, comm, reqs(1))
  call MPI_Isend(m2(1:8:3, 2:12:3), 4, t3, peer, 3, comm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  c2(1:12) = reshape(m2(1:8:3, 2:12:3), [12])
  call MPI_Sendrecv(c2, 4, t3, peer, 4, tmp, 4, t3, from, 4, comm, MPI_STATUS_IGNORE)
  call check(all(reshape(r2(2:7:5, 1:12:2), [12]) == tmp(1:12)), '2-D sections with 3-INTEGER items')
  call check(count(r2 == -1) == 96 - 12, '2-D section receive left the rest alone')

  ! --- v-collectives: counts and displacements over a strided section
  ! Gatherv of t3 items into dst(2:n:3) (19 elements: 6 items fit)
  call vgather(t3, .false.)
  call vgather(t3, .true.)
  call vgather(MPI_INTEGER, .false.)
  call vgather(MPI_INTEGER, .true.)
  ! Scatterv from a strided section, blocking and nonblocking
  call vscatter(.false.)
  call vscatter(.true.)
  ! Allgatherv: each rank gives rank+1 INTEGERs from src(1:n:2)
  do i = 1, nprocs
    cnts(i) = i
    disp(i) = 2 * (i - 1) * nprocs + 1
  end do
  dst = -1
  ref = -1
  call MPI_Allgatherv(src(1:n:2), rank + 1, MPI_INTEGER, dst(3:n:2), cnts, disp - 1, MPI_INTEGER, comm)
  tmp(1:30) = src(1:n:2)
  call MPI_Allgatherv(tmp, rank + 1, MPI_INTEGER, ref, cnts, disp - 1, MPI_INTEGER, comm)
  call check(all(dst(3:n:2) == ref(1:29)) .and. all(dst(2:n:2) == -1), 'Allgatherv over sections')
  ! Alltoallv: one INTEGER to each rank, at displacement 2*i, over src(1:n:3)
  do i = 1, nprocs
    scnt(i) = 1
    sdisp(i) = 2 * (i - 1)
  end do
  dst = -1
  ref = -1
  call MPI_Alltoallv(src(1:n:3), scnt, sdisp, MPI_INTEGER, dst(1:n:2), scnt, sdisp, MPI_INTEGER, comm)
  tmp(1:20) = src(1:n:3)
  call MPI_Alltoallv(tmp, scnt, sdisp, MPI_INTEGER, ref, scnt, sdisp, MPI_INTEGER, comm)
  call check(all(dst(1:n:2) == ref(1:30)) .and. all(dst(2:n:2) == -1), 'Alltoallv over sections')

  ! --- reductions on sections (send and receive buffers share a datatype)
  dst = -1
  call MPI_Allreduce(src(1:n:3), dst(2:n:4), 15, MPI_INTEGER, MPI_SUM, comm)
  tmp(1:20) = src(1:n:3)
  call MPI_Allreduce(tmp, ref, 15, MPI_INTEGER, MPI_SUM, comm)
  call check(all(dst(2:n:4) == ref(1:15)) .and. count(dst == -1) == n - 15, 'Allreduce over sections')
  dst = -1
  call MPI_Reduce(src(n:1:-2), dst(1:n:2), 30, MPI_INTEGER, MPI_MAX, 0, comm)
  tmp(1:30) = src(n:1:-2)
  call MPI_Reduce(tmp, ref, 30, MPI_INTEGER, MPI_MAX, 0, comm)
  if (rank == 0) call check(all(dst(1:n:2) == ref(1:30)) .and. all(dst(2:n:2) == -1), 'Reduce over sections')
  dst = -1
  call MPI_Reduce_scatter_block(src(1:n:3), dst(1:n:5), 2, MPI_INTEGER, MPI_SUM, comm)
  tmp(1:20) = src(1:n:3)
  call MPI_Reduce_scatter_block(tmp, ref, 2, MPI_INTEGER, MPI_SUM, comm)
  call check(all(dst(1:6:5) == ref(1:2)) .and. count(dst == -1) == n - 2, 'Reduce_scatter_block over sections')

  ! --- 2-D sections where the count is per rank
  call fill2(m2, rank)
  r2 = -1
  ! Gather: 4 INTEGERs of each rank from a 2x2 section, into r2(2:5, 1:2*nprocs:2)
  call MPI_Gather(m2(2:3, 5:6), 4, MPI_INTEGER, r2(2:5, 1:2 * nprocs:2), 4, MPI_INTEGER, 0, comm)
  c2(1:4) = reshape(m2(2:3, 5:6), [4])
  call MPI_Gather(c2, 4, MPI_INTEGER, tmp, 4, MPI_INTEGER, 0, comm)
  if (rank == 0) then
    call check(all(reshape(r2(2:5, 1:2 * nprocs:2), [4 * nprocs]) == tmp(1:4 * nprocs)), 'Gather into a 2-D section')
    call check(count(r2 == -1) == 96 - 4 * nprocs, 'Gather left the rest alone')
  end if
  ! Allgather of 2 INTEGERs into a 2-D section of 3 rows (blocks cross columns)
  r2 = -1
  call MPI_Allgather(src(1:n:7), 2, MPI_INTEGER, r2(1:5:2, 1:nprocs), 2, MPI_INTEGER, comm)
  tmp(1:2) = src(1:8:7)
  call MPI_Allgather(tmp, 2, MPI_INTEGER, ref, 2, MPI_INTEGER, comm)
  call check(all(reshape(r2(1:5:2, 1:nprocs), [3 * nprocs]) == [ref(1:2 * nprocs), (-1, i = 1, nprocs)]), &
             'Allgather into a 2-D section')
  ! Scatter from a 2-D section at the root, 2 INTEGERs per rank
  dst = -1
  call MPI_Scatter(m2(7:8, 1:2 * nprocs:2), 2, MPI_INTEGER, dst(1:4:3), 2, MPI_INTEGER, 0, comm)
  c2(1:2 * nprocs) = reshape(m2(7:8, 1:2 * nprocs:2), [2 * nprocs])
  call MPI_Scatter(c2, 2, MPI_INTEGER, ref, 2, MPI_INTEGER, 0, comm)
  call check(dst(1) == ref(1) .and. dst(4) == ref(2) .and. count(dst == -1) == n - 2, 'Scatter from a 2-D section')
  ! Alltoall between 2-D sections, 2 INTEGERs per rank
  r2 = -1
  call MPI_Alltoall(m2(3:4, 1:nprocs), 2, MPI_INTEGER, r2(1:3:2, 2:2 * nprocs:2), 2, MPI_INTEGER, comm)
  c2(1:2 * nprocs) = reshape(m2(3:4, 1:nprocs), [2 * nprocs])
  call MPI_Alltoall(c2, 2, MPI_INTEGER, ref, 2, MPI_INTEGER, comm)
  call check(all(reshape(r2(1:3:2, 2:2 * nprocs:2), [2 * nprocs]) == ref(1:2 * nprocs)) .and. &
             count(r2 == -1) == 96 - 2 * nprocs, 'Alltoall between 2-D sections')

  ! a nonblocking gather into a 2-D section: a copy, which the request's
  ! completion copies back (f08_sections_nb.f90 has more); a negative
  ! count stays MPI_ERR_COUNT through a 2-D section
  r2 = -1
  call MPI_Igather(m2(2:3, 5:6), 4, MPI_INTEGER, r2(2:5, 1:2 * nprocs:2), 4, MPI_INTEGER, 0, comm, &
                   reqs(1), ierr)
  call check(ierr == MPI_SUCCESS, 'Igather into a 2-D section')
  if (ierr == MPI_SUCCESS) call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  c2(1:4) = reshape(m2(2:3, 5:6), [4])
  call MPI_Gather(c2, 4, MPI_INTEGER, tmp, 4, MPI_INTEGER, 0, comm)
  if (rank == 0) then
    call check(all(reshape(r2(2:5, 1:2 * nprocs:2), [4 * nprocs]) == tmp(1:4 * nprocs)) .and. &
               count(r2 == -1) == 96 - 4 * nprocs, 'Igather into a 2-D section, copied back')
  end if
  call MPI_Send(m2(1:8:3, 2:12:3), -1, t3, rank, 9, comm, ierr)
  call MPI_Error_class(ierr, cls)
  call check(ierr /= MPI_SUCCESS .and. cls == MPI_ERR_COUNT, 'a negative count through a 2-D section')
  ! a reduction's count beyond its sections (the copy would be overrun)
  call MPI_Allreduce(src(1:n:3), dst(2:n:4), 16, MPI_INTEGER, MPI_SUM, comm, ierr)
  call MPI_Error_class(ierr, cls)
  call check(ierr /= MPI_SUCCESS .and. cls == MPI_ERR_BUFFER, 'Allreduce count beyond a section')
  call MPI_Type_free(t3)
  call MPI_Type_free(tv)
  call MPI_Comm_free(comm)
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

  subroutine fill2(m, r)
    integer, intent(out) :: m(:, :)
    integer, intent(in) :: r
    integer :: p, q
    do q = 1, size(m, 2)
      do p = 1, size(m, 1)
        m(p, q) = 10000 * r + 100 * q + p
      end do
    end do
  end subroutine

  ! cnt items of dt from src(1:n:stride) to the next rank, into
  ! dst(2:n:stride); the same from and into contiguous copies
  subroutine ring(dt, cnt, stride, nb)
    type(MPI_Datatype), intent(in) :: dt
    integer, intent(in) :: cnt, stride
    logical, intent(in) :: nb
    integer :: ne, ierr
    ne = size(src(2:n:stride))
    dst = -1
    if (nb) then
      call MPI_Irecv(dst(2:n:stride), cnt, dt, from, 1, comm, reqs(1), ierr)
      call MPI_Isend(src(1:n:stride), cnt, dt, peer, 1, comm, reqs(2), ierr)
      call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
    else
      call MPI_Sendrecv(src(1:n:stride), cnt, dt, peer, 1, dst(2:n:stride), cnt, dt, from, 1, comm, &
                        MPI_STATUS_IGNORE, ierr)
    end if
    call check(ierr == MPI_SUCCESS, 'ring over sections returned MPI_SUCCESS')
    tmp = -1
    ref = -1
    tmp(1:size(src(1:n:stride))) = src(1:n:stride)
    call MPI_Sendrecv(tmp, cnt, dt, peer, 2, ref, cnt, dt, from, 2, comm, MPI_STATUS_IGNORE)
    call check(all(dst(2:n:stride) == ref(1:ne)), 'derived datatype over a strided section')
    call check(count(dst == -1) == n - count(ref(1:ne) /= -1), 'section receive left the rest alone')
  end subroutine

  subroutine vgather(dt, nb)
    type(MPI_Datatype), intent(in) :: dt
    logical, intent(in) :: nb
    integer :: ierr, mine, k
    ! INTEGER: rank r gives r+1 items at 5r (dst(2:n:3) has 20 elements);
    ! 3 INTEGERs: one item each at 0, 2, 3, 5 (6 items fit): blocks with gaps
    integer, parameter :: d3(4) = [0, 2, 3, 5]
    k = 1
    if (dt /= MPI_INTEGER) k = 3
    do i = 1, nprocs
      if (k == 1) then
        cnts(i) = i
        disp(i) = 5 * (i - 1)
      else
        cnts(i) = 1
        disp(i) = d3(i)
      end if
    end do
    mine = cnts(rank + 1)
    dst = -1
    if (nb) then
      call MPI_Igatherv(src(1:n:2), mine, dt, dst(2:n:3), cnts, disp, dt, 0, comm, reqs(1), ierr)
      call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
    else
      call MPI_Gatherv(src(1:n:2), mine, dt, dst(2:n:3), cnts, disp, dt, 0, comm, ierr)
    end if
    call check(ierr == MPI_SUCCESS, 'Gatherv over sections returned MPI_SUCCESS')
    tmp(1:30) = src(1:n:2)
    ref = -1
    call MPI_Gatherv(tmp, mine, dt, ref, cnts, disp, dt, 0, comm)
    if (rank == 0) then
      call check(all(dst(2:n:3) == ref(1:20)), 'Gatherv into a strided section (displs over its elements)')
      call check(all(dst(1:n:3) == -1) .and. all(dst(3:n:3) == -1), 'Gatherv left the rest alone')
    end if
  end subroutine

  subroutine vscatter(nb)
    logical, intent(in) :: nb
    integer :: ierr
    do i = 1, nprocs
      cnts(i) = i
      disp(i) = 3 * (i - 1)
    end do
    dst = -1
    if (nb) then
      call MPI_Iscatterv(src(2:n:3), cnts, disp, MPI_INTEGER, dst(1:n:4), rank + 1, MPI_INTEGER, 0, comm, &
                         reqs(1), ierr)
      if (ierr == MPI_SUCCESS) call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
    else
      call MPI_Scatterv(src(1:n:3), cnts, disp, MPI_INTEGER, dst(1:n:4), rank + 1, MPI_INTEGER, 0, comm, ierr)
    end if
    call check(ierr == MPI_SUCCESS, 'Scatterv over sections returned MPI_SUCCESS')
    if (nb) then
      tmp(1:20) = src(2:n:3)
    else
      tmp(1:20) = src(1:n:3)
    end if
    ref = -1
    call MPI_Scatterv(tmp, cnts, disp, MPI_INTEGER, ref, rank + 1, MPI_INTEGER, 0, comm)
    call check(all(dst(1:n:4) == ref(1:15)) .and. count(dst == -1) == n - rank - 1, &
               'Scatterv between sections')
  end subroutine
end program
