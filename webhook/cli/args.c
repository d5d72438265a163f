#include "cli/args.h"

#include <stdarg.h>
#include <string.h>

void wh_cli_error(FILE *err, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(err, "kruise-webhook %s: ", cmd);
    vfprintf(err, fmt, ap);
    fputc('\n', err);
    va_end(ap);
}

static const struct wh_cli_flag *find(const struct wh_cli_flag *flags, size_t n, const char *arg,
                                      size_t len)
{
    for (size_t i = 0; i < n; i++) {
        const char *names[] = {flags[i].name, flags[i].alias};
        for (size_t k = 0; k < 2; k++)
            if (names[k] && strlen(names[k]) == len && strncmp(names[k], arg, len) == 0)
                return &flags[i];
    }
    return NULL;
}

bool wh_cli_parse(const char *cmd, int argc, char **argv, const struct wh_cli_flag *flags,
                  size_t nflags, bool *help, FILE *err)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            *help = true;
            continue;
        }
        if (arg[0] != '-' || arg[1] == '\0') { /* "-" alone is stdin, a value not a flag */
            wh_cli_error(err, cmd, "unexpected argument \"%s\" (see --help)", arg);
            return false;
        }
        /* "--name=value"; a short alias takes its value from the next argument only */
        const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const struct wh_cli_flag *f = find(flags, nflags, arg, len);
        if (!f) {
            wh_cli_error(err, cmd, "unknown option %.*s (see --help)", (int)len, arg);
            return false;
        }
        if (!f->value) {
            if (eq) {
                wh_cli_error(err, cmd, "%s takes no value", f->name);
                return false;
            }
            *f->on = true;
            continue;
        }
        if (eq) {
            *f->value = eq + 1;
        } else if (i + 1 < argc) {
            *f->value = argv[++i];
        } else {
            wh_cli_error(err, cmd, "%s needs a value", arg);
            return false;
        }
    }
    return true;
}

bool wh_cli_require(FILE *err, const char *cmd, const char *what, const char *value)
{
    if (value)
        return true;
    wh_cli_error(err, cmd, "%s is required (see --help)", what);
    return false;
}

bool wh_cli_check_output(FILE *err, const char *cmd, const char *output)
{
    if (!output || strcmp(output, "yaml") == 0 || strcmp(output, "json") == 0)
        return true;
    wh_cli_error(err, cmd, "-o must be yaml or json, not %s", output);
    return false;
}

bool wh_cli_output_yaml(const char *output, bool json_input)
{
    return output ? strcmp(output, "yaml") == 0 : !json_input;
}
