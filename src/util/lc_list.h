/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lc_list.h — intrusive doubly-linked list (circular, with a sentinel).
 * Used for the posted-receive and unexpected-message queues, where FIFO
 * order is the MPI non-overtaking rule.
 */
#ifndef LC_LIST_H
#define LC_LIST_H

#include <stdbool.h>

typedef struct lc_list {
    struct lc_list *next, *prev;
} lc_list_t;

static inline void lc_list_init(lc_list_t *head) { head->next = head->prev = head; }
static inline bool lc_list_empty(const lc_list_t *head) { return head->next == head; }

static inline void lc_list_push_back(lc_list_t *head, lc_list_t *e)
{
    e->prev = head->prev;
    e->next = head;
    head->prev->next = e;
    head->prev = e;
}

static inline void lc_list_remove(lc_list_t *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->next = e->prev = e;
}

#define lc_list_for_each(it, head) \
    for (lc_list_t *it = (head)->next, *it##_next = it->next; it != (head); \
         it = it##_next, it##_next = it->next)

#endif
