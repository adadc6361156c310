! SPDX-License-Identifier: BSD-3-Clause
! f08_status_conv.f90: `use mpi_f08`: MPI_Status_f082f and
! MPI_Status_f2f08 (MPI 4.1 §19.3.5) both ways, with and without ierror,
! on a status a receive filled; the PMPI_ names of the functions
! (PMPI_Wtime, PMPI_Wtick, PMPI_Aint_add, PMPI_Aint_diff).  Built by
! Locus and by mpif90.mpich (MPICH's module calls its mpi_f08_types
! procedures, which Locus's libmpifort provides).  2 ranks.
program f08statusconv
  use mpi_f08
  implicit none
  integer :: errs, rank, ierr, buf(3), fst(MPI_STATUS_SIZE), n
  type(MPI_Status) :: st, st2
  double precision :: t0, t1, t2, tick
  integer(kind=MPI_ADDRESS_KIND) :: a, d

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (rank == 1) then
    call MPI_Send([1, 2, 3], 3, MPI_INTEGER, 0, 42, MPI_COMM_WORLD)
  else if (rank == 0) then
    call MPI_Recv(buf, 3, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)
    fst = -7
    call MPI_Status_f082f(st, fst, ierr)
    if (ierr /= MPI_SUCCESS .or. fst(MPI_SOURCE) /= 1 .or. fst(MPI_TAG) /= 42 .or. &
        fst(MPI_ERROR) /= st%MPI_ERROR) then
      errs = errs + 1
      print *, 'MPI_Status_f082f: ', fst, ierr
    end if
    call MPI_Status_f2f08(fst, st2)
    call MPI_Get_count(st2, MPI_INTEGER, n)
    if (n /= 3 .or. st2%MPI_SOURCE /= 1 .or. st2%MPI_TAG /= 42) then
      errs = errs + 1
      print *, 'MPI_Status_f2f08: count ', n, ' source ', st2%MPI_SOURCE, ' tag ', st2%MPI_TAG
    end if
    fst(MPI_SOURCE) = 5
    fst(MPI_TAG) = 50
    fst(MPI_ERROR) = 500
    call MPI_Status_f2f08(fst, st2, ierr)
    if (ierr /= MPI_SUCCESS .or. st2%MPI_SOURCE /= 5 .or. st2%MPI_TAG /= 50 .or. st2%MPI_ERROR /= 500) then
      errs = errs + 1
      print *, 'MPI_Status_f2f08 fields: ', st2%MPI_SOURCE, st2%MPI_TAG, st2%MPI_ERROR
    end if
  end if

  t0 = PMPI_Wtime()
  t1 = MPI_Wtime()
  tick = PMPI_Wtick()
  t2 = MPI_Wtick()
  if (t1 < t0 .or. t1 - t0 > 60d0 .or. abs(tick - t2) > 0d0) then
    errs = errs + 1
    print *, 'PMPI_Wtime/PMPI_Wtick: ', t0, t1, tick
  end if
  a = PMPI_Aint_add(1000_MPI_ADDRESS_KIND, 24_MPI_ADDRESS_KIND)
  d = PMPI_Aint_diff(a, 1000_MPI_ADDRESS_KIND)
  if (a /= 1024 .or. d /= 24) then
    errs = errs + 1
    print *, 'PMPI_Aint_add/diff: ', a, d
  end if

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (errs == 0) then
      print '(a)', ' No Errors'
    else
      print '(a,i0,a)', ' Found ', errs, ' errors'
    end if
  end if
  call MPI_Finalize()
end program
