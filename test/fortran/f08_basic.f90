! SPDX-License-Identifier: BSD-3-Clause
! f08_basic.f90: Fortran 2008 with `use mpi_f08`.  TYPE(MPI_Comm) etc.
! handles and their comparison, TYPE(MPI_Status) fields, optional
! ierror, MPI_STATUS(ES)_IGNORE, MPI_IN_PLACE and MPI_BOTTOM, a user
! reduction with the F08 (TYPE(C_PTR), VALUE) interface, strings,
! derived datatypes on array sections, error codes.
! Rank 0 prints "No Errors" when all checks passed.
module f08checks
  implicit none
  integer :: errs = 0
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errs = errs + 1
      write (0, '(a,a)') 'FAIL: ', what
    end if
  end subroutine

  ! attribute copy callback, F08 types: the value plus the extra state
  subroutine copy_plus(oldcomm, keyval, extra_state, val_in, val_out, flag, ierror)
    use mpi_f08, only: MPI_Comm, MPI_ADDRESS_KIND
    type(MPI_Comm) :: oldcomm
    integer :: keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
    logical :: flag
    if (.false.) print *, oldcomm%MPI_VAL, keyval  ! (unused: the interface has them)
    val_out = val_in + extra_state
    flag = .true.
    ierror = 0
  end subroutine

  ! elementwise sum of squares of the incoming values, F08 convention
  subroutine sumsq(invec, inoutvec, len, datatype)
    use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
    use mpi_f08, only: MPI_Datatype, MPI_INTEGER, operator(==)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (.not. (datatype == MPI_INTEGER)) return
    call c_f_pointer(invec, a, (/ len /))
    call c_f_pointer(inoutvec, b, (/ len /))
    b = a + b
  end subroutine
end module

program f08basic
  use mpi_f08
  use f08checks
  implicit none
  type(MPI_Comm) :: dup, dup2
  integer :: kv1, kv2
  integer(kind=MPI_COUNT_KIND) :: bigcount
  integer(kind=MPI_ADDRESS_KIND) :: extra, aval
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Datatype) :: vtype, stype
  type(MPI_Op) :: op
  integer :: rank, np, next, prev, i, n, total, ierr, errclass, pos
  integer :: buf(8), rbuf(8), grid(3, 4), blens(2)
  integer(kind=MPI_ADDRESS_KIND) :: disps(2)
  type(MPI_Datatype) :: types(2)
  double precision :: x
  character(len=MPI_MAX_OBJECT_NAME) :: cname
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=64) :: packed
  logical :: flag, is_mpich
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lver

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call check(ierr == MPI_SUCCESS, 'optional ierror present')
  next = mod(rank + 1, np)
  prev = mod(rank + np - 1, np)

  ! status fields
  buf = (/ (rank * 10 + i, i = 1, 8) /)
  call MPI_Sendrecv(buf, 8, MPI_INTEGER, next, 11, rbuf, 8, MPI_INTEGER, prev, 11, &
                    MPI_COMM_WORLD, status)
  call check(status%MPI_SOURCE == prev .and. status%MPI_TAG == 11, 'status fields')
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 8, 'get_count')
  call check(all(rbuf == (/ (prev * 10 + i, i = 1, 8) /)), 'sendrecv data')

  ! large counts: INTEGER(KIND=MPI_COUNT_KIND) selects the _c form
  bigcount = 8
  call MPI_Sendrecv(buf, bigcount, MPI_INTEGER, next, 15, rbuf, bigcount, MPI_INTEGER, prev, 15, &
                    MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, bigcount)
  call check(bigcount == 8, 'get_count, large count')
  call MPI_Type_size(MPI_DOUBLE_PRECISION, bigcount)
  call check(bigcount == 8, 'type_size, large count')
  ! (MPI_Type_get_extent_c is not checked: MPICH 4.0.2's module declares
  ! it but its library lacks it, so this program would not link there)

  ! nonblocking with status arrays and MPI_STATUSES_IGNORE
  call MPI_Irecv(rbuf, 2, MPI_INTEGER, prev, 12, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(buf, 2, MPI_INTEGER, next, 12, MPI_COMM_WORLD, reqs(2))
  call MPI_F_sync_reg(rbuf)
  call MPI_Waitall(2, reqs, statuses)
  call check(statuses(1)%MPI_SOURCE == prev, 'waitall statuses')
  call check(reqs(1) == MPI_REQUEST_NULL .and. reqs(2) == MPI_REQUEST_NULL, 'requests freed')
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, prev, 13, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(buf, 1, MPI_INTEGER, next, 13, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call MPI_Recv(rbuf, 0, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)

  ! MPI_IN_PLACE, a user op in the F08 style
  buf(1) = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(buf(1) == np * (np + 1) / 2, 'allreduce in place')
  call MPI_Op_create(sumsq, .true., op)
  buf(1) = rank
  call MPI_Allreduce(buf, rbuf, 1, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(rbuf(1) == np * (np - 1) / 2, 'user op')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'op freed')

  ! a column-major section: one row of grid through a vector type, packed
  grid = reshape((/ (rank * 100 + i, i = 1, 12) /), (/ 3, 4 /))
  call MPI_Type_vector(4, 1, 3, MPI_INTEGER, vtype)
  call MPI_Type_commit(vtype)
  pos = 0
  call MPI_Pack(grid(2, 1), 1, vtype, packed, len(packed), pos, MPI_COMM_WORLD)
  call check(pos == 16, 'pack size')
  call MPI_Sendrecv_replace(packed, pos, MPI_PACKED, next, 14, prev, 14, MPI_COMM_WORLD, &
                            MPI_STATUS_IGNORE)
  n = pos
  pos = 0
  call MPI_Unpack(packed, n, pos, rbuf, 4, MPI_INTEGER, MPI_COMM_WORLD)
  call check(all(rbuf(1:4) == (/ (prev * 100 + 2 + 3 * i, i = 0, 3) /)), 'vector section')
  call MPI_Type_free(vtype)

  ! MPI_BOTTOM: a struct of absolute addresses (MPICH 4.0.2's MPI_Pack
  ! refuses MPI_BOTTOM, "Null pointer in parameter inbuf": skipped there)
  call MPI_Get_library_version(lver, n)
  is_mpich = index(lver(1:n), 'MPICH') > 0
  call MPI_Get_address(buf(1), disps(1))
  call MPI_Get_address(x, disps(2))
  blens = (/ 1, 1 /)
  types(1) = MPI_INTEGER
  types(2) = MPI_DOUBLE_PRECISION
  call MPI_Type_create_struct(2, blens, disps, types, stype)
  call MPI_Type_commit(stype)
  buf(1) = 7
  x = 0.5d0
  pos = 0
  if (.not. is_mpich) then
    call MPI_Pack(MPI_BOTTOM, 1, stype, packed, len(packed), pos, MPI_COMM_WORLD)
    buf(1) = 0
    x = 0
    n = pos
    pos = 0
    call MPI_Unpack(packed, n, pos, MPI_BOTTOM, 1, stype, MPI_COMM_WORLD)
    call check(buf(1) == 7 .and. abs(x - 0.5d0) < 1d-12, 'MPI_BOTTOM')
  end if
  call MPI_Type_free(stype)

  ! communicators and strings
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call check(dup /= MPI_COMM_WORLD .and. dup /= MPI_COMM_NULL, 'comm_dup handle')
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, n)
  call check(n == MPI_CONGRUENT, 'comm_compare')
  call MPI_Comm_set_name(dup, 'f08 dup')
  call MPI_Comm_get_name(dup, cname, n)
  call check(n == 7 .and. cname == 'f08 dup', 'comm name')
  call MPI_Comm_free(dup)
  call check(dup == MPI_COMM_NULL, 'comm freed')
  call MPI_Get_processor_name(pname, n)
  call check(n > 0 .and. n <= MPI_MAX_PROCESSOR_NAME, 'processor name')
  call MPI_Initialized(flag)
  call check(flag, 'initialized')

  ! attributes with an F08 callback and a predefined one
  extra = 1000
  call MPI_Comm_create_keyval(copy_plus, MPI_COMM_NULL_DELETE_FN, kv1, extra)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv2, extra)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  aval = 1
  call MPI_Comm_set_attr(dup, kv1, aval)
  call MPI_Comm_set_attr(dup, kv2, aval)
  call MPI_Comm_dup(dup, dup2)
  call MPI_Comm_get_attr(dup2, kv1, aval, flag)
  call check(flag .and. aval == 1001, 'F08 copy callback')
  call MPI_Comm_get_attr(dup2, kv2, aval, flag)
  call check(flag .and. aval == 1, 'F08 MPI_COMM_DUP_FN')
  call MPI_Comm_get_attr(dup2, MPI_TAG_UB, aval, flag)
  call check(flag .and. aval >= 32767, 'MPI_TAG_UB')
  call MPI_Comm_free(dup2)
  call MPI_Comm_free(dup)
  call MPI_Comm_free_keyval(kv1)
  call MPI_Comm_free_keyval(kv2)

  ! errors
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(buf, 1, MPI_INTEGER, np + 3, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, errclass)
  call check(errclass == MPI_ERR_RANK, 'MPI_ERR_RANK')
  vtype = MPI_DATATYPE_NULL
  call MPI_Type_commit(vtype, ierr)
  call check(ierr /= MPI_SUCCESS, 'commit of MPI_DATATYPE_NULL')

  call MPI_Reduce(errs, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
  if (errs /= 0) stop 1
end program
