/* SPDX-License-Identifier: MIT */
/* The fixed costs a short CPU op pays on T threads: writing a fresh buffer
 * of N MiB (its pages made on first touch) against writing it again, and
 * starting and joining T - 1 threads; T = 1, 2, 4, ... 16, best of 3.
 *
 * usage: cc -O2 -pthread bench/firsttouch.c -o firsttouch && ./firsttouch N [huge]
 *   huge: advise huge pages for the buffer (MADV_HUGEPAGE), as
 *   gf_image_alloc does for large images. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct part {
    char *p;
    size_t n;
};

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void *write_part(void *v)
{
    struct part *a = v;
    if (a->n)
        memset(a->p, 1, a->n);
    return NULL;
}

/* Milliseconds to write n bytes at p on T threads, a slice each (n = 0: the threads alone). */
static double write_all(char *p, size_t n, int T)
{
    pthread_t t[16];
    struct part a[16];
    for (int i = 0; i < T; i++)
        a[i] = (struct part){p + n / (size_t)T * (size_t)i, i == T - 1 ? n - n / (size_t)T * (size_t)i : n / (size_t)T};
    const double t0 = now_ms();
    for (int i = 1; i < T; i++)
        if (pthread_create(&t[i], NULL, write_part, &a[i])) {
            fprintf(stderr, "firsttouch: cannot start a thread\n");
            exit(1);
        }
    write_part(&a[0]);
    for (int i = 1; i < T; i++)
        pthread_join(t[i], NULL);
    return now_ms() - t0;
}

int main(int argc, char **argv)
{
    const long mib = argc > 1 ? atol(argv[1]) : 0;
    if (mib < 1 || mib > 65536) {
        fprintf(stderr, "usage: firsttouch MIB [huge]\n");
        return 2;
    }
    const size_t n = (size_t)mib << 20;
    for (int T = 1; T <= 16; T *= 2) {
        double first = 1e30, again = 1e30, threads = 1e30;
        for (int r = 0; r < 3; r++) {
            char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) {
                fprintf(stderr, "firsttouch: cannot map %ld MiB\n", mib);
                return 1;
            }
            if (argc > 2)
                (void)madvise(p, n, MADV_HUGEPAGE);
            const double f = write_all(p, n, T), g = write_all(p, n, T), e = write_all(p, 0, T);
            first = f < first ? f : first, again = g < again ? g : again, threads = e < threads ? e : threads;
            munmap(p, n);
        }
        printf("%ld MiB%s, %d threads: first touch %.2f ms, again %.2f ms, threads alone %.3f ms\n", mib,
               argc > 2 ? " (huge pages advised)" : "", T, first, again, threads);
    }
    return 0;
}
