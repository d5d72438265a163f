"""Label and field selectors with the grammar of k8s.io/apimachinery labels.Parse and
fields.ParseSelector.

A parsed label selector is a list of (key, op, values) with op one of
"in", "notin", "exists", "!", "gt", "lt" ("=" and "==" become "in", "!=" becomes "notin").
A parsed field selector is a list of (field, negate, value).
"""

import re


class SelectorError(Exception):
    pass


_SPECIAL = "=!(),><"
_NAME_RE = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_VALUE_RE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def qualified_name_error(key):
    """None if key is a valid label/annotation key (IsQualifiedName), else why not."""
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > 253 or not _SUBDOMAIN_RE.match(prefix):
            return "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric " \
                   "characters, '-' or '.', and must start and end with an alphanumeric character"
    else:
        return "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start " \
               "and end with an alphanumeric character, with an optional DNS subdomain prefix and '/'"
    if not name:
        return "name part must be non-empty"
    if len(name) > 63:
        return "name part must be no more than 63 characters"
    if not _NAME_RE.match(name):
        return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and " \
               "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex " \
               "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    return None


def label_value_error(value):
    """None if value is a valid label value, else why not."""
    if len(value) > 63:
        return "must be no more than 63 characters"
    if not _VALUE_RE.match(value):
        return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or " \
               "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or " \
               "'my_value',  or '12345', regex used for validation is " \
               "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    return None


def _lex(s):
    toks = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c.isspace():
            i += 1
            continue
        if c in _SPECIAL:
            two = s[i:i + 2]
            if two in ("==", "!="):
                toks.append(two)
                i += 2
            else:
                toks.append(c)
                i += 1
            continue
        j = i
        while j < n and not s[j].isspace() and s[j] not in _SPECIAL:
            j += 1
        word = s[i:j]
        toks.append(("kw", word) if word in ("in", "notin") else ("id", word))
        i = j
    return toks


def _show(tok):
    if tok is None:
        return "end of string"
    return tok[1] if isinstance(tok, tuple) else tok


def parse_label_selector(s):
    toks = _lex(s or "")
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take():
        t = peek()
        pos[0] += 1
        return t

    def is_id(t):
        return isinstance(t, tuple) and t[0] == "id"

    reqs = []
    while True:
        t = peek()
        if t is None:
            break
        if not (is_id(t) or t == "!"):
            raise SelectorError("found '%s', expected: !, identifier, or 'end of string'" % _show(t))
        if t == "!":
            take()
            k = take()
            if not is_id(k):
                raise SelectorError("found '%s', expected: identifier after '!'" % _show(k))
            key, op, values = k[1], "!", []
        else:
            key = take()[1]
            nt = peek()
            if nt is None or nt == ",":
                op, values = "exists", []
            else:
                o = take()
                if o in ("=", "=="):
                    op = "in"
                elif o == "!=":
                    op = "notin"
                elif o == ">":
                    op = "gt"
                elif o == "<":
                    op = "lt"
                elif isinstance(o, tuple) and o[0] == "kw":
                    op = o[1]
                else:
                    raise SelectorError("found '%s', expected: in, notin, =, ==, !=, gt, lt" % _show(o))
                if isinstance(o, tuple):
                    par = take()
                    if par != "(":
                        raise SelectorError("found '%s', expected: '('" % _show(par))
                    values = []
                    while True:
                        v = take()
                        if is_id(v):
                            values.append(v[1])
                            sep = take()
                            if sep == ")":
                                break
                            if sep != ",":
                                raise SelectorError("found '%s', expected: ',' or ')'" % _show(sep))
                        elif v == ",":
                            values.append("")
                        elif v == ")":
                            values.append("")
                            break
                        else:
                            raise SelectorError("found '%s', expected: ',', ')' or identifier" % _show(v))
                else:
                    v = peek()
                    if v is None or v == ",":
                        values = [""]
                    elif is_id(v):
                        values = [take()[1]]
                    else:
                        raise SelectorError("found '%s', expected: identifier" % _show(v))
        err = qualified_name_error(key)
        if err:
            raise SelectorError('unable to parse requirement: key: Invalid value: "%s": %s' % (key, err))
        if op in ("gt", "lt"):
            if len(values) != 1 or not re.match(r"^-?[0-9]+$", values[0]):
                raise SelectorError("unable to parse requirement: for 'Gt', 'Lt' operators, the value must "
                                    "be an integer")
        else:
            for i, v in enumerate(values):
                verr = label_value_error(v)
                if verr:
                    raise SelectorError('unable to parse requirement: values[%d][%s]: Invalid value: "%s": %s'
                                        % (i, key, v, verr))
        reqs.append((key, op, values))
        t = take()
        if t is None:
            break
        if t != ",":
            raise SelectorError("found '%s', expected: ',' or 'end of string'" % _show(t))
    return reqs


def match_labels(reqs, labels):
    labels = labels or {}
    for key, op, values in reqs:
        has = key in labels
        if op == "in":
            if not has or labels[key] not in values:
                return False
        elif op == "notin":
            if has and labels[key] in values:
                return False
        elif op == "exists":
            if not has:
                return False
        elif op == "!":
            if has:
                return False
        else:
            if not has:
                return False
            try:
                lv = int(labels[key])
            except ValueError:
                return False
            rv = int(values[0])
            if (op == "gt" and not lv > rv) or (op == "lt" and not lv < rv):
                return False
    return True


def _split_unescaped(s, sep):
    parts, cur, i = [], [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            cur.append(s[i:i + 2])
            i += 2
            continue
        if c == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    parts.append("".join(cur))
    return parts


def _unescape(v):
    out, i = [], 0
    while i < len(v):
        c = v[i]
        if c == "\\":
            if i + 1 >= len(v) or v[i + 1] not in "\\,=":
                raise SelectorError("invalid field selector: invalid escape sequence")
            out.append(v[i + 1])
            i += 2
            continue
        if c in ",=":
            raise SelectorError("invalid field selector: unescaped '%s' in value" % c)
        out.append(c)
        i += 1
    return "".join(out)


def parse_field_selector(s):
    reqs = []
    if not s:
        return reqs
    for term in _split_unescaped(s, ","):
        if not term:
            continue
        i, found = 0, None
        while i < len(term):
            if term[i] == "\\":
                i += 2
                continue
            for op in ("!=", "==", "="):
                if term.startswith(op, i):
                    found = (i, op)
                    break
            if found:
                break
            i += 1
        if not found:
            raise SelectorError("invalid selector: '%s'; can't understand '%s'" % (s, term))
        at, op = found
        reqs.append((term[:at], op == "!=", _unescape(term[at + len(op):])))
    return reqs


def match_fields(reqs, fields):
    for field, negate, value in reqs:
        if (fields.get(field, "") == value) == negate:
            return False
    return True
