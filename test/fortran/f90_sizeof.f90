! SPDX-License-Identifier: BSD-3-Clause
! f90_sizeof.f90: `use mpi`: MPI_SIZEOF over every intrinsic type and
! kind gfortran has, scalars and arrays of rank 1 to 3 (a section, a
! zero-size array), each the size of one element; MPI_ALLOC_MEM and the
! window allocators with a TYPE(C_PTR) base pointer (the _CPTR specifics,
! MPI 4.1 §19.1.5) and with the INTEGER(KIND=MPI_ADDRESS_KIND) one; the
! _CPTR names called as such.  Run on 2 ranks; rank 0 prints "No Errors".
module sizeof_checks
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

program f90sizeof
  use mpi
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer, c_associated, c_null_ptr
  use sizeof_checks
  implicit none
  integer(kind=1) :: i1, i1v(3)
  integer(kind=2) :: i2, i2m(2, 2)
  integer(kind=4) :: i4, i4c(2, 3, 4)
  integer(kind=8) :: i8v(0)
  integer(kind=16) :: i16, i16v(2)
  real(kind=4) :: r4v(5)
  real(kind=8) :: r8m(3, 3)
  real(kind=10) :: r10
  real(kind=16) :: r16v(2)
  double precision :: dp
  complex(kind=4) :: c4
  complex(kind=8) :: c8v(2)
  complex(kind=10) :: c10
  complex(kind=16) :: c16m(1, 2)
  logical(kind=1) :: l1
  logical(kind=2) :: l2v(4)
  logical :: l4
  logical(kind=8) :: l8v(2, 2)
  logical(kind=16) :: l16
  character :: ch, chv(6)
  character(len=5) :: ch5(2)
  character(kind=4) :: u
  integer :: ierr, rank, np, sz, tsz, win, i, disp
  integer(kind=MPI_ADDRESS_KIND) :: bytes, addr, qsize
  type(c_ptr) :: p, q
  integer, pointer :: a(:, :), w(:), nb(:)
  double precision, pointer :: d(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)

  ! against the MPI datatypes of the same size
  call MPI_SIZEOF(i1, sz, ierr)
  call MPI_Type_size(MPI_INTEGER1, tsz, ierr)
  call expect(sz, tsz, 'INTEGER(1)')
  call MPI_SIZEOF(i1v, sz, ierr)
  call expect(sz, tsz, 'INTEGER(1) array')
  call MPI_SIZEOF(i2m, sz, ierr)
  call MPI_Type_size(MPI_INTEGER2, tsz, ierr)
  call expect(sz, tsz, 'INTEGER(2) rank 2')
  call MPI_SIZEOF(i2, sz, ierr)
  call expect(sz, tsz, 'INTEGER(2)')
  call MPI_SIZEOF(i4, sz, ierr)
  call MPI_Type_size(MPI_INTEGER, tsz, ierr)
  call expect(sz, tsz, 'INTEGER')
  call MPI_SIZEOF(i4c, sz, ierr)
  call expect(sz, tsz, 'INTEGER rank 3')
  call MPI_SIZEOF(i4c(2, :, 3), sz, ierr)
  call expect(sz, tsz, 'INTEGER section')
  call MPI_SIZEOF(i8v, sz, ierr)
  call MPI_Type_size(MPI_INTEGER8, tsz, ierr)
  call expect(sz, tsz, 'INTEGER(8) zero-size array')
  call MPI_SIZEOF(r4v, sz, ierr)
  call MPI_Type_size(MPI_REAL, tsz, ierr)
  call expect(sz, tsz, 'REAL array')
  call MPI_SIZEOF(r8m, sz, ierr)
  call MPI_Type_size(MPI_REAL8, tsz, ierr)
  call expect(sz, tsz, 'REAL(8) rank 2')
  call MPI_SIZEOF(dp, sz, ierr)
  call MPI_Type_size(MPI_DOUBLE_PRECISION, tsz, ierr)
  call expect(sz, tsz, 'DOUBLE PRECISION')
  call MPI_SIZEOF(r16v, sz, ierr)
  call MPI_Type_size(MPI_REAL16, tsz, ierr)
  call expect(sz, tsz, 'REAL(16) array')
  call MPI_SIZEOF(c4, sz, ierr)
  call MPI_Type_size(MPI_COMPLEX, tsz, ierr)
  call expect(sz, tsz, 'COMPLEX')
  call MPI_SIZEOF(c8v, sz, ierr)
  call MPI_Type_size(MPI_DOUBLE_COMPLEX, tsz, ierr)
  call expect(sz, tsz, 'COMPLEX(8) array')
  call MPI_SIZEOF(c16m, sz, ierr)
  call MPI_Type_size(MPI_COMPLEX32, tsz, ierr)
  call expect(sz, tsz, 'COMPLEX(16) rank 2')
  call MPI_SIZEOF(l4, sz, ierr)
  call MPI_Type_size(MPI_LOGICAL, tsz, ierr)
  call expect(sz, tsz, 'LOGICAL')
  call MPI_SIZEOF(ch, sz, ierr)
  call MPI_Type_size(MPI_CHARACTER, tsz, ierr)
  call expect(sz, tsz, 'CHARACTER')
  call MPI_SIZEOF(chv, sz, ierr)
  call expect(sz, tsz, 'CHARACTER array')
  ! no MPI datatype of these: the machine's sizes (x86-64 gfortran)
  call MPI_SIZEOF(i16, sz, ierr)
  call expect(sz, 16, 'INTEGER(16)')
  call MPI_SIZEOF(i16v, sz, ierr)
  call expect(sz, 16, 'INTEGER(16) array')
  call MPI_SIZEOF(r10, sz, ierr)
  call expect(sz, 16, 'REAL(10)')
  call MPI_SIZEOF(c10, sz, ierr)
  call expect(sz, 32, 'COMPLEX(10)')
  call MPI_SIZEOF(l1, sz, ierr)
  call expect(sz, 1, 'LOGICAL(1)')
  call MPI_SIZEOF(l2v, sz, ierr)
  call expect(sz, 2, 'LOGICAL(2) array')
  call MPI_SIZEOF(l8v, sz, ierr)
  call expect(sz, 8, 'LOGICAL(8) rank 2')
  call MPI_SIZEOF(l16, sz, ierr)
  call expect(sz, 16, 'LOGICAL(16)')
  call MPI_SIZEOF(ch5, sz, ierr)
  call expect(sz, 5, 'CHARACTER(LEN=5) array')
  call MPI_SIZEOF(u, sz, ierr)
  call expect(sz, 4, 'CHARACTER(KIND=4)')
  ierr = -1
  call MPI_SIZEOF(r10, sz, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_SIZEOF ierror')

  ! MPI_ALLOC_MEM, TYPE(C_PTR) form (f90/misc/alloc_mem's way)
  bytes = 4 * 100 * 100
  p = c_null_ptr
  call MPI_ALLOC_MEM(bytes, MPI_INFO_NULL, p, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_ALLOC_MEM(C_PTR)')
  if (.not. c_associated(p)) call expect(0, 1, 'MPI_ALLOC_MEM(C_PTR) gave NULL')
  call c_f_pointer(p, a, [100, 100])
  a = 7
  a(3, 5) = 35
  call expect(sum(a) - 7 * 10000, 28, 'memory of MPI_ALLOC_MEM(C_PTR)')
  call MPI_FREE_MEM(a, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_FREE_MEM')
  ! the INTEGER(KIND=MPI_ADDRESS_KIND) form (Cray pointers) still works
  addr = 0
  call MPI_ALLOC_MEM(8_MPI_ADDRESS_KIND * 10, MPI_INFO_NULL, addr, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_ALLOC_MEM(address)')
  if (addr == 0) call expect(0, 1, 'MPI_ALLOC_MEM(address) gave 0')
  call c_f_pointer(transfer(addr, p), d, [10])
  d = 2.5d0
  call expect(int(sum(d) * 2), 50, 'memory of MPI_ALLOC_MEM(address)')
  call MPI_FREE_MEM(d, ierr)
  ! the specific name itself (MPI 4.1 §19.1.5)
  q = c_null_ptr
  call MPI_ALLOC_MEM_CPTR(bytes, MPI_INFO_NULL, q, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. c_associated(q)) call expect(0, 1, 'MPI_ALLOC_MEM_CPTR')
  call c_f_pointer(q, w, [10])
  w = 1
  call MPI_FREE_MEM(w, ierr)

  ! windows: each rank's base through C_PTR, a Put from the other rank
  call MPI_WIN_ALLOCATE(4_MPI_ADDRESS_KIND * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_WIN_ALLOCATE(C_PTR)')
  call c_f_pointer(p, w, [4])
  w = -1
  call MPI_Win_fence(0, win, ierr)
  i = 100 + rank
  call MPI_Put(i, 1, MPI_INTEGER, mod(rank + 1, np), 2_MPI_ADDRESS_KIND, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_F_SYNC_REG(w)  ! (w is not an argument of the fence: no cached value)
  call expect(w(3), 100 + mod(rank + np - 1, np), 'Put into MPI_WIN_ALLOCATE(C_PTR) memory')
  call expect(w(1), -1, 'MPI_WIN_ALLOCATE(C_PTR) memory, untouched')
  call MPI_Win_free(win, ierr)

  ! shared memory: write through the neighbour's base from
  ! MPI_WIN_SHARED_QUERY(C_PTR)
  call MPI_WIN_ALLOCATE_SHARED(4_MPI_ADDRESS_KIND * 2, 4, MPI_INFO_NULL, MPI_COMM_WORLD, p, win, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_WIN_ALLOCATE_SHARED(C_PTR)')
  call c_f_pointer(p, w, [2])
  w = 0
  call MPI_F_SYNC_REG(w)
  call MPI_WIN_SHARED_QUERY(win, mod(rank + 1, np), qsize, disp, q, ierr)
  call expect(ierr, MPI_SUCCESS, 'MPI_WIN_SHARED_QUERY(C_PTR)')
  call expect(int(qsize), 8, 'MPI_WIN_SHARED_QUERY size')
  call expect(disp, 4, 'MPI_WIN_SHARED_QUERY disp_unit')
  call c_f_pointer(q, nb, [2])
  call MPI_Win_fence(0, win, ierr)
  nb(2) = 500 + rank
  call MPI_F_SYNC_REG(nb)
  call MPI_Win_fence(0, win, ierr)
  call MPI_F_SYNC_REG(w)
  call expect(w(2), 500 + mod(rank + np - 1, np), 'store through MPI_WIN_SHARED_QUERY(C_PTR)')
  call MPI_Win_free(win, ierr)

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (errs == 0) then
      print '(a)', ' No Errors'
    else
      print '(a,i0,a)', ' Found ', errs, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
end program
