#include "cli/convert.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/docs.h"
#include "conversion/convert.h"
#include "util/json.h"
#include "util/str.h"

enum { EXIT_DONE = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

static const char usage[] =
    "usage: kruise-webhook convert -f FILE --to GROUP/VERSION [-o yaml|json]\n"
    "\n"
    "Converts the apps.kruise.io or policy.kruise.io objects of FILE to GROUP/VERSION exactly as\n"
    "the /convert webhook would, and prints every object.\n"
    "\n"
    "  -f FILE             objects, YAML or JSON, several documents and List kinds allowed;\n"
    "                      - is stdin\n"
    "  --to GROUP/VERSION  the apiVersion wanted: apps.kruise.io or policy.kruise.io, and\n"
    "                      v1alpha1 or v1beta1\n"
    "  -o yaml|json        output format (default: the input's)\n"
    "\n"
    "Objects of other groups, or already at GROUP/VERSION, are printed unchanged; FILE must hold\n"
    "at least one object of the group.\n";

/* "apps.kruise.io/v1beta1" and "apps.kruise.io/v1alpha1" share the group. */
static bool same_group(const char *a, const char *b)
{
    const char *sa = strchr(a, '/'), *sb = strchr(b, '/');
    size_t la = sa ? (size_t)(sa - a) : 0, lb = sb ? (size_t)(sb - b) : 0;
    return la == lb && strncmp(a, b, la) == 0;
}

/* How many objects of doc (or of the items of a List) are of the group of to. */
static size_t count_in_group(const json_t *doc, const char *to)
{
    const char *kind = wh_json_str(doc, "kind");
    json_t *items = wh_json_arr(doc, "items");
    if (items && kind && wh_str_has_suffix(kind, "List")) {
        size_t n = 0, i;
        json_t *item;
        json_array_foreach(items, i, item)
        {
            n += count_in_group(item, to);
        }
        return n;
    }
    const char *av = wh_json_str(doc, "apiVersion");
    return av && same_group(av, to) ? 1 : 0;
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
        wh_cli_error(err, "convert", "document %zu (%s %s): %s", index + 1, kind ? kind : "?",
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
    bool help = false;
    const struct wh_cli_flag flags[] = {
        {"--filename", "-f", &file, NULL},
        {"--to", NULL, &to, NULL},
        {"--output", "-o", &format, NULL},
    };
    if (!wh_cli_parse("convert", argc, argv, flags, sizeof(flags) / sizeof(flags[0]), &help, err))
        return EXIT_USAGE;
    if (help) {
        fputs(usage, out);
        return EXIT_DONE;
    }
    struct wh_errbuf eb = {{0}};
    if (!wh_cli_require(err, "convert", "-f FILE", file) ||
        !wh_cli_require(err, "convert", "--to GROUP/VERSION", to) ||
        !wh_cli_check_output(err, "convert", format))
        return EXIT_USAGE;
    if (wh_convert_check_target(to, &eb)) {
        wh_cli_error(err, "convert", "--to %s", eb.msg);
        return EXIT_USAGE;
    }
    json_t *docs = NULL;
    bool json_input = false;
    if (wh_cli_read_docs(file, &docs, &json_input, &eb)) {
        wh_cli_error(err, "convert", "%s", eb.msg);
        return EXIT_USAGE;
    }
    size_t in_group = 0;
    size_t i;
    json_t *doc;
    json_array_foreach(docs, i, doc)
    {
        in_group += count_in_group(doc, to);
    }
    if (in_group == 0) {
        const char *slash = strchr(to, '/');
        wh_cli_error(err, "convert", "%s has no %.*s object to convert",
                     strcmp(file, "-") == 0 ? "<stdin>" : file, (int)(slash - to), to);
        json_decref(docs);
        return EXIT_USAGE;
    }
    bool yaml = wh_cli_output_yaml(format, json_input);
    int status = EXIT_DONE;
    size_t printed = 0;
    json_array_foreach(docs, i, doc)
    {
        json_t *result = NULL;
        if (!convert_doc(doc, to, i, &result, err))
            status = EXIT_FAILED;
        if (result && wh_cli_print_doc(out, result, yaml, printed++ == 0, &eb)) {
            wh_cli_error(err, "convert", "%s", eb.msg);
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
