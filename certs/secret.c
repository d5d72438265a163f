#include "certs/secret.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "certs/pem.h"
#include "util/base64.h"

static void put(json_t *obj, const char *key, json_t *value)
{
    /* Allocation aborts and keys are literals, so this fails only on a programming error. */
    int r = json_object_set_new(obj, key, value);
    WH_ASSERT(r == 0 && value);
}

static json_t *b64(const struct wh_certs_bundle *b, enum wh_certs_item i)
{
    size_t len = 0;
    const char *p = wh_certs_bundle_get(b, i, &len);
    char *s = wh_base64_encode(p ? p : "", len);
    json_t *v = json_string(s);
    free(s);
    return v;
}

json_t *wh_certs_secret_data(const struct wh_certs_bundle *b)
{
    json_t *d = json_object();
    put(d, "ca-key.pem", b64(b, WH_CERTS_CA_KEY));
    put(d, "ca-cert.pem", b64(b, WH_CERTS_CA_CERT));
    put(d, "key.pem", b64(b, WH_CERTS_KEY));
    put(d, "tls.key", b64(b, WH_CERTS_KEY));
    put(d, "cert.pem", b64(b, WH_CERTS_CERT));
    put(d, "tls.crt", b64(b, WH_CERTS_CERT));
    return d;
}

json_t *wh_certs_secret_object(const char *ns, const char *name, const char *resource_version,
                               const struct wh_certs_bundle *b)
{
    json_t *o = json_object(), *meta = json_object();
    put(meta, "namespace", json_string(ns));
    put(meta, "name", json_string(name));
    if (resource_version)
        put(meta, "resourceVersion", json_string(resource_version));
    put(o, "apiVersion", json_string("v1"));
    put(o, "kind", json_string("Secret"));
    put(o, "metadata", meta);
    put(o, "data", wh_certs_secret_data(b));
    return o;
}

enum wh_err wh_certs_secret_read(const json_t *secret, enum wh_certs_secret_keys keys,
                                 struct wh_certs_bundle **out, struct wh_errbuf *eb)
{
    static const char *const generated[WH_CERTS_N_ITEMS] = {
        [WH_CERTS_CA_KEY] = "ca-key.pem",
        [WH_CERTS_CA_CERT] = "ca-cert.pem",
        [WH_CERTS_CERT] = "cert.pem",
        [WH_CERTS_KEY] = "key.pem",
    };
    static const char *const external[WH_CERTS_N_ITEMS] = {
        [WH_CERTS_CA_KEY] = "ca.key",
        [WH_CERTS_CA_CERT] = "ca.crt",
        [WH_CERTS_CERT] = "tls.crt",
        [WH_CERTS_KEY] = "tls.key",
    };
    const char *const *names = keys == WH_CERTS_SECRET_EXTERNAL ? external : generated;
    enum wh_err rc = WH_OK;
    struct wh_certs_bundle *b = wh_certs_bundle_new();
    const json_t *data = json_object_get(secret, "data");

    for (int i = 0; i < WH_CERTS_N_ITEMS && json_is_object(data); i++) {
        const json_t *v = json_object_get(data, names[i]);
        unsigned char *bytes = NULL;
        size_t len = 0;
        if (!v || json_is_null(v))
            continue;
        if (!json_is_string(v)) {
            rc = wh_errbuf_set(eb, WH_ERR_PARSE, "data.%s: not a string", names[i]);
            goto out;
        }
        /* Base64 is 4/3 of the bytes; refuse before decoding anything huge. */
        if (json_string_length(v) > 2 * (size_t)WH_CERTS_PEM_MAX) {
            rc = wh_errbuf_set(eb, WH_ERR_TOO_BIG, "data.%s: too big", names[i]);
            goto out;
        }
        rc = wh_base64_decode(json_string_value(v), json_string_length(v), &bytes, &len);
        if (rc) {
            rc = wh_errbuf_set(eb, WH_ERR_PARSE, "data.%s: not base64", names[i]);
            goto out;
        }
        rc = wh_certs_bundle_set(b, (enum wh_certs_item)i, bytes, len);
        OPENSSL_cleanse(bytes, len);
        free(bytes);
        if (rc) {
            wh_errbuf_set(eb, rc, "data.%s: too big", names[i]);
            goto out;
        }
    }
    *out = b;
    b = NULL;
out:
    wh_certs_bundle_free(b);
    return rc;
}
