#include "test/support/pod_step_run.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/features.h"

static void must(enum wh_err rc, const char *what, const struct wh_errbuf *eb)
{
    if (rc) {
        fprintf(stderr, "step fixture: %s: %s\n", what, eb->msg);
        abort();
    }
}

void wh_step_fx_init(struct wh_step_fx *f, const char *gates, const json_t *objects,
                     enum wh_err (*setup)(struct wh_cluster *cl, const struct wh_config *cfg,
                                          struct wh_errbuf *eb))
{
    memset(f, 0, sizeof(*f));
    wh_features_init(&f->cfg.features);
    struct wh_errbuf eb = {{0}};
    must(wh_features_parse(&f->cfg.features, gates, &eb), "gates", &eb);
    f->cfg.namespace_ = (char *)(uintptr_t) "kruise-system";
    must(wh_cluster_new_standalone_objects(objects, &f->cl, &eb), "objects", &eb);
    if (setup)
        must(setup(f->cl, &f->cfg, &eb), "setup", &eb);
    must(wh_cluster_start(f->cl, &eb), "start", &eb);
    f->ctx.cfg = &f->cfg;
    f->ctx.cluster = f->cl;
}

void wh_step_fx_fini(struct wh_step_fx *f)
{
    wh_cluster_free(f->cl);
}

void wh_step_run_start(struct wh_step_run *r, json_t *review)
{
    memset(r, 0, sizeof(*r));
    r->review = review;
    must(wh_admission_decode(r->review, &r->r, &r->eb), "the review", &r->eb);
    wh_admission_response_init(&r->resp);
}

void wh_step_run_note(void *arg, const char *step, const char *subject, bool acted,
                      const char *reason)
{
    struct wh_step_run *r = arg;
    size_t n = strlen(r->notes);
    snprintf(r->notes + n, sizeof(r->notes) - n, "[%s %s %d %s]", step, subject ? subject : "-",
             acted, reason);
}

void wh_step_run_fini(struct wh_step_run *r)
{
    wh_admission_response_fini(&r->resp);
    json_decref(r->review);
}
