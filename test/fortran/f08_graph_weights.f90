! SPDX-License-Identifier: BSD-3-Clause
! f08_graph_weights.f90: `use mpi_f08`: MPI_UNWEIGHTED and
! MPI_WEIGHTS_EMPTY (INTEGER, DIMENSION(1) variables under MPICH's link
! names, recognised by address in the glue: lc_f_weights) in
! MPI_Dist_graph_create_adjacent and MPI_Dist_graph_create.  A ring made
! with MPI_UNWEIGHTED must say it is unweighted; with weights, give them
! back; with MPI_WEIGHTS_EMPTY on the ranks without edges, be weighted.
! Built by Locus and by mpif90.mpich (MPICH's mpi_f08 references the
! variables in libmpichfort: Locus's libmpifort must have them).  3 ranks.
program f08graphweights
  use mpi_f08
  implicit none
  integer :: errs, rank, np, indeg, outdeg, srcs(1), dsts(1), sw(1), dw(1)
  integer :: n, degrees(3), targets(3), weights(3)
  logical :: weighted
  type(MPI_Comm) :: g

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  srcs(1) = mod(rank + np - 1, np)
  dsts(1) = mod(rank + 1, np)

  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, &
                                      MPI_INFO_NULL, .false., g)
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted)
  if (indeg /= 1 .or. outdeg /= 1 .or. weighted) then
    errs = errs + 1
    print *, 'MPI_UNWEIGHTED ring: degrees ', indeg, outdeg, ' weighted ', weighted
  end if
  call MPI_Comm_free(g)

  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, [10 + srcs(1)], 1, dsts, [20 + rank], &
                                      MPI_INFO_NULL, .false., g)
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted)
  if (.not. weighted) then
    errs = errs + 1
    print *, 'weighted ring: not weighted'
  end if
  call MPI_Dist_graph_neighbors(g, 1, srcs, sw, 1, dsts, dw)
  if (sw(1) /= 10 + srcs(1) .or. dw(1) /= 20 + rank) then
    errs = errs + 1
    print *, 'weighted ring: weights ', sw(1), dw(1)
  end if
  call MPI_Comm_free(g)

  ! rank 0 gives every edge 0->r (weight r); the others no edges, with
  ! MPI_WEIGHTS_EMPTY: the graph is weighted
  n = 0
  if (rank == 0) then
    n = 1
    degrees(1) = np - 1
    targets(1:np - 1) = [(n, n = 1, np - 1)]
    weights(1:np - 1) = targets(1:np - 1)
    n = 1
    call MPI_Dist_graph_create(MPI_COMM_WORLD, n, [0], degrees, targets, weights, MPI_INFO_NULL, .false., g)
  else
    call MPI_Dist_graph_create(MPI_COMM_WORLD, 0, srcs, degrees, targets, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, &
                               .false., g)
  end if
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted)
  if (.not. weighted .or. indeg /= merge(0, 1, rank == 0) .or. outdeg /= merge(np - 1, 0, rank == 0)) then
    errs = errs + 1
    print *, 'MPI_WEIGHTS_EMPTY graph: degrees ', indeg, outdeg, ' weighted ', weighted
  end if
  if (rank /= 0) then
    call MPI_Dist_graph_neighbors(g, 1, srcs, sw, 0, dsts, dw)
    if (srcs(1) /= 0 .or. sw(1) /= rank) then
      errs = errs + 1
      print *, 'MPI_WEIGHTS_EMPTY graph: source ', srcs(1), ' weight ', sw(1)
    end if
  end if
  call MPI_Comm_free(g)

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
