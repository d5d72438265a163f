#include "certs/controller_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certs/inject.h"
#include "certs/selfcall.h"
#include "kube/cache.h"
#include "log/log.h"
#include "util/base64.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/time.h"

#define SELFCALL_RETRY_MS 1000
#define SELFCALL_MAX 8 /* distinct (caBundle, name) pairs called; more is never seen */

struct call_target {
    char *name, *path, *bundle;
    size_t bundle_len;
    const char *where; /* for messages: the entry or CRD */
};

/* Adds the call cc stands for when it is new (same name and caBundle: one call does). */
static void add_call(struct call_target *ts, size_t *n, const json_t *cc, const char *where,
                     const char *default_path)
{
    char *name = wh_certs_inject_called_name(cc), *path = wh_certs_inject_entry_path(cc);
    const char *b64 = wh_json_str(cc, "caBundle");
    unsigned char *bundle = NULL;
    size_t len = 0;
    if (!b64 || wh_base64_decode(b64, strlen(b64), &bundle, &len) != WH_OK)
        bundle = NULL;
    bool dup = false;
    for (size_t i = 0; i < *n && !dup && name && bundle; i++)
        dup = strcmp(ts[i].name, name) == 0 && ts[i].bundle_len == len &&
              memcmp(ts[i].bundle, bundle, len) == 0;
    if (!name || dup || *n == SELFCALL_MAX) {
        free(name);
        free(path);
        free(bundle);
        return;
    }
    ts[*n] = (struct call_target){.name = name,
                                  .path = path ? path : wh_xstrdup(default_path),
                                  .bundle = (char *)bundle,
                                  .bundle_len = len,
                                  .where = where};
    (*n)++;
}

/* Where this replica's HTTPS server can be reached from inside: its bind address, loopback
 * for a wildcard. */
static const char *connect_host(const struct wh_config *cfg, char *buf, size_t bufsz)
{
    const char *b = cfg->bind_address;
    if (!b[0] || strcmp(b, "0.0.0.0") == 0 || strcmp(b, "*") == 0)
        return "127.0.0.1";
    if (strcmp(b, "::") == 0 || strcmp(b, "[::]") == 0)
        return "::1";
    size_t n = strlen(b);
    if (b[0] == '[' && n > 2 && b[n - 1] == ']')
        snprintf(buf, bufsz, "%.*s", (int)(n - 2), b + 1);
    else
        snprintf(buf, bufsz, "%s", b);
    return buf;
}

/* Calls this replica through every distinct (name, caBundle) the cluster's served entries and
 * our CRDs hold. */
static enum wh_err selfcall_all(struct wh_certs_controller *c, int port, int *calls,
                                struct wh_errbuf *eb)
{
    struct call_target ts[SELFCALL_MAX];
    size_t n = 0;
    json_t *live[2] = {NULL, NULL};
    struct wh_certs_inject_target t;
    enum wh_err rc = WH_OK;
    wh_ctl_target_for(c, NULL, 0, &t);
    for (enum wh_ctl_kind k = WH_CTL_MUTATING; k <= WH_CTL_VALIDATING && !rc; k++) {
        rc = wh_ctl_get_config(c, k, &live[k - WH_CTL_MUTATING], eb);
        size_t i;
        const json_t *e;
        json_array_foreach(json_object_get(live[k - WH_CTL_MUTATING], "webhooks"), i, e)
        {
            const json_t *cc = wh_json_obj(e, "clientConfig");
            char *path = wh_certs_inject_entry_path(cc);
            if (path && t.serves(t.serves_arg, path))
                add_call(ts, &n, cc, wh_ctl_kind_names[k], "/");
            free(path);
        }
    }
    struct wh_objlist l;
    wh_objlist_init(&l);
    wh_cache_list(c->crds, NULL, &l);
    for (size_t i = 0; i < l.n && !rc; i++) {
        if (wh_certs_inject_crd_selected(wh_ctl_crd_view(l.items[i]), &t))
            add_call(ts, &n,
                     wh_json_path(wh_ctl_crd_view(l.items[i]), "spec", "conversion", "webhook",
                                  "clientConfig", NULL),
                     wh_ctl_kind_names[WH_CTL_CRD], "/convert");
    }
    char buf[64];
    const char *host = connect_host(c->cfg, buf, sizeof(buf));
    for (size_t i = 0; i < n && !rc; i++) {
        struct wh_errbuf why = {{0}};
        struct wh_certs_selfcall call = {.ca_bundle = ts[i].bundle ? ts[i].bundle : "",
                                         .ca_bundle_len = ts[i].bundle_len,
                                         .name = ts[i].name,
                                         .path = ts[i].path,
                                         .connect_host = host,
                                         .port = port};
        rc = wh_certs_selfcall(&call, &why);
        if (rc) {
            char *url = wh_certs_inject_url(ts[i].name, port, ts[i].path);
            wh_errbuf_set(eb, rc, "%s with the caBundle of the %s: %s", url, ts[i].where, why.msg);
            free(url);
        }
    }
    *calls = (int)n;
    for (size_t i = 0; i < n; i++) {
        free(ts[i].name);
        free(ts[i].path);
        free(ts[i].bundle);
    }
    wh_objlist_fini(&l);
    json_decref(live[0]);
    json_decref(live[1]);
    return rc;
}

void wh_ctl_selfcall_tick(struct wh_certs_controller *c)
{
    int port = c->hooks.https_port ? c->hooks.https_port(c->hooks.https_arg) : 0;
    int64_t now = wh_time_mono_ns();
    if (atomic_load(&c->called) || !atomic_load(&c->initialized) || port <= 0 ||
        now < c->next_call_ns)
        return;
    struct wh_errbuf eb = {{0}};
    int calls = 0;
    enum wh_err rc = selfcall_all(c, port, &calls, &eb);
    pthread_mutex_lock(&c->mu);
    snprintf(c->call_error, sizeof(c->call_error), "%s", rc ? eb.msg : "");
    pthread_mutex_unlock(&c->mu);
    if (rc) {
        WH_LOG_EVERY(30, WH_LOG_WARN, "not ready: calling this server as the API server would: %s",
                     eb.msg);
        c->next_call_ns = wh_time_mono_ns() + SELFCALL_RETRY_MS * WH_CTL_MS;
        return;
    }
    atomic_store(&c->called, true);
    if (calls)
        wh_log(WH_LOG_INFO,
               "called this server as the API server does, through %d configured "
               "clientConfig%s: it answers",
               calls, calls == 1 ? "" : "s");
    else
        wh_log(WH_LOG_INFO, "no served webhook entry or CRD conversion in the cluster calls "
                            "this server yet: nothing to call");
}
