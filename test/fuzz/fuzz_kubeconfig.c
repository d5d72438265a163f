/* Fuzz target for kubeconfig reading (kube/kubeconfig.c): any YAML document read as a
 * kubeconfig must load or fail with a message naming the file, never crash or leak; what
 * loads has a server, and never both a certificate in memory and one from a file. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube/kubeconfig.h"
#include "util/yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *docs = NULL;
    struct wh_errbuf eb;
    if (wh_yaml_load((const char *)data, size, "kubeconfig", &docs, &eb) != WH_OK)
        return 0;
    size_t i;
    json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        struct wh_kubeconfig kc;
        memset(&kc, 0, sizeof(kc));
        eb.msg[0] = '\0';
        if (wh_kubeconfig_from_json(doc, "/fuzz/kubeconfig", &kc, &eb) == WH_OK) {
            if (!kc.server || !kc.server[0] || (kc.cert_data && kc.cert_file) ||
                (kc.ca_data && kc.ca_file)) {
                fprintf(stderr, "inconsistent kubeconfig accepted\n");
                abort();
            }
            wh_kubeconfig_fini(&kc);
        } else if (!strstr(eb.msg, "kubeconfig")) {
            fprintf(stderr, "error without the file's name: %s\n", eb.msg);
            abort();
        }
    }
    json_decref(docs);
    return 0;
}
