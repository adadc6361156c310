! SPDX-License-Identifier: BSD-3-Clause
! f77_io.f: MPI-IO and generalized requests through mpif.h (INTEGER
! file handles, fixed form).  Each rank writes a strided row of an
! array through a vector type (write_at) and reads it back, then all
! write interleaved through a file view (set_view, write_at_all) and
! rank 0 checks the file; get_view, close (MPI_FILE_NULL after),
! delete, and MPI_GREQUEST_START with Fortran callbacks.
! Rank 0 prints "No Errors" when all checks passed.
      subroutine gquery(extra, status, ierror)
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      integer status(MPI_STATUS_SIZE), ierror
      status(MPI_SOURCE) = int(extra)
      status(MPI_TAG) = 77
      status(MPI_ERROR) = 0
      ierror = 0
      end
      subroutine gfree(extra, ierror)
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      integer ierror, nfree
      common /f77iocb/ nfree
      if (extra .gt. 0) nfree = nfree + 1
      ierror = 0
      end
      subroutine gcancel(extra, complete, ierror)
      include 'mpif.h'
      integer(kind=MPI_ADDRESS_KIND) extra
      logical complete
      integer ierror
      ierror = 0
      end

      program f77io
      implicit none
      include 'mpif.h'
      integer n
      parameter (n=4)
      integer a(10,n), b(n), whole(64), rank, nprocs, i, r, ierr
      integer fh, fh2, row, ftype, etype, ft2, greq, errs, nfree, cnt
      integer st(MPI_STATUS_SIZE)
      integer(kind=MPI_OFFSET_KIND) disp, zero
      integer(kind=MPI_ADDRESS_KIND) extra, lb, ext
      character*(MPI_MAX_DATAREP_STRING) rep
      character*64 fname
      common /f77iocb/ nfree
      external gquery, gfree, gcancel
      errs = 0
      nfree = 0
      zero = 0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      i = getpid()
      call MPI_BCAST(i, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      write (fname, '(a,i0,a)') '/tmp/lc_f77_io_', i, '.dat'
      do i = 1, n
        do r = 1, 10
          a(r, i) = 1000 * rank + 10 * i + r
        end do
      end do
      call MPI_FILE_OPEN(MPI_COMM_WORLD, fname,
     &     MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
      if (ierr .ne. MPI_SUCCESS .or. fh .eq. MPI_FILE_NULL) then
        errs = errs + 1
        print *, 'FAIL: open'
      end if
      call MPI_TYPE_VECTOR(n, 1, 10, MPI_INTEGER, row, ierr)
      call MPI_TYPE_COMMIT(row, ierr)
      disp = rank * n * 4
      call MPI_FILE_WRITE_AT(fh, disp, a(3, 1), 1, row, st, ierr)
      call MPI_GET_COUNT(st, MPI_INTEGER, cnt, ierr)
      if (ierr .ne. MPI_SUCCESS .or. cnt .ne. n) then
        errs = errs + 1
        print *, 'FAIL: write_at'
      end if
      call MPI_FILE_READ_AT(fh, disp, b, n, MPI_INTEGER, st, ierr)
      do i = 1, n
        if (b(i) .ne. a(3, i)) then
          errs = errs + 1
          print *, 'FAIL: read_at', i, b(i)
        end if
      end do
      call MPI_FILE_SYNC(fh, ierr)
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      lb = 0
      ext = nprocs * 4
      call MPI_TYPE_CREATE_RESIZED(MPI_INTEGER, lb, ext, ftype, ierr)
      call MPI_TYPE_COMMIT(ftype, ierr)
      disp = rank * 4
      call MPI_FILE_SET_VIEW(fh, disp, MPI_INTEGER, ftype, 'native',
     &     MPI_INFO_NULL, ierr)
      call MPI_FILE_GET_VIEW(fh, disp, etype, ft2, rep, ierr)
      if (disp .ne. rank * 4 .or. etype .ne. MPI_INTEGER
     &    .or. rep .ne. 'native') then
        errs = errs + 1
        print *, 'FAIL: get_view ', rep
      end if
      if (ft2 .ne. ftype) call MPI_TYPE_FREE(ft2, ierr)
      do i = 1, n
        b(i) = a(5, i)
      end do
      call MPI_FILE_WRITE_AT_ALL(fh, zero, b, n, MPI_INTEGER,
     &     MPI_STATUS_IGNORE, ierr)
      call MPI_FILE_SYNC(fh, ierr)
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        call MPI_FILE_OPEN(MPI_COMM_SELF, fname, MPI_MODE_RDONLY,
     &       MPI_INFO_NULL, fh2, ierr)
        call MPI_FILE_READ_AT(fh2, zero, whole, nprocs * n,
     &       MPI_INTEGER, st, ierr)
        do r = 0, nprocs - 1
          do i = 1, n
            if (whole((i-1)*nprocs + r + 1) .ne.
     &          1000 * r + 10 * i + 5) then
              errs = errs + 1
              print *, 'FAIL: interleaved', r, i
            end if
          end do
        end do
        call MPI_FILE_CLOSE(fh2, ierr)
      end if
      call MPI_FILE_CLOSE(fh, ierr)
      if (ierr .ne. MPI_SUCCESS .or. fh .ne. MPI_FILE_NULL) then
        errs = errs + 1
        print *, 'FAIL: close'
      end if
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        call MPI_FILE_DELETE(fname, MPI_INFO_NULL, ierr)
        if (ierr .ne. MPI_SUCCESS) errs = errs + 1
      end if
      call MPI_TYPE_FREE(row, ierr)
      call MPI_TYPE_FREE(ftype, ierr)
      extra = 40 + rank
      call MPI_GREQUEST_START(gquery, gfree, gcancel, extra, greq,
     &     ierr)
      call MPI_GREQUEST_COMPLETE(greq, ierr)
      call MPI_WAIT(greq, st, ierr)
      if (st(MPI_SOURCE) .ne. 40 + rank .or. st(MPI_TAG) .ne. 77
     &    .or. nfree .ne. 1 .or. greq .ne. MPI_REQUEST_NULL) then
        errs = errs + 1
        print *, 'FAIL: grequest', st(MPI_SOURCE), nfree
      end if
!     MPI_DISPLACEMENT_CURRENT is INTEGER(KIND=MPI_OFFSET_KIND) (MPI 4.1
!     A.1.1): a default INTEGER given as MPI_FILE_SET_VIEW's DISP had 4
!     stray bytes read after it (MPICH's f77/io/setviewcurf)
      if (kind(MPI_DISPLACEMENT_CURRENT) .ne. MPI_OFFSET_KIND) then
        errs = errs + 1
        print *, 'FAIL: kind of MPI_DISPLACEMENT_CURRENT'
      end if
      call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. errs .eq. 0) print '(a)', ' No Errors'
      call MPI_FINALIZE(ierr)
      end
