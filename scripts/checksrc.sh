#!/bin/sh
# Source checker (the idea of curl's checksrc): calls the house style bans, and the
# markers that must not land. Exits non-zero and prints file:line for each finding.
set -u
cd "$(dirname "$0")/.."

status=0
dirs="webhook certs test tools"

banned='\b(sprintf|vsprintf|strcpy|strcat|strncpy|strtok|atoi|atol|gets)[[:space:]]*\('
if grep -rnE "$banned" --include='*.c' --include='*.h' $dirs; then
    echo "checksrc: banned function (use snprintf, memcpy, strtoll with endptr)" >&2
    status=1
fi
if grep -rnE '^[[:space:]]*#[[:space:]]*if[[:space:]]+0\b' --include='*.c' --include='*.h' $dirs; then
    echo "checksrc: #if 0 (delete dead code instead)" >&2
    status=1
fi
# "//" not preceded by ":" (URLs in comments) and not inside a string literal.
if grep -rnE '(^|[^:])//' --include='*.c' --include='*.h' webhook certs tools | grep -vE '"[^"]*//[^"]*"' ; then
    echo "checksrc: C++ comment (use /* */)" >&2
    status=1
fi
if grep -rnE 'TODO(\(|:)' --include='*.c' --include='*.h' $dirs | grep -vE 'TODO\([a-z]+\): .*#[0-9]+'; then
    echo "checksrc: a TODO must read TODO(name): ... #<issue>" >&2
    status=1
fi
# Modules that include each other, directly or round a circle (scripts/include-cycles.py).
if ! python3 scripts/include-cycles.py; then
    echo "checksrc: an include circle (dependencies point down: README, For developers)" >&2
    status=1
fi
[ $status = 0 ] && echo "checksrc: ok"
exit $status
