/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpi_init.c — start-up and shut-down: MPI_Init(_thread), MPI_Finalize,
 * MPI_Abort and the environment queries.
 *
 * The runtime (launcher contact, wire-up, the builtin communicators) is
 * started by the first of MPI_Init and MPI_Session_init and stopped when
 * the last user leaves: MPI_Finalize for the World Model, or the last
 * MPI_Session_finalize (lc_mpi_runtime_start / _release).  It cannot be
 * started again after that.  lc_mpi_state says whether the runtime is up;
 * MPI_Initialized / MPI_Finalized answer for the World Model alone.
 */
#include "mpi/lc_mpi.h"
#include "coll/lc_coll.h"
#include "coord/lc_coord.h"
#include "coord/lc_liveness.h"
#include "lc_config.h"
#include "mpi/lc_mpi_comm.h"
#include "mpi/lc_mpi_xconnect.h"
#include "pmi/lc_pmi.h"
#include "pt2pt/lc_async.h"
#include "util/lc_init_times.h"
#include "util/lc_params.h"
#include "util/lc_thread.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Every level: at MPI_THREAD_MULTIPLE each MPI call runs in one critical
 * section (src/util/lc_thread.h, docs/architecture.md "Threads"); below
 * it nothing is taken. */
#define LC_THREAD_LEVEL_MAX MPI_THREAD_MULTIPLE

static int lc_thread_level = MPI_THREAD_SINGLE;
static pthread_t lc_main_thread;
static int lc_world_model = LC_MPI_STATE_NONE; /* MPI_Init .. MPI_Finalize */
static int lc_runtime_users;                   /* the World Model + live sessions */

int lc_mpi_thread_level(int required)
{
    return required < MPI_THREAD_SINGLE ? MPI_THREAD_SINGLE
         : required > LC_THREAD_LEVEL_MAX ? LC_THREAD_LEVEL_MAX : required;
}

int lc_mpi_thread_grant(int required)
{
    int level = lc_mpi_thread_level(required);
    /* Before the caller returns, so before the application can have a
     * second thread in MPI on the strength of it. */
    if (level == MPI_THREAD_MULTIPLE) {
        lc_thread_app_multiple = 1;
        lc_thread_nofast_set(LC_NOFAST_SINGLE, 0);
        lc_pt2pt_threads_multiple();
        atomic_store_explicit(&lc_thread_multiple, 1, memory_order_relaxed);
        atomic_store_explicit(&lc_thread_sectioned, 1, memory_order_relaxed);
    }
    return level;
}

int lc_mpi_runtime_start(void)
{
    if (lc_mpi_state == LC_MPI_STATE_INIT) {
        lc_runtime_users++;
        return MPI_SUCCESS;
    }
    if (lc_mpi_state == LC_MPI_STATE_FINALIZED)
        return lc_error(MPI_ERR_OTHER, "MPI cannot be initialized again once MPI_Finalize or the last "
                                       "MPI_Session_finalize has shut it down");
    lc_params_load();
    lc_init_times_begin("MPI_Init");
    lc_pmi_info_t info;
    if (lc_pmi_init(&info) != 0) lc_fatal("cannot contact the launcher (PMI); start the program with mpiexec");
    lc_init_times_mark("PMI connect");
    lc_log_rank = info.rank;
    lc_world.rank = info.rank;
    lc_world.size = info.size;
    snprintf(lc_world.kvsname, sizeof(lc_world.kvsname), "%s", info.kvsname);

    lc_pt2pt_init();
    lc_init_times_mark("pt2pt init");
    if (lc_coord_wireup() != 0) {
        lc_pmi_abort(1, "wire-up failed");
        _exit(1);
    }
    if (lc_mpi_comm_init_builtin(info.appnum) != 0) {
        lc_pmi_abort(1, "out of memory creating MPI_COMM_WORLD");
        _exit(1);
    }
    lc_coll_init();
    lc_init_times_mark("MPI_COMM_WORLD, collectives");
    lc_mpi_state = LC_MPI_STATE_INIT;
    lc_runtime_users = 1;
    /* Hellos of other jobs are welcome from here on; a spawned child
     * connects to its parent (lc_mpi_spawn.c). */
    lc_x_init();
    int rc = lc_mpi_spawn_child_init();
    if (rc != MPI_SUCCESS) {
        lc_log_error("a spawned process cannot connect to its parent (MPI error %d)", rc);
        lc_pmi_abort(1, "cannot connect to the parent job");
        _exit(1);
    }
    /* Last: from here every MPI call takes the critical section
     * (docs/architecture.md "Asynchronous progress"). */
    lc_async_start();
    lc_init_times_mark("spawn parent, async progress");
    lc_init_times_report(lc_world.size);
    return MPI_SUCCESS;
}

int lc_mpi_runtime_release(void)
{
    if (--lc_runtime_users > 0) return MPI_SUCCESS;
    lc_init_times_begin("MPI_Finalize");
    int rc = lc_mpi_comm_finalize_begin(); /* MPI_COMM_SELF's attributes go first */
    if (rc != MPI_SUCCESS) {
        lc_runtime_users++;
        return rc;
    }
    /* Peers leave after the barrier below: a pidfd that says "exited"
     * would no longer mean "died" (lc_liveness.h). */
    lc_liveness_stop();
    /* The progress thread goes before the last barrier: after it nothing
     * may touch the rings, and the barrier drives progress itself. */
    lc_async_stop();
    lc_init_times_mark("attributes, liveness, async");
    /* No peer may still be writing into our rings when we unmap them:
     * after this barrier every rank has finished communicating. */
    lc_coll_barrier(lc_comm_builtin[0]);
    lc_init_times_mark("barrier");
    int leftover = lc_pt2pt_fini();
    if (leftover && lc_params.debug)
        lc_log_warn("%d unreceived messages discarded at MPI_Finalize", leftover);
    lc_pmi_finalize();
    lc_init_times_mark("pt2pt, PMI finalize");
    lc_mpi_comm_fini();
    lc_coord_teardown();
    lc_x_fini();
    lc_request_pool_fini();
    lc_init_times_mark("teardown (unmap, close)");
    lc_init_times_report(lc_world.size);
    lc_mpi_state = LC_MPI_STATE_FINALIZED;
    return MPI_SUCCESS;
}

static int lc_init(int required, int *provided)
{
    int rc;
    if (lc_world_model != LC_MPI_STATE_NONE)
        LC_TRY(lc_error(MPI_ERR_OTHER, lc_world_model == LC_MPI_STATE_INIT
                                           ? "MPI is already initialized: call MPI_Init only once"
                                           : "MPI cannot be initialized again after MPI_Finalize"));
    LC_TRY(lc_mpi_runtime_start());
    lc_thread_level = lc_mpi_thread_grant(required);
    lc_main_thread = pthread_self(); /* the thread that called MPI_Init(_thread) */
    if (provided) *provided = lc_thread_level;
    lc_world_model = LC_MPI_STATE_INIT;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Init", rc);
}

LC_API int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return lc_init(MPI_THREAD_SINGLE, NULL);
}
LC_MPI_ALIAS(Init);

LC_API int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    int rc;
    LC_TRY(lc_check_ptr(provided, "provided"));
    return lc_init(required, provided);
err:
    return lc_mpi_error(NULL, "MPI_Init_thread", rc);
}
LC_MPI_ALIAS(Init_thread);

LC_API int PMPI_Finalize(void)
{
    int rc;
    LC_TRY(lc_check_initialized());
    if (lc_world_model != LC_MPI_STATE_INIT)
        LC_TRY(lc_error(MPI_ERR_OTHER, "MPI_Finalize without MPI_Init (sessions end with MPI_Session_finalize)"));
    LC_TRY(lc_mpi_runtime_release());
    lc_world_model = LC_MPI_STATE_FINALIZED;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Finalize", rc);
}
LC_MPI_ALIAS(Finalize);

LC_API int PMPI_Initialized(int *flag)
{
    int rc;
    LC_TRY(lc_check_ptr(flag, "flag"));
    *flag = lc_world_model != LC_MPI_STATE_NONE;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Initialized", rc);
}
LC_MPI_ALIAS(Initialized);

LC_API int PMPI_Finalized(int *flag)
{
    int rc;
    LC_TRY(lc_check_ptr(flag, "flag"));
    *flag = lc_world_model == LC_MPI_STATE_FINALIZED;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Finalized", rc);
}
LC_MPI_ALIAS(Finalized);

LC_API int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char msg[256];
    snprintf(msg, sizeof(msg), "MPI_Abort(comm=%#x, errorcode=%d) called by rank %d", (unsigned)comm, errorcode,
             lc_world.rank);
    lc_log_error("%s", msg);
    if (lc_mpi_state == LC_MPI_STATE_INIT) lc_pmi_abort(errorcode, msg);
    _exit(errorcode & 0xff ? errorcode & 0xff : 1);
}
LC_MPI_ALIAS(Abort);

LC_API int PMPI_Query_thread(int *provided)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(provided, "provided"));
    *provided = lc_thread_level;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Query_thread", rc);
}
LC_MPI_ALIAS(Query_thread);

LC_API int PMPI_Is_thread_main(int *flag)
{
    int rc;
    LC_TRY(lc_check_initialized());
    LC_TRY(lc_check_ptr(flag, "flag"));
    *flag = pthread_equal(pthread_self(), lc_main_thread);
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Is_thread_main", rc);
}
LC_MPI_ALIAS(Is_thread_main);

LC_API int PMPI_Get_version(int *version, int *subversion)
{
    int rc;
    LC_TRY(lc_check_ptr(version, "version"));
    LC_TRY(lc_check_ptr(subversion, "subversion"));
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Get_version", rc);
}
LC_MPI_ALIAS(Get_version);

LC_API int PMPI_Get_library_version(char *version, int *resultlen)
{
    int rc;
    LC_TRY(lc_check_ptr(version, "version"));
    LC_TRY(lc_check_ptr(resultlen, "resultlen"));
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "Locus MPI %s (MPI %d.%d, MPICH ABI; %s build, %s)", LOCUS_VERSION, MPI_VERSION,
                     MPI_SUBVERSION, LOCUS_BUILD_TYPE, LOCUS_C_COMPILER);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Get_library_version", rc);
}
LC_MPI_ALIAS(Get_library_version);

LC_API int PMPI_Get_processor_name(char *name, int *resultlen)
{
    int rc;
    LC_TRY(lc_check_ptr(name, "name"));
    LC_TRY(lc_check_ptr(resultlen, "resultlen"));
    char host[MPI_MAX_PROCESSOR_NAME];
    if (gethostname(host, sizeof(host)) != 0) snprintf(host, sizeof(host), "unknown");
    host[sizeof(host) - 1] = 0;
    int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
    *resultlen = n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1;
    return MPI_SUCCESS;
err:
    return lc_mpi_error(NULL, "MPI_Get_processor_name", rc);
}
LC_MPI_ALIAS(Get_processor_name);

LC_API double PMPI_Wtime(void)
{
    return lc_time_now();
}
LC_MPI_ALIAS(Wtime);

LC_API double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
LC_MPI_ALIAS(Wtick);
