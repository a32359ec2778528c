/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Thread_local char detail[512];

gf_status gf_error(gf_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    return st;
}

const char *gf_error_detail(gf_status st)
{
    return detail[0] ? detail : gf_strerror(st);
}

void gf_error_clear(void)
{
    detail[0] = '\0';
}

const char *gf_strerror(gf_status st)
{
    switch (st) {
    case GF_OK: return "success";
    case GF_EINVAL: return "invalid argument";
    case GF_ENOMEM: return "out of memory";
    case GF_EOVERFLOW: return "image size overflows";
    case GF_EIO: return "input/output error";
    case GF_EFORMAT: return "not a supported image";
    case GF_ELIMIT: return "image above the pixel limit";
    case GF_ENODEV: return "no usable CUDA device";
    case GF_ECUDA: return "CUDA error";
    case GF_EDEVMEM: return "out of GPU memory";
    case GF_EINTERNAL: return "internal error";
    }
    return "unknown error";
}

void gf_say(const char *fmt, ...)
{
    char small[1024], *msg = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof small && (msg = malloc((size_t)n + 1))) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    if (!msg) { /* out of memory: the message cut short */
        msg = small;
        n = (int)sizeof small - 1;
    }
    /* "gpufilter: ", each byte (4 at most escaped), "\n\0" */
    char *line = malloc(11 + 4 * (size_t)n + 2), *o = line;
    if (line) {
        o += sprintf(o, "gpufilter: ");
        for (const unsigned char *c = (const unsigned char *)msg; *c; c++)
            if (*c == '\n')
                o += sprintf(o, "\\n");
            else if (*c == '\r')
                o += sprintf(o, "\\r");
            else if (*c == '\t')
                o += sprintf(o, "\\t");
            else if (*c < 0x20 || *c == 0x7F)
                o += sprintf(o, "\\x%02X", *c);
            else
                *o++ = (char)*c;
        *o++ = '\n';
        *o = '\0';
        fputs(line, stderr);
        free(line);
    }
    if (msg != small)
        free(msg);
}

double gf_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void gf_timing(const char *name, const char *stage, double ms, const char *info)
{
    gf_say("%s: %-10s %9.3f ms%s%s", name, stage, ms, info ? "  " : "", info ? info : "");
}
