/* SPDX-License-Identifier: MIT */
/* Batch mode's list: every INPUT (each @LIST and @- whole) read before any
 * image, and each output named and settled: an output that would replace a
 * listed input or another output is refused, paths compared resolved. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"

/* ---- output names --------------------------------------------------- */

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static struct slot *map_slot(const struct map *m, const char *key)
{
    size_t j = hash(key) & (m->cap - 1);
    while (m->slot[j].key && strcmp(m->slot[j].key, key))
        j = (j + 1) & (m->cap - 1);
    return &m->slot[j];
}

/* The value of `key`, NULL if absent. */
static void *map_get(const struct map *m, const char *key)
{
    return m->cap ? map_slot(m, key)->val : NULL;
}

/* Adds `key` unless present (keeping the first value); -1 out of memory. */
static int map_put(struct map *m, const char *key, void *val)
{
    if (2 * (m->n + 1) > m->cap) {
        struct map grown = {calloc(m->cap ? m->cap * 2 : 1024, sizeof *grown.slot), m->cap ? m->cap * 2 : 1024, 0};
        if (!grown.slot)
            return -1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slot[i].key)
                *map_slot(&grown, m->slot[i].key) = m->slot[i];
        free(m->slot);
        grown.n = m->n;
        *m = grown;
    }
    struct slot *s = map_slot(m, key);
    if (!s->key) {
        s->key = key;
        s->val = val;
        m->n++;
    }
    return 0;
}

/* ---- which file a path names ---------------------------------------- */

static char *join(const char *dir, const char *base)
{
    const size_t n = strlen(dir) + strlen(base) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", base);
    return p;
}

static char *resolve(batch *b, const char *path, int must_exist);

/* FOLDER resolved (realpath), or for a folder not made yet its nearest
 * existing parent's, with the rest appended; cached.  NULL where it cannot
 * be resolved. */
static const char *resolve_folder(batch *b, const char *folder)
{
    const char *r = map_get(&b->folders, folder);
    if (r)
        return r;
    char *key = strdup(folder), *val = realpath(folder, NULL);
    if (!val && errno == ENOENT)
        val = resolve(b, folder, 0);
    if (!key || !val || map_put(&b->folders, key, val)) {
        free(key);
        free(val);
        return NULL;
    }
    return val;
}

/* The file PATH names, resolved: its folder through resolve_folder, and a
 * symbolic link at PATH itself followed (as the output is written through
 * it).  NULL where it cannot be resolved, or (`must_exist`) does not exist. */
static char *resolve(batch *b, const char *path, int must_exist)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!strcmp(base, ".."))
        return realpath(path, NULL);
    char *folder = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    const char *rf = folder ? resolve_folder(b, folder) : NULL;
    free(folder);
    if (!rf)
        return NULL;
    if (!*base || !strcmp(base, ".")) /* "F/" and "F/." are F */
        return strdup(rf);
    char *p = join(rf, base);
    struct stat sb;
    if (!p || lstat(p, &sb)) {
        if (p && must_exist) {
            free(p);
            p = NULL;
        }
    } else if (S_ISLNK(sb.st_mode)) {
        char *target = realpath(p, NULL); /* NULL: a dangling link, which names itself */
        if (target || must_exist) {
            free(p);
            p = target;
        }
    }
    return p;
}

static const char *extension(gf_format f)
{
    return f == GF_FMT_PNG ? ".png" : f == GF_FMT_JPEG ? ".jpg" : ".pnm";
}

/* DIR/BASE, BASE the input's last path component, or under -mirror
 * DIR/FOLDER/BASE, FOLDER the input's relative folder without leading "./"
 * (the extension replaced under -format): never a path the input can steer
 * out of DIR. */
static gf_status output_path(const char *dir, const char *input, gf_format fmt, int mirror, char **out)
{
    if (!strcmp(input, "-"))
        return gf_error(GF_EINVAL, "standard input has no name to write under -o DIR");
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
        return gf_error(GF_EINVAL, "no file name to write under -o DIR");
    const char *folder = base; /* empty without -mirror */
    if (mirror) {
        if (input[0] == '/')
            return gf_error(GF_EINVAL, "-mirror takes relative paths: an absolute one would leave -o DIR");
        for (const char *c = input; *c; c += strcspn(c, "/"), c += *c == '/')
            if (!strncmp(c, "..", 2) && (c[2] == '/' || !c[2]))
                return gf_error(GF_EINVAL, "-mirror: a '..' in the path would leave -o DIR");
        for (folder = input; folder[0] == '.' && folder[1] == '/';)
            for (folder += 2; *folder == '/'; folder++)
                ;
    }
    size_t keep = strlen(base);
    const char *dot = strrchr(base, '.');
    if (fmt && dot && dot != base)
        keep = (size_t)(dot - base);
    const char *ext = fmt ? extension(fmt) : "";
    const size_t nfolder = (size_t)(base - folder);
    size_t need = strlen(dir) + 1 + nfolder + keep + strlen(ext) + 1;
    char *p = malloc(need);
    if (!p)
        return gf_error(GF_ENOMEM, "out of memory");
    snprintf(p, need, "%s/%.*s%.*s%s", dir, (int)nfolder, folder, (int)keep, base, ext);
    *out = p;
    return GF_OK;
}

/* mkdir -p of the folder holding PATH */
static gf_status make_parent(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return gf_error(GF_ENOMEM, "out of memory");
    *strrchr(dir, '/') = 0;
    gf_status st = batch_make_dir(dir);
    free(dir);
    return st;
}

/* mkdir -p DIR */
gf_status batch_make_dir(const char *dir)
{
    char *p = strdup(dir);
    if (!p)
        return gf_error(GF_ENOMEM, "out of memory");
    for (char *s = p + 1;; s++) {
        if (*s == '/' || !*s) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0777) && errno != EEXIST) {
                gf_status st = gf_error(GF_EIO, "cannot create the output directory: %s", strerror(errno));
                free(p);
                return st;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    struct stat sb;
    if (stat(dir, &sb))
        return gf_error(GF_EIO, "cannot use the output directory: %s", strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return gf_error(GF_EIO, "not a directory");
    return GF_OK;
}

/* ---- the input list -------------------------------------------------- */

/* A line of an @LIST as read by getline (`len` bytes): drops the line end
 * (LF or CRLF, and any CR before it) and returns the length left, 0 for a
 * blank line, which is skipped. */
static size_t list_entry(char *line, ssize_t len)
{
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = 0;
    return (size_t)len;
}

/* The next entry of a list into *line: its length (0: an empty entry, to
 * skip), -1 at the end or on a read error, -2 for a line holding a NUL byte
 * (a NUL-separated list read without -0, which must not pass as one name). */
static ssize_t read_entry(FILE *f, int nul, char **line, size_t *cap)
{
    ssize_t len = getdelim(line, cap, nul ? '\0' : '\n', f);
    if (len < 0)
        return -1;
    if (nul)
        return len > 0 && (*line)[len - 1] == 0 ? len - 1 : len;
    if (memchr(*line, 0, (size_t)len))
        return -2;
    return (ssize_t)list_entry(*line, len);
}

/* An INPUT or (`list`) a @LIST failed, reported under b->lock. */
static void failed(batch *b, int list, const char *name, const char *detail)
{
    pthread_mutex_lock(&b->lock);
    if (list)
        batch_failed_list(b, name, detail);
    else
        batch_failed_input(b, name, detail);
    pthread_mutex_unlock(&b->lock);
}

/* The next INPUT path (new string), NULL at the end; by the settling thread alone. */
static char *next_input(batch *b)
{
    struct source *s = &b->src;
    for (;;) {
        if (s->list) {
            errno = 0;
            ssize_t len = read_entry(s->list, s->nul, &s->line, &s->cap);
            if (len >= 0) {
                if (!len)
                    continue;
                char *p = strdup(s->line);
                if (p)
                    return p;
                failed(b, 0, s->list_arg, "out of memory");
                continue;
            }
            if (len == -2) {
                failed(b, 1, s->list_arg, "the list holds NUL bytes (as find -print0 writes): read it with -0");
            } else if (ferror(s->list)) {
                char msg[160];
                snprintf(msg, sizeof msg, "read error: %s", strerror(errno ? errno : EIO));
                failed(b, 1, s->list_arg, msg);
            }
            if (s->list != stdin)
                fclose(s->list);
            s->list = NULL;
        }
        if (s->next == s->nargs)
            return NULL;
        const char *a = s->args[s->next++];
        if (a[0] != '@') {
            char *p = strdup(a);
            if (p)
                return p;
            failed(b, 0, a, "out of memory");
            continue;
        }
        s->list_arg = a;
        s->list = strcmp(a, "@-") ? fopen(a + 1, "r") : stdin;
        if (!s->list) {
            char msg[160];
            snprintf(msg, sizeof msg, "cannot open the list: %s", strerror(errno));
            failed(b, 1, a, msg);
        }
    }
}

/* Refuses entry e before anything is written: reported, and never taken. */
static void refuse(batch *b, struct entry *e, gf_status st)
{
    pthread_mutex_lock(&b->lock);
    b->dispatched++;
    batch_failed_input(b, e->input, gf_error_detail(st));
    pthread_mutex_unlock(&b->lock);
    gf_error_clear();
    free(e->output);
    e->output = NULL;
}

int batch_read(batch *b)
{
    size_t cap = 0;
    char *input;
    while ((input = next_input(b))) {
        struct entry *all = b->nall < cap ? b->all : realloc(b->all, (cap = cap ? 2 * cap : 256) * sizeof *all);
        if (!all) {
            free(input);
            pthread_mutex_lock(&b->lock);
            batch_clear_progress(b);
            gf_say("out of memory");
            pthread_mutex_unlock(&b->lock);
            return -1;
        }
        b->all = all;
        all[b->nall++] = (struct entry){.input = input};
    }
    return 0;
}

/* Settles each INPUT's output before any is written, refusing an output
 * that
 *   - is a listed INPUT that another entry writes in place (that entry
 *     keeps it);
 *   - is any other listed INPUT, which would be lost, read or not;
 *   - another entry writes first;
 *   - under -mirror, a symbolic link under DIR takes out of DIR.
 * Paths are compared resolved, so that ./a/x.jpg and a/x.jpg, or a link
 * and its target, are one file.  0, or nonzero where the batch cannot go on
 * (reported).  It runs beside the GPU's start, which prints under -v: its
 * messages too are printed under b->lock. */
int batch_settle(batch *b)
{
    const gf_settings *set = &b->plan->set;
    struct map inputs = {0}, outputs = {0};
    int rc = 0;
    char *root = rc ? NULL : realpath(set->outdir, NULL);
    if (!rc && !root) {
        const int e = errno;
        pthread_mutex_lock(&b->lock);
        batch_clear_progress(b);
        gf_say("%s: cannot resolve the output directory: %s", set->outdir, strerror(e));
        pthread_mutex_unlock(&b->lock);
        rc = -2;
    }
    for (size_t i = 0; !rc && i < b->nall; i++) {
        struct entry *e = &b->all[i];
        e->in_key = resolve(b, e->input, 1);
        if (e->in_key && map_put(&inputs, e->in_key, e))
            rc = -1;
    }
    for (size_t i = 0; !rc && i < b->nall; i++) {
        struct entry *e = &b->all[i];
        gf_status st = output_path(set->outdir, e->input, set->format, set->mirror, &e->output);
        if (st)
            refuse(b, e, st);
        else if (!(e->out_key = resolve(b, e->output, 0)))
            refuse(b, e, gf_error(GF_EIO, "cannot resolve %s: %s", e->output, strerror(errno)));
    }
    const size_t nroot = root ? strlen(root) : 0;
    for (size_t i = 0; !rc && i < b->nall; i++) {
        struct entry *e = &b->all[i];
        if (!e->output)
            continue;
        gf_status st = GF_OK;
        const struct entry *read = map_get(&inputs, e->out_key);
        const struct entry *first = map_get(&outputs, e->out_key);
        if (set->mirror && nroot > 1 && (strncmp(e->out_key, root, nroot) || e->out_key[nroot] != '/'))
            st = gf_error(GF_EINVAL, "-mirror: a symbolic link under %s leads %s out of it; skipped", set->outdir,
                          e->output);
        else if (read && read != e && read->out_key && !strcmp(read->out_key, e->out_key))
            st = gf_error(GF_EINVAL, "%s is the output of %s, written in place; skipped", e->output, read->input);
        else if (read && read != e)
            st = gf_error(GF_EINVAL, "%s is %s, an INPUT of this batch; skipped", e->output, read->input);
        else if (first)
            st = gf_error(GF_EINVAL, "%s is the output of an earlier INPUT too; skipped", e->output);
        else if (map_put(&outputs, e->out_key, e))
            rc = -1;
        if (st)
            refuse(b, e, st);
    }
    if (rc == -1) {
        pthread_mutex_lock(&b->lock);
        batch_clear_progress(b);
        gf_say("out of memory");
        pthread_mutex_unlock(&b->lock);
    }
    free(root);
    free(inputs.slot);
    free(outputs.slot);
    for (size_t i = 0; i < b->nall; i++) { /* settled: the workers need names only */
        free(b->all[i].in_key);
        free(b->all[i].out_key);
        b->all[i].in_key = b->all[i].out_key = NULL;
    }
    for (size_t i = 0; i < b->folders.cap; i++)
        if (b->folders.slot[i].key) {
            free((char *)b->folders.slot[i].key);
            free(b->folders.slot[i].val);
        }
    free(b->folders.slot);
    b->folders = (struct map){0};
    return rc;
}

/* The next INPUT to process and its output name; NULL at the end. */
char *batch_take_input(batch *b, const char **output)
{
    pthread_mutex_lock(&b->lock);
    char *input = NULL;
    while (!input && b->taken < b->nall) {
        struct entry *e = &b->all[b->taken++];
        if (!e->output)
            continue;
        b->dispatched++;
        gf_status st = b->plan->set.mirror ? make_parent(e->output) : GF_OK;
        input = e->input;
        e->input = NULL;
        if (st) {
            batch_failed_input(b, input, gf_error_detail(st));
            gf_error_clear();
            free(input);
            input = NULL;
        }
        *output = e->output;
    }
    pthread_mutex_unlock(&b->lock);
    return input;
}
