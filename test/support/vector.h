#ifndef WH_TEST_SUPPORT_VECTOR_H
#define WH_TEST_SUPPORT_VECTOR_H

/* Test vectors (format: test/vectors/README.md): loading, checking an answer against `expect`,
 * and running one in process on a standalone cluster built from its `cluster` objects. The
 * end-to-end harness (test/vectors/harness.c) uses the same loading and checking over HTTPS
 * against an API server. Thread rule: single thread. */

#include <jansson.h>
#include <stdbool.h>

#include "util/buf.h"
#include "util/err.h"

struct wh_vec {
    json_t *root;          /* the whole file (owned) */
    char *path;            /* owned */
    const char *name;      /* borrowed from root: "name", or the file name */
    char *area;            /* the folder: "sidecarset", "conversion", ... (owned) */
    const char *endpoint;  /* "/mutate-pod" */
    const json_t *gates;   /* featureGates object, or NULL */
    const json_t *cluster; /* array, or NULL */
    const json_t *request;
    const json_t *expect;
    bool conversion;
};

WH_NODISCARD enum wh_err wh_vec_load(const char *path, struct wh_vec *v, struct wh_errbuf *eb);
void wh_vec_fini(struct wh_vec *v);

/* "A=true,B=false" from featureGates, sorted by name ("" when none). Returns: new string. */
char *wh_vec_gates(const struct wh_vec *v);

/* The request wrapped in its review envelope. Returns: new ref. */
json_t *wh_vec_review(const struct wh_vec *v);

/* Reads back an object for expect.clusterAfter: apiVersion, kind, namespace and name as the
 * vector names them. Returns in *out: new ref; WH_ERR_NOT_FOUND when absent. */
typedef enum wh_err (*wh_vec_fetch_fn)(void *arg, const char *api_version, const char *kind,
                                       const char *ns, const char *name, json_t **out);

/* Checks the answer (the whole review that came back, HTTP status 200) against v->expect.
 * fetch may be NULL when the vector has no clusterAfter. On mismatch returns false and writes
 * one readable line per difference into diff. */
bool wh_vec_check(const struct wh_vec *v, const json_t *answer, wh_vec_fetch_fn fetch, void *arg,
                  struct wh_buf *diff);

/* Runs v in this process: a standalone cluster from v->cluster, the feature gates of v, the
 * route of v->endpoint, wh_dispatch, wh_vec_check. *skipped is set (and true returned) when the
 * endpoint is not implemented. */
bool wh_vec_run_local(const struct wh_vec *v, bool *skipped, struct wh_buf *diff);

/* Runs every *.json vector of dir in process; prints one line per failure (with its diff) and
 * returns the number of failures. passed/skipped (may be NULL) receive the other counts. */
int wh_vec_run_dir_local(const char *dir, int *passed, int *skipped);

/* The sorted *.json paths of dir (new strings in a new array; free both). */
char **wh_vec_list_dir(const char *dir, size_t *n);

#endif
