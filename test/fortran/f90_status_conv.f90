! SPDX-License-Identifier: BSD-3-Clause
! f90_status_conv.f90: MPI_STATUS_F082F and MPI_STATUS_F2F08 (MPI 4.1
! §19.3.5) from module `mpi` (its TYPE(MPI_Status), an explicit
! interface), both ways, on a status a receive filled; the PMPI_ name
! too (mpif.h's: f77_status_conv.f).  2 ranks; rank 0 prints "No Errors".
program f90statusconv
  use mpi
  implicit none
  integer :: errs, rank, ierr, buf(3), fst(MPI_STATUS_SIZE), back(MPI_STATUS_SIZE), n
  type(MPI_Status) :: st08

  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  if (rank == 1) then
    call MPI_SEND([1, 2, 3], 3, MPI_INTEGER, 0, 42, MPI_COMM_WORLD, ierr)
  else if (rank == 0) then
    call MPI_RECV(buf, 3, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, fst, ierr)
    st08%MPI_TAG = -9
    ierr = -1
    call MPI_STATUS_F2F08(fst, st08, ierr)
    if (ierr /= MPI_SUCCESS .or. st08%MPI_SOURCE /= 1 .or. st08%MPI_TAG /= 42 .or. &
        st08%MPI_ERROR /= fst(MPI_ERROR)) then
      errs = errs + 1
      print *, 'mpi: MPI_STATUS_F2F08', st08%MPI_SOURCE, st08%MPI_TAG, ierr
    end if
    back = -7
    call PMPI_STATUS_F082F(st08, back, ierr)
    if (ierr /= MPI_SUCCESS .or. any(back /= fst)) then
      errs = errs + 1
      print *, 'mpi: PMPI_STATUS_F082F', back, fst, ierr
    end if
    ! the count travels in the hidden fields
    call MPI_GET_COUNT(back, MPI_INTEGER, n, ierr)
    if (n /= 3) then
      errs = errs + 1
      print *, 'mpi: count after the round trip', n
    end if
  end if
  call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_FINALIZE(ierr)
end program f90statusconv
