#include "certs/controller_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certs/fs_store.h"
#include "certs/inject.h"
#include "certs/pem.h"
#include "certs/report.h"
#include "log/log.h"
#include "metrics/metrics.h"
#include "util/str.h"

static char *read_dir_ca(const struct wh_certs_controller *c, size_t *len)
{
    char *path = wh_str_printf("%s/%s", c->env.cert_dir, WH_CERTS_FILE_CA_CERT);
    char *data = NULL;
    *len = 0;
    if (wh_certs_pem_read_file(path, WH_CERTS_PEM_MAX, &data, len, NULL) != WH_OK)
        data = NULL;
    free(path);
    return data;
}

/* The CA certificates that clients may trust right now besides new_ca: the stored CA, the
 * one in our cert dir, the one of the material in effect (what this replica has been serving
 * and publishing: it outlives a deleted Secret and a deleted cert dir), and the CAs of a
 * rotation still in progress. Returns: a new string, "" when none. */
char *wh_ctl_cas_still_trusted(const struct wh_certs_controller *c,
                               const struct wh_certs_bundle *stored, const char *in_progress,
                               const struct wh_certs_bundle *fresh)
{
    size_t stored_len = 0, dir_len = 0, new_len = 0, out_len = 0;
    const char *stored_ca =
        stored ? wh_certs_bundle_get(stored, WH_CERTS_CA_CERT, &stored_len) : NULL;
    const char *in_effect =
        c->current ? wh_certs_bundle_get(c->current, WH_CERTS_CA_CERT, NULL) : NULL;
    const char *new_ca = wh_certs_bundle_get(fresh, WH_CERTS_CA_CERT, &new_len);
    char *dir_ca = read_dir_ca(c, &dir_len);
    char *all = wh_str_printf("%s\n%s\n%s\n%s", stored_ca ? stored_ca : "", dir_ca ? dir_ca : "",
                              in_effect ? in_effect : "", in_progress ? in_progress : "");
    char *out = NULL;
    wh_certs_inject_other_cas(all, strlen(all), new_ca, new_len, (long long)time(NULL), &out,
                              &out_len);
    free(all);
    free(dir_ca);
    return out;
}

char *wh_ctl_bundle_with(const struct wh_certs_bundle *b, const char *others, size_t *len)
{
    size_t ca_len = 0;
    const char *ca = wh_certs_bundle_get(b, WH_CERTS_CA_CERT, &ca_len);
    char *text = wh_str_printf("%.*s%s", (int)ca_len, ca ? ca : "", others ? others : "");
    *len = strlen(text);
    return text;
}

/* Publishes new CA + old CAs ahead of storing certificates of the new CA, and waits
 * --ca-publish-delay so that API servers use the bundle before anyone serves them. */
enum wh_err wh_ctl_publish_ahead(struct wh_certs_controller *c, const struct wh_certs_bundle *fresh,
                                 const char *old, struct wh_errbuf *eb)
{
    size_t len = 0;
    char *bundle = wh_ctl_bundle_with(fresh, old, &len);
    enum wh_err rc = wh_ctl_inject_all(c, bundle, len, eb);
    free(bundle);
    if (rc)
        return rc;
    wh_log(WH_LOG_INFO,
           "CA rotation: caBundles now trust the new and the old CA; new certificates are "
           "stored in %lld ms",
           c->cfg->ca_publish_delay_ms);
    if (wh_ctl_sleep_unless_stopped(c, c->cfg->ca_publish_delay_ms))
        return wh_errbuf_set(eb, WH_ERR_INTERNAL, "stopping");
    return WH_OK;
}

/* The old CAs may go once every live replica serves the current certificate (reports), this
 * one included, and at least --ca-publish-delay after the new CA was stored. */
enum wh_err wh_ctl_rotation_may_end(struct wh_certs_controller *c, bool *may, bool *expired,
                                    struct wh_errbuf *eb)
{
    char own[80];
    size_t ca_len = 0, left_len = 0;
    char *left = NULL;
    const char *ca = wh_certs_bundle_get(c->current, WH_CERTS_CA_CERT, &ca_len);
    time_t now = time(NULL);
    enum wh_err rc = WH_OK;

    *may = false;
    wh_certs_inject_other_cas(c->previous, strlen(c->previous), ca, ca_len, (long long)now, &left,
                              &left_len);
    *expired = left_len == 0; /* every old CA expired: nothing left to protect */
    free(left);
    if (!*expired) {
        if (!wh_ctl_serving_serial(c, own, sizeof(own)) || strcmp(own, c->serial) != 0)
            return WH_OK;
        if (now - c->previous_since < c->cfg->ca_publish_delay_ms / 1000)
            return WH_OK;
        if (c->mode == WH_CERTS_WRITER_SECRET) {
            struct wh_certs_report_summary sum;
            rc = wh_certs_report_check(c->client, c->env.pod_namespace, c->env.secret_name,
                                       c->serial, now, &sum, eb);
            if (rc)
                return rc;
            if (sum.current < sum.live) {
                WH_LOG_EVERY(60, WH_LOG_INFO,
                             "CA rotation: keeping the old CA while %d of %d replicas serve "
                             "older certificates: %s",
                             sum.live - sum.current, sum.live, sum.lagging);
                return WH_OK;
            }
        }
    }
    *may = true;
    return WH_OK;
}

enum wh_err wh_ctl_rotation_end(struct wh_certs_controller *c, bool expired, struct wh_errbuf *eb)
{
    free(c->previous);
    c->previous = NULL;
    size_t len = 0;
    char *bundle = wh_ctl_bundle_with(c->current, NULL, &len);
    enum wh_err rc = wh_ctl_inject_all(c, bundle, len, eb);
    free(bundle);
    if (rc)
        return rc;
    wh_metric_add(c->m.rotations_done, 1);
    wh_log(WH_LOG_INFO, "CA rotation finished: %s; caBundles trust only the current CA",
           expired ? "the old CAs expired" : "every replica serves the new certificate");
    return WH_OK;
}
