/* SPDX-License-Identifier: MIT */
/* The argument parsers and costs several ops share; their contracts are in op.h. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "op.h"
#include "rank/rank.h"

int gf_arg_integer(const char *s, long long lo, long long hi, long long *v)
{
    char *end;
    if (!s || !*s || isspace((unsigned char)*s))
        return -1;
    *v = strtoll(s, &end, 10);
    return (*end || *v < lo || *v > hi) ? -1 : 0;
}

int gf_arg_number(const char *s, double *v)
{
    char *end;
    if (!s || !*s)
        return -1;
    *v = strtod(s, &end);
    return (*end || !isfinite(*v)) ? -1 : 0;
}

int gf_arg_unsigned(const char **p, double *v)
{
    char text[64], *end;
    const size_t n = strspn(*p, "0123456789.");
    if (!n || n >= sizeof text)
        return 0;
    memcpy(text, *p, n);
    text[n] = '\0';
    *v = strtod(text, &end);
    *p += n;
    return *end == '\0' && isfinite(*v);
}

gf_status gf_arg_radius(const char *op, const char *arg, int most, int *r)
{
    double v;
    if (gf_arg_number(arg, &v) || v < 1 || v != floor(v) || v > most)
        return gf_error(GF_EINVAL, "invalid -%s radius '%s' (want an integer 1 to %d)", op, arg, most);
    *r = (int)v;
    return GF_OK;
}

int gf_arg_geometry(const char *a, double *w, double *h, int *flags, long *x, long *y)
{
    *w = *h = 0;
    *flags = 0;
    *x = *y = 0;
    for (int k = 0; k < 2; k++) {
        if (k && *a != 'x' && *a != 'X')
            break;
        a += k;
        if (!gf_arg_unsigned(&a, k ? h : w) && k)
            return -1;
        for (; *a && strchr("%!^<>", *a); a++)
            *flags |= *a == '%'   ? GF_GEOM_PERCENT
                      : *a == '!' ? GF_GEOM_EXACT
                      : *a == '^' ? GF_GEOM_FILL
                      : *a == '>' ? GF_GEOM_SHRINK
                                  : GF_GEOM_ENLARGE;
    }
    for (int k = 0; k < 2 && (*a == '+' || *a == '-'); k++) {
        char *end;
        if (!isdigit((unsigned char)a[1]))
            return -1;
        const long long v = strtoll(a, &end, 10);
        if (v > GF_MAX_DIM || v < -GF_MAX_DIM)
            return -1;
        *(k ? y : x) = (long)v;
        a = end;
    }
    return *a || *w > 1e9 || *h > 1e9 ? -1 : 0;
}

gf_status gf_parse_report(gf_step *s, const char *arg)
{
    if (!*arg)
        return gf_error(GF_EINVAL, "-%s needs a file name ('-' for standard output)", s->op->name);
    GF_REPORT_ARGS(s).path = arg;
    return GF_OK;
}

void gf_swap_sides(enum gf_orient o, const gf_shape *in, gf_shape *out)
{
    *out = *in;
    if (o & GF_OR_SWAP) {
        out->width = in->height;
        out->height = in->width;
    }
}

double gf_ns_count(const gf_step *s) /* histogram, equalize, grayscale */
{
    return 3.0;
}

double gf_ns_move(const gf_step *s) /* the mirrors, rotate by right angles */
{
    return 3.0;
}

gf_status gf_parse_rank(gf_step *s, const char *arg, int max)
{
    GF_RANK_ARGS(s).max = max;
    return gf_arg_radius(max ? "dilate" : "erode", arg, GF_MAX_RADIUS, &GF_RANK_ARGS(s).radius);
}
