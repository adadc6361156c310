! SPDX-License-Identifier: BSD-3-Clause
! f77_info.f: info keys and values from Fortran (mpif.h, 1 rank).
! MPI 4.1 chapter 10: in Fortran, leading and trailing blanks of keys
! and values are stripped (Locus stripped trailing ones: ' k' was a key
! of its own), and MPI_INFO_GET on a key that is not there sets FLAG
! false and leaves VALUE as it was (Locus blanked it).  Found by MPICH's
! f77/info/infotest2f.  Prints "No Errors" when every check passed.
      PROGRAM F77INFO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, ERRS, INFO, NKEYS, VLEN, BUFLEN
      LOGICAL FLAG
      CHARACTER*(MPI_MAX_INFO_KEY) KEY
      CHARACTER*(MPI_MAX_INFO_VAL) VAL
      ERRS = 0
      CALL MPI_INIT(IERR)
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL MPI_INFO_SET(INFO, '  Lead Key', ' lead value  ', IERR)
      CALL MPI_INFO_SET(INFO, 'plain', 'v', IERR)
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS, IERR)
      IF (NKEYS .NE. 2) CALL FAIL(ERRS, 'two keys')
!     the key is stored without its blanks
      CALL MPI_INFO_GET_NTHKEY(INFO, 0, KEY, IERR)
      IF (KEY .NE. 'Lead Key') CALL FAIL(ERRS, 'nthkey: ' // KEY)
!     ... and found with or without them; the value has none either
      VAL = 'unchanged'
      CALL MPI_INFO_GET(INFO, 'Lead Key', MPI_MAX_INFO_VAL, VAL,
     &                  FLAG, IERR)
      IF (.NOT. FLAG .OR. VAL .NE. 'lead value')
     &   CALL FAIL(ERRS, 'get Lead Key: ' // VAL)
      CALL MPI_INFO_GET(INFO, ' Lead Key ', MPI_MAX_INFO_VAL, VAL,
     &                  FLAG, IERR)
      IF (.NOT. FLAG .OR. VAL .NE. 'lead value')
     &   CALL FAIL(ERRS, 'get  Lead Key : ' // VAL)
      CALL MPI_INFO_GET_VALUELEN(INFO, '   Lead Key', VLEN, FLAG, IERR)
      IF (.NOT. FLAG .OR. VLEN .NE. 10) CALL FAIL(ERRS, 'valuelen')
      BUFLEN = MPI_MAX_INFO_VAL
      VAL = ' '
      CALL MPI_INFO_GET_STRING(INFO, ' Lead Key', BUFLEN, VAL, FLAG,
     &                         IERR)
      IF (.NOT. FLAG .OR. VAL .NE. 'lead value')
     &   CALL FAIL(ERRS, 'get_string: ' // VAL)
!     a key that is not there leaves VAL alone
      VAL = 'unchanged'
      CALL MPI_INFO_GET(INFO, 'absent', MPI_MAX_INFO_VAL, VAL, FLAG,
     &                  IERR)
      IF (FLAG) CALL FAIL(ERRS, 'absent key found')
      IF (VAL .NE. 'unchanged') CALL FAIL(ERRS, 'overwritten: ' // VAL)
!     deleting with leading blanks deletes the key
      CALL MPI_INFO_DELETE(INFO, '  Lead Key', IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(ERRS, 'delete')
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS, IERR)
      IF (NKEYS .NE. 1) CALL FAIL(ERRS, 'one key left')
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (ERRS .EQ. 0) PRINT '(A)', ' No Errors'
      IF (ERRS .NE. 0) STOP 1
      END

      SUBROUTINE FAIL(ERRS, WHAT)
      INTEGER ERRS
      CHARACTER*(*) WHAT
      ERRS = ERRS + 1
      PRINT '(2A)', ' FAIL: ', WHAT
      END
