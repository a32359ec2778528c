/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "error.h"

#include <stdarg.h>
#include <stdio.h>

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
