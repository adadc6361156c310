! SPDX-License-Identifier: BSD-3-Clause
! f08_profile.f90: the profiling interface of `use mpi_f08` (MPI 4.1
! §19.1.5, §15.2): a tool replaces mpi_f08's specific procedures under
! their standard names -- here MPI_Send_f08ts, MPI_Recv_f08ts (choice
! buffers) and MPI_Barrier_f08 (none) -- counts the calls, and calls the
! PMPI_ forms.  The program calls the generic names (MPI_Send, ...) as
! any program does, with and without ierror, a contiguous array, an
! array section and MPI_BOTTOM with an absolute datatype; the counts
! prove the tool's procedures ran, the data that PMPI_ did the work.
! 2 ranks; rank 0 prints "No Errors".
module f08_profile_counts
  implicit none
  integer :: sends = 0, send_elems = 0, recvs = 0, barriers = 0
end module f08_profile_counts

program f08profile
  use mpi_f08
  use f08_profile_counts
  implicit none
  integer :: rank, nprocs, ierr, errs, i, x(8), y(8), cell
  integer(kind=MPI_ADDRESS_KIND) :: addr
  type(MPI_Datatype) :: abs_t
  type(MPI_Status) :: st

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  x = [(10 * rank + i, i = 1, 8)]
  y = -1
  if (rank == 0) then
    call MPI_Send(x, 3, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierr)
    call MPI_Send(x(2:8:3), 3, MPI_INTEGER, 1, 2, MPI_COMM_WORLD)
    cell = 77
    call MPI_Get_address(cell, addr)
    call MPI_Type_create_hindexed_block(1, 1, [addr], MPI_INTEGER, abs_t)
    call MPI_Type_commit(abs_t)
    call MPI_F_sync_reg(cell)  ! (MPI reads cell behind the compiler's back)
    call MPI_Send(MPI_BOTTOM, 1, abs_t, 1, 3, MPI_COMM_WORLD)
    call MPI_Type_free(abs_t)
    if (sends /= 3 .or. send_elems /= 7 .or. recvs /= 0) then
      errs = errs + 1
      print *, 'rank 0: the tool saw sends', sends, 'elements', send_elems, 'receives', recvs
    end if
  else if (rank == 1) then
    call MPI_Recv(y, 3, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, st, ierr)
    if (any(y(1:3) /= [1, 2, 3]) .or. st%MPI_TAG /= 1 .or. ierr /= MPI_SUCCESS) then
      errs = errs + 1
      print *, 'rank 1: first message', y(1:3), st%MPI_TAG, ierr
    end if
    y = -1
    call MPI_Recv(y(1:6:2), 3, MPI_INTEGER, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (any(y /= [2, -1, 5, -1, 8, -1, -1, -1])) then
      errs = errs + 1
      print *, 'rank 1: sections', y
    end if
    call MPI_Recv(cell, 1, MPI_INTEGER, 0, 3, MPI_COMM_WORLD, st)
    if (cell /= 77) then
      errs = errs + 1
      print *, 'rank 1: MPI_BOTTOM message', cell
    end if
    if (recvs /= 3 .or. sends /= 0) then
      errs = errs + 1
      print *, 'rank 1: the tool saw receives', recvs, 'sends', sends
    end if
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (barriers /= 2) then
    errs = errs + 1
    print *, 'rank', rank, ': the tool saw barriers', barriers
  end if
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
end program f08profile

! The tool: mpi_f08's specific procedures, replaced (the renames keep
! the module's interface of the same name out of the way).
subroutine MPI_Send_f08ts(buf, count, datatype, dest, tag, comm, ierror)
  use :: mpi_f08, lc_unused => MPI_Send_f08ts
  use f08_profile_counts
  implicit none
  type(*), dimension(..), intent(in) :: buf
  integer, intent(in) :: count, dest, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  sends = sends + 1
  send_elems = send_elems + count
  call PMPI_Send(buf, count, datatype, dest, tag, comm, ierror)
end subroutine MPI_Send_f08ts

subroutine MPI_Recv_f08ts(buf, count, datatype, source, tag, comm, status, ierror)
  use :: mpi_f08, lc_unused => MPI_Recv_f08ts
  use f08_profile_counts
  implicit none
  type(*), dimension(..) :: buf
  integer, intent(in) :: count, source, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  type(MPI_Status) :: status
  integer, optional, intent(out) :: ierror
  recvs = recvs + 1
  call PMPI_Recv(buf, count, datatype, source, tag, comm, status, ierror)
end subroutine MPI_Recv_f08ts

subroutine MPI_Barrier_f08(comm, ierror)
  use :: mpi_f08, lc_unused => MPI_Barrier_f08
  use f08_profile_counts
  implicit none
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  barriers = barriers + 1
  call PMPI_Barrier(comm, ierror)
end subroutine MPI_Barrier_f08
