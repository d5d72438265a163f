#include "certs/selfcall.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <openssl/x509.h>

#include "certs/inject.h"
#include "certs/pem.h"
#include "util/str.h"

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
    (void)p;
    (void)arg;
    return size * n;
}

/* Every certificate the server presented, read as the API server reads them. */
static enum wh_err check_presented(CURL *h, struct wh_errbuf *eb)
{
    struct curl_certinfo *ci = NULL;
    if (curl_easy_getinfo(h, CURLINFO_CERTINFO, &ci) != CURLE_OK || !ci || ci->num_of_certs < 1)
        return wh_errbuf_set(eb, WH_ERR_TLS, "the server presented no certificate");
    for (int i = 0; i < ci->num_of_certs; i++) {
        for (struct curl_slist *s = ci->certinfo[i]; s; s = s->next) {
            if (strncmp(s->data, "Cert:", 5) != 0)
                continue;
            X509 *x = NULL;
            struct wh_errbuf why;
            const char *pem = s->data + 5;
            if (wh_certs_pem_first_cert_why(pem, strlen(pem), &x, &why) != WH_OK)
                return wh_errbuf_set(eb, WH_ERR_PARSE, "served certificate %d: %s", i, why.msg);
            X509_free(x);
        }
    }
    return WH_OK;
}

enum wh_err wh_certs_selfcall(const struct wh_certs_selfcall *call, struct wh_errbuf *eb)
{
    enum wh_err rc = WH_OK;
    STACK_OF(X509) *anchors = NULL;
    char errbuf[CURL_ERROR_SIZE] = "";
    char *url = NULL, *connect_to = NULL;
    struct curl_slist *to = NULL;
    CURL *h = NULL;

    /* client-go's cert pool: certificates that do not parse are skipped, none is an error. */
    if (wh_certs_pem_certs(call->ca_bundle, call->ca_bundle_len, false, &anchors) != WH_OK)
        return wh_errbuf_set(eb, WH_ERR_PARSE,
                             "the caBundle holds no certificate the API server can read");
    sk_X509_pop_free(anchors, X509_free);

    url = wh_certs_inject_url(call->name, call->port, call->path);
    /* Any host, this port, goes to our listener (an IPv6 literal in brackets). */
    bool v6 = strchr(call->connect_host, ':') != NULL && call->connect_host[0] != '[';
    connect_to =
        wh_str_printf("::%s%s%s:%d", v6 ? "[" : "", call->connect_host, v6 ? "]" : "", call->port);
    h = curl_easy_init();
    to = curl_slist_append(NULL, connect_to);
    if (!h || !to) {
        rc = wh_errbuf_set(eb, WH_ERR_NOMEM, "curl_easy_init failed");
        goto out;
    }
    struct curl_blob ca = {.data = (void *)(uintptr_t)call->ca_bundle,
                           .len = call->ca_bundle_len,
                           .flags = CURL_BLOB_COPY};
    long timeout = call->timeout_ms > 0 ? call->timeout_ms : 5000;
    if (curl_easy_setopt(h, CURLOPT_URL, url) || curl_easy_setopt(h, CURLOPT_CONNECT_TO, to) ||
        curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca) ||
        curl_easy_setopt(h, CURLOPT_CAPATH, NULL) ||
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L) ||
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L) ||
        curl_easy_setopt(h, CURLOPT_CERTINFO, 1L) ||
        curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https") ||
        curl_easy_setopt(h, CURLOPT_NOPROXY, "*") ||
        curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout) ||
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) ||
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard) ||
        curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf)) {
        rc = wh_errbuf_set(eb, WH_ERR_INTERNAL, "libcurl refused an option");
        goto out;
    }
    CURLcode cr = curl_easy_perform(h);
    if (cr != CURLE_OK) {
        bool tls = cr == CURLE_PEER_FAILED_VERIFICATION || cr == CURLE_SSL_CONNECT_ERROR ||
                   cr == CURLE_SSL_CERTPROBLEM || cr == CURLE_SSL_CACERT_BADFILE;
        rc = wh_errbuf_set(eb, tls ? WH_ERR_TLS : WH_ERR_IO, "%s",
                           errbuf[0] ? errbuf : curl_easy_strerror(cr));
        goto out;
    }
    rc = check_presented(h, eb);
    if (rc)
        goto out;
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    if (code == 404)
        rc = wh_errbuf_set(eb, WH_ERR_NOT_FOUND, "no webhook is served at this path");
    else if (code != 405)
        rc = wh_errbuf_set(eb, WH_ERR_IO, "unexpected HTTP %ld", code);
out:
    curl_slist_free_all(to);
    curl_easy_cleanup(h);
    free(url);
    free(connect_to);
    return rc;
}
