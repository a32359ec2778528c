/* SPDX-License-Identifier: MIT */
/* An op's NPP counterpart, for bench/gfbench's side-by-side column: a
 * function gfb_npp_<op> in src/ops/<folder>/<op>_npp.c (built into gfbench
 * where configure finds NPP; gfbench finds them through src/ops/list.h).
 * The images are RGBA8 in device memory, `out` shaped by the step; the
 * border is replicated, as the op's default. */
#ifndef GF_NPP_PEER_H
#define GF_NPP_PEER_H

#include <stddef.h>

#include <cuda_runtime_api.h>
#include <npp.h>

#include "ops.h"

enum gfb_npp_mode {
    GFB_NPP_HAS,     /* 1 where NPP has a counterpart of the step, else 0 */
    GFB_NPP_PREPARE, /* uploads what a run needs (taps, weights), outside the timing: 0, else -1 */
    GFB_NPP_RUN,     /* runs it on ctx's stream: NPP's status */
};
typedef int gfb_npp_fn(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                       gf_image *out);

/* A device buffer of at least `bytes`, kept and grown across calls (gfbench's). */
Npp8u *gfb_npp_scratch(size_t bytes);

/* The whole image's size, and the origin, as NPP takes them. */
#define GFB_NPP_SIZE(in) ((NppiSize){(in)->width, (in)->height})
#define GFB_NPP_ZERO ((NppiPoint){0, 0})

#endif
