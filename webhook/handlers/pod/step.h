#ifndef WH_HANDLERS_POD_STEP_H
#define WH_HANDLERS_POD_STEP_H

/* The contract of a feature's step on the Pod webhooks. Upstream runs several features on one
 * decoded Pod in a fixed order; here each feature exports one const struct wh_pod_step, and
 * handlers/pod/pipeline.c lists the steps of /mutate-pod and of /validate-pod in that order
 * (nothing else knows every step). What a step sees of the request is a struct wh_pod_review
 * (handlers/pod/review.h).
 *  - /mutate-pod: each step edits the one copy-on-write Pod (wh_pod_review_own) or denies
 *    through pr->resp, which ends the run; the answer is one patch of every edit (no change:
 *    no patch). A step's error answers 500 with no patch.
 *  - /validate-pod: steps run until the first denial (wh_admission_deny(pr->resp, ...)),
 *    which is the answer; a step's error answers 400 with its message.
 * Dry runs and the offline inject command run every step (answers are computed) but nothing is
 * written: steps that write ask wh_pod_review_may_write.
 * The step's name is the vector area it implements (a folder of test/vectors), so the vector
 * harness runs that area's vectors on the paths the step is listed for.
 * Thread rule: steps are immutable; a step's functions run concurrently, one request each. */

#include <stdbool.h>

#include "config/config.h"
#include "handlers/pod/review.h"
#include "util/err.h"

struct wh_cluster;

struct wh_pod_step {
    const char *name;      /* "sidecarset", "workloadspread", "pub", ... (areas, explain, logs) */
    unsigned mutate_ops;   /* enum wh_pod_op mask handled on /mutate-pod */
    unsigned validate_ops; /* ... on /validate-pod */
    bool side_effects;     /* writes to the API server (status bookkeeping) */
    /* feature gates; NULL: always on */
    bool (*enabled)(const struct wh_config *cfg);
    /* declares the caches the step reads (wh_cluster_declare ...); NULL: none */
    enum wh_err (*setup)(struct wh_cluster *cl, const struct wh_config *cfg, struct wh_errbuf *eb);
    /* /mutate-pod: edit through wh_pod_review_own, or deny through pr->resp */
    enum wh_err (*mutate)(struct wh_pod_review *pr, struct wh_errbuf *eb);
    /* /validate-pod: deny through wh_admission_deny(pr->resp, ...) to stop the pipeline */
    enum wh_err (*validate)(struct wh_pod_review *pr, struct wh_errbuf *eb);
};

#endif
