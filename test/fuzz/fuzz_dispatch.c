/* Fuzz target: any body on any route through the whole request pipeline (wh_dispatch):
 * the JSON parser, the review codecs, every handler and the patch diff. The first byte picks
 * the route. Nothing may crash, hang or leak; malformed input must get an answer. The body's
 * parse spans (util/jsonparse.h) must copy exactly what serialising gives. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "log/log.h"
#include "server/dispatch.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/jsonparse.h"
#include "util/mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wh_config cfg;
static struct wh_cluster *cluster;

static void setup(void)
{
    wh_json_init();
    wh_log_setup(WH_LOG_ERROR, WH_LOG_TEXT);
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook", "--feature-gates=ResourcesDeletionProtection=true", NULL};
    json_t *none = json_array();
    if (wh_config_load(&cfg, 2, argv, &eb) ||
        wh_cluster_new_standalone_objects(none, &cluster, &eb) ||
        wh_routes_setup(&cfg, cluster, &eb) || wh_cluster_start(cluster, &eb))
        abort();
    json_decref(none);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!cluster)
        setup();
    if (size < 1)
        return 0;
    size_t n = 0;
    const struct wh_route *const *routes = wh_routes_all(&n);
    const struct wh_route *route = routes[data[0] % n];
    struct wh_handler_ctx ctx = {.cfg = &cfg, .cluster = cluster};
    struct wh_reply reply;
    wh_dispatch(route, &ctx, (const char *)data + 1, size - 1, &reply);
    /* Every body is answered: a review, a 400 naming the problem, or a 413/503 when its parse
     * needs more memory than its budget (util/reqmem.h). */
    if (reply.http_status != 200 && reply.http_status != 400 && reply.http_status != 413 &&
        reply.http_status != 503)
        abort();
    wh_reply_fini(&reply);

    /* The input's text copied for containers the parse recorded (what /convert answers with)
     * is exactly what serialising them gives. */
    struct wh_json_spans *spans = NULL;
    json_t *v = wh_json_parse_spans((const char *)data + 1, size - 1, NULL, &spans);
    if (v) {
        char *want = wh_json_dumps(v);
        struct wh_buf b;
        wh_buf_init(&b, SIZE_MAX / 4);
        if (wh_json_write_spans(&b, v, spans) || strcmp(b.data, want) != 0)
            abort();
        wh_buf_fini(&b);
        free(want);
        json_decref(v);
    }
    wh_json_spans_free(spans);
    return 0;
}
