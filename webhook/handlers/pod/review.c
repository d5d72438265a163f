#include "handlers/pod/review.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "kube/cluster.h"
#include "util/cow.h"
#include "util/json.h"

const json_t *wh_pod_review_pod(const struct wh_pod_review *pr)
{
    if (pr->op == WH_POD_EVICT)
        return NULL;
    if (pr->resp->mutated)
        return pr->resp->mutated;
    return json_is_object(pr->req->object) ? pr->req->object : NULL;
}

const json_t *wh_pod_review_old(const struct wh_pod_review *pr)
{
    return json_is_object(pr->req->old_object) ? pr->req->old_object : NULL;
}

enum wh_err wh_pod_review_evicted(struct wh_pod_review *pr, const json_t **pod,
                                  struct wh_errbuf *eb)
{
    *pod = NULL;
    if (!pr->_evicted_read) {
        pr->_evicted_read = true;
        struct wh_errbuf why = {{0}};
        struct wh_cluster *cl = pr->ctx ? pr->ctx->cluster : NULL;
        pr->_evicted_rc = WH_ERR_NOT_FOUND;
        if (cl)
            pr->_evicted_rc = wh_cluster_get_live(cl, "", "v1", "pods", pr->req->namespace_,
                                                  pr->req->name, &pr->_evicted, &why);
        /* Upstream reads the Pod through controller-runtime's cache, which names the kind. */
        if (pr->_evicted_rc == WH_ERR_NOT_FOUND)
            (void)wh_cache_not_found(&why, "", "Pod", pr->req->name);
        snprintf(pr->_evicted_msg, sizeof(pr->_evicted_msg), "%s", why.msg);
    }
    if (pr->_evicted_rc)
        return wh_errbuf_set(eb, pr->_evicted_rc, "%s", pr->_evicted_msg);
    *pod = pr->_evicted;
    return WH_OK;
}

json_t *wh_pod_review_own(struct wh_pod_review *pr, ...)
{
    struct wh_admission_response *resp = pr->resp;
    if (!resp->mutated)
        resp->mutated = wh_cow_root(pr->req->object);
    va_list ap;
    va_start(ap, pr);
    json_t *cur = wh_cow_vpath(resp->mutated, ap);
    va_end(ap);
    return cur;
}

void wh_pod_review_explain(const struct wh_pod_review *pr, const char *subject, bool acted,
                           const char *fmt, ...)
{
    if (!pr || !pr->explain)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    pr->explain(pr->explain_arg, pr->_step ? pr->_step : "pod", subject, acted, buf);
}

bool wh_pod_review_may_write(const struct wh_pod_review *pr)
{
    return !pr->dry_run && !(pr->ctx && pr->ctx->offline);
}
