/* Fuzz target for k8s/imageref (the distribution/reference grammar in both dialects) and
 * gocompat/unicase. The whole input is one reference. Properties: no crash or leak; a parse that
 * succeeds prints back as it was read (Parse) or as a reference that parses to itself
 * (ParseNormalizedNamed, ParseDockerRef); the uppercase error only where lower-casing as Go
 * does gives a reference; the normalised and Docker forms agree on the name. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/unicase.h"
#include "k8s/imageref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const char *s, size_t n)
{
    fprintf(stderr, "%s: %.*s\n", what, (int)n, s);
    abort();
}

static void reparses(enum wh_imageref_dialect d, const struct wh_imageref *r, const char *s,
                     size_t n)
{
    char *text = wh_imageref_string(r);
    struct wh_imageref again;
    struct wh_errbuf eb;
    if (wh_imageref_parse_ref(d, text, strlen(text), &again, &eb) != WH_OK)
        fail("a parsed reference does not parse again", s, n);
    char *twice = wh_imageref_string(&again);
    if (strcmp(text, twice) != 0)
        fail("a reparsed reference prints otherwise", s, n);
    free(twice);
    free(text);
    wh_imageref_fini(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    for (int d = WH_IMAGEREF_DOCKER; d <= WH_IMAGEREF_DISTRIBUTION; d++) {
        struct wh_imageref r, norm, docker;
        struct wh_errbuf eb;
        if (wh_imageref_parse_ref(d, s, size, &r, &eb) == WH_OK) {
            char *text = wh_imageref_string(&r);
            if (strlen(text) != size || memcmp(text, s, size) != 0)
                fail("Parse does not print back its input", s, size);
            free(text);
        } else if (strcmp(eb.msg, "repository name must be lowercase") == 0) {
            char *lower = malloc(size + 1);
            size_t ln = wh_go_lower_ascii(s, size, lower);
            struct wh_imageref lr;
            if (ln == (size_t)-1 || !wh_imageref_match(d, lower, ln, &lr))
                fail("uppercase error without a lowercase reference", s, size);
            free(lower);
        }
        wh_imageref_fini(&r);
        enum wh_err n_rc = wh_imageref_parse_normalized(d, s, size, &norm, &eb);
        enum wh_err d_rc = wh_imageref_parse_docker_ref(d, s, size, &docker, &eb);
        if (n_rc != d_rc)
            fail("ParseDockerRef and ParseNormalizedNamed disagree", s, size);
        if (n_rc == WH_OK) {
            reparses(d, &norm, s, size);
            reparses(d, &docker, s, size);
            if (norm.name_len != docker.name_len || memcmp(norm.name, docker.name, norm.name_len))
                fail("the Docker form has another name", s, size);
            if (!docker.tag == !docker.digest)
                fail("the Docker form needs exactly one of tag and digest", s, size);
        }
        wh_imageref_fini(&norm);
        wh_imageref_fini(&docker);
        struct wh_imageref any, named;
        if (wh_imageref_parse_any(d, s, size, &any, &eb) == WH_OK && any.name)
            reparses(d, &any, s, size);
        wh_imageref_fini(&any);
        if (wh_imageref_parse_named(d, s, size, &named, &eb) == WH_OK)
            reparses(d, &named, s, size);
        wh_imageref_fini(&named);
    }
    (void)wh_go_lower_changes(s, size);
    return 0;
}
