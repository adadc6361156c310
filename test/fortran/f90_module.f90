! SPDX-License-Identifier: BSD-3-Clause
! f90_module.f90: Fortran 90 with `use mpi` (explicit interfaces).
! Array sections (a row of a 2-D array, through copy-in/copy-out and
! through an MPI_Type_vector), Waitall/Waitsome with status arrays and
! 1-based indices, a user reduction written in Fortran, Cartesian
! topologies with LOGICAL periods, Info strings, communicators and
! groups, error codes.  Rank 0 prints "No Errors" when all checks passed.
module checks
  implicit none
  integer :: errs = 0
  integer :: deletes = 0
  integer :: handled = 0, handled_code = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errs = errs + 1
      write (0, '(a,a)') 'FAIL: ', what
    end if
  end subroutine
end module

! A user reduction with the Fortran calling convention: the elementwise
! maximum of absolute values (commutative).
subroutine absmax(invec, inoutvec, len, dtype)
  use mpi, only: MPI_DATATYPE_NULL
  implicit none
  integer, intent(in) :: len, dtype
  integer, intent(in) :: invec(len)
  integer, intent(inout) :: inoutvec(len)
  integer :: i
  if (dtype == MPI_DATATYPE_NULL) return  ! (never: only MPI_INTEGER here)
  do i = 1, len
    inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine

! Attribute callbacks with Fortran conventions: the copy adds the extra
! state to the value, the delete counts its calls.
subroutine copy_plus(oldcomm, keyval, extra_state, val_in, val_out, flag, ierr)
  use mpi, only: MPI_ADDRESS_KIND, MPI_SUCCESS
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
  logical :: flag
  if (.false.) print *, oldcomm, keyval  ! (unused: the interface has them)
  val_out = val_in + extra_state
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine

subroutine count_delete(comm, keyval, val, extra_state, ierr)
  use mpi, only: MPI_ADDRESS_KIND, MPI_SUCCESS
  use checks, only: deletes
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, extra_state
  if (.false.) print *, comm, keyval, val  ! (unused: the interface has them)
  if (extra_state == 100) deletes = deletes + 1
  ierr = MPI_SUCCESS
end subroutine

! An error handler with Fortran conventions: records the error code.
subroutine record_error(comm, code)
  use checks, only: handled, handled_code
  implicit none
  integer :: comm, code
  if (.false.) print *, comm  ! (unused: the interface has it)
  handled = handled + 1
  handled_code = code
end subroutine

program f90module
  use mpi
  use checks
  implicit none
  double precision :: t0
  external absmax, copy_plus, count_delete, record_error
  integer :: eh
  integer :: kv1, kv2, kv3, dup1, dup2
  integer(kind=MPI_ADDRESS_KIND) :: extra, aval
  integer :: ierr, rank, np, i, j, next, prev, all, outcount, vtype, pos, n
  integer :: a(4, 5), row(5), reqs(4), statuses(MPI_STATUS_SIZE, 4), idx(4)
  integer :: op, cart, dims(2), coords(2), sub, grp, wgrp, ranks(1), gsize
  integer :: info, newcomm, version, subversion, r, errclass
  logical :: periods(2), gperiods(2), flag, commute
  character(len=MPI_MAX_INFO_VAL) :: val
  character(len=200) :: packed

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)
  call MPI_Get_version(version, subversion, ierr)
  call check(version >= 3, 'MPI_Get_version')

  ! a row of a 2-D array: a non-contiguous section, copied in and out
  do j = 1, 5
    do i = 1, 4
      a(i, j) = rank * 1000 + i * 10 + j
    end do
  end do
  call MPI_Sendrecv(a(2, :), 5, MPI_INTEGER, next, 1, row, 5, MPI_INTEGER, prev, 1, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  do j = 1, 5
    call check(row(j) == prev * 1000 + 20 + j, 'row section')
  end do
  ! the same row through a vector type, packed and sent as bytes
  call MPI_Type_vector(5, 1, 4, MPI_INTEGER, vtype, ierr)
  call MPI_Type_commit(vtype, ierr)
  pos = 0
  call MPI_Pack(a(3, 1), 1, vtype, packed, len(packed), pos, MPI_COMM_WORLD, ierr)
  call check(pos == 20, 'pack position')
  call MPI_Sendrecv_replace(packed, pos, MPI_PACKED, next, 2, prev, 2, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE, ierr)
  n = pos
  pos = 0
  a(1, :) = -1
  call MPI_Unpack(packed, n, pos, a(1, 1), 1, vtype, MPI_COMM_WORLD, ierr)
  do j = 1, 5
    call check(a(1, j) == prev * 1000 + 30 + j, 'vector row')
    call check(a(2, j) == rank * 1000 + 20 + j, 'vector row left the rest alone')
  end do
  call MPI_Type_free(vtype, ierr)
  call check(vtype == MPI_DATATYPE_NULL, 'type freed')

  ! Waitall and Waitsome: status arrays, 1-based indices
  call MPI_Irecv(row(1), 1, MPI_INTEGER, prev, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(row(2), 1, MPI_INTEGER, next, 4, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, next, 3, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, prev, 4, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, statuses, ierr)
  call check(statuses(MPI_SOURCE, 1) == prev .and. statuses(MPI_TAG, 1) == 3, 'waitall status 1')
  call check(statuses(MPI_SOURCE, 2) == next .and. statuses(MPI_TAG, 2) == 4, 'waitall status 2')
  call check(row(1) == prev .and. row(2) == next, 'waitall data')
  call MPI_Irecv(row(1), 1, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, next, 5, MPI_COMM_WORLD, ierr)
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Waitsome(2, reqs, outcount, idx, MPI_STATUSES_IGNORE, ierr)
  call check(outcount == 1 .and. idx(1) == 1, 'waitsome 1-based index')

  ! a user reduction written in Fortran
  call MPI_Op_create(absmax, .true., op, ierr)
  call MPI_Op_commutative(op, commute, ierr)
  call check(commute, 'op commutative')
  row(1) = -rank * 3
  call MPI_Allreduce(MPI_IN_PLACE, row, 1, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(row(1) == (np - 1) * 3, 'user op')
  call MPI_Op_free(op, ierr)

  ! Cartesian topology with LOGICAL periods
  dims = 0
  call MPI_Dims_create(np, 2, dims, ierr)
  call check(dims(1) * dims(2) == np, 'dims_create')
  periods = (/ .true., .false. /)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Cart_get(cart, 2, dims, gperiods, coords, ierr)
  call check(gperiods(1) .and. .not. gperiods(2), 'cart periods')
  call MPI_Cart_rank(cart, coords, r, ierr)
  call check(r == rank, 'cart rank')
  call MPI_Cart_sub(cart, (/ .true., .false. /), sub, ierr)
  call MPI_Comm_size(sub, n, ierr)
  call check(n == dims(1), 'cart_sub size')
  call MPI_Comm_free(sub, ierr)
  call MPI_Comm_free(cart, ierr)
  call check(cart == MPI_COMM_NULL, 'comm freed')

  ! groups and communicators
  call MPI_Comm_group(MPI_COMM_WORLD, wgrp, ierr)
  ranks(1) = 0
  call MPI_Group_excl(wgrp, 1, ranks, grp, ierr)
  call MPI_Group_size(grp, gsize, ierr)
  call check(gsize == np - 1, 'group_excl')
  call MPI_Comm_create(MPI_COMM_WORLD, grp, newcomm, ierr)
  call check((rank == 0) .eqv. (newcomm == MPI_COMM_NULL), 'comm_create')
  if (newcomm /= MPI_COMM_NULL) call MPI_Comm_free(newcomm, ierr)
  call MPI_Group_free(grp, ierr)
  call MPI_Group_free(wgrp, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, newcomm, ierr)
  call MPI_Comm_rank(newcomm, r, ierr)
  call MPI_Comm_size(newcomm, n, ierr)
  call check(r == n - 1 - rank / 2, 'comm_split key order')
  call MPI_Comm_free(newcomm, ierr)

  ! attributes: Fortran callbacks, the predefined ones
  extra = 100
  call MPI_Comm_create_keyval(copy_plus, count_delete, kv1, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv2, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv3, extra, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup1, ierr)
  aval = 5
  call MPI_Comm_set_attr(dup1, kv1, aval, ierr)
  aval = 6
  call MPI_Comm_set_attr(dup1, kv2, aval, ierr)
  aval = 7
  call MPI_Comm_set_attr(dup1, kv3, aval, ierr)
  call MPI_Comm_dup(dup1, dup2, ierr)
  call MPI_Comm_get_attr(dup2, kv1, aval, flag, ierr)
  call check(flag .and. aval == 105, 'Fortran copy callback')
  call MPI_Comm_get_attr(dup2, kv2, aval, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN')
  call MPI_Comm_get_attr(dup2, kv3, aval, flag, ierr)
  call check(flag .and. aval == 7, 'MPI_COMM_DUP_FN')
  call MPI_Comm_free(dup2, ierr)
  call check(deletes == 1, 'Fortran delete callback')
  call MPI_Comm_delete_attr(dup1, kv1, ierr)
  call check(deletes == 2, 'delete_attr')
  call MPI_Comm_get_attr(dup1, kv1, aval, flag, ierr)
  call check(.not. flag, 'deleted attribute')
  call MPI_Comm_free(dup1, ierr)
  call MPI_Comm_free_keyval(kv1, ierr)
  call MPI_Comm_free_keyval(kv2, ierr)
  call MPI_Comm_free_keyval(kv3, ierr)
  call check(kv1 == MPI_KEYVAL_INVALID, 'keyval freed')

  ! Info: strings in and out, LOGICAL flag
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'locus_key  ', 'a value   ', ierr)
  call MPI_Info_get(info, 'locus_key', MPI_MAX_INFO_VAL, val, flag, ierr)
  call check(flag .and. val == 'a value', 'info_get')
  call MPI_Info_get(info, 'absent', MPI_MAX_INFO_VAL, val, flag, ierr)
  call check(.not. flag, 'info_get absent')
  n = len(val)
  call MPI_Info_get_string(info, 'locus_key', n, val, flag, ierr)
  call check(flag .and. n == 7 .and. val == 'a value', 'info_get_string')
  n = 3
  val = 'zzzz'
  call MPI_Info_get_string(info, 'locus_key', n, val(1:3), flag, ierr)
  call check(flag .and. n == 7 .and. val == 'a vz', 'info_get_string truncated')
  call MPI_Info_get_nkeys(info, n, ierr)
  call check(n == 1, 'info nkeys')
  call MPI_Info_free(info, ierr)

  ! errors come back as codes with MPI_ERRORS_RETURN
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_rank(MPI_COMM_NULL, r, ierr)
  call MPI_Error_class(ierr, errclass, i)
  call check(errclass == MPI_ERR_COMM, 'MPI_ERR_COMM')
  call MPI_Send(rank, -1, MPI_INTEGER, next, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, errclass, i)
  call check(errclass == MPI_ERR_COUNT, 'MPI_ERR_COUNT')
  ! bad input through the glue: error codes, no crash
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'k', 'v', ierr)
  call MPI_Info_get(info, 'k', -1, val, flag, ierr)
  call MPI_Error_class(ierr, errclass, i)
  call check(errclass == MPI_ERR_ARG, 'info_get with valuelen -1')
  call MPI_Info_get_nthkey(info, 5, val, ierr)
  call MPI_Error_class(ierr, errclass, i)
  call check(errclass == MPI_ERR_ARG, 'info_get_nthkey out of range')
  call MPI_Info_set(info, '   ', 'v', ierr)
  call MPI_Error_class(ierr, errclass, i)
  call check(errclass == MPI_ERR_INFO_KEY, 'blank info key')
  call MPI_Info_free(info, ierr)
  call MPI_Waitall(-1, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_Error_class(ierr, errclass, i)
  call check(errclass == MPI_ERR_COUNT, 'waitall count -1')

  ! a Fortran error handler
  call MPI_Comm_dup(MPI_COMM_WORLD, dup1, ierr)
  call MPI_Comm_create_errhandler(record_error, eh, ierr)
  call MPI_Comm_set_errhandler(dup1, eh, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, np + 7, 0, dup1, ierr)
  call MPI_Error_class(handled_code, errclass, i)
  call check(handled == 1 .and. errclass == MPI_ERR_RANK, 'Fortran error handler')
  call MPI_Comm_free(dup1, ierr)

  ! the module declares the functions' PMPI_ names too, as mpif.h does
  ! (without them, under implicit none, this does not compile)
  t0 = PMPI_WTIME()
  call check(t0 >= 0d0, 'PMPI_WTIME')
  t0 = PMPI_WTICK()
  call check(t0 > 0d0, 'PMPI_WTICK')

  call MPI_Reduce(errs, all, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. all == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)
  if (errs /= 0) stop 1
end program
