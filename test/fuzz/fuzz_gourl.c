/* Fuzz target for Go's url.Parse as gocompat/gourl.c reproduces it (the httpGet path of a
 * PodProbeMarker's probe): any bytes up to the first NUL. Nothing may crash or read out of
 * bounds; an answer is either success or an error whose text names the URL. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/gourl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    struct wh_errbuf eb = {{0}};
    if (wh_gourl_parse(s, &eb) != WH_OK && strncmp(eb.msg, "parse \"", 7) != 0) {
        fprintf(stderr, "an error that does not name the URL: %s\n", eb.msg);
        abort();
    }
    free(s);
    return 0;
}
