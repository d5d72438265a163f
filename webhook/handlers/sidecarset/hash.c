#include "handlers/sidecarset/hash.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/goenc.h"
#include "gocompat/gotype.h"
#include "k8s/kruise.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/mem.h"

/* The hashed text is a few container specs; the cap only guards against absurd objects, which
 * the API server's request size limit already excludes. */
#define HASH_INPUT_CAP (16u << 20)

/* rand.SafeEncodeString's alphabet: no vowels, no 0/1/3 (avoids words and look-alikes). */
static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";

static json_t *without_images(const json_t *list)
{
    json_t *copy = wh_json_copy(list);
    size_t i;
    json_t *c;
    json_array_foreach(copy, i, c)
    {
        if (json_is_object(c))
            json_object_del(c, "image");
    }
    return copy;
}

static bool has_native_sidecar(const json_t *inits)
{
    size_t i;
    const json_t *c;
    json_array_foreach(inits, i, c)
    {
        const char *rp = wh_json_str(c, "restartPolicy");
        if (rp && strcmp(rp, "Always") == 0)
            return true;
    }
    return false;
}

/* Go's typed encoding of a []SidecarContainer; a list the typed decoder would reject cannot be
 * in an admitted object, so it is hashed as it came rather than failing the caller. */
static json_t *encode_list(const json_t *list)
{
    json_t *out = NULL;
    struct wh_errbuf eb;
    if (!list)
        return json_null();
    /* the containers of v1alpha1 and v1beta1 are the same type */
    const struct wh_gotype *t =
        wh_gotype_member(wh_gotype_lookup(WH_KRUISE_APPS_V1BETA1, "SidecarSetSpec"), "containers")
            ->type;
    if (wh_gotype_normalize(list, t, &out, &eb))
        return wh_json_copy(list);
    return out;
}

char *wh_sidecarset_hash_input(const json_t *sidecarset, bool without_image)
{
    const json_t *spec = wh_json_obj(sidecarset, "spec");
    json_t *containers = json_object_get(spec, "containers");
    json_t *inits = json_object_get(spec, "initContainers");
    json_t *own_c = NULL, *own_i = NULL;
    struct wh_buf b;

    if (without_image) {
        if (json_is_array(containers))
            containers = own_c = without_images(containers);
        if (json_is_array(inits))
            inits = own_i = without_images(inits);
    }
    /* encoding/json sorts map keys: "containers" < "initContainers" */
    json_t *m = json_object();
    json_object_set_new(m, "containers",
                        encode_list(json_is_array(containers) ? containers : NULL));
    if (json_is_array(inits) && has_native_sidecar(inits))
        json_object_set_new(m, "initContainers", encode_list(inits));

    wh_buf_init(&b, HASH_INPUT_CAP);
    if (wh_goenc_append(&b, m, false))
        wh_buf_reset(&b); /* over 16 MiB of sidecars: hash nothing rather than a prefix */
    json_decref(m);
    json_decref(own_c);
    json_decref(own_i);
    return wh_buf_take(&b, NULL);
}

char *wh_sidecarset_hash(const json_t *sidecarset, bool without_image)
{
    char *text = wh_sidecarset_hash_input(sidecarset, without_image);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    static const char hex[] = "0123456789abcdef";
    char *out = wh_xmalloc(2 * 32 + 1);

    if (!EVP_Digest(text, strlen(text), md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
        WH_PANIC("SHA-256 failed");
    for (unsigned int i = 0; i < mdlen; i++) {
        out[2 * i] = alphabet[(unsigned char)hex[md[i] >> 4] % (sizeof(alphabet) - 1)];
        out[2 * i + 1] = alphabet[(unsigned char)hex[md[i] & 0xf] % (sizeof(alphabet) - 1)];
    }
    out[64] = 0;
    free(text);
    return out;
}

static void set_annotation(json_t *annotations, const char *key, bool only_missing,
                           const json_t *sidecarset, bool without_image)
{
    const char *cur = wh_json_str(annotations, key);
    if (only_missing && cur && *cur)
        return;
    char *h = wh_sidecarset_hash(sidecarset, without_image);
    json_object_set_new(annotations, key, json_string(h));
    free(h);
}

void wh_sidecarset_hash_annotate(json_t *sidecarset, bool only_missing)
{
    json_t *meta = wh_json_obj_ensure(sidecarset, "metadata");
    json_t *annotations = wh_json_obj_ensure(meta, "annotations");
    set_annotation(annotations, WH_KRUISE_ANN_SIDECARSET_HASH, only_missing, sidecarset, false);
    set_annotation(annotations, WH_KRUISE_ANN_SIDECARSET_HASH_WITHOUT_IMAGE, only_missing,
                   sidecarset, true);
}
