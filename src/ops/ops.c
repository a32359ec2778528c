/* SPDX-License-Identifier: MIT */
/* The op table, gathered from the operations' folders (src/ops/list.h: one
 * line an op), and what the chain of steps asks of it: finding an op, the
 * shapes, the CPU's cost.  Adding an op: see CONTRIBUTING.md. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ops.h"

#define GF_OP(name) extern const gf_op gf_op_##name;
#include "list.h"
#undef GF_OP

/* The tests' first fragment is the op as typically used: gpucheck also runs
 * it on a photo-sized image.  The others reach every kernel path. */
const gf_op *const gf_ops[] = {
#define GF_OP(name) &gf_op_##name,
#include "list.h"
#undef GF_OP
};
const int gf_nops = (int)(sizeof gf_ops / sizeof gf_ops[0]);

const gf_op *gf_op_find(const char *name)
{
    for (int i = 0; i < gf_nops; i++)
        if (!strcmp(gf_ops[i]->name, name))
            return gf_ops[i];
    return NULL;
}

int gf_op_settings(const gf_op_setting **out, int max)
{
    int n = 0;
    for (int i = 0; i < gf_nops; i++)
        for (const gf_op_setting *const *o = gf_ops[i]->settings; o && *o; o++) {
            int seen = 0;
            for (int k = 0; k < n && !seen; k++)
                seen = !strcmp(out[k]->name, (*o)->name);
            if (!seen && n < max)
                out[n++] = *o;
        }
    return n;
}

gf_status gf_step_shape(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    if (s->op->shape)
        return s->op->shape(s, in, out);
    *out = *in;
    return GF_OK;
}

double gf_chain_cpu_ms(const gf_step *steps, int nsteps, gf_shape shape, int threads)
{
    double ms = 0;
    for (int i = 0; i < nsteps; i++) {
        gf_shape next = shape;
        if (gf_step_shape(&steps[i], &shape, &next))
            return HUGE_VAL;
        const int share = steps[i].op->fast && threads > 1 ? threads : 1;
        ms += steps[i].op->cpu_ns(&steps[i]) * next.width * next.height * next.channels / 1e6 / share;
        shape = next;
    }
    return ms;
}

gf_status gf_chain_shape(const gf_step *steps, int nsteps, gf_shape *shape, uint64_t limit, size_t *most)
{
    gf_status st = gf_image_bytes(shape->width, shape->height, shape->channels, shape->depth, most);
    for (int i = 0; !st && i < nsteps; i++) {
        if (steps[i].op->passthrough)
            continue;
        gf_shape next;
        size_t bytes;
        if (!(st = gf_step_shape(&steps[i], shape, &next)) && !(st = gf_shape_check(&next, limit)) &&
            !(st = gf_image_bytes(next.width, next.height, next.channels, next.depth, &bytes))) {
            *shape = next;
            if (bytes > *most)
                *most = bytes;
        }
    }
    return st;
}
