#ifndef WH_TEST_SUPPORT_POD_STEP_RUN_H
#define WH_TEST_SUPPORT_POD_STEP_RUN_H

/* What the unit tests of single /mutate-pod and /validate-pod steps share: a standalone cluster
 * of given objects with the caches a setup declares, under given gates (the server's namespace
 * kruise-system), and a review run through the Pod pipeline with the --explain notes gathered.
 * Aborts, saying why on stderr, when the fixture itself cannot be built.
 * Thread rule: single thread. */

#include <jansson.h>
#include <stdbool.h>

#include "admission/review.h"
#include "config/config.h"
#include "handlers/handler.h"
#include "kube/cluster.h"
#include "util/err.h"

struct wh_step_fx {
    struct wh_config cfg;
    struct wh_cluster *cl;
    struct wh_handler_ctx ctx;
};

/* objects: a JSON array of cluster objects (borrowed); gates: "A=true,B=false" or ""; setup:
 * what declares the caches (a step's setup), or NULL. */
void wh_step_fx_init(struct wh_step_fx *f, const char *gates, const json_t *objects,
                     enum wh_err (*setup)(struct wh_cluster *cl, const struct wh_config *cfg,
                                          struct wh_errbuf *eb));
void wh_step_fx_fini(struct wh_step_fx *f);

struct wh_step_run {
    json_t *review;
    struct wh_admission_request r;
    struct wh_admission_response resp;
    enum wh_err rc;
    struct wh_errbuf eb;
    char notes[4096]; /* "[step subject acted reason]" per note, cut at the end */
};

/* Takes review (an AdmissionReview), decodes its request into r->r and readies r->resp;
 * aborts when the request does not decode. */
void wh_step_run_start(struct wh_step_run *r, json_t *review);
/* A wh_pod_run_opts.explain that appends to the wh_step_run given as arg. */
void wh_step_run_note(void *arg, const char *step, const char *subject, bool acted,
                      const char *reason);
void wh_step_run_fini(struct wh_step_run *r);

#endif
