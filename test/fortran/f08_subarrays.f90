! SPDX-License-Identifier: BSD-3-Clause
! f08_subarrays.f90: MPI_SUBARRAYS_SUPPORTED in `use mpi_f08` (MPI 4.1
! §19.1.12): array sections as choice buffers, with no copy by the
! compiler -- a nonblocking receive into a strided section completed by
! MPI_Wait in another procedure, after the section's array was written
! around it; blocking send/receive of sections of 1-D and 2-D arrays
! (REAL(8), INTEGER, COMPLEX, a section with a negative stride); a
! collective (MPI_Gather into a section, MPI_Bcast from one); persistent
! requests on sections; MPI_IN_PLACE and MPI_BOTTOM; a contiguous array
! still passed as it is.  Element by element (the values are whole
! numbers, compared with NINT).  3 ranks; rank 0 prints
! "No Errors".
program f08subarrays
  use mpi_f08
  implicit none
  integer :: rank, nprocs, i, j, errs, peer, prev
  integer, asynchronous :: iv(12)
  integer :: g(3, 6), cell
  real(8), asynchronous :: dv(20)
  real(8) :: dm(6, 5)
  complex :: zv(8)
  type(MPI_Request) :: req
  type(MPI_Status) :: st
  integer(kind=MPI_ADDRESS_KIND) :: addr
  type(MPI_Datatype) :: abs_t

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call check(MPI_SUBARRAYS_SUPPORTED, 'MPI_SUBARRAYS_SUPPORTED')
  call check(MPI_ASYNC_PROTECTS_NONBLOCKING, 'MPI_ASYNC_PROTECTS_NONBLOCKING')
  peer = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)

  ! nonblocking receive into dv(2:20:3) (7 elements), waited elsewhere;
  ! the elements between are written meanwhile and must stay as written
  dv = -1d0
  call MPI_Irecv(dv(2:20:3), 7, MPI_DOUBLE_PRECISION, prev, 1, MPI_COMM_WORLD, req)
  do i = 1, 20
    if (mod(i - 2, 3) /= 0) dv(i) = 1000d0 + i
  end do
  call MPI_Send([(100d0 * rank + i, i = 1, 7)], 7, MPI_DOUBLE_PRECISION, peer, 1, MPI_COMM_WORLD)
  call wait_elsewhere(req, st)
  do i = 1, 20
    if (mod(i - 2, 3) == 0) then
      call check(nint(dv(i)) == 100 * prev + (i - 2) / 3 + 1, 'irecv into dv(2:20:3)')
    else
      call check(nint(dv(i)) == 1000 + i, 'irecv left the other elements alone')
    end if
  end do
  call check(st%MPI_SOURCE == prev .and. st%MPI_TAG == 1, 'irecv status')

  ! blocking: a row of a 2-D array to a column section with a negative stride
  dm = reshape([(dble(i + 10 * rank), i = 1, 30)], [6, 5])
  iv = -1
  call MPI_Sendrecv(dm(4, :), 5, MPI_DOUBLE_PRECISION, peer, 2, &
                    dv(10:2:-2), 5, MPI_DOUBLE_PRECISION, prev, 2, MPI_COMM_WORLD, st)
  do j = 1, 5
    call check(nint(dv(10 - 2 * (j - 1))) == 4 + 6 * (j - 1) + 10 * prev, 'row to a reversed section')
  end do
  ! COMPLEX (an element of 8 bytes) by MPI_COMPLEX, every other one
  zv = (0.0, 0.0)
  if (rank == 0) then
    call MPI_Send([(cmplx(1.0 * i, -1.0 * i), i = 1, 8)], 4, MPI_COMPLEX, 1, 3, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Recv(zv(1:8:2), 4, MPI_COMPLEX, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    do i = 1, 8
      if (mod(i, 2) == 1) then
        call check(nint(real(zv(i))) == (i + 1) / 2 .and. nint(aimag(zv(i))) == -((i + 1) / 2), &
                   'complex section')
      else
        call check(nint(real(zv(i))) == 0 .and. nint(aimag(zv(i))) == 0, 'complex section left the rest alone')
      end if
    end do
  end if

  ! a collective: gather one INTEGER per rank into row 2 of g, then bcast
  ! row 2 from rank 0 into column 5 of everyone's g
  g = -1
  call MPI_Gather(10 + rank, 1, MPI_INTEGER, g(2, :), 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0) then
    do j = 1, 6
      if (j <= nprocs) then
        call check(g(2, j) == 10 + j - 1, 'gather into g(2, :)')
      else
        call check(g(2, j) == -1, 'gather left the rest of g(2, :) alone')
      end if
    end do
    g(2, :) = [(50 + j, j = 1, 6)]
  end if
  call MPI_Bcast(g(2, 1:6:2), 3, MPI_INTEGER, 0, MPI_COMM_WORLD)
  do j = 1, 6
    if (mod(j, 2) == 1) then
      call check(g(2, j) == 50 + j, 'bcast of g(2, 1:6:2)')
    else if (rank /= 0) then
      call check(g(2, j) == -1, 'bcast left g(2, 2:6:2) alone')
    end if
  end do
  call check(all(g(1, :) == -1) .and. all(g(3, :) == -1), 'collectives left the other rows alone')

  ! persistent: the section is described when the request is made
  iv = -1
  call MPI_Recv_init(iv(12:1:-4), 3, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, req)
  call MPI_Start(req)
  call MPI_Send([7 + rank, 8 + rank, 9 + rank], 3, MPI_INTEGER, peer, 4, MPI_COMM_WORLD)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Request_free(req)
  call check(iv(12) == 7 + prev .and. iv(8) == 8 + prev .and. iv(4) == 9 + prev, 'recv_init on iv(12:1:-4)')
  call check(count(iv == -1) == 9, 'recv_init left the rest alone')

  ! MPI_IN_PLACE and MPI_BOTTOM still work
  i = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(i == nprocs * (nprocs + 1) / 2, 'allreduce in place')
  cell = -1
  call MPI_Get_address(cell, addr)
  call MPI_Type_create_hindexed_block(1, 1, [addr], MPI_INTEGER, abs_t)
  call MPI_Type_commit(abs_t)
  call MPI_Sendrecv([300 + rank], 1, MPI_INTEGER, peer, 5, MPI_BOTTOM, 1, abs_t, prev, 5, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Type_free(abs_t)
  ! (MPI wrote cell behind the compiler's back: MPI 4.1 §19.1.17)
  call MPI_F_sync_reg(cell)
  call check(cell == 300 + prev, 'receive at MPI_BOTTOM')

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize()

contains
  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      errs = errs + 1
      if (errs < 10) print '(a, i0, 2a)', 'rank ', rank, ': wrong: ', what
    end if
  end subroutine
end program f08subarrays

! the wait in a procedure that does not see the buffer (no copy-out can
! happen here: had the compiler copied the section in for the MPI_Irecv,
! the data would land in a temporary freed long before)
subroutine wait_elsewhere(req, st)
  use mpi_f08
  implicit none
  type(MPI_Request) :: req
  type(MPI_Status) :: st
  call MPI_Wait(req, st)
end subroutine wait_elsewhere
