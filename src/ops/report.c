/* SPDX-License-Identifier: MIT */
/* What the reports of the pass-through ops (-histogram, -stats) share: the
 * format chosen by the file's extension, and the writing of the file
 * (through a temporary file, or to standard output for "-"). */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "codec.h"
#include "op.h"

gf_report_format gf_report_format_of(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return GF_REPORT_TEXT;
    if (!strcasecmp(dot, ".csv"))
        return GF_REPORT_CSV;
    if (!strcasecmp(dot, ".json"))
        return GF_REPORT_JSON;
    if (!strcasecmp(dot, ".png"))
        return GF_REPORT_PNG;
    return GF_REPORT_TEXT;
}

gf_status gf_report_write(const char *what, const char *path, gf_status (*body)(FILE *, void *), void *ctx)
{
    gf_status st = gf_write_file(path, body, ctx);
    if (st) {
        char detail[400];
        snprintf(detail, sizeof detail, "%s", gf_error_detail(st));
        return gf_error(st, "%s %s: %s", what, path, detail);
    }
    return GF_OK;
}
