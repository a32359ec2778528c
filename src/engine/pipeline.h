/* SPDX-License-Identifier: MIT */
#ifndef GF_PIPELINE_H
#define GF_PIPELINE_H

#include "cli.h"
#include "cuda.h"
#include "gf_nvjpeg.h"

/* Ends the process with exit status `rc` (1 where standard output cannot be
 * flushed) once the outputs are written, without closing the GPU: the
 * driver releases a process's contexts, memory and JPEG engines when it
 * ends, at once, and a GPU still starting on another thread is not waited
 * for. */
_Noreturn void gf_exit_fast(int rc);

/* Runs the steps on the CPU, each from one image into the next, an op's
 * fast path (on up to `threads` threads) where it has one. */
gf_status gf_pipeline_cpu(const gf_step *steps, int nsteps, gf_image *img, uint64_t limit, int verbose,
                          const char *name, int threads);

/* After gf_cuda_open() failed with `st`: under -device auto (and unless the
 * failure is a bad setting) says so under -v and returns 1, and the caller
 * runs on the CPU; else 0, and the failure stands. */
int gf_gpu_fallback(const gf_settings *set, gf_status st);

/* The host memory an image takes through the plan, from its file's bytes:
 * its decoded size and twice the largest image the steps make (the CPU
 * path's two buffers), where the header shows the shape (0 where that is
 * above -limit-pixels, which the decoder refuses); else three times the
 * file's size (a PNM holds its samples as they are). */
uint64_t gf_memory_need(const gf_plan *plan, const uint8_t *buf, size_t n);
/* GF_ELIMIT where `need` is above -limit-memory (a single image, or one no
 * batch can admit), with the message that says so. */
gf_status gf_memory_check(const gf_settings *set, uint64_t need);

/* Under -auto-orient, `plan` with the step that turns an image of EXIF
 * orientation meta's upright put first (*steps, which the caller frees,
 * holds the new list), and meta's tag reset to 1; else `plan` as it is.
 * meta->edited is set when a step changes the pixels. */
gf_status gf_plan_oriented(const gf_plan *plan, gf_meta *meta, gf_plan *out, gf_step **steps);
/* The stages of one image: gf_decode_timed decodes a file's bytes, with
 * its metadata into *meta (none under -strip unless -auto-orient needs it,
 * nor where meta is NULL); gf_filter runs the plan's steps on `cu` when not
 * NULL (falling back to the CPU when the GPU runs out of memory under
 * -device auto) or on the CPU (on up to `threads` threads); gf_store
 * converts depth and format and writes OUTPUT atomically, with `meta` where
 * the format holds it, encoding on up to `threads` threads.  `name` is the
 * input's name for -v lines. */
gf_status gf_decode_timed(const gf_settings *set, const char *name, const uint8_t *buf, size_t n, double read_ms,
                          gf_image *img, gf_format *fmt, gf_meta *meta);
/* The format OUTPUT is written in: -format, else its extension, else infmt. */
gf_format gf_output_format(const gf_settings *set, const char *output, gf_format infmt);
gf_status gf_filter(const gf_plan *plan, gf_cuda *cu, gf_image *img, const char *name, int threads);
/* The metadata an output of `shape` in format `fmt` carries: meta's EXIF
 * made to fit it (gf_exif_update), what -keep keeps of it, and for JPEG
 * what one segment holds (the rest dropped with a warning naming `name`).
 * The view borrows meta's buffers. */
gf_meta gf_meta_out(const gf_settings *set, gf_meta *meta, gf_shape shape, gf_format fmt, const char *name);
gf_status gf_store(const gf_settings *set, int threads, gf_image *img, gf_meta *meta, gf_format infmt,
                   const char *output, const char *name);

/* A JPEG file a GPU is to decode: its metadata from the header (under
 * -keep or -auto-orient; else *meta stays empty). */
void gf_jpeg_meta(const gf_settings *set, const uint8_t *buf, size_t n, const char *name, gf_meta *meta);
/* A JPEG file buf[0..n) through nvJPEG `nj` on `cu`: decoded into the
 * chain's input, the plan's steps run there, and the result encoded there
 * where OUTPUT is written as JPEG (*bytes, *len: the file, with what
 * gf_meta_out keeps of *meta) or else downloaded into *img.  *cpu is set,
 * with nothing done, where nvJPEG does not take the file, or under -device
 * auto where the GPU's memory does not hold the chain: the CPU decoder
 * takes it.  *mp is the image's megapixels.  Under -v, prints the read
 * (read_ms), the decode and the chain. */
gf_status gf_gpu_jpeg(const gf_plan *plan, gf_cuda *cu, gf_nvjpeg *nj, const uint8_t *buf, size_t n, double read_ms,
                      gf_meta *meta, const char *name, const char *output, uint8_t **bytes, size_t *len,
                      gf_image *img, int *cpu, double *mp);

/* Batch mode (-o DIR, src/engine/batch.c): every INPUT (and every path of each
 * @LIST) through the plan into DIR.  Returns the exit status (0 or 1). */
int gf_batch(const gf_plan *plan);

#endif
