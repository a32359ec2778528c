/* SPDX-License-Identifier: MIT */
/* argv -> plan -> run -> exit status; nothing else. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "pipeline.h"

static void version(void)
{
    char cuda[160];
    gf_cuda_versions(cuda, sizeof cuda);
    printf("gpufilter %s\n%s\n%s\n", PACKAGE_VERSION, gf_codec_versions(), cuda);
}

static int usage_error(const char *detail)
{
    fprintf(stderr, "gpufilter: %s (see 'gpufilter --help')\n", detail);
    return 2;
}

/* Picks the back end: NULL (the CPU) or an open CUDA device. */
static gf_status open_device(const gf_plan *p, gf_cuda **cu)
{
    *cu = NULL;
    if (p->set.device == GF_DEVICE_CPU || p->nsteps == 0)
        return GF_OK;
    gf_status st = gf_cuda_open(p->set.device_index, cu);
    if (st && gf_gpu_fallback(&p->set, st)) {
        gf_error_clear();
        return GF_OK;
    }
    if (!st && p->set.verbose)
        fprintf(stderr, "gpufilter: running on %s\n", gf_cuda_device_name(*cu));
    return st;
}

int main(int argc, char **argv)
{
    gf_plan plan;
    gf_fileio_init();
    if (gf_cli_parse(argc, argv, &plan)) {
        int rc = usage_error(gf_error_detail(GF_EINVAL));
        gf_plan_free(&plan);
        return rc;
    }
    if (plan.help || plan.version) {
        if (plan.help)
            gf_cli_help(stdout);
        else
            version();
        gf_plan_free(&plan);
        return fflush(stdout) ? 1 : 0;
    }
    if (plan.set.outdir) {
        int rc = gf_batch(&plan);
        gf_plan_free(&plan);
        return rc;
    }
    const char *input = plan.args[0], *output = plan.nargs > 1 ? plan.args[1] : NULL;
    if (output && !strcmp(output, "-") && isatty(STDOUT_FILENO)) {
        gf_plan_free(&plan);
        return usage_error("refusing to write image data to a terminal");
    }
    for (int i = 0; output && !strcmp(output, "-") && i < plan.nsteps; i++)
        if (plan.steps[i].op->passthrough && !strcmp(plan.steps[i].histogram.path, "-")) {
            gf_plan_free(&plan);
            return usage_error("the image and a histogram cannot both go to standard output");
        }

    gf_cuda *cu = NULL;
    gf_status st = open_device(&plan, &cu);
    if (st) {
        fprintf(stderr, "gpufilter: %s: %s\n", plan.set.device_text, gf_error_detail(st));
        gf_plan_free(&plan);
        return 1;
    }
    const char *failed = input;
    st = gf_process(&plan, cu, input, output, &failed);
    if (st)
        fprintf(stderr, "gpufilter: %s: %s\n", failed, gf_error_detail(st));
    gf_cuda_close(cu);
    gf_plan_free(&plan);
    return st ? 1 : 0;
}
