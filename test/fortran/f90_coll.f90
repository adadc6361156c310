! SPDX-License-Identifier: BSD-3-Clause
! f90_coll.f90: more of the `mpi` module — vector collectives, scans,
! probes and matched probes, persistent requests with Startall and
! Testsome, a Fortran-order subarray type, group ranges (an INTEGER
! ranges(3,*)), Cart_shift, Comm_split_type.
! Rank 0 prints "No Errors" when all checks passed.
program f90coll
  use mpi
  implicit none
  integer :: ierr, rank, np, i, j, errs, total, n, flag_count, msg, src, dst
  integer, allocatable :: counts(:), displs(:), sendbuf(:), recvbuf(:)
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2), idx(2)
  integer :: grid(4, 6), sub(2, 3), subtype, pos, ranges(3, 1), wgrp, grp, n2
  integer :: cart, dims(1), shared, val, scanv
  character(len=256) :: packed
  logical :: flag, periods(1)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  allocate(counts(np), displs(np), sendbuf(np * np), recvbuf(np * np))

  ! Gatherv: rank r sends r+1 values r; root 0 gets them packed in order
  counts = (/ (i, i = 1, np) /)
  displs(1) = 0
  do i = 2, np
    displs(i) = displs(i - 1) + counts(i - 1)
  end do
  sendbuf(1:rank + 1) = rank
  recvbuf = -1
  call MPI_Gatherv(sendbuf, rank + 1, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, 0, &
                   MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    do i = 1, np
      do j = 1, counts(i)
        if (recvbuf(displs(i) + j) /= i - 1) errs = errs + 1
      end do
    end do
    if (errs /= 0) print *, 'FAIL: gatherv'
  end if
  ! Alltoall: element j of rank r is r*np+j
  sendbuf = (/ (rank * np + i, i = 0, np - 1) /)
  call MPI_Alltoall(sendbuf, 1, MPI_INTEGER, recvbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do i = 1, np
    if (recvbuf(i) /= (i - 1) * np + rank) then
      errs = errs + 1
      print *, 'FAIL: alltoall', i, recvbuf(i)
    end if
  end do
  ! Scan and Exscan
  val = rank + 1
  call MPI_Scan(val, scanv, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (scanv /= (rank + 1) * (rank + 2) / 2) then
    errs = errs + 1
    print *, 'FAIL: scan'
  end if
  call MPI_Exscan(val, scanv, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank > 0 .and. scanv /= rank * (rank + 1) / 2) then
    errs = errs + 1
    print *, 'FAIL: exscan'
  end if

  ! Probe, Iprobe (LOGICAL), Mprobe/Mrecv with statuses
  dst = mod(rank + 1, np)
  src = mod(rank + np - 1, np)
  call MPI_Isend(rank, 1, MPI_INTEGER, dst, 21, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Probe(src, 21, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  if (status(MPI_SOURCE) /= src .or. n /= 1) then
    errs = errs + 1
    print *, 'FAIL: probe'
  end if
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, flag, status, ierr)
  end do
  call MPI_Mprobe(src, 21, MPI_COMM_WORLD, msg, status, ierr)
  call MPI_Mrecv(val, 1, MPI_INTEGER, msg, status, ierr)
  if (val /= src .or. msg /= MPI_MESSAGE_NULL) then
    errs = errs + 1
    print *, 'FAIL: mprobe/mrecv'
  end if
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)

  ! persistent requests, Startall, Testsome (1-based indices)
  call MPI_Recv_init(val, 1, MPI_INTEGER, src, 22, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send_init(rank, 1, MPI_INTEGER, dst, 22, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Startall(2, reqs, ierr)
  call MPI_F_SYNC_REG(val)
  flag_count = 0
  do while (flag_count < 2)
    call MPI_Testsome(2, reqs, n, idx, statuses, ierr)
    if (n == MPI_UNDEFINED) exit
    do i = 1, n
      if (idx(i) < 1 .or. idx(i) > 2) then
        errs = errs + 1
        print *, 'FAIL: testsome index', idx(i)
      end if
    end do
    flag_count = flag_count + n
  end do
  if (val /= src) then
    errs = errs + 1
    print *, 'FAIL: persistent'
  end if
  call MPI_Request_free(reqs(1), ierr)
  call MPI_Request_free(reqs(2), ierr)

  ! a Fortran-order subarray: rows 2-3, columns 3-5 of a 4x6 array
  grid = reshape((/ (i, i = 1, 24) /), (/ 4, 6 /))
  call MPI_Type_create_subarray(2, (/ 4, 6 /), (/ 2, 3 /), (/ 1, 2 /), MPI_ORDER_FORTRAN, &
                                MPI_INTEGER, subtype, ierr)
  call MPI_Type_commit(subtype, ierr)
  pos = 0
  call MPI_Pack(grid, 1, subtype, packed, len(packed), pos, MPI_COMM_WORLD, ierr)
  n2 = pos
  pos = 0
  call MPI_Unpack(packed, n2, pos, sub, 6, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (any(sub /= grid(2:3, 3:5))) then
    errs = errs + 1
    print *, 'FAIL: subarray'
  end if
  call MPI_Type_free(subtype, ierr)

  ! group ranges: every other rank from 0
  call MPI_Comm_group(MPI_COMM_WORLD, wgrp, ierr)
  ranges(:, 1) = (/ 0, np - 1, 2 /)
  call MPI_Group_range_incl(wgrp, 1, ranges, grp, ierr)
  call MPI_Group_size(grp, n, ierr)
  if (n /= (np + 1) / 2) then
    errs = errs + 1
    print *, 'FAIL: group_range_incl', n
  end if
  call MPI_Group_free(grp, ierr)
  call MPI_Group_free(wgrp, ierr)

  ! a ring: Cart_shift; Comm_split_type(SHARED)
  dims(1) = np
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  if (src /= mod(rank + np - 1, np) .or. dst /= mod(rank + 1, np)) then
    errs = errs + 1
    print *, 'FAIL: cart_shift'
  end if
  call MPI_Comm_free(cart, ierr)
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, shared, ierr)
  call MPI_Comm_size(shared, n, ierr)
  if (n < 1 .or. n > np) then
    errs = errs + 1
    print *, 'FAIL: split_type'
  end if
  call MPI_Comm_free(shared, ierr)

  deallocate(counts, displs, sendbuf, recvbuf)
  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
  if (errs /= 0) stop 1
end program
