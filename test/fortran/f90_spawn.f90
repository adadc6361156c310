! SPDX-License-Identifier: BSD-3-Clause
! f90_spawn.f90: MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE with `use mpi`
! (src/fortran/lc_f_spawn.c).  The parents (1 or 2 ranks) spawn this
! program:
!   1. MPI_COMM_SPAWN, 2 children, ARGV = 'single', 'two words', 'last',
!      ' lead', then a blank element (elements are CHARACTER*24: the
!      padding goes, inner and leading blanks stay, as with MPICH); ranks other than the root pass
!      MPI_ARGV_NULL; ARRAY_OF_ERRCODES all MPI_SUCCESS;
!   1b. the same, but the other ranks pass an unterminated ARGV of one
!      element (no blank one after it), allocated so that ASan sees a
!      read past its end: ARGV is significant at the root only;
!   2. MPI_COMM_SPAWN_MULTIPLE, 1 + 2 children of two commands,
!      ARRAY_OF_ARGV(2, 3) column major (argument J of command I is
!      ARRAY_OF_ARGV(I, J)), MPI_ERRCODES_IGNORE; MPI_APPNUM 0 and 1;
!      the other ranks pass COUNT 3 with arrays of one element (an
!      unterminated ARRAY_OF_ARGV): only the root's arguments count;
!   3. MPI_COMM_SPAWN on MPI_COMM_SELF with MPI_ARGV_NULL (no arguments).
! Each child checks its arguments with GET_COMMAND_ARGUMENT and its
! parent intercommunicator, and sends its error count and the parent
! group's size to parent rank 0, which checks the intercommunicator's
! sizes.  Rank 0 prints "No Errors" when all checks passed.
! Debian's MPICH 4.0.2 (ch4:ucx) cannot spawn: skipped there.
program f90spawn
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, parent, ic, codes(2), n, errs, vlen
  integer :: maxprocs(2), infos(2), got(2), st(MPI_STATUS_SIZE)
  character(len=512) :: me
  character(len=24) :: args(5), argvs(2, 3), cmds(2)*512
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: lib
  logical :: inter
  character(len=4), allocatable :: junk(:), junk_cmds(:), junk_argvs(:, :)
  integer, allocatable :: junk_maxprocs(:), junk_infos(:)

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_get_parent(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
    call child(parent)
    call MPI_Finalize(ierr)
    stop
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Get_library_version(lib, vlen, ierr)
  if (index(lib, 'MPICH') > 0 .and. index(lib, 'Locus') == 0) then
    if (rank == 0) print '(a)', 'MPICH (ch4:ucx) cannot spawn: skipped'
    if (rank == 0) print '(a)', ' No Errors'
    call MPI_Finalize(ierr)
    stop
  end if
  call get_command_argument(0, me)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  ! 1. spawn with arguments
  args = ' '
  args(1) = 'single'
  args(2) = 'two words'
  args(3) = 'last'
  args(4) = ' lead'
  codes = -1
  if (rank == 0) then
    call MPI_Comm_spawn(me, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, codes, ierr)
  else
    call MPI_Comm_spawn(me, MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, codes, ierr)
  end if
  call check(ierr == MPI_SUCCESS, 'spawn: ierr')
  call check(all(codes == MPI_SUCCESS), 'spawn: errcodes')
  call MPI_Comm_test_inter(ic, inter, ierr)
  call check(inter, 'spawn: not an intercommunicator')
  call MPI_Comm_remote_size(ic, n, ierr)
  call check(n == 2, 'spawn: remote size')
  call collect(ic, n)

  ! 1b. a non-root ARGV without its blank end
  allocate(junk(1), junk_cmds(1), junk_argvs(1, 1), junk_maxprocs(1), junk_infos(1))
  junk = 'junk'
  junk_cmds = 'none'
  junk_argvs = 'junk'
  junk_maxprocs = 99
  junk_infos = MPI_INFO_NULL
  if (rank == 0) then
    call MPI_Comm_spawn(me, args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, codes, ierr)
  else
    call MPI_Comm_spawn(junk_cmds(1), junk, 7, MPI_INFO_NULL, 0, MPI_COMM_WORLD, ic, codes, ierr)
  end if
  call check(ierr == MPI_SUCCESS, 'spawn, unterminated non-root argv: ierr')
  call MPI_Comm_remote_size(ic, n, ierr)
  call check(n == 2, 'spawn, unterminated non-root argv: remote size')
  call collect(ic, n)

  ! 2. spawn_multiple: 1 + 2 processes, a 2 x 3 CHARACTER array of arguments
  cmds(1) = me
  cmds(2) = me
  argvs = ' '
  argvs(1, 1) = 'multi0'
  argvs(1, 2) = 'a b c'
  argvs(2, 1) = 'multi1'
  maxprocs = (/ 1, 2 /)
  infos = MPI_INFO_NULL
  if (rank == 0) then
    call MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, ic, MPI_ERRCODES_IGNORE, ierr)
  else
    call MPI_Comm_spawn_multiple(3, junk_cmds, junk_argvs, junk_maxprocs, junk_infos, 0, MPI_COMM_WORLD, ic, &
        MPI_ERRCODES_IGNORE, ierr)
  end if
  deallocate(junk, junk_cmds, junk_argvs, junk_maxprocs, junk_infos)
  call check(ierr == MPI_SUCCESS, 'spawn_multiple: ierr')
  call MPI_Comm_remote_size(ic, n, ierr)
  call check(n == 3, 'spawn_multiple: remote size')
  call collect(ic, n)

  ! 3. MPI_ARGV_NULL at the root, from each rank alone
  call MPI_Comm_spawn(me, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, ic, MPI_ERRCODES_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'spawn self: ierr')
  call MPI_Comm_remote_size(ic, n, ierr)
  call check(n == 1, 'spawn self: remote size')
  if (n == 1) then
    call MPI_Recv(got, 2, MPI_INTEGER, 0, 7, ic, st, ierr)
    call check(got(1) == 0, 'spawn self: the child found errors')
    call check(got(2) == 1, 'spawn self: the child sees a parent group not of 1')
  end if
  call MPI_Comm_disconnect(ic, ierr)

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', ' No Errors'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      errs = errs + 1
      print '(a,i0,a,a)', 'rank ', rank, ': ', what
    end if
  end subroutine

  ! parent rank 0 hears from every child: (its errors, its parent group's size)
  subroutine collect(ic, n)
    integer, intent(inout) :: ic
    integer, intent(in) :: n
    integer :: c
    if (rank == 0) then
      do c = 0, n - 1
        call MPI_Recv(got, 2, MPI_INTEGER, c, 7, ic, st, ierr)
        call check(got(1) == 0, 'a child found errors')
        call check(got(2) == nprocs, 'a child sees a parent group of the wrong size')
      end do
    end if
    call MPI_Comm_disconnect(ic, ierr)
  end subroutine

  subroutine child(parent)
    integer, intent(inout) :: parent
    integer :: crank, csize, nargs, psize, res(2), cerrs, flag_i
    integer(kind=MPI_ADDRESS_KIND) :: appnum
    logical :: flag
    character(len=64) :: a1, a2, a3, a4
    integer :: l2, l4
    cerrs = 0
    call MPI_Comm_rank(MPI_COMM_WORLD, crank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, csize, ierr)
    call MPI_Comm_remote_size(parent, psize, ierr)
    nargs = command_argument_count()
    a1 = ' '
    a2 = ' '
    a3 = ' '
    a4 = ' '
    l2 = -1
    l4 = -1
    if (nargs >= 1) call get_command_argument(1, a1)
    if (nargs >= 2) call get_command_argument(2, a2, l2)
    if (nargs >= 3) call get_command_argument(3, a3)
    if (nargs >= 4) call get_command_argument(4, a4, l4)
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, appnum, flag, ierr)
    flag_i = 0
    if (flag) flag_i = 1
    select case (trim(a1))
    case ('single')
      if (nargs /= 4 .or. a2 /= 'two words' .or. l2 /= 9 .or. a3 /= 'last' .or. csize /= 2) cerrs = cerrs + 1
      if (a4 /= ' lead' .or. l4 /= 5) cerrs = cerrs + 1
    case ('multi0')
      if (nargs /= 2 .or. a2 /= 'a b c' .or. l2 /= 5 .or. csize /= 3) cerrs = cerrs + 1
      if (flag_i /= 1 .or. appnum /= 0) cerrs = cerrs + 1
    case ('multi1')
      if (nargs /= 1 .or. csize /= 3 .or. crank == 0) cerrs = cerrs + 1
      if (flag_i /= 1 .or. appnum /= 1) cerrs = cerrs + 1
    case default
      if (nargs /= 0 .or. csize /= 1) cerrs = cerrs + 1
    end select
    if (cerrs /= 0) print '(a,i0,a,i0,6a)', 'child ', crank, ': ', nargs, ' arguments [', trim(a1), '] [', &
        trim(a2), '] [', trim(a3)
    res(1) = cerrs
    res(2) = psize
    call MPI_Send(res, 2, MPI_INTEGER, 0, 7, parent, ierr)
    call MPI_Comm_disconnect(parent, ierr)
  end subroutine
end program
