/* Fuzz target for the --config file (config/config.c): any bytes must load or fail with a
 * message, never crash, hang or leak; a file that loads must give a configuration whose
 * checked invariants hold (threads at least 1, a body cap at least the minimum). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof(path), "/tmp/fuzz-config-%d.yaml", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    char *argv[] = {"kruise-webhook", "--config", path, NULL};
    struct wh_config cfg;
    struct wh_errbuf eb;
    eb.msg[0] = '\0';
    if (wh_config_load(&cfg, 3, argv, &eb) == WH_OK) {
        if (cfg.threads < 1 || cfg.max_body_bytes < 1024 || cfg.max_connections < 1)
            abort();
    } else if (!eb.msg[0]) {
        fprintf(stderr, "a configuration refused without a message\n");
        abort();
    }
    wh_config_fini(&cfg);
    return 0;
}
