/* SPDX-License-Identifier: MIT */
/* libFuzzer target: any bytes through the decoders (PNG, JPEG, PNM, sniffed
 * as gpufilter does, the metadata read too, the orientation reset; and where
 * the data is refused, again as under -lenient), then a short CPU pipeline,
 * the PNG writer's fast and default levels read back (they must give the
 * image exactly), and the encoders (the metadata written back).  Built by --enable-fuzzing (clang); run by
 * tests/fuzz/run.sh. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "codec.h"
#include "pipeline.h"

static gf_plan plan;

/* The pipeline, parsed once as the command line would be. */
static void setup(void)
{
    static char *argv[] = {"gpufilter", "-blur", "0.8", "-rotate", "17", "-laplacian=4", "-equalize",
                           "-transverse", "-border", "wrap", "-box", "1", "in", "out", NULL};
    if (gf_cli_parse((int)(sizeof argv / sizeof argv[0]) - 1, argv, &plan))
        abort();
}

/* The PNG writer's fast level (-compress 1) and its default, differential:
 * each file read back must be the image, sample for sample. */
static void round_trip(const gf_image *img)
{
    for (int level = 1; level <= 6; level += 5) {
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        if (!f)
            return;
        gf_encode_opts e = {.compress = level, .threads = 2};
        const gf_status st = gf_png_encode(f, img, &e);
        if (fclose(f) || st) { /* out of memory: not a finding */
            free(buf);
            gf_error_clear();
            continue;
        }
        gf_decode_opts o = {.limit_pixels = UINT64_MAX, .quiet = 1, .name = "round trip"};
        gf_image back = {0};
        gf_format fmt;
        if (gf_decode((const uint8_t *)buf, n, &o, &back, &fmt) != GF_OK || back.width != img->width ||
            back.height != img->height || back.channels != img->channels || back.depth != img->depth)
            abort();
        const size_t row = (size_t)img->width * img->channels * (img->depth / 8);
        for (int y = 0; y < img->height; y++)
            if (memcmp(back.data + (size_t)y * back.stride, img->data + (size_t)y * img->stride, row))
                abort();
        gf_image_free(&back);
        free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!plan.nsteps)
        setup();
    const uint64_t limit = 1u << 18; /* small images keep the runs fast; bigger ones must fail cleanly */
    gf_meta meta = {0};
    gf_decode_opts o = {.limit_pixels = limit, .quiet = 1, .name = "fuzz", .meta = &meta};
    gf_image img = {0};
    gf_format fmt;
    gf_status st = gf_decode(data, size, &o, &img, &fmt);
    if (st == GF_EFORMAT) { /* and what -lenient recovers */
        gf_meta_free(&meta);
        o.lenient = 1;
        st = gf_decode(data, size, &o, &img, &fmt);
    }
    if (st == GF_OK && gf_exif_orientation(&meta) > 1) /* the EXIF reader and the in-place reset */
        gf_exif_reset_orientation(&meta);
    if (st == GF_OK &&
        gf_pipeline_cpu(plan.steps, plan.nsteps, &img, 4 * limit, 0, "fuzz", 2) == GF_OK) {
        round_trip(&img);
        FILE *sink = fopen("/dev/null", "wb");
        if (sink) {
            gf_encode_opts e = {.quality = 75, .compress = 1, .meta = &meta};
            gf_png_encode(sink, &img, &e);
            gf_pnm_encode(sink, &img, &e);
            gf_image_drop_alpha(&img);
            if (gf_image_set_depth(&img, 8) == GF_OK)
                gf_jpeg_encode(sink, &img, &e);
            fclose(sink);
        }
    }
    gf_image_free(&img);
    gf_meta_free(&meta);
    gf_error_clear();
    return 0;
}
