/* SPDX-License-Identifier: MIT */
#ifndef GF_ERROR_H
#define GF_ERROR_H

/* Every function that can fail returns a gf_status; the human detail is
 * recorded (per thread) with gf_error() and printed once by main. */
#ifdef __cplusplus
extern "C" {
#endif

typedef enum gf_status {
    GF_OK = 0,
    GF_EINVAL,    /* bad argument or option value (usage error) */
    GF_ENOMEM,    /* host allocation failed */
    GF_EOVERFLOW, /* size arithmetic would overflow */
    GF_EIO,       /* read or write failed */
    GF_EFORMAT,   /* input is not a valid image of a supported kind */
    GF_ELIMIT,    /* image above -limit-pixels */
    GF_ENODEV,    /* no usable CUDA device */
    GF_ECUDA,     /* a CUDA call failed */
    GF_EDEVMEM,   /* out of GPU memory */
    GF_EINTERNAL  /* a bug */
} gf_status;

#if defined(__GNUC__)
#define GF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GF_PRINTF(a, b)
#endif

/* Records the detail of the current error (replacing any earlier one) and
 * returns `st`, so that callers can write `return gf_error(GF_EIO, ...)`. */
gf_status gf_error(gf_status st, const char *fmt, ...) GF_PRINTF(2, 3);
/* The detail recorded last on this thread, or a generic text for `st`. */
const char *gf_error_detail(gf_status st);
void gf_error_clear(void);
/* Prints one line on standard error: "gpufilter: " and the message, its
 * control characters (a newline in a file name) written as \n, \r, \t or
 * \xHH, so that every message stays one line. */
void gf_say(const char *fmt, ...) GF_PRINTF(1, 2);
const char *gf_strerror(gf_status st);
/* Milliseconds on a monotonic clock, for -v lines. */
double gf_now_ms(void);
/* Prints one -v timing line: "gpufilter: NAME: STAGE 1.234 ms INFO". */
void gf_timing(const char *name, const char *stage, double ms, const char *info);

#ifdef __cplusplus
}
#endif
#endif
