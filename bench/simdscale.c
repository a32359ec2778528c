/* SPDX-License-Identifier: MIT */
/* The SIMD throughput T threads give against one: each thread runs the same
 * fixed loop of independent 16-lane 32-bit multiply-adds in registers (no
 * memory), T = 1, 2, 4, 8, 12, 16.  What a perfectly parallel vectorised
 * loop can scale to on a machine: the ceiling of a CPU path's scaling.
 *
 * usage: cc -O2 -march=native -pthread bench/simdscale.c -o simdscale && ./simdscale */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

typedef int32_t v16 __attribute__((vector_size(64)));

static volatile int32_t sink;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *work(void *arg)
{
    (void)arg;
    const v16 m = {3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33};
    v16 a[8];
    for (int i = 0; i < 8; i++)
        a[i] = m + i;
    for (long it = 0; it < 40000000; it++)
        for (int i = 0; i < 8; i++)
            a[i] = a[i] * m + a[(i + 1) & 7];
    int32_t s = 0;
    for (int i = 0; i < 8; i++)
        s += a[i][0];
    sink = s;
    return NULL;
}

int main(void)
{
    static const int threads[] = {1, 2, 4, 8, 12, 16};
    double one = 0;
    for (int k = 0; k < 6; k++) {
        const int T = threads[k];
        pthread_t th[16];
        const double t0 = now_ms();
        for (int i = 1; i < T; i++)
            if (pthread_create(&th[i], NULL, work, NULL)) {
                fprintf(stderr, "simdscale: cannot start a thread\n");
                return 1;
            }
        work(NULL);
        for (int i = 1; i < T; i++)
            pthread_join(th[i], NULL);
        const double t = now_ms() - t0;
        if (T == 1)
            one = t;
        printf("%2d threads: %.0f ms, throughput %.2fx one thread\n", T, t, T * one / t);
    }
    return 0;
}
