! SPDX-License-Identifier: BSD-3-Clause
! f08_sizeof.f90: `use mpi_f08`: MPI_Sizeof (ierror optional) over the
! intrinsic types and kinds, scalars and arrays; MPI_Alloc_mem with
! TYPE(C_PTR) (MPI 4.1's mpi_f08 form) and with an
! INTEGER(KIND=MPI_ADDRESS_KIND) (kept); MPI_Win_allocate through C_PTR
! in both count forms (an INTEGER(KIND=MPI_ADDRESS_KIND) disp_unit picks
! MPI_Win_allocate_c); MPI_Win_allocate_shared + MPI_Win_shared_query.
! Run on 2 ranks; rank 0 prints "No Errors".
module sizeof08_checks
  implicit none
  integer :: errs = 0
contains
  subroutine expect(got, want, what)
    integer, intent(in) :: got, want
    character(len=*), intent(in) :: what
    if (got /= want) then
      errs = errs + 1
      write (0, '(a,a,a,i0,a,i0)') 'FAIL: ', what, ': ', got, ', want ', want
    end if
  end subroutine
end module

program f08sizeof
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated, c_null_ptr
  use sizeof08_checks
  implicit none
  integer(kind=1) :: i1m(2, 2)
  integer(kind=8) :: i8
  integer(kind=16) :: i16
  real :: r4
  real(kind=10) :: r10v(3)
  real(kind=16) :: r16
  complex(kind=8) :: c8m(2, 2, 2)
  complex(kind=16) :: c16
  logical :: lv(3)
  logical(kind=2) :: l2
  character(len=3) :: ch3
  character(kind=4) :: uv(2)
  integer :: ierr, rank, np, sz, tsz, i, disp
  integer(kind=MPI_ADDRESS_KIND) :: addr, qsize
  type(MPI_Win) :: win
  type(c_ptr) :: p, q
  integer, pointer :: a(:), w(:), nb(:)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)

  call MPI_Sizeof(i1m, sz)
  call MPI_Type_size(MPI_INTEGER1, tsz)
  call expect(sz, tsz, 'INTEGER(1) rank 2')
  call MPI_Sizeof(i8, sz)
  call MPI_Type_size(MPI_INTEGER8, tsz)
  call expect(sz, tsz, 'INTEGER(8)')
  call MPI_Sizeof(r4, sz, ierr)
  call MPI_Type_size(MPI_REAL, tsz)
  call expect(sz, tsz, 'REAL')
  call expect(ierr, MPI_SUCCESS, 'MPI_Sizeof ierror')
  call MPI_Sizeof(r16, sz)
  call MPI_Type_size(MPI_REAL16, tsz)
  call expect(sz, tsz, 'REAL(16)')
  call MPI_Sizeof(c8m, sz)
  call MPI_Type_size(MPI_DOUBLE_COMPLEX, tsz)
  call expect(sz, tsz, 'COMPLEX(8) rank 3')
  call MPI_Sizeof(c16, sz)
  call MPI_Type_size(MPI_COMPLEX32, tsz)
  call expect(sz, tsz, 'COMPLEX(16)')
  call MPI_Sizeof(lv, sz)
  call MPI_Type_size(MPI_LOGICAL, tsz)
  call expect(sz, tsz, 'LOGICAL array')
  call MPI_Sizeof(i16, sz)
  call expect(sz, 16, 'INTEGER(16)')
  call MPI_Sizeof(r10v(2:3), sz)
  call expect(sz, 16, 'REAL(10) section')
  call MPI_Sizeof(l2, sz)
  call expect(sz, 2, 'LOGICAL(2)')
  call MPI_Sizeof(ch3, sz)
  call expect(sz, 3, 'CHARACTER(LEN=3)')
  call MPI_Sizeof(uv, sz)
  call expect(sz, 4, 'CHARACTER(KIND=4) array')

  ! MPI_Alloc_mem: TYPE(C_PTR), then the address form
  p = c_null_ptr
  call MPI_Alloc_mem(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, p, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_Alloc_mem(C_PTR)')
  if (.not. c_associated(p)) call expect(0, 1, 'MPI_Alloc_mem(C_PTR) gave NULL')
  call c_f_pointer(p, a, [10])
  a = [(i, i = 1, 10)]
  call expect(sum(a), 55, 'memory of MPI_Alloc_mem(C_PTR)')
  call MPI_Free_mem(a)
  addr = 0
  call MPI_Alloc_mem(40_MPI_ADDRESS_KIND, MPI_INFO_NULL, addr)
  if (addr == 0) call expect(0, 1, 'MPI_Alloc_mem(address) gave 0')
  call c_f_pointer(transfer(addr, p), a, [10])
  a = 3
  call expect(sum(a), 30, 'memory of MPI_Alloc_mem(address)')
  call MPI_Free_mem(a)

  ! MPI_Win_allocate, default and large-count forms, base through C_PTR
  do i = 1, 2
    if (i == 1) then
      call MPI_Win_allocate(16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
    else
      call MPI_Win_allocate(16_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND, MPI_INFO_NULL, MPI_COMM_WORLD, &
                            p, win, ierr)
    end if
    call expect(ierr, MPI_SUCCESS, 'MPI_Win_allocate(C_PTR)')
    call c_f_pointer(p, w, [4])
    w = -1
    call MPI_F_sync_reg(w)
    call MPI_Win_fence(0, win)
    call MPI_Put([10 * i + rank], 1, MPI_INTEGER, mod(rank + 1, np), 1_MPI_ADDRESS_KIND, 1, &
                 MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    call MPI_F_sync_reg(w)
    call expect(w(2), 10 * i + mod(rank + np - 1, np), 'Put into MPI_Win_allocate(C_PTR) memory')
    call expect(w(1), -1, 'MPI_Win_allocate(C_PTR) memory, untouched')
    call MPI_Win_free(win)
  end do

  call MPI_Win_allocate_shared(8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win)
  call c_f_pointer(p, w, [2])
  w = 0
  call MPI_F_sync_reg(w)
  call MPI_Win_shared_query(win, mod(rank + 1, np), qsize, disp, q, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_Win_shared_query(C_PTR)')
  call expect(int(qsize), 8, 'MPI_Win_shared_query size')
  call c_f_pointer(q, nb, [2])
  call MPI_Win_fence(0, win)
  nb(1) = 700 + rank
  call MPI_F_sync_reg(nb)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(w)
  call expect(w(1), 700 + mod(rank + np - 1, np), 'store through MPI_Win_shared_query(C_PTR)')
  call MPI_Win_free(win)

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
