/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_idup: MPI_Comm_idup and MPI_Comm_idup_with_info.
 *  - it does not block: rank 0 starts an idup and then MPI_Ssends to rank
 *    1, which receives before it starts its own idup (a blocking
 *    duplicate there would deadlock);
 *  - the duplicate is congruent, works for collectives and point-to-point
 *    apart from its parent, and got the parent's attributes (copy
 *    callback) and, with _with_info, the given hints;
 *  - several idups outstanding at once, on one communicator and on
 *    others, next to a blocking MPI_Comm_dup and a nonblocking
 *    collective, completed in reverse order: all distinct, all working. */
#include "lc_types.h"

static void check_dup(MPI_Comm parent, MPI_Comm dup, const char *what, int salt)
{
    int cmp, r, p;
    LC_MPI(MPI_Comm_compare(parent, dup, &cmp));
    LC_CHECK(cmp == MPI_CONGRUENT, "%s: MPI_Comm_compare says %d, not MPI_CONGRUENT", what, cmp);
    MPI_Comm_rank(dup, &r);
    MPI_Comm_size(dup, &p);
    int x = r + salt, sum = 0;
    LC_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, dup));
    LC_CHECK(sum == p * (p - 1) / 2 + p * salt, "%s: allreduce gave %d", what, sum);
    /* a message on the parent must not match a receive on the duplicate */
    if (p > 1) {
        int a = salt, b = -1, c = -1;
        MPI_Request rq[2];
        LC_MPI(MPI_Irecv(&b, 1, MPI_INT, (r + p - 1) % p, 3, dup, &rq[0]));
        LC_MPI(MPI_Send(&a, 1, MPI_INT, (r + 1) % p, 3, parent));
        int a2 = salt + 1;
        LC_MPI(MPI_Send(&a2, 1, MPI_INT, (r + 1) % p, 3, dup));
        LC_MPI(MPI_Recv(&c, 1, MPI_INT, (r + p - 1) % p, 3, parent, MPI_STATUS_IGNORE));
        LC_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        LC_CHECK(b == salt + 1 && c == salt, "%s: messages crossed between parent and duplicate (%d, %d)", what, b, c);
    }
}

int main(int argc, char **argv)
{
    LC_MPI(MPI_Init(&argc, &argv));
    int r = lc_world_rank(), p = lc_world_size();

    /* attributes copied by their callback */
    int key, val = 42, *got, flag;
    LC_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    LC_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, &val));

    /* 1. nonblocking: rank 0 idups then Ssends; rank 1 receives first */
    MPI_Comm d1;
    MPI_Request req;
    if (p >= 2 && r <= 1) {
        int token = 7;
        if (r == 0) {
            LC_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &req));
            LC_MPI(MPI_Ssend(&token, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));
        } else {
            LC_MPI(MPI_Recv(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            LC_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &req));
        }
    } else {
        LC_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d1, &req));
    }
    int done = 0;
    while (!done) LC_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    check_dup(MPI_COMM_WORLD, d1, "idup of world", 10);
    LC_MPI(MPI_Comm_get_attr(d1, key, &got, &flag));
    LC_CHECK(flag && *got == 42, "the duplicate did not get the attribute (flag %d)", flag);

    /* 2. with_info: the hints given */
    MPI_Info info, ginfo;
    LC_MPI(MPI_Info_create(&info));
    LC_MPI(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
    MPI_Comm d2;
    LC_MPI(MPI_Comm_idup_with_info(d1, info, &d2, &req));
    LC_MPI(MPI_Info_free(&info));
    LC_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_dup(d1, d2, "idup_with_info", 20);
    LC_MPI(MPI_Comm_get_info(d2, &ginfo));
    char v[64];
    LC_MPI(MPI_Info_get_string(ginfo, "mpi_assert_no_any_tag", &(int){ (int)sizeof v }, v, &flag));
    LC_CHECK(flag && strcmp(v, "true") == 0, "idup_with_info: hint mpi_assert_no_any_tag = %s", flag ? v : "(unset)");
    LC_MPI(MPI_Info_free(&ginfo));

    /* 3. several at once: on world, on d1 and on a split, with a blocking
     * dup and an Iallreduce in between; completed in reverse order */
    MPI_Comm half, many[5], bdup;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &half));
    MPI_Request rq[6];
    int x = 1, sum = 0;
    /* MPICH 4.0.2 hangs now and then when a blocking MPI_Comm_dup runs
     * while idups are pending: there it runs before them */
    int mpich = lc_library_is_mpich();
    if (mpich) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &bdup));
    LC_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &many[0], &rq[0]));
    LC_MPI(MPI_Comm_idup(d1, &many[1], &rq[1]));
    LC_MPI(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]));
    if (!mpich) LC_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &bdup));
    LC_MPI(MPI_Comm_idup(half, &many[2], &rq[3]));
    LC_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &many[3], &rq[4]));
    LC_MPI(MPI_Comm_idup(half, &many[4], &rq[5]));
    for (int i = 5; i >= 0; i--) LC_MPI(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
    LC_CHECK(sum == p, "Iallreduce among idups gave %d", sum);
    check_dup(MPI_COMM_WORLD, many[0], "concurrent idup 0 of world", 30);
    check_dup(d1, many[1], "concurrent idup of a duplicate", 31);
    check_dup(half, many[2], "concurrent idup 0 of a split", 32);
    check_dup(MPI_COMM_WORLD, many[3], "concurrent idup 1 of world", 33);
    check_dup(half, many[4], "concurrent idup 1 of a split", 34);
    check_dup(MPI_COMM_WORLD, bdup, "blocking dup among idups", 35);
    /* all distinct: a message on one never matches a receive on another */
    MPI_Comm all[6] = { many[0], many[3], bdup, d1, d2, MPI_COMM_WORLD };
    if (p > 1) {
        int to = (r + 1) % p, from = (r + p - 1) % p, in[6];
        MPI_Request q[6];
        for (int i = 0; i < 6; i++) LC_MPI(MPI_Irecv(&in[i], 1, MPI_INT, from, 9, all[i], &q[i]));
        for (int i = 5; i >= 0; i--) LC_MPI(MPI_Send(&i, 1, MPI_INT, to, 9, all[i]));
        LC_MPI(MPI_Waitall(6, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 6; i++) LC_CHECK(in[i] == i, "communicator %d received %d: contexts overlap", i, in[i]);
    }
    for (int i = 0; i < 5; i++) LC_MPI(MPI_Comm_free(&many[i]));
    LC_MPI(MPI_Comm_free(&bdup));
    LC_MPI(MPI_Comm_free(&half));
    LC_MPI(MPI_Comm_free(&d2));
    LC_MPI(MPI_Comm_free(&d1));
    LC_MPI(MPI_Comm_free_keyval(&key));
    return lc_finish();
}
