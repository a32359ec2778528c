/* SPDX-License-Identifier: MIT */
#ifndef GF_PARALLEL_H
#define GF_PARALLEL_H

/* The number of online cores, 1..256. */
int gf_cpu_count(void);

/* Runs fn(ctx, i) for every i in [0, n) on up to `threads` threads, the
 * caller's among them, and returns when all are done.  Tasks are handed out
 * in order of i; fn must be safe to run concurrently for distinct i.  Where
 * no thread can be started, the caller runs every task itself. */
void gf_parallel_for(int n, int threads, void (*fn)(void *ctx, int i), void *ctx);

#endif
