"""JSON merge patch (RFC 7386) and JSON patch (RFC 6902).

Both work on decoded JSON values and never modify their inputs.
"""

import copy


class PatchFormatError(Exception):
    """The patch document itself is malformed (the real server answers 400)."""


class PatchApplyError(Exception):
    """The patch does not apply to the document, or a `test` failed (the real server answers 422)."""


def merge_patch(target, patch):
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = merge_patch(out.get(k), v)
    return out


def _unescape_token(tok):
    return tok.replace("~1", "/").replace("~0", "~")


def _pointer(path):
    if not isinstance(path, str):
        raise PatchFormatError("JSON pointer must be a string")
    if path == "":
        return []
    if not path.startswith("/"):
        raise PatchApplyError('JSON pointer "%s" must start with "/"' % path)
    return [_unescape_token(t) for t in path[1:].split("/")]


def _index(tok, length, allow_end):
    if allow_end and tok == "-":
        return length
    if not tok.isdigit() or (len(tok) > 1 and tok[0] == "0"):
        raise PatchApplyError("invalid array index %r" % tok)
    i = int(tok)
    if i > length or (i == length and not allow_end):
        raise PatchApplyError("array index %d out of bounds" % i)
    return i


def _parent(doc, toks, path):
    """Container holding the last token of toks."""
    cur = doc
    for tok in toks[:-1]:
        if isinstance(cur, dict):
            if tok not in cur:
                raise PatchApplyError('doc is missing path: "%s"' % path)
            cur = cur[tok]
        elif isinstance(cur, list):
            cur = cur[_index(tok, len(cur), False)]
        else:
            raise PatchApplyError('doc is missing path: "%s"' % path)
    return cur


def _get(doc, path):
    toks = _pointer(path)
    if not toks:
        return doc
    par = _parent(doc, toks, path)
    last = toks[-1]
    if isinstance(par, dict):
        if last not in par:
            raise PatchApplyError('doc is missing key: "%s"' % path)
        return par[last]
    if isinstance(par, list):
        return par[_index(last, len(par), False)]
    raise PatchApplyError('doc is missing path: "%s"' % path)


def _add(doc, path, value):
    toks = _pointer(path)
    if not toks:
        return value
    par = _parent(doc, toks, path)
    last = toks[-1]
    if isinstance(par, dict):
        par[last] = value
    elif isinstance(par, list):
        par.insert(_index(last, len(par), True), value)
    else:
        raise PatchApplyError('add operation does not apply: doc is missing path: "%s"' % path)
    return doc


def _remove(doc, path):
    toks = _pointer(path)
    if not toks:
        raise PatchApplyError("unable to remove the whole document")
    par = _parent(doc, toks, path)
    last = toks[-1]
    if isinstance(par, dict):
        if last not in par:
            raise PatchApplyError('remove operation does not apply: doc is missing path: "%s"' % path)
        return par.pop(last)
    if isinstance(par, list):
        return par.pop(_index(last, len(par), False))
    raise PatchApplyError('remove operation does not apply: doc is missing path: "%s"' % path)


def _replace(doc, path, value):
    toks = _pointer(path)
    if not toks:
        return value
    par = _parent(doc, toks, path)
    last = toks[-1]
    if isinstance(par, dict):
        if last not in par:
            raise PatchApplyError('replace operation does not apply: doc is missing key: "%s"' % path)
        par[last] = value
    elif isinstance(par, list):
        par[_index(last, len(par), False)] = value
    else:
        raise PatchApplyError('replace operation does not apply: doc is missing path: "%s"' % path)
    return doc


def _json_equal(a, b):
    # bool is an int subclass in Python; JSON keeps them apart.
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    return a == b


def json_patch(doc, ops):
    if not isinstance(ops, list):
        raise PatchFormatError("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    doc = copy.deepcopy(doc)
    for op in ops:
        if not isinstance(op, dict):
            raise PatchFormatError("json: cannot unmarshal into Go value of type jsonpatch.Operation")
        kind = op.get("op")
        path = op.get("path")
        if kind is None or path is None:
            raise PatchApplyError("operation missing 'op' or 'path' member")
        if kind in ("add", "replace", "test") and "value" not in op:
            raise PatchApplyError("%s operation missing 'value' member" % kind)
        if kind == "add":
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif kind == "remove":
            _remove(doc, path)
        elif kind == "replace":
            doc = _replace(doc, path, copy.deepcopy(op["value"]))
        elif kind == "move":
            frm = op.get("from")
            if not isinstance(frm, str):
                raise PatchApplyError("move operation missing 'from' member")
            if path != frm and path.startswith(frm + "/"):
                raise PatchApplyError("move operation cannot move a value into one of its children")
            if not frm:
                raise PatchApplyError("move operation cannot move the whole document")
            doc = _add(doc, path, _remove(doc, frm))
        elif kind == "copy":
            frm = op.get("from")
            if not isinstance(frm, str):
                raise PatchApplyError("copy operation missing 'from' member")
            doc = _add(doc, path, copy.deepcopy(_get(doc, frm)))
        elif kind == "test":
            try:
                cur = _get(doc, path)
            except PatchApplyError:
                # Like evanphx/json-patch, which Kubernetes uses: a missing member
                # tests equal to null.
                if op["value"] is None:
                    continue
                raise PatchApplyError('testing value %s failed: test failed' % path)
            if not _json_equal(cur, op["value"]):
                raise PatchApplyError('testing value %s failed: test failed' % path)
        else:
            raise PatchApplyError("Unexpected kind: %s" % kind)
    return doc
