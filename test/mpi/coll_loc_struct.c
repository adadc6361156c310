/* SPDX-License-Identifier: BSD-3-Clause */
/* coll_loc_struct: MINLOC / MAXLOC on user types (MPI 4.1 §6.9.4).
 *
 * The operations are defined on the value-index pair types.  A user's
 * struct of {double, int} has MPI_DOUBLE_INT's signature but is not a
 * pair type: MPICH 4.0.2 and Open MPI 4.1.4 both refuse it with
 * MPI_ERR_OP ("operation not defined for this datatype"), and so must
 * Locus (it said MPI_ERR_TYPE, "built of several predefined types"),
 * leaving the output alone.  A type built of MPI_DOUBLE_INT itself
 * (a contiguous run of it) is made of one pair type and is reduced as
 * pairs: the smallest (largest) value, and on equal values the lowest
 * index, whatever rank it comes from.  Each is run through Reduce,
 * Allreduce, Reduce_local, Ireduce and Iallreduce.  (MPICH and Open MPI
 * refuse predefined operations on derived types: only the refusal is
 * checked there.) */
#include "lc_test.h"

#include <stddef.h>
#include <string.h>

#define N 6
typedef struct {
    double v;
    int i;
} di_t;

static int rank, size;

/* Ties everywhere: values 0 and 1 only; the index falls as the rank rises,
 * so the lowest index of a value comes from its highest rank. */
static void fill(di_t *x)
{
    for (int j = 0; j < N; j++) {
        x[j].v = (double)((rank + j) % 2);
        x[j].i = 10 * (size - rank) + j;
    }
}

/* What MINLOC (min) or MAXLOC of every rank's fill() is at j. */
static di_t expect(int j, int min)
{
    di_t best = { 0, 0 };
    for (int r = 0; r < size; r++) {
        di_t x = { (double)((r + j) % 2), 10 * (size - r) + j };
        if (r == 0 || (min ? x.v < best.v : x.v > best.v) || (x.v == best.v && x.i < best.i)) best = x;
    }
    return best;
}

enum { REDUCE, ALLREDUCE, LOCAL, IREDUCE, IALLREDUCE, NFORMS };
static const char *forms[] = { "MPI_Reduce", "MPI_Allreduce", "MPI_Reduce_local", "MPI_Ireduce", "MPI_Iallreduce" };

static int run(int form, const di_t *in, di_t *out, int count, MPI_Datatype dt, MPI_Op op)
{
    MPI_Request req;
    int rc;
    switch (form) {
    case REDUCE:
        return MPI_Reduce(in, out, count, dt, op, size - 1, MPI_COMM_WORLD);
    case ALLREDUCE:
        return MPI_Allreduce(in, out, count, dt, op, MPI_COMM_WORLD);
    case LOCAL:
        return MPI_Reduce_local(in, out, count, dt, op);
    case IREDUCE:
        rc = MPI_Ireduce(in, out, count, dt, op, size - 1, MPI_COMM_WORLD, &req);
        break;
    default:
        rc = MPI_Iallreduce(in, out, count, dt, op, MPI_COMM_WORLD, &req);
        break;
    }
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    rank = lc_world_rank();
    size = lc_world_size();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    int other = strstr(lib, "MPICH") != NULL || strstr(lib, "Open MPI") != NULL;

    /* {double, int} at their C offsets, extent of the C struct. */
    MPI_Datatype st, sig, run2;
    int bl[2] = { 1, 1 };
    MPI_Aint disp[2] = { offsetof(di_t, v), offsetof(di_t, i) };
    MPI_Datatype types[2] = { MPI_DOUBLE, MPI_INT };
    LC_MPI(MPI_Type_create_struct(2, bl, disp, types, &st));
    LC_MPI(MPI_Type_create_resized(st, 0, sizeof(di_t), &sig));
    LC_MPI(MPI_Type_commit(&sig));
    LC_MPI(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &run2)); /* two pairs */
    LC_MPI(MPI_Type_commit(&run2));

    di_t in[N], out[N], before[N];
    MPI_Op ops[2] = { MPI_MINLOC, MPI_MAXLOC };
    for (int form = 0; form < NFORMS; form++) {
        for (int o = 0; o < 2; o++) {
            const char *on = o ? "MPI_MAXLOC" : "MPI_MINLOC";
            /* the struct: refused, output untouched */
            fill(in);
            memset(out, 0x5a, sizeof out);
            memcpy(before, out, sizeof out);
            int rc = run(form, in, out, N, sig, ops[o]), cls = -1;
            MPI_Error_class(rc, &cls);
            LC_CHECK(cls == MPI_ERR_OP, "%s(%s) on a struct {double, int} returned %s, not MPI_ERR_OP", forms[form], on,
                     rc == MPI_SUCCESS ? "MPI_SUCCESS" : lc_err_str(rc));
            LC_CHECK(!memcmp(out, before, sizeof out), "%s(%s) refused but wrote the output", forms[form], on);
            if (other) continue;
            /* a contiguous type of MPI_DOUBLE_INT: pairs */
            fill(in);
            if (form == LOCAL) { /* inout: this rank's values against rank size's (both ties) */
                for (int j = 0; j < N; j++) out[j] = (di_t){ (double)((size + j) % 2), 0 };
                memcpy(before, out, sizeof out);
            }
            rc = run(form, in, out, N / 2, run2, ops[o]);
            LC_CHECK(rc == MPI_SUCCESS, "%s(%s) on a contiguous MPI_DOUBLE_INT: %s", forms[form], on, lc_err_str(rc));
            if (rc != MPI_SUCCESS || ((form == REDUCE || form == IREDUCE) && rank != size - 1)) continue;
            for (int j = 0; j < N; j++) {
                di_t e = expect(j, !o);
                if (form == LOCAL) { /* in op inout: the pair rule between the two */
                    e = in[j];
                    if ((o ? before[j].v > e.v : before[j].v < e.v) || (before[j].v == e.v && before[j].i < e.i))
                        e = before[j];
                }
                LC_CHECK(out[j].v == e.v && out[j].i == e.i, "%s(%s) item %d: (%g, %d), expected (%g, %d)", forms[form],
                         on, j, out[j].v, out[j].i, e.v, e.i);
            }
        }
    }
    MPI_Type_free(&st);
    MPI_Type_free(&sig);
    MPI_Type_free(&run2);
    return lc_finish();
}
