/* SPDX-License-Identifier: MIT */
/* Command-line parsing with getopt_long_only, driven by the op table
 * (ops.c) and the settings table below: `-blur 5`, `--blur 5`, `--blur=5`. */
#include "config.h"
#include "cli.h"
#include "op.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static gf_status set_border(gf_settings *s, const char *a)
{
    static const char *const names[] = {"clamp", "mirror", "wrap", "zero"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(a, names[i])) {
            s->border = (gf_border)i;
            return GF_OK;
        }
    return gf_error(GF_EINVAL, "invalid -border '%s' (want clamp, mirror, wrap or zero)", a);
}

static gf_status set_background(gf_settings *s, const char *a)
{
    unsigned v[4] = {0, 0, 0, 255};
    size_t n = strlen(a);
    if (!strcmp(a, "none"))
        v[3] = 0;
    else if (!strcmp(a, "white"))
        v[0] = v[1] = v[2] = 255;
    else if (!strcmp(a, "black"))
        ;
    else if (a[0] == '#' && (n == 7 || n == 9) && strspn(a + 1, "0123456789abcdefABCDEF") == n - 1) {
        for (size_t i = 0; i < (n - 1) / 2; i++) {
            char h[3] = {a[1 + 2 * i], a[2 + 2 * i], 0};
            v[i] = (unsigned)strtoul(h, NULL, 16);
        }
    } else
        return gf_error(GF_EINVAL, "invalid -background '%s' (want none, black, white, #RRGGBB or #RRGGBBAA)", a);
    for (int i = 0; i < 4; i++)
        s->bg.rgba[i] = (uint16_t)(v[i] * 257);
    s->bg.given = 1;
    return GF_OK;
}

/* auto, cpu, cuda, cuda:N, cuda:N,M,... or cuda:all */
static gf_status set_device(gf_settings *s, const char *a)
{
    long long n;
    if (strlen(a) >= sizeof s->device_text)
        goto bad;
    s->device_index = -1;
    s->ndevices = s->all_devices = 0;
    if (!strcmp(a, "auto"))
        s->device = GF_DEVICE_AUTO;
    else if (!strcmp(a, "cpu"))
        s->device = GF_DEVICE_CPU;
    else if (!strcmp(a, "cuda"))
        s->device = GF_DEVICE_CUDA;
    else if (!strcmp(a, "cuda:all"))
        s->device = GF_DEVICE_CUDA, s->all_devices = 1;
    else if (!strncmp(a, "cuda:", 5)) {
        char item[16];
        for (const char *p = a + 5;; p++) {
            size_t len = strcspn(p, ",");
            if (len >= sizeof item || s->ndevices == GF_MAX_DEVICES)
                goto bad;
            memcpy(item, p, len);
            item[len] = 0;
            if (gf_arg_integer(item, 0, 1023, &n))
                goto bad;
            s->devices[s->ndevices++] = (int)n;
            p += len;
            if (!*p)
                break;
        }
        s->device = GF_DEVICE_CUDA;
        s->device_index = s->devices[0];
    } else
        goto bad;
    snprintf(s->device_text, sizeof s->device_text, "%s", s->device == GF_DEVICE_AUTO ? "cuda" : a);
    return GF_OK;
bad:
    return gf_error(GF_EINVAL, "invalid -device '%s' (want auto, cpu, cuda, cuda:N, cuda:N,M,... or cuda:all)", a);
}

#define INT_SETTING(fn, field, lo, hi, what)                                                                          \
    static gf_status fn(gf_settings *s, const char *a)                                                                \
    {                                                                                                                 \
        long long v;                                                                                                  \
        if (gf_arg_integer(a, lo, hi, &v))                                                                                   \
            return gf_error(GF_EINVAL, "invalid " what " '%s' (want an integer %lld to %lld)", a, (long long)(lo),  \
                            (long long)(hi));                                                                         \
        s->field = v;                                                                                                 \
        return GF_OK;                                                                                                 \
    }
/* A setting without an argument that sets one field. */
#define FLAG_SETTING(fn, field, value)                                                                                \
    static gf_status fn(gf_settings *s, const char *a)                                                                \
    {                                                                                                                 \
        (void)a;                                                                                                      \
        s->field = value;                                                                                             \
        return GF_OK;                                                                                                 \
    }
FLAG_SETTING(set_nul_lists, nul_lists, 1)
FLAG_SETTING(set_mirror, mirror, 1)
FLAG_SETTING(set_auto_orient, auto_orient, 1)
FLAG_SETTING(set_lenient, lenient, 1)
FLAG_SETTING(set_strip, keep, 0)
FLAG_SETTING(set_progress, progress, 1)

INT_SETTING(set_quality_value, quality, 1, 100, "-quality")
INT_SETTING(set_compress_value, compress, 0, 9, "-compress")

static gf_status set_quality(gf_settings *s, const char *a)
{
    s->quality_given = 1;
    return set_quality_value(s, a);
}

static gf_status set_compress(gf_settings *s, const char *a)
{
    s->compress_given = 1;
    return set_compress_value(s, a);
}
INT_SETTING(set_threads, threads, 1, 1024, "-threads")
INT_SETTING(set_limit, limit_pixels, 1, 1LL << 40, "-limit-pixels")

/* -limit-memory SIZE: bytes, or with K, M, G or T (powers of 1024) */
static gf_status set_limit_memory(gf_settings *s, const char *a)
{
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(a, &end, 10);
    const char *units = "KMGT", *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    const int shift = u ? 10 * (int)(u - units + 1) : 0;
    if (errno || end == a || !isdigit((unsigned char)*a) || (*end && (!u || end[1])) || !v ||
        v > (UINT64_MAX >> shift))
        return gf_error(GF_EINVAL, "invalid -limit-memory '%s' (want a size: bytes, or with K, M, G or T)", a);
    s->limit_memory = (uint64_t)v << shift;
    return GF_OK;
}

static gf_status set_format(gf_settings *s, const char *a)
{
    if (!strcasecmp(a, "png"))
        s->format = GF_FMT_PNG;
    else if (!strcasecmp(a, "jpeg") || !strcasecmp(a, "jpg"))
        s->format = GF_FMT_JPEG;
    else if (!strcasecmp(a, "pnm"))
        s->format = GF_FMT_PNM;
    else
        return gf_error(GF_EINVAL, "invalid -format '%s' (want png, jpeg or pnm)", a);
    return GF_OK;
}

static gf_status set_codec(gf_settings *s, const char *a)
{
    if (!strcmp(a, "auto"))
        s->codec = GF_CODEC_AUTO;
    else if (!strcmp(a, "gpu"))
        s->codec = GF_CODEC_GPU;
    else if (!strcmp(a, "cpu"))
        s->codec = GF_CODEC_CPU;
    else
        return gf_error(GF_EINVAL, "invalid -codec '%s' (want auto, gpu or cpu)", a);
    return GF_OK;
}

static gf_status set_depth(gf_settings *s, const char *a)
{
    if (strcmp(a, "8") && strcmp(a, "16"))
        return gf_error(GF_EINVAL, "invalid -depth '%s' (want 8 or 16)", a);
    s->depth = atoi(a);
    return GF_OK;
}

static gf_status set_verbose(gf_settings *s, const char *a)
{
    (void)a;
    s->verbose = 1;
    s->quiet = 0;
    return GF_OK;
}

static gf_status set_quiet(gf_settings *s, const char *a)
{
    (void)a;
    s->quiet = 1;
    s->verbose = 0;
    return GF_OK;
}

static gf_status set_outdir(gf_settings *s, const char *a)
{
    if (!*a)
        return gf_error(GF_EINVAL, "invalid -o '' (want a directory)");
    s->outdir = a;
    return GF_OK;
}

static gf_status set_keep(gf_settings *s, const char *a)
{
    static const struct {
        const char *name;
        unsigned bit;
    } parts[] = {{"icc", GF_KEEP_ICC},         {"exif", GF_KEEP_EXIF}, {"xmp", GF_KEEP_XMP}, {"iptc", GF_KEEP_IPTC},
                 {"density", GF_KEEP_DENSITY}, {"text", GF_KEEP_TEXT}, {"all", GF_KEEP_ALL}, {"none", 0}};
    unsigned keep = 0;
    for (const char *p = a;; p++) {
        const size_t len = strcspn(p, ",");
        size_t i = 0;
        while (i < sizeof parts / sizeof parts[0] &&
               (strlen(parts[i].name) != len || strncasecmp(parts[i].name, p, len)))
            i++;
        if (i == sizeof parts / sizeof parts[0])
            return gf_error(
                GF_EINVAL,
                "invalid -keep '%s' (want a list of icc, exif, xmp, iptc, density and text, or all, or none)", a);
        keep |= parts[i].bit;
        p += len;
        if (!*p)
            break;
    }
    s->keep = keep;
    return GF_OK;
}

/* help, h and version have no apply function: the parser handles them. */
const gf_setting gf_settings_table[] = {
    {"border", GF_ARG_REQUIRED, "clamp|mirror|wrap|zero", "how later stencils read outside the image (clamp)",
     set_border},
    {"background", GF_ARG_REQUIRED, "COLOR", "fill for -rotate: none, black, white, #RRGGBB[AA]", set_background},
    {"device", GF_ARG_REQUIRED, "auto|cpu|cuda[:N]", "where operations run (auto)", set_device},
    {"quality", GF_ARG_REQUIRED, "N", "JPEG quality 1..100 (90)", set_quality},
    {"compress", GF_ARG_REQUIRED, "N", "PNG deflate level 0..9 (6; 1 the fast level)", set_compress},
    {"codec", GF_ARG_REQUIRED, "auto|gpu|cpu",
     "JPEG on a GPU: nvJPEG where it pays (batches once it is up, large single images), nvJPEG only, or "
     "libjpeg-turbo byte for byte (auto)",
     set_codec},
    {"format", GF_ARG_REQUIRED, "png|jpeg|pnm", "output format (else by OUTPUT extension, else the input's)",
     set_format},
    {"auto-orient", GF_ARG_NONE, NULL, "turn each image upright by its EXIF orientation, first; the tag becomes 1",
     set_auto_orient},
    {"keep", GF_ARG_REQUIRED, "LIST",
     "the input's metadata outputs keep: icc,exif,xmp,iptc,density,text, all or none (all)", set_keep},
    {"strip", GF_ARG_NONE, NULL, "write no metadata (-keep none)", set_strip},
    {"lenient", GF_ARG_NONE, NULL, "keep what the decoder recovers from damaged data, with a warning", set_lenient},
    {"depth", GF_ARG_REQUIRED, "8|16", "output sample depth (as decoded)", set_depth},
    {"o", GF_ARG_REQUIRED, "DIR", "batch mode: write each INPUT to DIR under its own name", set_outdir},
    {"0", GF_ARG_NONE, NULL, "@LIST and @- hold NUL-terminated names (find -print0), not lines", set_nul_lists},
    {"mirror", GF_ARG_NONE, NULL, "batch mode: write each INPUT under DIR at its relative path, making folders",
     set_mirror},
    {"threads", GF_ARG_REQUIRED, "N", "batch workers; threads of one image's CPU operations and PNG deflate (cores)",
     set_threads},
    {"limit-pixels", GF_ARG_REQUIRED, "N", "refuse images above N pixels before allocating (268435456)", set_limit},
    {"limit-memory", GF_ARG_REQUIRED, "SIZE",
     "memory the images in hand may take: a batch waits for it, a larger image is refused (half the RAM)",
     set_limit_memory},
    {"v", GF_ARG_NONE, NULL, "per-stage timings on stderr", set_verbose},
    {"q", GF_ARG_NONE, NULL, "print nothing but errors", set_quiet},
    {"progress", GF_ARG_NONE, NULL, "progress bar on stderr in batch mode", set_progress},
    {"h", GF_ARG_NONE, NULL, "this help", NULL},
    {"help", GF_ARG_NONE, NULL, "this help", NULL},
    {"version", GF_ARG_NONE, NULL, "versions of gpufilter, libpng, libjpeg and CUDA", NULL},
};
const int gf_nsettings = (int)(sizeof gf_settings_table / sizeof gf_settings_table[0]);

static int has_arg(enum gf_argkind k)
{
    return k == GF_ARG_REQUIRED ? required_argument : k == GF_ARG_OPTIONAL ? optional_argument : no_argument;
}

/* The op-owned settings (gf_op_settings) and what the command line last gave each. */
struct op_settings {
    const gf_op_setting *list[GF_OP_SETTINGS_MAX];
    const char *given[GF_OP_SETTINGS_MAX]; /* NULL: not given */
    int n;
};

/* Gives step `s` the op-owned settings of its op that were given. */
static gf_status apply_op_settings(gf_step *s, const struct op_settings *os)
{
    for (const gf_op_setting *const *o = s->op->settings; o && *o; o++)
        for (int k = 0; k < os->n; k++)
            if (os->given[k] && !strcmp(os->list[k]->name, (*o)->name)) {
                gf_status st = (*o)->apply(s, os->given[k]);
                if (st)
                    return st;
            }
    return GF_OK;
}

static gf_status add_step(gf_plan *p, const gf_op *op, const char *arg, const struct op_settings *os)
{
    if (p->nsteps % 16 == 0) {
        gf_step *n = realloc(p->steps, sizeof *n * ((size_t)p->nsteps + 16));
        if (!n)
            return gf_error(GF_ENOMEM, "out of memory");
        p->steps = n;
    }
    gf_step *s = &p->steps[p->nsteps];
    memset(s, 0, sizeof *s);
    s->op = op;
    s->border = p->set.border;
    s->background = p->set.bg;
    gf_status st = op->parse ? op->parse(s, arg) : GF_OK;
    if (st || (st = apply_op_settings(s, os)))
        return st;
    p->nsteps++;
    if (op->passthrough)
        p->report = op->name;
    return GF_OK;
}

/* Levenshtein distance of a and b, capped at 9 (names are short). */
static int distance(const char *a, const char *b)
{
    enum { MAX = 32 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAX || lb >= MAX)
        return 9;
    int d[MAX][MAX];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            best = d[i - 1][j] + 1 < best ? d[i - 1][j] + 1 : best;
            best = d[i][j - 1] + 1 < best ? d[i][j - 1] + 1 : best;
            d[i][j] = best;
        }
    return d[la][lb] < 9 ? d[la][lb] : 9;
}

/* The error for an option token that names no option exactly: the names it
 * abbreviates, else those within two edits, as suggestions. */
static gf_status bad_option(const char *token, const struct option *lo, int n)
{
    char name[64];
    const char *t = token + (token[1] == '-' ? 2 : 1);
    snprintf(name, sizeof name, "%.*s", (int)strcspn(t, "="), t);
    for (int i = 0; i < n; i++)
        if (!strcmp(lo[i].name, name) && t[strlen(name)] == '=' && lo[i].has_arg == no_argument)
            return gf_error(GF_EINVAL, "option '%.*s' takes no argument", (int)(t - token) + (int)strlen(name),
                            token);
    char list[256] = "";
    int found = 0, prefix = 0;
    for (int pass = 0; pass < 2 && !found; pass++)
        for (int i = 0; i < n; i++) {
            const int hit = pass == 0 ? *name && !strncmp(lo[i].name, name, strlen(name))
                                      : distance(lo[i].name, name) <= (strlen(name) >= 4 ? 2 : 1);
            if (!hit)
                continue;
            const size_t len = strlen(list);
            snprintf(list + len, sizeof list - 2 - len, "%s-%s", found ? ", " : "", lo[i].name); /* room for " or" */
            found++;
            prefix = pass == 0;
        }
    if (!found)
        return gf_error(GF_EINVAL, "unknown option '%s'", token);
    if (prefix)
        return gf_error(GF_EINVAL, "unknown option '%s' (options are whole names: %s)", token, list);
    char *last = strrchr(list, ',');
    if (last) /* "-a, -b, -c" -> "-a, -b or -c" */
        memmove(last + 3, last + 1, strlen(last + 1) + 1), memcpy(last, " or", 3);
    return gf_error(GF_EINVAL, "unknown option '%s' (did you mean %s?)", token, list);
}

gf_status gf_cli_parse(int argc, char **argv, gf_plan *p)
{
    memset(p, 0, sizeof *p);
    p->set.quality = 90;
    p->set.compress = 6;
    p->set.device_index = -1;
    strcpy(p->set.device_text, "cuda");
    p->set.limit_pixels = 1ull << 28;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    p->set.limit_memory = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 2 : (uint64_t)4 << 30;
    p->set.keep = GF_KEEP_ALL;

    struct op_settings os = {0};
    os.n = gf_op_settings(os.list, GF_OP_SETTINGS_MAX);
    const int general = gf_nops + gf_nsettings, nlong = general + os.n;
    struct option *lo = calloc((size_t)nlong + 1, sizeof *lo);
    if (!lo)
        return gf_error(GF_ENOMEM, "out of memory");
    for (int i = 0; i < gf_nops; i++)
        lo[i] = (struct option){gf_ops[i]->name, has_arg(gf_ops[i]->arg), NULL, 256 + i};
    for (int i = 0; i < gf_nsettings; i++)
        lo[gf_nops + i] =
            (struct option){gf_settings_table[i].name, has_arg(gf_settings_table[i].arg), NULL, 256 + gf_nops + i};
    for (int k = 0; k < os.n; k++)
        lo[general + k] = (struct option){os.list[k]->name, required_argument, NULL, 256 + general + k};

    gf_status st = GF_OK;
    int c;
    opterr = 0;
    optind = 0; /* full reinitialisation (GNU), so that tests may parse twice */
    while (!st && (c = getopt_long_only(argc, argv, ":", lo, NULL)) != -1) {
        /* the option's own token: before its argument when that came separately */
        const char *token = argv[optind - (optarg && optarg == argv[optind - 1] ? 2 : 1)];
        const char *typed = token + (token[1] == '-' ? 2 : 1);
        if (c == '?') {
            st = bad_option(argv[optind - 1], lo, nlong);
        } else if (c == ':') {
            st = gf_error(GF_EINVAL, "option '%s' needs an argument", argv[optind - 1]);
        } else if (strncmp(typed, lo[c - 256].name, strlen(lo[c - 256].name)) ||
                   (typed[strlen(lo[c - 256].name)] && typed[strlen(lo[c - 256].name)] != '=')) {
            st = bad_option(token, lo, nlong); /* an abbreviation: options are whole names */
        } else if (c - 256 < gf_nops) {
            st = add_step(p, gf_ops[c - 256], optarg, &os);
        } else if (c - 256 >= general) { /* an op's own: checked here, applied to its later steps */
            const int k = c - 256 - general;
            gf_step scratch = {0};
            if (!(st = os.list[k]->apply(&scratch, optarg)))
                os.given[k] = optarg;
        } else {
            const gf_setting *s = &gf_settings_table[c - 256 - gf_nops];
            if (s->apply)
                st = s->apply(&p->set, optarg);
            else if (!strcmp(s->name, "version"))
                p->version = 1;
            else
                p->help = 1;
        }
    }
    free(lo);
    if (st)
        return st;
    p->args = argv + optind;
    p->nargs = argc - optind;
    for (int i = 0; i < p->nsteps; i++) /* -thumbnail: whatever -keep says, before or after it */
        if (p->steps[i].op->keeps)
            p->set.keep &= p->steps[i].op->keeps;
    if (p->help || p->version)
        return GF_OK;
    if (p->nargs == 0)
        return gf_error(GF_EINVAL, "missing INPUT");
    if (p->set.outdir) {
        if (p->report)
            return gf_error(GF_EINVAL, "-%s writes one file and cannot be used with -o DIR", p->report);
        return GF_OK;
    }
    if (p->nargs == 1 && !p->report)
        return gf_error(GF_EINVAL, "missing OUTPUT after '%s'", p->args[0]);
    if (p->nargs > 2)
        return gf_error(GF_EINVAL,
                        "too many arguments: expected INPUT OUTPUT, got %d names (use -o DIR for several inputs)",
                        p->nargs);
    return GF_OK;
}

gf_status gf_cli_parse_ops(const char *ops, gf_plan *p)
{
    char *text = strdup(ops), *argv[66] = {"gpufilter"};
    int argc = 1;
    if (!text) {
        memset(p, 0, sizeof *p);
        return gf_error(GF_ENOMEM, "out of memory");
    }
    for (char *t = strtok(text, " "); t; t = strtok(NULL, " ")) {
        if (argc == 64) {
            free(text);
            memset(p, 0, sizeof *p);
            return gf_error(GF_EINVAL, "a fragment of more than 63 words: '%s'", ops);
        }
        argv[argc++] = t;
    }
    argv[argc++] = "in";
    argv[argc++] = "out";
    gf_status st = gf_cli_parse(argc, argv, p);
    p->text = text;
    return st;
}

void gf_plan_free(gf_plan *p)
{
    free(p->steps);
    free(p->text);
    p->steps = NULL;
    p->text = NULL;
}

static void help_line(FILE *f, const char *name, enum gf_argkind k, const char *metavar, const char *help)
{
    char left[64];
    if (!metavar)
        snprintf(left, sizeof left, "-%s", name);
    else if (k == GF_ARG_OPTIONAL)
        snprintf(left, sizeof left, "-%s%s", name, metavar);
    else
        snprintf(left, sizeof left, "-%s %s", name, metavar);
    fprintf(f, "  %-28s %s\n", left, help);
}

void gf_cli_help(FILE *f)
{
    fputs("Usage: gpufilter [SETTINGS] [OPERATIONS] INPUT OUTPUT\n"
          "       gpufilter [SETTINGS] [OPERATIONS] -o DIR INPUT...   (INPUT may be @LIST or @-)\n"
          "       gpufilter [SETTINGS] -histogram FILE INPUT   (or -stats FILE: no image written)\n"
          "Filter an image on the GPU (or the CPU): operations run in command-line order,\n"
          "settings apply to the operations written after them.  '-' reads standard input\n"
          "or writes standard output.  Every option also takes two dashes (--blur=5).\n\n"
          "Operations:\n",
          f);
    for (int i = 0; i < gf_nops; i++)
        help_line(f, gf_ops[i]->name, gf_ops[i]->arg, gf_ops[i]->metavar, gf_ops[i]->help);
    fputs("\nSettings:\n", f);
    for (int i = 0; i < gf_nsettings; i++)
        if (strcmp(gf_settings_table[i].name, "h"))
            help_line(f, gf_settings_table[i].name, gf_settings_table[i].arg, gf_settings_table[i].metavar,
                      gf_settings_table[i].help);
    const gf_op_setting *os[GF_OP_SETTINGS_MAX];
    const int n = gf_op_settings(os, GF_OP_SETTINGS_MAX);
    fputs("\nSettings of one operation:\n", f);
    for (int k = 0; k < n; k++)
        help_line(f, os[k]->name, GF_ARG_REQUIRED, os[k]->metavar, os[k]->help);
    fputs("\nExit status: 0 success, 1 an input could not be processed, 2 usage error.\n"
          "Example: gpufilter -blur 2 -laplacian -rotate 90 in.png out.png\n"
          "See gpufilter(1) for the exact arithmetic of every operation.\n",
          f);
}
