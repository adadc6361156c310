/* SPDX-License-Identifier: BSD-3-Clause */
/* The job's key/value space: a chained hash table of copied strings.
 * Keys are short and a job puts a few per rank, so 1024 buckets keep the
 * chains short up to thousands of ranks.  Each key belongs to whoever put
 * it first (a rank, or a host for node attributes): nobody else may
 * replace it. */
#include "mpiexec.h"

#include <stdlib.h>
#include <string.h>

#define MPIEXEC_KVS_BUCKETS 1024

typedef struct mpiexec_kv {
    struct mpiexec_kv *next;
    int                owner;
    char              *value;
    char               key[]; /* NUL-terminated */
} mpiexec_kv_t;

struct mpiexec_kvs {
    mpiexec_kv_t *bucket[MPIEXEC_KVS_BUCKETS];
};

static unsigned mpiexec_kvs_hash(const char *key)
{
    unsigned h = 2166136261u; /* FNV-1a */

    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h % MPIEXEC_KVS_BUCKETS;
}

mpiexec_kvs_t *mpiexec_kvs_create(void)
{
    return calloc(1, sizeof(mpiexec_kvs_t));
}

void mpiexec_kvs_destroy(mpiexec_kvs_t *kvs)
{
    if (kvs == NULL)
        return;
    for (int b = 0; b < MPIEXEC_KVS_BUCKETS; b++) {
        mpiexec_kv_t *kv = kvs->bucket[b];
        while (kv != NULL) {
            mpiexec_kv_t *next = kv->next;
            free(kv->value);
            free(kv);
            kv = next;
        }
    }
    free(kvs);
}

int mpiexec_kvs_put(mpiexec_kvs_t *kvs, const char *key, const char *value, int owner)
{
    unsigned b = mpiexec_kvs_hash(key);
    char *v;
    mpiexec_kv_t *kv;

    for (kv = kvs->bucket[b]; kv != NULL; kv = kv->next)
        if (strcmp(kv->key, key) == 0 && kv->owner != owner)
            return -2;
    v = strdup(value);
    if (v == NULL)
        return -1;
    for (kv = kvs->bucket[b]; kv != NULL; kv = kv->next) {
        if (strcmp(kv->key, key) == 0) {
            free(kv->value);
            kv->value = v;
            return 0;
        }
    }
    kv = malloc(sizeof(*kv) + strlen(key) + 1);
    if (kv == NULL) {
        free(v);
        return -1;
    }
    strcpy(kv->key, key);
    kv->owner = owner;
    kv->value = v;
    kv->next = kvs->bucket[b];
    kvs->bucket[b] = kv;
    return 0;
}

const char *mpiexec_kvs_get(const mpiexec_kvs_t *kvs, const char *key)
{
    for (const mpiexec_kv_t *kv = kvs->bucket[mpiexec_kvs_hash(key)]; kv != NULL; kv = kv->next)
        if (strcmp(kv->key, key) == 0)
            return kv->value;
    return NULL;
}

int mpiexec_kvs_delete(mpiexec_kvs_t *kvs, const char *key, int owner)
{
    for (mpiexec_kv_t **pp = &kvs->bucket[mpiexec_kvs_hash(key)]; *pp != NULL; pp = &(*pp)->next) {
        mpiexec_kv_t *kv = *pp;

        if (strcmp(kv->key, key) != 0)
            continue;
        if (kv->owner != owner)
            return -2;
        *pp = kv->next;
        free(kv->value);
        free(kv);
        return 0;
    }
    return -1;
}
