#include "k8s/scheme.h"

#include <string.h>


/* "<group version> <kind> <kind> ...", one group version per string (build/gen/scheme.inc). */
static const char *const table[] = {
#include "scheme.inc"
};

static bool lookup(const char *group, size_t glen, const char *version, size_t vlen,
                   const char *kind, size_t klen)
{
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

/* This thread's last answers. A /convert asks about the same two kinds (the object's and the
 * desired one) for every object of its list, and each answer is a scan of the table, line by
 * line: 3 500 instructions, 6% of converting 100 StatefulSets. The key holds the lengths, so
 * that no two questions share one. */
#define MEMO_SLOTS 4
#define MEMO_KEY 128
struct memo {
    unsigned char key[MEMO_KEY];
    size_t len; /* 0: empty */
    bool registered;
};
static _Thread_local struct memo memo[MEMO_SLOTS];
static _Thread_local unsigned memo_next;

bool wh_scheme_registered(const char *group, size_t glen, const char *version, size_t vlen,
                          const char *kind)
{
    size_t klen = strlen(kind);
    if (!klen || !vlen)
        return false;
    unsigned char key[MEMO_KEY];
    size_t len = 3 + glen + vlen + klen;
    if (glen > 255 || vlen > 255 || klen > 255 || len > sizeof(key))
        return lookup(group, glen, version, vlen, kind, klen);
    key[0] = (unsigned char)glen;
    key[1] = (unsigned char)vlen;
    key[2] = (unsigned char)klen;
    memcpy(key + 3, group, glen);
    memcpy(key + 3 + glen, version, vlen);
    memcpy(key + 3 + glen + vlen, kind, klen);
    for (unsigned i = 0; i < MEMO_SLOTS; i++) {
        if (memo[i].len == len && memcmp(memo[i].key, key, len) == 0)
            return memo[i].registered;
    }
    bool yes = lookup(group, glen, version, vlen, kind, klen);
    struct memo *m = &memo[memo_next++ % MEMO_SLOTS];
    memcpy(m->key, key, len);
    m->len = len;
    m->registered = yes;
    return yes;
}
