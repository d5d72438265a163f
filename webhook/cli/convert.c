#include "cli/convert.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/docs.h"
#include "conversion/convert.h"
#include "util/json.h"
#include "util/str.h"

enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "Usage: kruise-webhook convert -f FILE --to GROUP/VERSION [-o yaml|json]\n"
    "  -f FILE   objects to convert (YAML or JSON, several documents; - for stdin)\n"
    "  --to V    the apiVersion wanted, e.g. apps.kruise.io/v1beta1\n"
    "  -o FMT    yaml or json (default: the input's format)\n"
    "Objects of other groups, or already at V, are printed unchanged.\n";

/* "apps.kruise.io/v1beta1" and "apps.kruise.io/v1alpha1" share the group. */
static bool same_group(const char *a, const char *b)
{
    const char *sa = strchr(a, '/'), *sb = strchr(b, '/');
    size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;
    return la == lb && strncmp(a, b, la) == 0;
}

/* Converts doc (or the items of a List) into out; false with the message printed on failure. */
static bool convert_doc(const json_t *doc, const char *to, size_t index, json_t **out, FILE *err)
{
    const char *kind = wh_json_str(doc, "kind");
    json_t *items = wh_json_arr(doc, "items");
    if (items && kind && wh_str_has_suffix(kind, "List")) {
        json_t *list = wh_json_copy(doc);
        json_t *converted = json_array();
        bool ok = true;
        size_t i;
        json_t *item;
        json_array_foreach(items, i, item)
        {
            json_t *c = NULL;
            ok = convert_doc(item, to, index, &c, err) && ok;
            json_array_append_new(converted, c ? c : wh_json_copy(item));
        }
        json_object_set_new(list, "items", converted);
        *out = list;
        return ok;
    }
    const char *av = wh_json_str(doc, "apiVersion");
    if (!av || !same_group(av, to) || strcmp(av, to) == 0) {
        *out = wh_json_copy(doc);
        return true;
    }
    char *message = NULL;
    if (wh_convert_object(to, doc, out, &message)) {
        fprintf(err, "kruise-webhook convert: document %zu (%s %s): %s\n", index + 1,
                kind ? kind : "?",
                wh_json_meta_str(doc, "name") ? wh_json_meta_str(doc, "name") : "?",
                message ? message : "conversion failed");
        free(message);
        *out = NULL;
        return false;
    }
    return true;
}

int wh_convert_run(int argc, char **argv, FILE *out, FILE *err)
{
    const char *file = NULL, *to = NULL, *format = NULL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if ((strcmp(arg, "-f") == 0 || strcmp(arg, "--filename") == 0) && i + 1 < argc) {
            file = argv[++i];
        } else if (strcmp(arg, "--to") == 0 && i + 1 < argc) {
            to = argv[++i];
        } else if (strcmp(arg, "-o") == 0 && i + 1 < argc) {
            format = argv[++i];
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage, out);
            return EXIT_DONE;
        } else {
            fprintf(err, "kruise-webhook convert: unexpected argument \"%s\"\n%s", arg, usage);
            return EXIT_USAGE;
        }
    }
    if (!file || !to || !strchr(to, '/')) {
        fprintf(err, "kruise-webhook convert: -f and --to GROUP/VERSION are required\n%s", usage);
        return EXIT_USAGE;
    }
    if (format && strcmp(format, "yaml") != 0 && strcmp(format, "json") != 0) {
        fprintf(err, "kruise-webhook convert: -o must be yaml or json, not %s\n", format);
        return EXIT_USAGE;
    }
    json_t *docs = NULL;
    bool json_input = false;
    struct wh_errbuf eb = {{0}};
    if (wh_cli_read_docs(file, &docs, &json_input, &eb)) {
        fprintf(err, "kruise-webhook convert: %s\n", eb.msg);
        return EXIT_USAGE;
    }
    bool yaml = format ? strcmp(format, "yaml") == 0 : !json_input;
    int status = EXIT_DONE;
    size_t i, printed = 0;
    json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        json_t *result = NULL;
        if (!convert_doc(doc, to, i, &result, err))
            status = EXIT_FAILED;
        if (result && wh_cli_print_doc(out, result, yaml, printed++ == 0, &eb)) {
            fprintf(err, "kruise-webhook convert: %s\n", eb.msg);
            status = EXIT_USAGE;
        }
        json_decref(result);
    }
    fflush(out);
    json_decref(docs);
    return status;
}

int wh_convert_main(int argc, char **argv)
{
    return wh_convert_run(argc, argv, stdout, stderr);
}
