/* SPDX-License-Identifier: MIT */
/* Built without nvJPEG: libjpeg-turbo decodes and encodes every JPEG. */
#include "config.h"
#include "gf_nvjpeg.h"

gf_status gf_nvjpeg_open(gf_cuda *cu, int engines, gf_nvjpeg **out, double *ms)
{
    (void)cu, (void)engines, (void)ms;
    *out = NULL;
    return gf_error(GF_ENODEV, "this gpufilter was built without nvJPEG");
}

void gf_nvjpeg_close(gf_nvjpeg *j)
{
    (void)j;
}

void gf_nvjpeg_version(char *buf, size_t size)
{
    if (size)
        buf[0] = 0;
}

gf_status gf_nvjpeg_decode(gf_nvjpeg *j, gf_cuda *cu, const gf_step *steps, int nsteps, const uint8_t *buf,
                           size_t n, uint64_t limit, gf_shape *shape, int *batch)
{
    (void)j, (void)cu, (void)steps, (void)nsteps, (void)buf, (void)n, (void)limit, (void)shape;
    *batch = 0;
    return gf_error(GF_ENODEV, "this gpufilter was built without nvJPEG");
}

gf_status gf_nvjpeg_encode(gf_nvjpeg *j, const gf_image *dev, int quality, uint8_t **out, size_t *len)
{
    (void)j, (void)dev, (void)quality, (void)len;
    *out = NULL;
    return gf_error(GF_ENODEV, "this gpufilter was built without nvJPEG");
}
