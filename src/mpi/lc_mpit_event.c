/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_mpit_event.c — MPI_T events (MPI 4.1 §15.3.8).  Locus raises no
 * events: there are no event types, so every function that takes an event
 * index answers MPI_T_ERR_INVALID_INDEX, and no registration or event
 * instance can exist, so those that take one answer
 * MPI_T_ERR_INVALID_HANDLE — the standard's behaviour with zero events.
 * There is one source of timestamps, real: source 0, the monotonic clock
 * in nanoseconds (CLOCK_MONOTONIC, MPI_Wtime's clock), which a tool may
 * read to put its own records on the library's time line.
 */
#include "mpi/lc_mpit.h"

#include <limits.h>
#include <string.h>
#include <time.h>

static const char lc_mpit_source_name[] = "locus_clock";
static const char lc_mpit_source_desc[] = "The monotonic clock of this process (CLOCK_MONOTONIC), in nanoseconds.";

/* Enter for a function that takes what cannot exist: its answer, once
 * the interface is known to be initialized. */
static int lc_mpit_none(int answer)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    return lc_mpit_leave(answer);
}

LC_API int PMPI_T_event_get_num(int *num_events)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!num_events) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_event_get_num);

LC_API int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                                 MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                                 int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len,
                                 int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc, (void)desc_len;
    (void)bind;
    return lc_mpit_none(MPI_T_ERR_INVALID_INDEX);
}
LC_MPI_ALIAS(T_event_get_info);

LC_API int PMPI_T_event_get_index(const char *name, int *event_index)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!name || !event_index) return lc_mpit_leave(MPI_T_ERR_INVALID);
    return lc_mpit_leave(MPI_T_ERR_INVALID_NAME);
}
LC_MPI_ALIAS(T_event_get_index);

LC_API int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                                     MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    return lc_mpit_none(MPI_T_ERR_INVALID_INDEX);
}
LC_MPI_ALIAS(T_event_handle_alloc);

LC_API int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                                    MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_handle_free);

LC_API int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_handle_get_info);

LC_API int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_handle_set_info);

LC_API int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          MPI_Info info, void *user_data, MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data, (void)event_cb_function;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_register_callback);

LC_API int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_callback_get_info);

LC_API int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_callback_set_info);

LC_API int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                            MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_set_dropped_handler);

/* Event instances exist only during a callback, and none is ever made. */
LC_API int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_read);

LC_API int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_copy);

LC_API int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_get_timestamp);

LC_API int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    return lc_mpit_none(MPI_T_ERR_INVALID_HANDLE);
}
LC_MPI_ALIAS(T_event_get_source);

/* ---- Sources of timestamps ---------------------------------------------- */

LC_API int PMPI_T_source_get_num(int *num_sources)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (!num_sources) return lc_mpit_leave(MPI_T_ERR_INVALID);
    *num_sources = 1;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_source_get_num);

LC_API int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                                  MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                                  MPI_Info *info)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (source_index != 0) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    lc_mpit_string(lc_mpit_source_name, strlen(lc_mpit_source_name), name, name_len);
    lc_mpit_string(lc_mpit_source_desc, strlen(lc_mpit_source_desc), desc, desc_len);
    if (ordering) *ordering = MPI_T_SOURCE_ORDERED; /* one clock, never goes back */
    if (ticks_per_second) *ticks_per_second = 1000000000;
    if (max_ticks) *max_ticks = LONG_MAX; /* ~292 years of uptime before it wraps */
    if (info) *info = MPI_INFO_NULL;      /* no hints to give */
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_source_get_info);

LC_API int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    int rc = lc_mpit_enter();
    if (rc != MPI_SUCCESS) return rc;
    if (source_index != 0) return lc_mpit_leave(MPI_T_ERR_INVALID_INDEX);
    if (!timestamp) return lc_mpit_leave(MPI_T_ERR_INVALID);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *timestamp = (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return lc_mpit_leave(MPI_SUCCESS);
}
LC_MPI_ALIAS(T_source_get_timestamp);
