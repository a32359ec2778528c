/* SPDX-License-Identifier: MIT */
/* The EXIF orientation: read with libexif; reset in place, the one SHORT
 * rewritten, because re-serialising EXIF moves blocks (a maker note) whose
 * offsets inside them would then point elsewhere. */
#include "config.h"
#include "codec.h"

#include <libexif/exif-data.h>
#include <stdlib.h>
#include <string.h>

int gf_exif_orientation(const gf_meta *m)
{
    if (!m->exif || m->exif_len < 8)
        return 0;
    uint8_t *app1 = malloc(6 + m->exif_len); /* libexif reads an APP1's payload: "Exif\0\0", TIFF */
    ExifData *ed = app1 ? exif_data_new() : NULL;
    int o = 0;
    if (ed) {
        memcpy(app1, "Exif\0\0", 6);
        memcpy(app1 + 6, m->exif, m->exif_len);
        exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION); /* read, change nothing */
        exif_data_load_data(ed, app1, (unsigned int)(6 + m->exif_len));
        ExifEntry *e = exif_content_get_entry(ed->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
        if (e && e->format == EXIF_FORMAT_SHORT && e->components >= 1 && e->data)
            o = exif_get_short(e->data, exif_data_get_byte_order(ed));
        exif_data_unref(ed);
    }
    free(app1);
    return o >= 1 && o <= 8 ? o : 0;
}

static unsigned get(const uint8_t *p, int bytes, int big)
{
    unsigned v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (unsigned)p[big ? i : bytes - 1 - i] << (8 * (bytes - 1 - i));
    return v;
}

void gf_exif_reset_orientation(gf_meta *m)
{
    uint8_t *t = m->exif;
    const size_t n = m->exif_len;
    if (!t || n < 8 || !(t[0] == t[1] && (t[0] == 'I' || t[0] == 'M')))
        return;
    const int big = t[0] == 'M';
    const size_t ifd = get(t + 4, 4, big);
    if (ifd > n - 2)
        return;
    const unsigned count = get(t + ifd, 2, big);
    for (size_t i = 0, e = ifd + 2; i < count && e + 12 <= n; i++, e += 12)
        if (get(t + e, 2, big) == 0x0112 && get(t + e + 2, 2, big) == 3 && get(t + e + 4, 4, big) >= 1) {
            t[e + 8] = big ? 0 : 1; /* SHORT 1, left-justified in the value field */
            t[e + 9] = big ? 1 : 0;
            return;
        }
}
