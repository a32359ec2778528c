/* SPDX-License-Identifier: MIT */
/* Whole-file reads and atomic writes (temporary file + rename). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jpeglib.h>
#include <png.h>

#include "codec.h"

static mode_t file_mode = 0644;

void gf_fileio_init(void)
{
    mode_t m = umask(0);
    umask(m);
    file_mode = 0666 & ~m;
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

gf_status gf_write_file(const char *path, gf_status (*emit)(FILE *f, void *ctx), void *ctx)
{
    if (!strcmp(path, "-")) {
        gf_status st = emit(stdout, ctx);
        if (!st && fflush(stdout))
            st = gf_error(GF_EIO, "cannot write to standard output: %s", strerror(errno));
        return st;
    }
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    if (!*base)
        return gf_error(GF_EIO, "output name is a directory");
    size_t need = dirlen + strlen(base) + sizeof ".gpufilter..XXXXXX";
    char *tmp = malloc(need);
    if (!tmp)
        return gf_error(GF_ENOMEM, "out of memory");
    snprintf(tmp, need, "%.*s.gpufilter.%s.XXXXXX", (int)dirlen, path, base);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        gf_status st = gf_error(GF_EIO, "cannot create a temporary file beside it: %s", strerror(errno));
        free(tmp);
        return st;
    }
    gf_status st = GF_OK;
    FILE *f = NULL;
    if (fchmod(fd, file_mode) || !(f = fdopen(fd, "wb"))) {
        st = gf_error(GF_EIO, "cannot prepare the temporary file: %s", strerror(errno));
        close(fd);
    } else {
        st = emit(f, ctx);
        if (!st && (fflush(f) || ferror(f)))
            st = gf_error(GF_EIO, "write error: %s", strerror(errno));
        if (fclose(f) && !st)
            st = gf_error(GF_EIO, "write error: %s", strerror(errno));
    }
    if (!st && rename(tmp, path))
        st = gf_error(GF_EIO, "cannot rename the temporary file into place: %s", strerror(errno));
    if (st)
        unlink(tmp);
    free(tmp);
    return st;
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
