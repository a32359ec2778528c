/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

int gf_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

struct work {
    void (*fn)(void *ctx, int i);
    void *ctx;
    int n;
    atomic_int next;
};

static void *drain(void *arg)
{
    struct work *w = arg;
    for (int i; (i = atomic_fetch_add(&w->next, 1)) < w->n;)
        w->fn(w->ctx, i);
    return NULL;
}

void gf_parallel_for(int n, int threads, void (*fn)(void *ctx, int i), void *ctx)
{
    enum { MAX_HELPERS = 255 };
    struct work w = {fn, ctx, n, 0};
    pthread_t helper[MAX_HELPERS];
    int started = 0;
    const int want = (threads < n ? threads : n) - 1;
    while (started < want && started < MAX_HELPERS && !pthread_create(&helper[started], NULL, drain, &w))
        started++;
    drain(&w);
    while (started)
        pthread_join(helper[--started], NULL);
}
