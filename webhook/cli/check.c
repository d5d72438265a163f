#include "cli/check.h"

#include <openssl/x509.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "certs/env.h"
#include "certs/fs_store.h"
#include "certs/pem.h"
#include "certs/verify.h"
#include "config/config.h"
#include "gocompat/gotype.h"
#include "kube/client.h"
#include "kube/cluster.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"
#include "util/str.h"
#include "util/yaml.h"

/* As the standalone cluster reads a state file (kube/cluster.c). */
#define STATE_FILE_MAX (64 << 20)

static void problem(FILE *err, unsigned *n, const char *fmt, ...) WH_PRINTF(3, 4);

static void problem(FILE *err, unsigned *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("kruise-webhook: ", err);
    vfprintf(err, fmt, ap);
    fputc('\n', err);
    va_end(ap);
    (*n)++;
}

/* --- the renewal margin ------------------------------------------------------------------- */

/* The serving certificate of the cert dir, when there is one: its validity is what the margin
 * is measured against (a certificate of the user's own, served as it is, or one generated
 * earlier). */
static void check_renew_before(const struct wh_config *cfg, FILE *err, unsigned *n)
{
    const char *origin = wh_config_origin(cfg, "certs-renew-before");
    bool defaulted = false;
    int64_t margin = wh_certs_env_parse_renew_before(cfg->renew_before, &defaulted);
    if (cfg->renew_before[0] && defaulted) {
        problem(err, n,
                "%s: \"%s\" is not <n>d, <n>m or <n>y with n > 0: the server would use the "
                "default, 180d",
                origin, cfg->renew_before);
        return;
    }
    char *cert = NULL, *key = NULL;
    size_t cert_len = 0, key_len = 0;
    struct wh_errbuf eb = {{0}};
    if (wh_certs_fs_read_serving(cfg->cert_dir, &cert, &cert_len, &key, &key_len, &eb))
        return; /* nothing there yet: the server makes it (standalone) or writes it (cluster) */
    X509 *x = NULL;
    time_t nb = 0, na = 0;
    if (!wh_certs_pem_first_cert(cert, cert_len, &x) &&
        !wh_certs_verify_asn1_time(X509_get0_notBefore(x), &nb) &&
        !wh_certs_verify_asn1_time(X509_get0_notAfter(x), &na) && na > nb &&
        margin >= (int64_t)(na - nb)) {
        char from[32], to[32];
        strftime(from, sizeof(from), "%Y-%m-%d", gmtime(&nb));
        strftime(to, sizeof(to), "%Y-%m-%d", gmtime(&na));
        problem(err, n,
                "%s: %s (%lld days) is not shorter than the %lld-day validity of the serving "
                "certificate in %s (%s to %s): it is within the renewal margin from the day it "
                "was made, so the server would replace it at every check, or, when it is your "
                "own, report it as expiring for its whole life; use a shorter margin",
                origin, cfg->renew_before[0] ? cfg->renew_before : "180d",
                (long long)(margin / 86400), (long long)((na - nb) / 86400), cfg->cert_dir, from,
                to);
    }
    X509_free(x);
    free(cert);
    if (key)
        memset(key, 0, key_len);
    free(key);
}

/* --- the cluster ----------------------------------------------------------------------------- */

static void check_cluster(const struct wh_config *cfg, FILE *err, unsigned *n)
{
    struct wh_errbuf eb = {{0}};
    if (wh_kube_standalone(cfg->state, cfg->kubeconfig)) {
        if (cfg->state[0] && cfg->kubeconfig[0])
            fprintf(err,
                    "kruise-webhook: note: --state (%s) makes the server standalone: the "
                    "kubeconfig of %s is not read\n",
                    wh_config_origin(cfg, "state"), wh_config_origin(cfg, "kubeconfig"));
        return;
    }
    if (wh_kube_config_check(cfg->kubeconfig, &eb))
        problem(err, n, "%s: %s",
                cfg->kubeconfig[0] ? wh_config_origin(cfg, "kubeconfig")
                                   : "the in-cluster service account (no --kubeconfig)",
                eb.msg);
}

/* --- --state against the Go-type model ---------------------------------------------------------- */

/* "spec.containers[0].image" for ["spec", "containers", 0, "image"]. */
static char *field_name(const json_t *path)
{
    struct wh_buf b;
    wh_buf_init(&b, SIZE_MAX);
    size_t i;
    const json_t *seg;
    json_array_foreach(path, i, seg)
    {
        enum wh_err rc = json_is_string(seg)
                             ? wh_buf_printf(&b, "%s%s", b.len ? "." : "", json_string_value(seg))
                             : wh_buf_printf(&b, "[%" JSON_INTEGER_FORMAT "]",
                                             json_integer_value(seg));
        WH_ASSERT(rc == WH_OK);
    }
    char *s = wh_buf_take(&b, NULL);
    return s ? s : wh_xstrdup("");
}

bool wh_check_object_type(const json_t *obj, char **msg, char **field, json_t **path)
{
    const char *api = wh_json_str(obj, "apiVersion");
    const char *kind = wh_json_str(obj, "kind");
    const struct wh_gotype *t = api && kind ? wh_gotype_lookup(api, kind) : NULL;
    json_t *where = NULL;
    *msg = NULL;
    *field = NULL;
    if (path)
        *path = NULL;
    if (!t || !wh_gotype_check_where(obj, t, msg, &where))
        return false;
    *field = field_name(where);
    if (path)
        *path = where;
    else
        json_decref(where);
    return true;
}

/* One object of file: prefix is its place in the document ([] or ["items", i] in a List). */
static void check_object(const char *file, const json_t *obj, const json_t *marks,
                         const json_t *prefix, FILE *err, unsigned *n)
{
    char *msg = NULL, *field = NULL;
    json_t *path = NULL;
    if (!wh_check_object_type(obj, &msg, &field, &path))
        return;
    json_t *full = json_deep_copy(prefix);
    WH_ASSERT(full && json_array_extend(full, path) == 0);
    const char *name = wh_json_meta_str(obj, "name");
    problem(err, n, "%s:%zu: %s %s: field %s: %s", file, wh_yaml_mark_line(marks, full),
            wh_json_str(obj, "kind"), name ? name : "(no name)", field[0] ? field : "(the object)",
            msg);
    json_decref(full);
    json_decref(path);
    free(field);
    free(msg);
}

static void check_state_file(const char *file, FILE *err, unsigned *n)
{
    json_t *docs = NULL, *marks = NULL;
    struct wh_errbuf eb = {{0}};
    if (wh_yaml_load_file_marks(file, STATE_FILE_MAX, &docs, &marks, &eb))
        return; /* the load above has said so */
    size_t i;
    json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        const json_t *m = json_array_get(marks, i);
        const json_t *items = json_object_get(doc, "items");
        const char *kind = wh_json_str(doc, "kind");
        if (json_is_array(items) && kind && wh_str_has_suffix(kind, "List")) {
            size_t k;
            json_t *item;
            json_array_foreach(items, k, item)
            {
                json_t *prefix = json_pack("[s,I]", "items", (json_int_t)k);
                check_object(file, item, m, prefix, err, n);
                json_decref(prefix);
            }
        } else {
            json_t *prefix = json_array();
            check_object(file, doc, m, prefix, err, n);
            json_decref(prefix);
        }
    }
    json_decref(docs);
    json_decref(marks);
}

static void check_state(const struct wh_config *cfg, FILE *err, unsigned *n)
{
    if (!cfg->state[0])
        return;
    struct wh_errbuf eb = {{0}};
    struct wh_cluster *cl = NULL;
    /* First as the server loads it: a file that does not parse, an object without a name. */
    if (wh_cluster_new_standalone(cfg->state, &cl, &eb)) {
        problem(err, n, "%s", eb.msg);
        return;
    }
    wh_cluster_free(cl);
    char **files = NULL;
    size_t count = 0;
    if (wh_cluster_state_files(cfg->state, &files, &count, &eb)) {
        problem(err, n, "%s", eb.msg);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        check_state_file(files[i], err, n);
        free(files[i]);
    }
    free(files);
}

int wh_check_config_run(const struct wh_config *cfg, FILE *out, FILE *err)
{
    unsigned problems = 0;
    check_renew_before(cfg, err, &problems);
    check_cluster(cfg, err, &problems);
    check_state(cfg, err, &problems);
    if (problems)
        return 2;
    fprintf(out, "configuration ok\n");
    return 0;
}
