/* SPDX-License-Identifier: BSD-3-Clause */
/* exit_race: a rank that loses its peer often exits on a fatal error
 * before the launcher hears of the peer's death.  Here rank 1 exits with
 * code 1 at once and rank 0 is killed by SIGKILL 50 ms later: mpiexec must
 * name rank 0's death as the cause (testlist: blame=0), the early exit as a
 * consequence.  Other ranks wait to be ended. */
#include "lc_test.h"

#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = lc_world_rank();
    if (rank == 1) _exit(1);
    if (rank == 0) {
        usleep(50 * 1000);
        raise(SIGKILL);
    }
    for (;;) pause();
}
