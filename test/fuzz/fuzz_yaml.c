/* Fuzz target for webhook/util/yaml: any input must load or fail cleanly (no crash, no leak,
 * a message on failure), with the default limits and with tight ones, and whatever loads
 * must be JSON that jansson can print and read back. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *buf, size_t len, const struct wh_yaml_limits *lim)
{
    json_t *docs = NULL;
    struct wh_errbuf eb;
    eb.msg[0] = '\0';
    enum wh_err rc = wh_yaml_load_limits(buf, len, "fuzz.yaml", lim, &docs, &eb);
    if (rc) {
        if (docs || strncmp(eb.msg, "fuzz.yaml:", 10) != 0) {
            fprintf(stderr, "bad failure: rc %d, message \"%s\"\n", (int)rc, eb.msg);
            abort();
        }
        return;
    }
    if (!json_is_array(docs))
        abort();
    char *text = json_dumps(docs, JSON_COMPACT);
    if (!text)
        abort();
    json_error_t jerr;
    json_t *back = json_loads(text, JSON_ALLOW_NUL, &jerr);
    if (!back) {
        fprintf(stderr, "output is not JSON: %s\n", jerr.text);
        abort();
    }
    json_decref(back);
    free(text);
    json_decref(docs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct wh_yaml_limits tight = {8, 1000};
    check((const char *)data, size, NULL);
    check((const char *)data, size, &tight);
    return 0;
}
