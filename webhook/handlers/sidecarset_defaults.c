#include "handlers/sidecarset_defaults.h"

/* Placeholder until the defaulting lands: keeps the tree building so the injection code can be
 * written against the header. */
void wh_sidecarset_defaults(json_t *sidecarset)
{
    (void)sidecarset;
}

void wh_sidecarset_default_container(json_t *container, bool init)
{
    (void)container;
    (void)init;
}

void wh_sidecarset_default_volumes(json_t *volumes)
{
    (void)volumes;
}
