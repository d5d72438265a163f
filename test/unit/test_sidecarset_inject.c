/* SidecarSet injection at /mutate-pod (spec sidecarset.md 4): the public vectors in process,
 * then one test per rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/support/vector.h"
#include "test/unit/test.h"
#include "util/buf.h"
#include "util/mem.h"
#include "util/str.h"

/* The vectors of this feature: 001-019, 028, 029 (020-027 are the SidecarSet webhooks'). */
static bool mine(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int n = (base[0] - '0') * 100 + (base[1] - '0') * 10 + (base[2] - '0');
    return (n >= 1 && n <= 19) || n == 28 || n == 29;
}

TEST(sidecarset_inject_vectors)
{
    size_t n = 0;
    char **paths = wh_vec_list_dir("test/vectors/sidecarset", &n);
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (!mine(paths[i])) {
            free(paths[i]);
            continue;
        }
        struct wh_vec v;
        struct wh_errbuf eb = {{0}};
        CHECK(wh_vec_load(paths[i], &v, &eb) == WH_OK);
        struct wh_buf diff;
        wh_buf_init(&diff, 1 << 20);
        bool skipped = false;
        bool ok = wh_vec_run_local(&v, &skipped, &diff);
        if (!ok || skipped)
            fprintf(stderr, "vector %s: %s\n%s\n", paths[i], skipped ? "skipped" : "FAILED",
                    diff.data ? diff.data : "");
        CHECK(ok && !skipped);
        ran++;
        wh_buf_fini(&diff);
        wh_vec_fini(&v);
        free(paths[i]);
    }
    free(paths);
    CHECK_EQ_INT(ran, 21);
}
