#include "handlers/sidecarset_hash.h"

#include "util/mem.h"

/* Placeholder until the Go-compatible encoder lands: keeps the tree building so the injection
 * code can be written against the header. */
char *wh_sidecarset_hash_input(const json_t *sidecarset, bool without_image)
{
    (void)sidecarset;
    (void)without_image;
    return wh_xstrdup("");
}

char *wh_sidecarset_hash(const json_t *sidecarset, bool without_image)
{
    (void)sidecarset;
    (void)without_image;
    return wh_xstrdup("");
}

void wh_sidecarset_hash_annotate(json_t *sidecarset, bool only_missing)
{
    (void)sidecarset;
    (void)only_missing;
}
