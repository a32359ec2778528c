/* SPDX-License-Identifier: MIT */
/* Whole-file reads and atomic writes (temporary file + rename). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>

#include "codec.h"

static mode_t file_mode = 0644;

/* what a temporary name adds to the output's: ".gpufilter." and ".XXXXXX" */
#define TEMP_EXTRA (sizeof ".gpufilter..XXXXXX" - 1)

/* The temporary files being written now, so that SIGINT, SIGTERM or SIGHUP
 * can remove them.  The signals are blocked in every thread and taken by one
 * thread in sigwait(), so the cleanup runs as ordinary code under the same
 * lock as the renames: a file is either renamed into place complete or
 * removed, never left half-written. */
static pthread_mutex_t temps_lock = PTHREAD_MUTEX_INITIALIZER;
static char **temps;
static size_t ntemps, temps_cap;
static sigset_t stop_signals;

static void *signal_thread(void *arg)
{
    (void)arg;
    int sig = 0;
    while (sigwait(&stop_signals, &sig) != 0)
        ;
    pthread_mutex_lock(&temps_lock); /* held: no rename can follow */
    for (size_t i = 0; i < ntemps; i++)
        unlink(temps[i]);
    static const char msg[] = "gpufilter: interrupted; temporary files removed\n";
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        /* nothing more to do */
    }
    /* Die of the signal itself, so that the shell sees it (exit 128+N). */
    signal(sig, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &stop_signals, NULL);
    raise(sig);
    _exit(128 + sig);
}

void gf_fileio_init(void)
{
    mode_t m = umask(0);
    umask(m);
    file_mode = 0666 & ~m;
    /* A signal ignored on entry (nohup, a background job) stays ignored. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    sigemptyset(&stop_signals);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
            sigaddset(&stop_signals, sigs[i]);
    }
    pthread_t t;
    /* Without the thread the default actions stay: still no partial OUTPUT,
     * only a stray temporary file. */
    if (pthread_sigmask(SIG_BLOCK, &stop_signals, NULL) == 0 &&
        pthread_create(&t, NULL, signal_thread, NULL) != 0)
        pthread_sigmask(SIG_UNBLOCK, &stop_signals, NULL);
}

/* mkstemp() and registration, as one step under the lock. */
static int create_temp(char *tmpl)
{
    pthread_mutex_lock(&temps_lock);
    int fd = -1;
    if (ntemps == temps_cap) {
        size_t cap = temps_cap ? temps_cap * 2 : 16;
        char **n = realloc(temps, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&temps_lock);
            errno = ENOMEM;
            return -1;
        }
        temps = n;
        temps_cap = cap;
    }
    fd = mkstemp(tmpl);
    if (fd >= 0)
        temps[ntemps++] = tmpl;
    pthread_mutex_unlock(&temps_lock);
    return fd;
}

/* Renames (when `keep`) or removes the temporary file, and forgets it. */
static int finish_temp(char *tmpl, const char *path, int keep)
{
    pthread_mutex_lock(&temps_lock);
    int rc = keep ? rename(tmpl, path) : 0;
    int err = errno;
    if (!keep || rc)
        unlink(tmpl);
    for (size_t i = 0; i < ntemps; i++)
        if (temps[i] == tmpl) {
            temps[i] = temps[--ntemps];
            break;
        }
    pthread_mutex_unlock(&temps_lock);
    errno = err;
    return rc;
}

gf_status gf_read_file(const char *path, uint8_t **buf, size_t *n)
{
    const int is_stdin = !strcmp(path, "-");
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return gf_error(GF_EIO, "cannot open: %s", strerror(errno));
    struct stat sb;
    if (!is_stdin && fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        return gf_error(GF_EIO, "is a directory");
    }
    size_t cap = (!is_stdin && S_ISREG(sb.st_mode) && sb.st_size > 0) ? (size_t)sb.st_size + 1 : 1 << 16;
    size_t len = 0;
    uint8_t *b = malloc(cap);
    gf_status st = GF_OK;
    if (!b)
        st = gf_error(GF_ENOMEM, "out of memory reading the file");
    while (!st) {
        if (len == cap) {
            if (cap > SIZE_MAX / 2) {
                st = gf_error(GF_EOVERFLOW, "file too large");
                break;
            }
            uint8_t *nb = realloc(b, cap * 2);
            if (!nb) {
                st = gf_error(GF_ENOMEM, "out of memory reading the file");
                break;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                st = gf_error(GF_EIO, "read error: %s", strerror(errno));
            break;
        }
    }
    if (!is_stdin)
        fclose(f);
    if (st) {
        free(b);
        return st;
    }
    *buf = b;
    *n = len;
    return GF_OK;
}

/* PATH (a regular file or none, not a link) replaced atomically: written to
 * a temporary file beside it and renamed over it.  A file replaced keeps
 * its mode, owner and group (as far as permitted); one this user may not
 * write is not replaced, as cp would not. */
static gf_status write_atomic(const char *path, gf_status (*emit)(FILE *f, void *ctx), void *ctx)
{
    struct stat sb;
    const int replacing = stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
    if (replacing && access(path, W_OK))
        return gf_error(GF_EIO, "cannot replace: %s", strerror(errno));
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    if (!*base)
        return gf_error(GF_EIO, "output name is a directory");
    /* .gpufilter.BASE.XXXXXX, BASE cut to fit the folder's longest name */
    size_t keep = strlen(base);
    char *folder = strndup(path, dirlen ? dirlen : 1);
    long name_max = folder ? pathconf(dirlen ? folder : ".", _PC_NAME_MAX) : -1;
    free(folder);
    if (name_max <= 0)
        name_max = 255;
    if (keep + TEMP_EXTRA > (size_t)name_max)
        keep = (size_t)name_max > TEMP_EXTRA ? (size_t)name_max - TEMP_EXTRA : 0;
    size_t need = dirlen + keep + TEMP_EXTRA + 1;
    char *tmp = malloc(need);
    if (!tmp)
        return gf_error(GF_ENOMEM, "out of memory");
    snprintf(tmp, need, "%.*s.gpufilter.%.*s.XXXXXX", (int)dirlen, path, (int)keep, base);
    int fd = create_temp(tmp);
    if (fd < 0) {
        /* the output is written beside itself first: what failed is writing into its folder */
        const int len = dirlen > 1 ? (int)dirlen - 1 : (int)dirlen; /* "/" stays "/" */
        gf_status st =
            gf_error(GF_EIO, "cannot write into %.*s: %s", dirlen ? len : 1, dirlen ? path : ".", strerror(errno));
        free(tmp);
        return st;
    }
    if (replacing && fchown(fd, sb.st_uid, sb.st_gid) && fchown(fd, (uid_t)-1, sb.st_gid)) {
        /* not permitted: the file becomes this user's, as with cp */
    }
    gf_status st = GF_OK;
    FILE *f = NULL;
    if (fchmod(fd, replacing ? sb.st_mode & 07777 : file_mode) || !(f = fdopen(fd, "wb"))) {
        st = gf_error(GF_EIO, "cannot prepare the temporary file: %s", strerror(errno));
        close(fd);
    } else {
        st = emit(f, ctx);
        if (!st && (fflush(f) || ferror(f)))
            st = gf_error(GF_EIO, "write error: %s", strerror(errno));
        if (fclose(f) && !st)
            st = gf_error(GF_EIO, "write error: %s", strerror(errno));
    }
    if (finish_temp(tmp, path, !st) && !st)
        st = gf_error(GF_EIO, "cannot put the file in place: %s", strerror(errno));
    free(tmp);
    return st;
}

gf_status gf_write_file(const char *path, gf_status (*emit)(FILE *f, void *ctx), void *ctx)
{
    if (!strcmp(path, "-")) {
        gf_status st = emit(stdout, ctx);
        if (!st && fflush(stdout))
            st = gf_error(GF_EIO, "cannot write to standard output: %s", strerror(errno));
        return st;
    }
    /* a device, pipe or socket (/dev/null, a FIFO) is written as it is: a
     * temporary file renamed over it would replace it with a regular file */
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        FILE *f = fopen(path, "wb");
        if (!f)
            return gf_error(GF_EIO, "cannot open: %s", strerror(errno));
        gf_status st = emit(f, ctx);
        if (fclose(f) && !st)
            st = gf_error(GF_EIO, "write error: %s", strerror(errno));
        return st;
    }
    /* a symbolic link is written through, as cp and ImageMagick do: the
     * file it names is replaced, the link stays */
    if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
        char *target = realpath(path, NULL);
        if (!target)
            return gf_error(GF_EIO, "not writing through the dangling symbolic link: %s", strerror(errno));
        gf_status st = write_atomic(target, emit, ctx);
        free(target);
        return st;
    }
    return write_atomic(path, emit, ctx);
}

const char *gf_codec_versions(void)
{
    static char buf[160];
#ifdef LIBJPEG_TURBO_VERSION
#define GF_STR2(x) #x
#define GF_STR(x) GF_STR2(x)
    const char *jpeg = "libjpeg-turbo " GF_STR(LIBJPEG_TURBO_VERSION);
#else
    const char *jpeg = "libjpeg";
#endif
    snprintf(buf, sizeof buf, "libpng %s, %s (libjpeg API %d)", png_get_libpng_ver(NULL), jpeg, JPEG_LIB_VERSION);
    return buf;
}

struct bytes {
    const uint8_t *p;
    size_t n;
};

static gf_status emit_bytes(FILE *f, void *ctx)
{
    const struct bytes *b = ctx;
    return fwrite(b->p, 1, b->n, f) == b->n ? GF_OK : gf_error(GF_EIO, "cannot write the data: %s", strerror(errno));
}

gf_status gf_write_bytes(const char *path, const uint8_t *p, size_t n)
{
    struct bytes b = {p, n};
    return gf_write_file(path, emit_bytes, &b);
}
