/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the command-line parser.  The input is split into
 * arguments at newlines and NULs (at most 64); the plan is parsed and freed,
 * and --help is written to /dev/null for plans that ask for it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum { MAXARGS = 64 };
    char *buf = malloc(size + 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    buf[size] = 0;
    char *argv[MAXARGS + 2] = {"gpufilter"};
    int argc = 1;
    char *p = buf, *end = buf + size;
    while (p <= end && argc <= MAXARGS) {
        char *q = p;
        while (q < end && *q && *q != '\n')
            q++;
        *q = 0;
        argv[argc++] = p;
        p = q + 1;
    }
    argv[argc] = NULL;
    gf_plan plan;
    if (gf_cli_parse(argc, argv, &plan) == GF_OK && plan.help) {
        FILE *sink = fopen("/dev/null", "w");
        if (sink) {
            gf_cli_help(sink);
            fclose(sink);
        }
    }
    gf_plan_free(&plan);
    gf_error_clear();
    free(buf);
    return 0;
}
