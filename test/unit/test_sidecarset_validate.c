/* /validate-apps-kruise-io-sidecarset (spec sidecarset.md 8): vectors 022-027, then each rule of
 * sections 8.3-8.7 with its exact message, for v1beta1 and v1alpha1 objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test/support/admission_run.h"
#include "test/support/vector.h"
#include "test/unit/test.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/str.h"

#define EP "/validate-apps-kruise-io-sidecarset"

static bool run_vector(const char *file)
{
    char path[256];
    struct wh_vec v;
    struct wh_errbuf eb = {{0}};
    struct wh_buf diff;
    bool skipped = false, ok;
    snprintf(path, sizeof(path), "test/vectors/sidecarset/%s", file);
    if (wh_vec_load(path, &v, &eb)) {
        fprintf(stderr, "%s: %s\n", path, eb.msg);
        return false;
    }
    wh_buf_init(&diff, 1 << 20);
    ok = wh_vec_run_local(&v, &skipped, &diff) && !skipped;
    if (!ok)
        fprintf(stderr, "vector %s: %s\n%s\n", path, skipped ? "skipped" : "FAILED",
                diff.data ? diff.data : "");
    wh_buf_fini(&diff);
    wh_vec_fini(&v);
    return ok;
}

TEST(sidecarset_validate_vectors)
{
    CHECK(run_vector("022-validate-missing-selector.json"));
    CHECK(run_vector("023-validate-container-name-conflict.json"));
    CHECK(run_vector("024-validate-patch-metadata-without-whitelist.json"));
    CHECK(run_vector("025-validate-allowed-disjoint-selectors.json"));
    CHECK(run_vector("026-validate-injection-revision-not-found.json"));
    CHECK(run_vector("027-validate-update-cannot-add-container.json"));
}
