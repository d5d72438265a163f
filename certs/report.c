#include "certs/report.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/lease.h"
#include "kube/rmw.h"
#include "log/log.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/time.h"

struct wh_certs_report {
    struct wh_kube_client *client;
    char *ns, *secret, *identity;
    char name[320];
    char serial[80]; /* last written */
    char rv[32];     /* of our Lease as last written; "" = unknown */
    int64_t written_mono_ns;
    bool written;
};

void wh_certs_report_serial_norm(const char *in, char *out, size_t outsz)
{
    size_t n = 0;
    bool leading = true;
    for (const char *p = in ? in : ""; *p && n + 1 < outsz; p++) {
        unsigned char ch = (unsigned char)*p;
        if (!isxdigit(ch))
            continue;
        if (leading && ch == '0')
            continue;
        leading = false;
        out[n++] = (char)tolower(ch);
    }
    if (n == 0 && outsz > 1)
        out[n++] = '0';
    if (outsz)
        out[n] = '\0';
}

struct wh_certs_report *wh_certs_report_new(struct wh_kube_client *client, const char *ns,
                                            const char *secret, const char *identity)
{
    struct wh_certs_report *r = wh_xcalloc(1, sizeof(*r));
    char label[64];
    r->client = client;
    r->ns = wh_xstrdup(ns);
    r->secret = wh_xstrdup(secret);
    r->identity = wh_xstrdup(identity);
    /* The identity part is cut so that the whole name stays a valid object name. */
    size_t used = strlen(secret) + strlen("-serving-");
    size_t room = used + 1 < 253 ? 253 - used : 1;
    wh_lease_dns_label(identity, label, room > 63 ? 63 : room);
    snprintf(r->name, sizeof(r->name), "%s-serving-%s", secret, label);
    return r;
}

void wh_certs_report_free(struct wh_certs_report *r)
{
    if (!r)
        return;
    free(r->ns);
    free(r->secret);
    free(r->identity);
    free(r);
}

static json_t *report_object(const struct wh_certs_report *r, const char *serial)
{
    struct wh_lease_record rec = {0};
    char now[40];
    wh_lease_microtime(wh_time_wall_ns(), now, sizeof(now));
    snprintf(rec.holder, sizeof(rec.holder), "%s", r->identity);
    rec.duration_s = WH_CERTS_REPORT_TTL_SECS;
    snprintf(rec.renew_time, sizeof(rec.renew_time), "%s", now);
    snprintf(rec.resource_version, sizeof(rec.resource_version), "%s", r->rv);
    json_t *labels = json_pack("{s:s}", WH_CERTS_REPORT_LABEL, r->secret);
    json_t *ann = json_pack("{s:s}", WH_CERTS_REPORT_SERIAL, serial);
    WH_ASSERT(labels && ann);
    json_t *o = wh_lease_object(r->ns, r->name, &rec, labels, ann);
    json_decref(labels);
    json_decref(ann);
    return o;
}

struct publish {
    struct wh_certs_report *r;
    const char *serial;
};

/* Our own Lease: whatever is there is replaced by the current report. */
static enum wh_err decide_report(void *arg, const json_t *current, json_t **desired,
                                 struct wh_errbuf *eb)
{
    (void)current;
    (void)eb;
    struct publish *p = arg;
    *desired = report_object(p->r, p->serial);
    return WH_OK;
}

enum wh_err wh_certs_report_publish(struct wh_certs_report *r, const char *serial, bool force,
                                    struct wh_errbuf *eb)
{
    char path[512], collection[512];
    char norm[80];
    int64_t mono = wh_time_mono_ns();

    wh_certs_report_serial_norm(serial, norm, sizeof(norm));
    if (!force && r->written && strcmp(norm, r->serial) == 0 &&
        mono - r->written_mono_ns < (int64_t)WH_CERTS_REPORT_HEARTBEAT_SECS * 1000000000)
        return WH_OK;
    enum wh_err rc = wh_lease_path(path, sizeof(path), r->ns, r->name);
    if (!rc)
        rc = wh_lease_path(collection, sizeof(collection), r->ns, NULL);
    if (rc)
        return wh_errbuf_set(eb, rc, "bad Lease name %s/%s", r->ns, r->name);
    /* The resourceVersion we last wrote saves a read; a stale one costs a conflict and a
     * read. Our name is ours alone, so a conflict only ever means a stale version. */
    json_t *base = r->rv[0] ? json_pack("{s:{s:s}}", "metadata", "resourceVersion", r->rv) : NULL;
    struct wh_rmw_kube k = {.client = r->client, .path = path, .collection_path = collection};
    struct wh_rmw_io io;
    wh_rmw_kube_io(&k, &io);
    struct wh_rmw_opts o = {.base = base, .create = true, .max_attempts = 3};
    struct wh_rmw_result res;
    struct publish p = {r, norm};
    struct wh_errbuf why = {{0}};
    rc = wh_rmw_run(&io, &o, decide_report, &p, &res, &why);
    if (rc == WH_ERR_NOT_FOUND && base) {
        /* deleted since we wrote it: create it again */
        wh_rmw_result_fini(&res);
        o.base = NULL;
        rc = wh_rmw_run(&io, &o, decide_report, &p, &res, &why);
    }
    json_decref(base);
    if (rc == WH_OK && res.stored) {
        const char *rv = wh_json_meta_str(res.stored, "resourceVersion");
        snprintf(r->rv, sizeof(r->rv), "%s", rv ? rv : "");
        snprintf(r->serial, sizeof(r->serial), "%s", norm);
        r->written = true;
        r->written_mono_ns = mono;
    } else {
        r->rv[0] = '\0';
    }
    wh_rmw_result_fini(&res);
    if (rc)
        return wh_errbuf_set(eb, rc, "serving report Lease %s/%s: %s", r->ns, r->name,
                             why.msg[0] ? why.msg : wh_strerror(rc));
    return WH_OK;
}

void wh_certs_report_withdraw(struct wh_certs_report *r)
{
    char path[512];
    struct wh_kube_status st = {0};
    if (!r || !r->written)
        return;
    enum wh_err rc = wh_lease_path(path, sizeof(path), r->ns, r->name);
    if (!rc)
        rc = wh_kube_delete(r->client, path, NULL, &st);
    if (rc && rc != WH_ERR_NOT_FOUND)
        wh_log(WH_LOG_WARN, "cannot delete serving report Lease %s/%s: %d %s", r->ns, r->name,
               st.code, st.message);
    r->written = false;
}

struct check_ctx {
    struct wh_kube_client *client;
    const char *ns;
    const char *want;
    time_t now;
    struct wh_certs_report_summary *sum;
};

static void add_lagging(struct wh_certs_report_summary *sum, const char *who)
{
    size_t n = strlen(sum->lagging);
    snprintf(sum->lagging + n, sizeof(sum->lagging) - n, "%s%s", n ? ", " : "", who);
}

static enum wh_err check_one(void *arg, json_t *item)
{
    struct check_ctx *cx = arg;
    struct wh_lease_record rec;
    char serial[80];
    wh_lease_parse(item, &rec);
    long long ttl = rec.duration_s > 0 ? rec.duration_s : WH_CERTS_REPORT_TTL_SECS;
    if (rec.renew == 0 || rec.renew + ttl < cx->now) {
        if (rec.renew + WH_CERTS_REPORT_GC_SECS < cx->now) {
            char path[512];
            struct wh_kube_status st = {0};
            const char *name = wh_json_meta_str(item, "name");
            if (name && wh_lease_path(path, sizeof(path), cx->ns, name) == WH_OK &&
                wh_kube_delete(cx->client, path, NULL, &st) == WH_OK)
                cx->sum->removed++;
        }
        return WH_OK;
    }
    cx->sum->live++;
    wh_certs_report_serial_norm(wh_json_annotation(item, WH_CERTS_REPORT_SERIAL), serial,
                                sizeof(serial));
    if (strcmp(serial, cx->want) == 0)
        cx->sum->current++;
    else
        add_lagging(cx->sum, rec.holder[0] ? rec.holder : "?");
    return WH_OK;
}

enum wh_err wh_certs_report_check(struct wh_kube_client *client, const char *ns, const char *secret,
                                  const char *want_serial, time_t now,
                                  struct wh_certs_report_summary *sum, struct wh_errbuf *eb)
{
    char path[512];
    char selector[320];
    char want[80];
    struct wh_kube_status st = {0};
    memset(sum, 0, sizeof(*sum));
    wh_certs_report_serial_norm(want_serial, want, sizeof(want));
    struct check_ctx cx = {client, ns, want, now, sum};
    snprintf(selector, sizeof(selector), "%s=%s", WH_CERTS_REPORT_LABEL, secret);
    enum wh_err rc = wh_lease_path(path, sizeof(path), ns, NULL);
    if (!rc)
        rc = wh_kube_list_all(client, path, selector, NULL, 0, check_one, &cx, NULL, &st);
    if (rc)
        return wh_errbuf_set(eb, rc, "list serving reports in %s: %d %s", ns, st.code,
                             st.message[0] ? st.message : wh_strerror(rc));
    return WH_OK;
}
