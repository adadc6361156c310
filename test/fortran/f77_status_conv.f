! SPDX-License-Identifier: BSD-3-Clause
! f77_status_conv.f: MPI_STATUS_F082F and MPI_STATUS_F2F08 (MPI 4.1
! §19.3.5) from mpif.h, both ways, on a status a receive filled.
! mpif.h declares no TYPE(MPI_Status): a program mixing the interfaces
! takes mpi_f08's.  2 ranks; rank 0 prints "No Errors".
      PROGRAM F77STATUSCONV
      USE MPI_F08, ONLY: MPI_Status
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER FST(MPI_STATUS_SIZE), BACK(MPI_STATUS_SIZE), BUF(2)
      INTEGER IERR, N, RANK, ERRS, I
      TYPE(MPI_Status) ST08

      ERRS = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      IF (RANK .EQ. 1) THEN
         BUF(1) = 4
         BUF(2) = 5
         CALL MPI_SEND(BUF, 2, MPI_INTEGER, 0, 43, MPI_COMM_WORLD, IERR)
      ELSE IF (RANK .EQ. 0) THEN
         CALL MPI_RECV(BUF, 2, MPI_INTEGER, MPI_ANY_SOURCE, 43,
     &        MPI_COMM_WORLD, FST, IERR)
         IERR = -1
         CALL MPI_STATUS_F2F08(FST, ST08, IERR)
         IF (IERR .NE. MPI_SUCCESS .OR. ST08%MPI_SOURCE .NE. 1 .OR.
     &       ST08%MPI_TAG .NE. 43) THEN
            ERRS = ERRS + 1
            PRINT *, 'MPI_STATUS_F2F08', ST08%MPI_SOURCE, ST08%MPI_TAG,
     &           IERR
         END IF
         DO I = 1, MPI_STATUS_SIZE
            BACK(I) = -7
         END DO
         CALL PMPI_STATUS_F082F(ST08, BACK, IERR)
         CALL MPI_GET_COUNT(BACK, MPI_INTEGER, N, IERR)
         DO I = 1, MPI_STATUS_SIZE
            IF (BACK(I) .NE. FST(I)) ERRS = ERRS + 1
         END DO
         IF (IERR .NE. MPI_SUCCESS .OR. N .NE. 2) THEN
            ERRS = ERRS + 1
            PRINT *, 'PMPI_STATUS_F082F', BACK, FST, N, IERR
         END IF
      END IF
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ERRS, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0 .AND. ERRS .EQ. 0) PRINT '(A)', ' No Errors'
      CALL MPI_FINALIZE(IERR)
      END
