! SPDX-License-Identifier: BSD-3-Clause
! f90_attr_lang: attributes set in one language and read in the other
! (MPI 4.1 §19.3.7), with f90_attr_lang_c.c.  An attribute set from
! Fortran is an integer: C reading it gets a pointer to it (MPI_Aint for
! MPI_COMM_SET_ATTR and the other MPI-2 names, int for MPI_ATTR_PUT), on
! communicators, datatypes and windows, also on a communicator duplicated
! with a Fortran copy callback or MPI_COMM_DUP_FN; C callbacks get such
! pointers too.  An address set from C is read by Fortran as an integer,
! and a Fortran copy callback's result is an integer again.  Locus handed
! C the value itself (MPICH's f90/attr/fandcattrf90 and attrlangf90
! dereferenced it and crashed).
subroutine copy_plus1(oldcomm, keyval, extra_state, val_in, val_out, flag, ierr)
  use mpi
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, val_in, val_out
  logical :: flag
  if (.false.) print *, oldcomm, keyval, extra_state
  val_out = val_in + 1
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine copy_plus1

subroutine copy1_plus1(oldcomm, keyval, extra_state, val_in, val_out, flag, ierr)
  implicit none
  integer :: oldcomm, keyval, extra_state, val_in, val_out, ierr
  logical :: flag
  if (.false.) print *, oldcomm, keyval, extra_state
  val_out = val_in + 1
  flag = .true.
  ierr = 0
end subroutine copy1_plus1

program f90_attr_lang
  use mpi
  implicit none
  external :: copy_plus1, copy1_plus1
  integer :: ierr, errs, key2, key1, tkey, wkey, dupkey, cbkey, dup, win, ival
  integer(kind=MPI_ADDRESS_KIND) :: big, val, extra, zero
  integer :: cvar(2)
  logical :: flag
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: libver

  errs = 0
  extra = 0
  zero = 0
  call MPI_INIT(ierr)
  big = huge(big) - 12345   ! needs more than 32 bits: no truncation hides

  ! Fortran MPI-2 value, read by C; and on a dup made by a Fortran callback
  call MPI_COMM_CREATE_KEYVAL(copy_plus1, MPI_COMM_NULL_DELETE_FN, key2, extra, ierr)
  call MPI_COMM_SET_ATTR(MPI_COMM_SELF, key2, big, ierr)
  call c_read_aint(MPI_COMM_SELF, key2, big, errs)
  call MPI_COMM_DUP(MPI_COMM_SELF, dup, ierr)
  call c_read_aint(dup, key2, big + 1, errs)
  call MPI_COMM_GET_ATTR(dup, key2, val, flag, ierr)
  if (.not. flag .or. val /= big + 1) then
    print *, 'Fortran read of its own value on a dup: ', val, ' expected ', big + 1
    errs = errs + 1
  end if
  call MPI_COMM_FREE(dup, ierr)

  ! MPI_ATTR_PUT (a negative default INTEGER), read by C as an int and by
  ! MPI_COMM_GET_ATTR sign-extended
  call MPI_KEYVAL_CREATE(copy1_plus1, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_ATTR_PUT(MPI_COMM_SELF, key1, -123457, ierr)
  ival = -123457
  call c_read_fint(MPI_COMM_SELF, key1, ival, errs)
  call MPI_COMM_GET_ATTR(MPI_COMM_SELF, key1, val, flag, ierr)
  if (.not. flag .or. val /= -123457) then
    print *, 'MPI_ATTR_PUT value read by MPI_COMM_GET_ATTR: ', val
    errs = errs + 1
  end if
  call MPI_COMM_DUP(MPI_COMM_SELF, dup, ierr)
  ival = -123456
  call c_read_fint(dup, key1, ival, errs)
  call MPI_COMM_FREE(dup, ierr)

  ! an address set from C: Fortran reads the address, its copy callback
  ! adds one to it, and that copy is an address for C again
  call MPI_GET_ADDRESS(cvar, val, ierr)
  call c_set_addr(MPI_COMM_SELF, key2, val)
  call MPI_COMM_GET_ATTR(MPI_COMM_SELF, key2, big, flag, ierr)
  if (.not. flag .or. big /= val) then
    print *, 'Fortran read of a C address: ', big, ' expected ', val
    errs = errs + 1
  end if
  call MPI_COMM_DUP(MPI_COMM_SELF, dup, ierr)
  call c_read_addr(dup, key2, val + 1, errs)
  call MPI_COMM_FREE(dup, ierr)
  call MPI_COMM_DELETE_ATTR(MPI_COMM_SELF, key2, ierr)

  ! datatypes and windows
  big = huge(big) - 54321
  call MPI_TYPE_CREATE_KEYVAL(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)
  call MPI_TYPE_SET_ATTR(MPI_INTEGER, tkey, big, ierr)
  call c_read_type(MPI_INTEGER, tkey, big, errs)
  call MPI_TYPE_DELETE_ATTR(MPI_INTEGER, tkey, ierr)
  call MPI_WIN_CREATE_KEYVAL(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkey, extra, ierr)
  call MPI_WIN_CREATE(cvar, zero, 1, MPI_INFO_NULL, MPI_COMM_SELF, win, ierr)
  call MPI_WIN_SET_ATTR(win, wkey, big - 7, ierr)
  call c_read_win(win, wkey, big - 7, errs)
  call MPI_WIN_GET_ATTR(win, MPI_WIN_SIZE, val, flag, ierr)
  if (.not. flag .or. val /= 0) then
    print *, 'MPI_WIN_SIZE from Fortran: ', val
    errs = errs + 1
  end if
  call MPI_WIN_FREE(win, ierr)

  ! C keyvals: MPI_COMM_DUP_FN keeps the Fortran value an integer on the
  ! dup; C callbacks get pointers to it
  call c_make_keys(dupkey, cbkey)
  big = huge(big) - 777
  call MPI_COMM_SET_ATTR(MPI_COMM_SELF, dupkey, big, ierr)
  call MPI_COMM_SET_ATTR(MPI_COMM_SELF, cbkey, big, ierr)
  call MPI_COMM_DUP(MPI_COMM_SELF, dup, ierr)
  ! (MPICH 4.0.2 stores the address of its copy of the value there)
  call MPI_GET_LIBRARY_VERSION(libver, ival, ierr)
  if (index(libver, 'Locus') > 0 .or. index(libver, 'MPICH') == 0) then
    call c_read_aint(dup, dupkey, big, errs)
    call MPI_COMM_GET_ATTR(dup, dupkey, val, flag, ierr)
    if (.not. flag .or. val /= big) then
      print *, 'MPI_COMM_DUP_FN copy read from Fortran: ', val, ' expected ', big
      errs = errs + 1
    end if
  end if
  call MPI_COMM_FREE(dup, ierr)
  call MPI_COMM_DELETE_ATTR(MPI_COMM_SELF, cbkey, ierr)
  call c_check_callbacks(big, errs)

  call MPI_COMM_DELETE_ATTR(MPI_COMM_SELF, dupkey, ierr)
  call MPI_COMM_DELETE_ATTR(MPI_COMM_SELF, key1, ierr)
  call MPI_COMM_FREE_KEYVAL(key2, ierr)
  call MPI_KEYVAL_FREE(key1, ierr)
  call MPI_COMM_FREE_KEYVAL(dupkey, ierr)
  call MPI_COMM_FREE_KEYVAL(cbkey, ierr)
  call MPI_TYPE_FREE_KEYVAL(tkey, ierr)
  call MPI_WIN_FREE_KEYVAL(wkey, ierr)
  if (errs == 0) then
    print *, 'No Errors'
  else
    print *, 'Found ', errs, ' errors'
  end if
  call MPI_FINALIZE(ierr)
  if (errs /= 0) stop 1
end program f90_attr_lang
