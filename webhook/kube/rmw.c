#include "kube/rmw.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/backoff.h"
#include "util/deadline.h"
#include "util/json.h"
#include "util/time.h"

#define NS_PER_MS 1000000LL

static void set_resource_version(json_t *obj, const json_t *current)
{
    const char *rv = current ? wh_json_meta_str(current, "resourceVersion") : NULL;
    json_t *meta = wh_json_obj_ensure(obj, "metadata");
    if (rv)
        json_object_set_new(meta, "resourceVersion", json_string(rv));
    else
        json_object_del(meta, "resourceVersion");
}

/* Sleeps ms, or until the deadline; false when the deadline leaves no room for another try. */
static bool pause_before_retry(int64_t ms, int64_t deadline)
{
    int64_t now = wh_time_mono_ns();
    if (now + ms * NS_PER_MS >= deadline)
        return false;
    wh_time_sleep_ms(ms);
    return true;
}

enum wh_err wh_rmw_run(const struct wh_rmw_io *io, const struct wh_rmw_opts *opts,
                       wh_rmw_decide_fn decide, void *arg, struct wh_rmw_result *res,
                       struct wh_errbuf *eb)
{
    static const struct wh_rmw_opts defaults = {0};
    const struct wh_rmw_opts *o = opts ? opts : &defaults;
    struct wh_rmw_result local = {0};
    struct wh_rmw_result *r = res ? res : &local;
    memset(r, 0, sizeof(*r));
    int64_t deadline = o->deadline_ns ? o->deadline_ns : wh_deadline_within_ms(0);
    if (!deadline)
        deadline = wh_time_mono_ns() + 30000 * NS_PER_MS;
    struct wh_backoff bo = {
        .first_ms = o->backoff_ms > 0 ? o->backoff_ms : 10, .max_ms = 1000, .jitter_pct = 10};
    json_t *current = o->base ? json_incref((json_t *)(uintptr_t)o->base) : NULL;
    bool have_current = o->base != NULL;
    bool from_base = o->base != NULL; /* current came from the caller, not a read of ours */
    enum wh_err rc = WH_OK;

    for (;;) {
        if (!have_current) {
            rc = io->get(io->arg, &current, eb);
            if (rc == WH_ERR_NOT_FOUND && o->create)
                rc = WH_OK;
            if (rc)
                break;
            have_current = true;
            from_base = false;
        }
        json_t *desired = NULL;
        rc = decide(arg, current, &desired, eb);
        json_decref(r->decided);
        r->decided = desired ? json_incref(desired) : NULL;
        if (!rc && !desired && from_base && o->confirm_unchanged) {
            /* Nothing to write, decided on a copy that may be stale (a cache): only a read proves
             * the object is still like that, so decide once more on what is there. */
            json_decref(current);
            current = NULL;
            have_current = false;
            continue;
        }
        if (rc || !desired || o->dry_run) {
            json_decref(desired);
            break;
        }
        set_resource_version(desired, current);
        json_t *stored = NULL;
        r->writes++;
        rc = io->put(io->arg, desired, current == NULL, &stored, eb);
        json_decref(desired);
        if (rc == WH_OK) {
            json_decref(r->stored);
            r->stored = stored;
            break;
        }
        json_decref(stored);
        if (rc != WH_ERR_CONFLICT)
            break;
        r->conflicts++;
        if (o->max_attempts > 0 && r->writes >= o->max_attempts)
            break;
        if (!pause_before_retry(wh_backoff_next(&bo), deadline)) {
            rc = wh_errbuf_set(eb, WH_ERR_TIMEOUT,
                               "the deadline passed after %d conflicting writes", r->conflicts);
            break;
        }
        json_decref(current);
        current = NULL;
        have_current = false; /* someone else wrote: decide again on what is there now */
    }
    json_decref(current);
    if (r == &local)
        wh_rmw_result_fini(&local);
    return rc;
}

void wh_rmw_result_fini(struct wh_rmw_result *res)
{
    json_decref(res->stored);
    json_decref(res->decided);
    res->stored = res->decided = NULL;
}

/* --- the io of an API object ---------------------------------------------------------------- */

static enum wh_err kube_status_err(struct wh_rmw_kube *k, enum wh_err rc, const char *verb,
                                   struct wh_errbuf *eb)
{
    return wh_errbuf_set(eb, rc, "%s %s: %s", verb, k->path,
                         k->st.message[0] ? k->st.message : wh_strerror(rc));
}

static enum wh_err kube_get(void *arg, json_t **out, struct wh_errbuf *eb)
{
    struct wh_rmw_kube *k = arg;
    enum wh_err rc = wh_kube_get(k->client, k->path, out, &k->st);
    return rc ? kube_status_err(k, rc, "get", eb) : WH_OK;
}

static enum wh_err kube_put(void *arg, const json_t *obj, bool create, json_t **stored,
                            struct wh_errbuf *eb)
{
    struct wh_rmw_kube *k = arg;
    enum wh_err rc;
    if (create) {
        if (!k->collection_path)
            return wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "%s does not exist", k->path);
        rc = wh_kube_create(k->client, k->collection_path, obj, stored, &k->st);
        return rc ? kube_status_err(k, rc, "create", eb) : WH_OK;
    }
    char path[1024];
    int n = snprintf(path, sizeof(path), "%s%s", k->path, k->status ? "/status" : "");
    if (n < 0 || (size_t)n >= sizeof(path))
        return wh_errbuf_set(eb, WH_ERR_INVALID, "path too long: %s", k->path);
    rc = wh_kube_update(k->client, path, obj, stored, &k->st);
    return rc ? kube_status_err(k, rc, "update", eb) : WH_OK;
}

void wh_rmw_kube_io(struct wh_rmw_kube *k, struct wh_rmw_io *io)
{
    memset(&k->st, 0, sizeof(k->st));
    io->get = kube_get;
    io->put = kube_put;
    io->arg = k;
}

bool wh_rmw_newer(const char *a, const char *b)
{
    if (!a || !b || !*a || !*b)
        return a && *a && !(b && *b);
    char *ea = NULL, *eb = NULL;
    errno = 0;
    unsigned long long va = strtoull(a, &ea, 10);
    unsigned long long vb = strtoull(b, &eb, 10);
    if (errno || *ea || *eb)
        return false;
    return va > vb;
}
