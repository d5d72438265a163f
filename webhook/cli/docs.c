#include "cli/docs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/yaml.h"
#include "util/yaml_emit.h"

static enum wh_err read_all(const char *path, char **text, size_t *len, struct wh_errbuf *eb)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    /* fopen opens a directory for reading; only the first read fails, and vaguely */
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        if (f != stdin)
            fclose(f);
        return wh_errbuf_set(eb, WH_ERR_IO, "%s: is a directory (want a file, or - for stdin)",
                             path);
    }
    struct wh_buf b;
    wh_buf_init(&b, WH_CLI_MAX_INPUT);
    enum wh_err rc = WH_OK;
    char chunk[65536];
    for (size_t n = fread(chunk, 1, sizeof(chunk), f); n > 0 && !rc;
         n = fread(chunk, 1, sizeof(chunk), f))
        rc = wh_buf_add(&b, chunk, n);
    if (!rc && ferror(f))
        rc = wh_errbuf_set(eb, WH_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    else if (rc)
        wh_errbuf_set(eb, rc, "%s: larger than %d bytes", path, WH_CLI_MAX_INPUT);
    if (f != stdin)
        fclose(f);
    if (rc) {
        wh_buf_fini(&b);
        return rc;
    }
    *text = wh_buf_take(&b, len);
    return WH_OK;
}

enum wh_err wh_cli_read_docs(const char *path, json_t **docs, bool *json_input,
                             struct wh_errbuf *eb)
{
    char *text = NULL;
    size_t len = 0;
    enum wh_err rc = read_all(path, &text, &len, eb);
    if (rc)
        return rc;
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    if (json_input)
        *json_input = *p == '{' || *p == '[';
    rc = wh_yaml_load(text, len, strcmp(path, "-") == 0 ? "<stdin>" : path, docs, eb);
    free(text);
    return rc;
}

enum wh_err wh_cli_print_doc(FILE *out, const json_t *doc, bool yaml, bool first,
                             struct wh_errbuf *eb)
{
    if (yaml) {
        char *text = NULL;
        enum wh_err rc = wh_yaml_emit(doc, &text, NULL, eb);
        if (rc)
            return rc;
        fprintf(out, "%s%s", first ? "" : "---\n", text);
        free(text);
        return WH_OK;
    }
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    fprintf(out, "%s\n", text ? text : "null");
    free(text);
    return WH_OK;
}
