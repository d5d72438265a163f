/* The C side of the regex differential check (test/regexdiff/main.go): reads one case per line
 * from stdin, a pattern and texts in hex separated by spaces (a first field "-" asks for no
 * tree), and answers one line per case: "ok ", a 0 or 1 per text (Regexp.MatchString), a space
 * and the parse tree as regexp/syntax's tests print it, in hex; or "err " and Go's error message
 * in hex. With --steps, "ok" lines end with " steps=N" (the matcher's step count). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gocompat/regex.h"
#include "gocompat/regex/regex_int.h"

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes the hex field at *p (up to a space or the end) into out; returns its length. */
static size_t unhex(char **p, char *out)
{
    size_t n = 0;
    while (**p && **p != ' ' && **p != '\n') {
        int a = hexval((*p)[0]), b = hexval((*p)[1]);
        if (a < 0 || b < 0) {
            fprintf(stderr, "regex-probe: bad hex\n");
            exit(2);
        }
        out[n++] = (char)(a * 16 + b);
        *p += 2;
    }
    return n;
}

int main(int argc, char **argv)
{
    bool steps = argc > 1 && strcmp(argv[1], "--steps") == 0;
    size_t cap = 1 << 20;
    char *line = malloc(cap), *field = malloc(cap);
    if (!line || !field)
        return 2;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        field = realloc(field, cap);
        if (!field)
            return 2;
        char *p = line;
        bool tree = true;
        if (p[0] == '-' && p[1] == ' ') {
            tree = false;
            p += 2;
        }
        size_t plen = unhex(&p, field);
        char *pattern = malloc(plen + 1);
        memcpy(pattern, field, plen);
        struct wh_regex *re = NULL;
        struct wh_regex_error err;
        if (wh_regex_compile(pattern, plen, &re, &err)) {
            size_t mlen;
            char *msg = wh_regex_error_message(pattern, &err, &mlen);
            fputs("err ", stdout);
            for (size_t i = 0; i < mlen; i++)
                printf("%02x", (unsigned char)msg[i]);
            putchar('\n');
            free(msg);
        } else {
            uint64_t total = 0;
            fputs("ok ", stdout);
            while (*p == ' ') {
                p++;
                size_t slen = unhex(&p, field);
                uint64_t st = 0;
                putchar(wh_re_match_counted(re, field, slen, &st) ? '1' : '0');
                total += st;
            }
            if (tree) {
                struct wh_re_parser parser;
                struct wh_re_node *root = wh_re_parse(&parser, pattern, plen, WH_RE_PERL);
                size_t dlen = 0;
                char *d = root ? wh_re_dump(root, pattern, &dlen) : NULL;
                putchar(' ');
                for (size_t i = 0; i < dlen; i++)
                    printf("%02x", (unsigned char)d[i]);
                free(d);
                wh_re_parse_fini(&parser);
            }
            if (steps)
                printf(" steps=%llu", (unsigned long long)total);
            putchar('\n');
            wh_regex_free(re);
        }
        free(pattern);
        fflush(stdout);
    }
    free(line);
    free(field);
    return 0;
}
