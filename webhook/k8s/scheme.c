#include "k8s/scheme.h"

#include <string.h>


/* "<group version> <kind> <kind> ...", one group version per string (build/gen/scheme.inc). */
static const char *const table[] = {
#include "scheme.inc"
};

bool wh_scheme_registered(const char *group, size_t glen, const char *version, size_t vlen,
                          const char *kind)
{
    size_t klen = strlen(kind);
    if (!klen || !vlen)
        return false;
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        const char *line = table[i];
        const char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        /* the group version as GroupVersion.String() prints it: "v1" for the core group */
        size_t gvlen = (size_t)(sp - line);
        size_t want = glen ? glen + 1 + vlen : vlen;
        if (gvlen != want)
            continue;
        if (glen && (memcmp(line, group, glen) != 0 || line[glen] != '/' ||
                     memcmp(line + glen + 1, version, vlen) != 0))
            continue;
        if (!glen && memcmp(line, version, vlen) != 0)
            continue;
        for (const char *p = sp; p; p = strchr(p + 1, ' ')) {
            const char *w = p + 1;
            if (strncmp(w, kind, klen) == 0 && (w[klen] == ' ' || w[klen] == '\0'))
                return true;
        }
        return false;
    }
    return false;
}
