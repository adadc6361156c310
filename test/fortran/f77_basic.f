! SPDX-License-Identifier: BSD-3-Clause
! f77_basic.f: FORTRAN 77 with mpif.h (fixed form).  Point-to-point with
! statuses (MPI_STATUS_IGNORE too), a struct datatype sent from
! MPI_BOTTOM, collectives with MPI_IN_PLACE, strings in and out,
! LOGICAL flags, 1-based Waitany indices, attributes and error codes.
! Rank 0 prints "No Errors" when every check passed.
      PROGRAM F77BASIC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, I, ERRS, LEN, NEXT, PREV, CNT
      INTEGER STATUS(MPI_STATUS_SIZE), BUF(10), RBUF(10), REQ(2)
      INTEGER IDX, STYPE, BLENS(2), TYPES(2), ICLASS, ECLASS, ALL
      INTEGER POS
      CHARACTER PBUF(64)
      INTEGER(KIND=MPI_ADDRESS_KIND) DISPS(2), TAGUB
      DOUBLE PRECISION X, T0
      LOGICAL FLAG, ISMPCH
      CHARACTER*(MPI_MAX_LIBRARY_VERSION_STRING) LVER
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) PNAME
      CHARACTER*(MPI_MAX_OBJECT_NAME) CNAME
      CHARACTER*(MPI_MAX_ERROR_STRING) ESTR
      ERRS = 0
      CALL MPI_INIT(IERR)
      CALL MPI_INITIALIZED(FLAG, IERR)
      IF (.NOT. FLAG) CALL FAIL(ERRS, 'MPI_INITIALIZED')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
!     MPICH 4.0.2 bugs are worked around when the library is MPICH
      CALL MPI_GET_LIBRARY_VERSION(LVER, LEN, IERR)
      ISMPCH = INDEX(LVER(1:LEN), 'MPICH') .GT. 0
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(ERRS, 'COMM_SIZE IERR')
      NEXT = MOD(RANK + 1, NP)
      PREV = MOD(RANK + NP - 1, NP)
      T0 = MPI_WTIME()
!     ring: send 10 integers to the next rank, receive with a status
      DO I = 1, 10
         BUF(I) = RANK * 100 + I
         RBUF(I) = -1
      END DO
      CALL MPI_SENDRECV(BUF, 10, MPI_INTEGER, NEXT, 7, RBUF, 10,
     &     MPI_INTEGER, PREV, 7, MPI_COMM_WORLD, STATUS, IERR)
      IF (STATUS(MPI_SOURCE) .NE. PREV) CALL FAIL(ERRS, 'SOURCE')
      IF (STATUS(MPI_TAG) .NE. 7) CALL FAIL(ERRS, 'TAG')
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, CNT, IERR)
      IF (CNT .NE. 10) CALL FAIL(ERRS, 'GET_COUNT')
      DO I = 1, 10
         IF (RBUF(I) .NE. PREV * 100 + I) CALL FAIL(ERRS, 'RING DATA')
      END DO
!     nonblocking, MPI_STATUS_IGNORE, Waitany's index is 1-based
      CALL MPI_IRECV(RBUF, 10, MPI_INTEGER, PREV, 8, MPI_COMM_WORLD,
     &     REQ(1), IERR)
      CALL MPI_ISEND(BUF, 3, MPI_INTEGER, NEXT, 8, MPI_COMM_WORLD,
     &     REQ(2), IERR)
      CALL MPI_WAITANY(2, REQ, IDX, STATUS, IERR)
      IF (IDX .LT. 1 .OR. IDX .GT. 2) CALL FAIL(ERRS, 'WAITANY IDX')
      IF (REQ(IDX) .NE. MPI_REQUEST_NULL) CALL FAIL(ERRS, 'REQ NULL')
      CALL MPI_WAIT(REQ(3 - IDX), MPI_STATUS_IGNORE, IERR)
      CALL MPI_WAITANY(2, REQ, IDX, STATUS, IERR)
!     (MPICH 4.0.2 adds one to MPI_UNDEFINED here)
      IF (ISMPCH .AND. IDX .EQ. MPI_UNDEFINED + 1) IDX = MPI_UNDEFINED
      IF (IDX .NE. MPI_UNDEFINED) CALL FAIL(ERRS, 'WAITANY UNDEF')
      CALL MPI_TEST(REQ(1), FLAG, MPI_STATUS_IGNORE, IERR)
      IF (.NOT. FLAG) CALL FAIL(ERRS, 'TEST FLAG')
!     a struct type with absolute addresses, sent from MPI_BOTTOM
      CALL MPI_GET_ADDRESS(BUF(2), DISPS(1), IERR)
      CALL MPI_GET_ADDRESS(X, DISPS(2), IERR)
      BLENS(1) = 2
      BLENS(2) = 1
      TYPES(1) = MPI_INTEGER
      TYPES(2) = MPI_DOUBLE_PRECISION
      CALL MPI_TYPE_CREATE_STRUCT(2, BLENS, DISPS, TYPES, STYPE, IERR)
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
!     (Locus sends predefined types only: MPI_PACK the struct from
!     MPI_BOTTOM, broadcast the bytes, MPI_UNPACK them to MPI_BOTTOM)
!     (MPICH 4.0.2's MPI_Pack refuses MPI_BOTTOM: "Null pointer in
!     parameter inbuf"; with MPICH that part is skipped)
      POS = 0
      IF (ISMPCH) GO TO 100
      IF (RANK .EQ. 0) THEN
         BUF(2) = 42
         BUF(3) = 43
         X = 2.5D0
         CALL MPI_PACK(MPI_BOTTOM, 1, STYPE, PBUF, 64, POS,
     &        MPI_COMM_WORLD, IERR)
         IF (POS .NE. 16) CALL FAIL(ERRS, 'PACK POSITION')
      ELSE
         BUF(2) = 0
         BUF(3) = 0
         X = 0D0
      END IF
      CALL MPI_BCAST(PBUF, 64, MPI_PACKED, 0, MPI_COMM_WORLD, IERR)
      IF (RANK .NE. 0) THEN
         CALL MPI_UNPACK(PBUF, 64, POS, MPI_BOTTOM, 1, STYPE,
     &        MPI_COMM_WORLD, IERR)
         IF (BUF(2) .NE. 42 .OR. BUF(3) .NE. 43 .OR.
     &        ABS(X - 2.5D0) .GT. 1D-12)
     &        CALL FAIL(ERRS, 'BOTTOM STRUCT')
      END IF
 100  CONTINUE
      CALL MPI_TYPE_FREE(STYPE, IERR)
!     collectives with MPI_IN_PLACE
      BUF(1) = RANK + 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, BUF, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (BUF(1) .NE. NP * (NP + 1) / 2) CALL FAIL(ERRS, 'IN_PLACE')
      BUF(1) = RANK
      IF (RANK .EQ. 0) THEN
         CALL MPI_REDUCE(MPI_IN_PLACE, BUF, 1, MPI_INTEGER, MPI_MAX,
     &        0, MPI_COMM_WORLD, IERR)
         IF (BUF(1) .NE. NP - 1) CALL FAIL(ERRS, 'REDUCE IN_PLACE')
      ELSE
         CALL MPI_REDUCE(BUF, RBUF, 1, MPI_INTEGER, MPI_MAX,
     &        0, MPI_COMM_WORLD, IERR)
      END IF
!     strings: out (blank-padded), in (trailing blanks ignored)
      PNAME = 'x'
      CALL MPI_GET_PROCESSOR_NAME(PNAME, LEN, IERR)
      IF (LEN .LE. 0 .OR. LEN .GT. MPI_MAX_PROCESSOR_NAME)
     &     CALL FAIL(ERRS, 'PROCESSOR NAME LEN')
      IF (LEN .LT. MPI_MAX_PROCESSOR_NAME) THEN
         IF (PNAME(LEN+1:) .NE. ' ') CALL FAIL(ERRS, 'NAME PADDING')
      END IF
      CALL MPI_COMM_SET_NAME(MPI_COMM_WORLD, 'fortran world   ', IERR)
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, CNAME, LEN, IERR)
      IF (LEN .NE. 13 .OR. CNAME .NE. 'fortran world')
     &     CALL FAIL(ERRS, 'COMM NAME')
!     attributes: MPI_TAG_UB's value, not its address
      CALL MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, TAGUB, FLAG,
     &     IERR)
      IF (.NOT. FLAG .OR. TAGUB .LT. 32767) CALL FAIL(ERRS, 'TAG_UB')
!     errors: MPI_ERRORS_RETURN, then a bad rank
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     IERR)
      CALL MPI_SEND(BUF, 1, MPI_INTEGER, NP + 5, 0, MPI_COMM_WORLD,
     &     IERR)
      IF (IERR .EQ. MPI_SUCCESS) CALL FAIL(ERRS, 'BAD RANK ACCEPTED')
      CALL MPI_ERROR_CLASS(IERR, ECLASS, IERR)
      IF (ECLASS .NE. MPI_ERR_RANK) CALL FAIL(ERRS, 'ERR_RANK CLASS')
      CALL MPI_ERROR_STRING(MPI_ERR_RANK, ESTR, LEN, IERR)
      IF (LEN .LE. 0 .OR. ESTR .EQ. ' ') CALL FAIL(ERRS, 'ERR STRING')
      ICLASS = 0
      CALL MPI_TYPE_SIZE(MPI_DATATYPE_NULL, ICLASS, IERR)
      IF (IERR .EQ. MPI_SUCCESS) CALL FAIL(ERRS, 'NULL TYPE SIZE')
      IF (MPI_WTIME() .LT. T0) CALL FAIL(ERRS, 'WTIME')
      CALL MPI_ALLREDUCE(ERRS, ALL, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0 .AND. ALL .EQ. 0) PRINT '(A)', ' No Errors'
      CALL MPI_FINALIZE(IERR)
      IF (ERRS .NE. 0) STOP 1
      END

      SUBROUTINE FAIL(ERRS, WHAT)
      INTEGER ERRS
      CHARACTER*(*) WHAT
      ERRS = ERRS + 1
      WRITE (0, '(A,A)') 'FAIL: ', WHAT
      END
