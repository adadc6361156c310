/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spawn — MPI_Comm_spawn, MPI_Comm_spawn_multiple, MPI_Comm_get_parent
 * and MPI_APPNUM (MPI 4.1 §11.8; docs/dynamic.md).
 *
 * Parents (any number of ranks):
 *   1. spawn 2 copies of this program with arguments (one with spaces and
 *      '='): the children check their arguments, parent, appnum; message
 *      both ways, merge (parents low) and allreduce; disconnect;
 *   2. spawn_multiple: 1 + 2 processes of two commands, appnums 0 and 1,
 *      errcodes all MPI_SUCCESS; a child of command 0 spawns one
 *      grandchild (one level), which sends it a value;
 *   3. a missing command: MPI_ERR_SPAWN on every parent, no intercomm,
 *      errcodes set.
 * A child's role comes from its arguments.  Skipped when the library is
 * MPICH (Debian's 4.0.2 cannot spawn with ch4:ucx).
 */
#include "lc_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *arg_odd = "a b=c  d";

/* Child of step 1: argv = child1 <arg_odd> */
static int child1(int argc, char **argv, MPI_Comm parent)
{
    int rank, size, rsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    LC_CHECK(argc == 3 && !strcmp(argv[2], arg_odd), "child1: argc %d argv[2] '%s'", argc, argc > 2 ? argv[2] : "");
    LC_CHECK(size == 2, "child1: world size %d", size);
    MPI_Comm_remote_size(parent, &rsize);
    int got = -1, mine = 500 + rank;
    LC_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 1, parent, MPI_STATUS_IGNORE));
    LC_CHECK(got == 77, "child1: got %d from the parent", got);
    LC_MPI(MPI_Send(&mine, 1, MPI_INT, 0, 2, parent));
    MPI_Comm m;
    int mrank, msum = 0, msize;
    LC_MPI(MPI_Intercomm_merge(parent, 1, &m));
    MPI_Comm_rank(m, &mrank);
    MPI_Comm_size(m, &msize);
    LC_CHECK(mrank == rsize + rank, "child1: merged rank %d", mrank);
    LC_MPI(MPI_Allreduce(&mrank, &msum, 1, MPI_INT, MPI_SUM, m));
    LC_CHECK(msum == msize * (msize - 1) / 2, "child1: merged sum %d", msum);
    LC_MPI(MPI_Comm_free(&m));
    LC_MPI(MPI_Comm_disconnect(&parent));
    MPI_Comm p2;
    MPI_Comm_get_parent(&p2);
    LC_CHECK(p2 == MPI_COMM_NULL, "child1: parent after disconnect");
    return 0;
}

/* Children of step 2: argv = child2 <cmd index>; command 0's rank 0
 * spawns a grandchild. */
static int child2(int argc, char **argv, MPI_Comm parent)
{
    int rank, size, *appnum = NULL, flag = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    LC_CHECK(size == 3, "child2: world size %d", size);
    int cmd = argc > 2 ? atoi(argv[2]) : -1;
    LC_CHECK(cmd == (rank == 0 ? 0 : 1), "child2 rank %d: command %d", rank, cmd);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    LC_CHECK(flag && *appnum == cmd, "child2 rank %d: appnum %d (flag %d), want %d", rank, flag ? *appnum : -1, flag,
             cmd);
    /* Grandchild, from the child of command 0 alone. */
    if (cmd == 0) {
        MPI_Comm gc;
        int code = -1, v = 0;
        char *gargv[] = { "grandchild", NULL };
        LC_MPI(MPI_Comm_spawn(argv[0], gargv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &gc, &code));
        LC_CHECK(code == MPI_SUCCESS, "child2: grandchild errcode %d", code);
        LC_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 3, gc, MPI_STATUS_IGNORE));
        LC_CHECK(v == 4711, "child2: grandchild sent %d", v);
        LC_MPI(MPI_Comm_disconnect(&gc));
    }
    int sum = 0;
    LC_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, parent)); /* the parents' ranks */
    LC_MPI(MPI_Comm_disconnect(&parent));
    return 0;
}

static int grandchild(MPI_Comm parent)
{
    int v = 4711;
    LC_MPI(MPI_Send(&v, 1, MPI_INT, 0, 3, parent));
    LC_MPI(MPI_Comm_disconnect(&parent));
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        const char *role = argc > 1 ? argv[1] : "";
        if (!strcmp(role, "child1")) child1(argc, argv, parent);
        else if (!strcmp(role, "child2")) child2(argc, argv, parent);
        else if (!strcmp(role, "grandchild")) grandchild(parent);
        else LC_CHECK(0, "a child with role '%s'", role);
        return lc_finish();
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *usize = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
    LC_CHECK(!flag || *usize >= size, "universe size %d below the world's %d", flag ? *usize : -1, size);

    /* Debian's MPICH 4.0.2 (ch4:ucx) cannot spawn (its ports are not
     * supported with ucx: "Error in spawn call"); test/mpi/README.md. */
    if (lc_library_is_mpich()) {
        if (rank == 0) printf("MPICH (ch4:ucx) cannot spawn: skipped\n");
        return lc_finish();
    }

    /* 1. spawn with arguments */
    MPI_Comm ic;
    int codes[3] = { -1, -1, -1 };
    char *args1[] = { "child1", (char *)arg_odd, NULL };
    LC_MPI(MPI_Comm_spawn(argv[0], rank == 0 ? args1 : NULL, rank == 0 ? 2 : -5, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                          &ic, codes));
    LC_CHECK(codes[0] == MPI_SUCCESS && codes[1] == MPI_SUCCESS, "spawn: errcodes %d %d", codes[0], codes[1]);
    int rsize = 0;
    MPI_Comm_remote_size(ic, &rsize);
    LC_CHECK(rsize == 2, "spawn: remote size %d", rsize);
    if (rank == 0) {
        int v = 77, got[2];
        for (int c = 0; c < 2; c++) LC_MPI(MPI_Send(&v, 1, MPI_INT, c, 1, ic));
        for (int c = 0; c < 2; c++) {
            LC_MPI(MPI_Recv(&got[c], 1, MPI_INT, c, 2, ic, MPI_STATUS_IGNORE));
            LC_CHECK(got[c] == 500 + c, "spawn: child %d sent %d", c, got[c]);
        }
    }
    MPI_Comm m;
    int mrank, msum = 0, msize;
    LC_MPI(MPI_Intercomm_merge(ic, 0, &m));
    MPI_Comm_rank(m, &mrank);
    MPI_Comm_size(m, &msize);
    LC_CHECK(mrank == rank && msize == size + 2, "merge: rank %d size %d", mrank, msize);
    LC_MPI(MPI_Allreduce(&mrank, &msum, 1, MPI_INT, MPI_SUM, m));
    LC_CHECK(msum == msize * (msize - 1) / 2, "merge: sum %d", msum);
    LC_MPI(MPI_Comm_free(&m));
    LC_MPI(MPI_Comm_disconnect(&ic));

    /* 2. spawn_multiple: 1 + 2 processes, appnums 0 and 1 */
    char *cmds[2] = { argv[0], argv[0] };
    char *a0[] = { "child2", "0", NULL }, *a1[] = { "child2", "1", NULL };
    char **argvs[2] = { a0, a1 };
    int maxprocs[2] = { 1, 2 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    LC_MPI(MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, 0, MPI_COMM_WORLD, &ic, codes));
    for (int i = 0; i < 3; i++) LC_CHECK(codes[i] == MPI_SUCCESS, "spawn_multiple: errcode[%d] %d", i, codes[i]);
    MPI_Comm_remote_size(ic, &rsize);
    LC_CHECK(rsize == 3, "spawn_multiple: remote size %d", rsize);
    int sum = 0, r = rank;
    LC_MPI(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, ic)); /* the children's ranks */
    LC_CHECK(sum == 3, "spawn_multiple: children's rank sum %d", sum);
    LC_MPI(MPI_Comm_disconnect(&ic));

    /* 3. a missing command */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ic = MPI_COMM_SELF;
    codes[0] = codes[1] = -1;
    int rc = MPI_Comm_spawn("./no-such-program-h2", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, codes);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_SPAWN || lc_class_of(rc) == MPI_ERR_NO_SUCH_FILE,
             "missing command: class %d (%s)", lc_class_of(rc), lc_err_str(rc));
    LC_CHECK(ic == MPI_COMM_NULL, "missing command: an intercommunicator came back");
    LC_CHECK(codes[0] != MPI_SUCCESS && codes[0] != -1, "missing command: errcode %d", codes[0]);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return lc_finish();
}
