/* SPDX-License-Identifier: MIT */
/* I/O error injection for tests/io-faults.test, loaded with LD_PRELOAD (as
 * jq's tests do).  It wraps the stdio calls gpufilter, libpng and libjpeg make
 * on regular files; terminals, pipes and /dev/null pass untouched.
 *
 *   GF_FAULT=write:N  writes fail with ENOSPC once N bytes are written (a full disk)
 *   GF_FAULT=read:N   reads fail with EIO after N bytes (a bad sector)
 *   GF_FAULT=close    fclose of a written file fails with EIO (NFS reports late)
 *
 * A failed stream reports ferror() from then on, as glibc's would. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static enum { NONE, WRITE, READ, CLOSE } mode;
static size_t budget; /* bytes left before the fault */
static FILE *failed[64];
static FILE *written[64];

static size_t (*real_fwrite)(const void *, size_t, size_t, FILE *);
static size_t (*real_fread)(void *, size_t, size_t, FILE *);
static int (*real_ferror)(FILE *);
static int (*real_fclose)(FILE *);

__attribute__((constructor)) static void init(void)
{
    real_fwrite = (size_t(*)(const void *, size_t, size_t, FILE *))dlsym(RTLD_NEXT, "fwrite");
    real_fread = (size_t(*)(void *, size_t, size_t, FILE *))dlsym(RTLD_NEXT, "fread");
    real_ferror = (int (*)(FILE *))dlsym(RTLD_NEXT, "ferror");
    real_fclose = (int (*)(FILE *))dlsym(RTLD_NEXT, "fclose");
    const char *v = getenv("GF_FAULT");
    if (!v)
        return;
    if (!strncmp(v, "write:", 6))
        mode = WRITE, budget = strtoull(v + 6, NULL, 10);
    else if (!strncmp(v, "read:", 5))
        mode = READ, budget = strtoull(v + 5, NULL, 10);
    else if (!strcmp(v, "close"))
        mode = CLOSE;
}

static int regular(FILE *f)
{
    struct stat st;
    return fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
}

/* set: 0 looks up, 1 adds, -1 removes; under the lock */
static int member(FILE **set, FILE *f, int op)
{
    for (int i = 0; i < 64; i++)
        if (set[i] == f) {
            if (op < 0)
                set[i] = NULL;
            return 1;
        }
    if (op > 0)
        for (int i = 0; i < 64; i++)
            if (!set[i]) {
                set[i] = f;
                break;
            }
    return 0;
}

/* How many of `want` bytes may pass; marks the stream failed when not all. */
static size_t allow(FILE *f, size_t want)
{
    pthread_mutex_lock(&lock);
    size_t ok = want;
    if (member(failed, f, 0))
        ok = 0;
    else if (want > budget) {
        ok = budget;
        member(failed, f, 1);
    }
    budget -= ok;
    pthread_mutex_unlock(&lock);
    return ok;
}

size_t fwrite(const void *p, size_t size, size_t n, FILE *f)
{
    if (size == 0 || n == 0 || !regular(f))
        return real_fwrite(p, size, n, f);
    if (mode == CLOSE) {
        pthread_mutex_lock(&lock);
        member(written, f, 1);
        pthread_mutex_unlock(&lock);
    }
    if (mode != WRITE)
        return real_fwrite(p, size, n, f);
    const size_t whole = allow(f, size * n) / size;
    const size_t done = whole ? real_fwrite(p, size, whole, f) : 0;
    if (done < n)
        errno = ENOSPC;
    return done;
}

size_t fread(void *p, size_t size, size_t n, FILE *f)
{
    if (mode != READ || size == 0 || n == 0 || !regular(f))
        return real_fread(p, size, n, f);
    const size_t whole = allow(f, size * n) / size;
    const size_t done = whole ? real_fread(p, size, whole, f) : 0;
    if (done < n && whole < n)
        errno = EIO;
    return done;
}

/* _FORTIFY_SOURCE (Ubuntu's default) turns fread into this. */
size_t __fread_chk(void *p, size_t room, size_t size, size_t n, FILE *f)
{
    (void)room;
    return fread(p, size, n, f);
}

int ferror(FILE *f)
{
    pthread_mutex_lock(&lock);
    const int bad = member(failed, f, 0);
    pthread_mutex_unlock(&lock);
    return bad || real_ferror(f);
}

int fclose(FILE *f)
{
    pthread_mutex_lock(&lock);
    const int bad = member(failed, f, -1) | (mode == CLOSE && member(written, f, -1));
    pthread_mutex_unlock(&lock);
    const int rc = real_fclose(f);
    if (bad) {
        errno = mode == READ ? EIO : mode == WRITE ? ENOSPC : EIO;
        return EOF;
    }
    return rc;
}
