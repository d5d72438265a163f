#!/usr/bin/env python3
"""Writes webhook/gocompat/types/*.gotypes, the Go-type model, from the Go sources of the API
packages it describes (k8s.io/api, k8s.io/apimachinery, k8s.io/apiextensions-apiserver,
openkruise/kruise apis).

    scripts/gotypes-from-go.py --src DIR --out webhook/gocompat/types

DIR holds one folder per package, named as in PACKAGES below (core/, meta/, kruisealpha/, ...),
each with that package's .go files at the versions the header of each output file names: from
the Go module cache after `make oracle` (k8s.io/api, apimachinery and apiextensions-apiserver
v0.32.10: core/ is k8s.io/api@v0.32.10/core/v1, schema/ apimachinery's pkg/runtime/schema, ...)
and from upstream's repository at the pinned commit (apis/apps/pub, apis/apps/v1alpha1, ...,
pkg/util/configuration). Only
the types reachable from ROOTS are written, with their JSON names, Go types, omitempty/inline
flags, the strategic-merge-patch tags and, for named string types, the values of their typed
constants. The format is described in webhook/gocompat/gotype.h.

Run it again after updating the sources; the .gotypes files are not edited by hand."""

import argparse
import os
import re
import sys

# alias -> (folders (one per version), API paths (group/version, one per version), Go import
# paths, versions). A package with two folders is "versioned": its types are written once, with
# @v1alpha1/@v1beta1 on what only one version has.
PACKAGES = [
    ("meta", ["meta"], ["meta.k8s.io/v1"], ["k8s.io/apimachinery/pkg/apis/meta/v1"]),
    ("core", ["core"], ["v1"], ["k8s.io/api/core/v1"]),
    ("apps", ["apps"], ["apps/v1"], ["k8s.io/api/apps/v1"]),
    ("batch", ["batch"], ["batch/v1"], ["k8s.io/api/batch/v1"]),
    ("policy", ["policy"], ["policy/v1"], ["k8s.io/api/policy/v1"]),
    # The API machinery's internal policy types (k8s.io/kubernetes/pkg/apis/policy): upstream
    # decodes evictions into its Eviction, which has no JSON tags (ObjectMeta promoted to the
    # top, DeleteOptions under its Go name). Its API path is a name of this model only; its last
    # segment is the package name Go prints.
    ("policyinternal", ["policyinternal"], ["k8s.io/kubernetes/policy"],
     ["k8s.io/kubernetes/pkg/apis/policy"]),
    ("networking", ["networking", "networkingbeta"],
     ["networking.k8s.io/v1", "networking.k8s.io/v1beta1"],
     ["k8s.io/api/networking/v1", "k8s.io/api/networking/v1beta1"]),
    ("apiextensions", ["apiext", "apiextbeta"],
     ["apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"],
     ["k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1",
      "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"]),
    ("schema", ["schema"], ["k8s.io/schema"], ["k8s.io/apimachinery/pkg/runtime/schema"]),
    ("pub", ["pub"], ["apps.kruise.io/pub"], ["github.com/openkruise/kruise/apis/apps/pub"]),
    ("kruise", ["kruisealpha", "kruisebeta"], ["apps.kruise.io/v1alpha1", "apps.kruise.io/v1beta1"],
     ["github.com/openkruise/kruise/apis/apps/v1alpha1",
      "github.com/openkruise/kruise/apis/apps/v1beta1"]),
    ("kpolicy", ["kpolicyalpha", "kpolicybeta"],
     ["policy.kruise.io/v1alpha1", "policy.kruise.io/v1beta1"],
     ["github.com/openkruise/kruise/apis/policy/v1alpha1",
      "github.com/openkruise/kruise/apis/policy/v1beta1"]),
    # the settings of the kruise-configuration ConfigMap (decoded with encoding/json)
    ("configuration", ["configuration"], ["kruise.io/configuration"],
     ["github.com/openkruise/kruise/pkg/util/configuration"]),
]

# Types with their own JSON methods, declared by hand (first line of the builtin file).
BUILTIN = """\
package resource k8s.io/resource
type Quantity quantity          # resource.Quantity: a string or number, printed canonically

package intstr k8s.io/intstr
type IntOrString intorstring    # a string, or an integer that fits int32

package runtime k8s.io/runtime
type RawExtension raw           # any JSON, kept as it is

package types k8s.io/types
type UID string
"""
BUILTIN_IMPORTS = {
    "k8s.io/apimachinery/pkg/api/resource": "resource",
    "k8s.io/apimachinery/pkg/util/intstr": "intstr",
    "k8s.io/apimachinery/pkg/runtime": "runtime",
    "k8s.io/apimachinery/pkg/types": "types",
}
# Go types of meta/v1 with JSON methods of their own.
META_SPECIAL = {"Time": "time", "MicroTime": "microtime", "FieldsV1": "raw"}
# Types written as raw on purpose: JSON schemas are recursive and have their own JSON methods;
# upstream checks them, the model keeps them opaque (see the file header).
OPAQUE = {"apiextensions": {"JSONSchemaProps", "JSON"}}

ROOTS = {
    "meta": ["CreateOptions", "UpdateOptions", "DeleteOptions", "Condition", "MicroTime"],
    "core": ["Pod", "PodTemplateSpec", "PersistentVolumeClaim", "Namespace", "Service"],
    "apps": ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision"],
    "batch": ["Job"],
    "policy": ["Eviction"],
    "policyinternal": ["Eviction"],
    "networking": ["Ingress"],
    "apiextensions": ["CustomResourceDefinition"],
    "kruise": ["EphemeralJob@v1alpha1",
               "StatefulSet", "CloneSet", "SidecarSet", "WorkloadSpread", "DaemonSet",
               "BroadcastJob", "AdvancedCronJob", "ImagePullJob", "ImageListPullJob", "NodeImage",
               "ContainerRecreateRequest", "ResourceDistribution", "PersistentPodState",
               "PodProbeMarker@v1alpha1",
               "UnitedDeployment"],
    "kpolicy": ["PodUnavailableBudget"],
    "configuration": ["SidecarSetPatchMetadataWhiteList", "WSCustomWorkloadWhiteList",
                      "CustomWorkloadWhiteList"],
}

SCALARS = {"string", "bool", "int32", "int64", "int", "float64", "uint64", "byte"}


def strip_comments(text):
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "`":
            j = text.find("`", i + 1)
            out.append(text[i:j + 1])
            i = j + 1
        elif c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class GoType:
    """A parsed Go type expression."""

    def __init__(self, kind, name=None, pkg=None, elem=None, key=None):
        self.kind = kind  # "named", "ptr", "slice", "map"
        self.name, self.pkg, self.elem, self.key = name, pkg, elem, key


def parse_type(s, imports):
    s = s.strip()
    if s.startswith("*"):
        return GoType("ptr", elem=parse_type(s[1:], imports))
    if s.startswith("[]"):
        return GoType("slice", elem=parse_type(s[2:], imports))
    if s.startswith("map["):
        depth, i = 0, 3
        while True:
            if s[i] == "[":
                depth += 1
            elif s[i] == "]":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        return GoType("map", key=parse_type(s[4:i], imports), elem=parse_type(s[i + 1:], imports))
    if "." in s:
        alias, name = s.split(".", 1)
        if alias not in imports:
            raise SystemExit("unknown import alias %r in %r" % (alias, s))
        return GoType("named", name=name, pkg=imports[alias])
    return GoType("named", name=s, pkg=None)


class Field:
    def __init__(self, goname, typ, tag):
        self.goname, self.typ, self.tag = goname, typ, tag


class Decl:
    def __init__(self, name, kind, fields=None, under=None):
        self.name, self.kind = name, kind  # kind: "struct" or "type"
        self.fields, self.under = fields or [], under
        self.enum = []


def tag_get(tag, key):
    m = re.search(r'(?:^|\s)' + key + r':"([^"]*)"', tag or "")
    return m.group(1) if m else None


def parse_package(folder, import_path):
    """Returns {name: Decl} for one Go package; type references are resolved to import paths
    (None: the same package, or a predeclared type)."""
    decls = {}
    consts = []
    for fn in sorted(os.listdir(folder)):
        if not fn.endswith(".go"):
            continue
        text = strip_comments(open(os.path.join(folder, fn)).read())
        imports = {}
        for m in re.finditer(r'^import\s*\(([^)]*)\)', text, re.M):
            for line in m.group(1).splitlines():
                line = line.strip()
                if not line:
                    continue
                mm = re.match(r'(?:(\w+)\s+)?"([^"]+)"', line)
                alias = mm.group(1) or mm.group(2).rsplit("/", 1)[-1]
                imports[alias] = mm.group(2)
        for m in re.finditer(r'^import\s+(?:(\w+)\s+)?"([^"]+)"', text, re.M):
            imports[m.group(1) or m.group(2).rsplit("/", 1)[-1]] = m.group(2)
        # type X struct { ... }
        for m in re.finditer(r'^type\s+(\w+)\s+struct\s*\{', text, re.M):
            start = m.end()
            depth, i = 1, start
            while depth:
                if text[i] == "{":
                    depth += 1
                elif text[i] == "}":
                    depth -= 1
                elif text[i] == "`":
                    i = text.index("`", i + 1)
                i += 1
            body = text[start:i - 1]
            fields = []
            for line in body.splitlines():
                line = line.strip()
                if not line:
                    continue
                tag = None
                tm = re.search(r'`([^`]*)`\s*$', line)
                if tm:
                    tag = tm.group(1)
                    line = line[:tm.start()].strip()
                parts = line.split(None, 1)
                if len(parts) == 1:
                    fields.append(Field(None, parse_type(parts[0], imports), tag))
                else:
                    if "," in parts[0]:
                        raise SystemExit("%s: several names in one field: %s" % (fn, line))
                    fields.append(Field(parts[0], parse_type(parts[1], imports), tag))
            decls[m.group(1)] = Decl(m.group(1), "struct", fields)
        # type X Y (also inside type ( ... ) groups)
        simple = [(mm.group(1), mm.group(2)) for mm in
                  re.finditer(r'^type\s+(\w+)\s+(=?\s*[^\s{(][^\n{]*)$', text, re.M)]
        for g in re.finditer(r'^type\s*\(([^)]*)\)', text, re.M):
            for line in g.group(1).splitlines():
                mm = re.match(r'\s*(\w+)\s+(=?\s*\S[^{]*)$', line)
                if mm:
                    simple.append((mm.group(1), mm.group(2)))
        for name, under in simple:
            under = under.strip()
            if under.startswith("interface") or under.startswith("func"):
                continue
            if under.startswith("="):
                under = under[1:].strip()
            decls[name] = Decl(name, "type", under=parse_type(under, imports))
        # typed constants: Name Type = "value"
        for m in re.finditer(r'^\s*(?:const\s+)?\w+\s+(\w+)\s*=\s*"([^"]*)"', text, re.M):
            consts.append((m.group(1), m.group(2)))
    for tname, value in consts:
        d = decls.get(tname)
        if d and d.kind == "type" and d.under.kind == "named" and d.under.name == "string":
            if value not in d.enum:
                d.enum.append(value)
    return decls


class Model:
    def __init__(self, src):
        self.pkgs = {}  # alias -> list of {name: Decl} (one per version)
        self.by_import = dict(BUILTIN_IMPORTS)  # import path -> (alias, version index)
        for alias, folders, apis, imps in PACKAGES:
            self.pkgs[alias] = [parse_package(os.path.join(src, f), imp)
                                for f, imp in zip(folders, imps)]
            for vi, imp in enumerate(imps):
                self.by_import[imp] = (alias, vi)

    def resolve(self, alias, vi, t):
        """(alias, version index, name) of a named type reference."""
        if t.pkg is None:
            return alias, vi, t.name
        target = self.by_import.get(t.pkg)
        if target is None:
            raise SystemExit("no package for import %s" % t.pkg)
        if isinstance(target, str):
            return target, 0, t.name
        return target[0], target[1], t.name


def json_name(f):
    j = tag_get(f.tag, "json")
    if j is None:
        return f.goname, []
    parts = j.split(",")
    return parts[0], parts[1:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--header", default="")
    args = ap.parse_args()
    model = Model(args.src)

    # reachable (alias, version index, name)
    want = set()
    work = []
    versions = {alias: [api.split("/")[-1] for api in apis] for alias, _, apis, _ in PACKAGES}
    for alias, names in ROOTS.items():
        for vi in range(len(model.pkgs[alias])):
            for n in names:
                # NAME@VERSION: a root that only that version of the package declares
                n, _, only = n.partition("@")
                if not only or versions[alias][vi] == only:
                    work.append((alias, vi, n))
    while work:
        key = work.pop()
        if key in want:
            continue
        alias, vi, name = key
        if alias in ("resource", "intstr", "runtime", "types"):
            continue
        if alias == "meta" and name in META_SPECIAL:
            want.add(key)
            continue
        if name in OPAQUE.get(alias, ()):
            want.add(key)
            continue
        d = model.pkgs[alias][vi].get(name)
        if d is None:
            if name in SCALARS:
                continue
            raise SystemExit("type %s.%s (version %d) not found" % (alias, name, vi))
        want.add(key)

        def visit(t):
            if t.kind in ("ptr", "slice"):
                visit(t.elem)
            elif t.kind == "map":
                visit(t.key)
                visit(t.elem)
            elif not (t.pkg is None and t.name in SCALARS):
                work.append(model.resolve(alias, vi, t))
        if d.kind == "struct":
            for f in d.fields:
                if f.goname and not f.goname[0].isupper():
                    continue
                if json_name(f)[0] == "-":
                    continue
                visit(f.typ)
        else:
            visit(d.under)

    os.makedirs(args.out, exist_ok=True)
    order = ["meta", "core", "apps", "batch", "policy", "policyinternal", "networking",
             "apiextensions", "schema", "pub", "kruise", "kpolicy", "configuration"]
    files = {"meta": "k8s", "core": "k8s", "apps": "k8s", "batch": "k8s", "policy": "k8s",
             "policyinternal": "k8s", "networking": "k8s", "apiextensions": "k8s", "schema": "k8s",
             "pub": "kruise", "kruise": "kruise", "kpolicy": "kruise", "configuration": "kruise"}
    texts = {"k8s": [BUILTIN], "kruise": []}
    for alias in order:
        texts[files[alias]].append(write_package(model, alias, want))
    for name, parts in texts.items():
        with open(os.path.join(args.out, name + ".gotypes"), "w") as fh:
            fh.write(HEADERS[name])
            fh.write("\n".join(parts))


HEADERS = {
    "k8s": """\
# The Go types of Kubernetes that the server decodes, as k8s.io/api, k8s.io/apimachinery and
# k8s.io/apiextensions-apiserver v0.32.9 declare them (the same types as v0.32.10, which upstream
# OpenKruise pins), and the internal policy.Eviction of k8s.io/kubernetes v1.32.10. Written by
# scripts/gotypes-from-go.py; the format is described in webhook/gocompat/gotype.h.
# apiextensions' JSONSchemaProps is kept opaque (raw): upstream checks CRD schemas, this model
# does not.

""",
    "kruise": """\
# The Go types of OpenKruise's apps.kruise.io and policy.kruise.io APIs (both versions), of
# their shared package apis/apps/pub, and of the settings of the kruise-configuration ConfigMap
# (pkg/util/configuration, which upstream decodes with encoding/json: wh_gotype_unmarshal), at
# openkruise/kruise 07169cfa. Written by scripts/gotypes-from-go.py; the format is described in
# webhook/gocompat/gotype.h.

""",
}


def type_text(model, alias, vi, t):
    if t.kind == "ptr":
        return "*" + type_text(model, alias, vi, t.elem)
    if t.kind == "slice":
        if t.elem.kind == "named" and t.elem.pkg is None and t.elem.name == "byte":
            return "[]byte"
        return "[]" + type_text(model, alias, vi, t.elem)
    if t.kind == "map":
        return "map[%s]%s" % (type_text(model, alias, vi, t.key),
                              type_text(model, alias, vi, t.elem))
    if t.pkg is None:
        return t.name
    a, v, n = model.resolve(alias, vi, t)
    if a == alias and v == vi:
        return n
    if a == alias:  # the other version of a versioned package
        return "%s@%s.%s" % (a, version_name(a, v), n)
    return "%s.%s" % (a, n)


def version_name(alias, vi):
    for a, folders, apis, imps in PACKAGES:
        if a == alias:
            return apis[vi].rsplit("/", 1)[1]
    return ""


def field_line(model, alias, vi, f):
    name, opts = json_name(f)
    typ = type_text(model, alias, vi, f.typ)
    flags = []
    for o in opts:
        if o == "omitempty":
            flags.append("omitempty")
        elif o == "inline":
            pass
        elif o:
            raise SystemExit("json option %r not supported (%s)" % (o, f.goname))
    embedded = f.goname is None
    if embedded and not name:
        name = "..."
    elif embedded:
        pass
    elif not name:
        name = f.goname
    ps = tag_get(f.tag, "patchStrategy")
    pk = tag_get(f.tag, "patchMergeKey")
    if ps:
        flags.append("patch=" + ps)
    if pk:
        flags.append("key=" + pk)
    return name, typ, flags


def decl_lines(model, alias, vi, d):
    """The lines of one declaration, without version marks."""
    if alias == "meta" and d.name in META_SPECIAL:
        return "type %s %s" % (d.name, META_SPECIAL[d.name]), []
    if d.name in OPAQUE.get(alias, ()):
        return "type %s raw" % d.name, []
    if d.kind == "type":
        line = "type %s %s" % (d.name, type_text(model, alias, vi, d.under))
        if d.enum and len(d.enum) <= 24:
            line += "  enum=" + "|".join(d.enum)
        return line, []
    rows = []
    for f in d.fields:
        if f.goname and not f.goname[0].isupper():
            continue
        if json_name(f)[0] == "-":
            continue
        rows.append(field_line(model, alias, vi, f))
    return "struct %s" % d.name, rows


def fmt_row(r, mark=""):
    name, typ, flags = r
    s = "  %-32s %-40s %s" % (name, typ, " ".join(flags))
    if mark:
        s = "%-100s %s" % (s.rstrip(), mark)
    return s.rstrip()


def merge_rows(a, b):
    """Aligns two field lists (longest common subsequence of identical rows)."""
    n, m = len(a), len(b)
    L = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            L[i][j] = L[i + 1][j + 1] + 1 if a[i] == b[j] else max(L[i + 1][j], L[i][j + 1])
    out, i, j = [], 0, 0
    while i < n or j < m:
        if i < n and j < m and a[i] == b[j]:
            out.append((a[i], None))
            i, j = i + 1, j + 1
        elif j >= m or (i < n and L[i + 1][j] >= L[i][j + 1]):
            out.append((a[i], 0))
            i += 1
        else:
            out.append((b[j], 1))
            j += 1
    return out


def write_package(model, alias, want):
    versions = model.pkgs[alias]
    apis = next(p[2] for p in PACKAGES if p[0] == alias)
    lines = ["package %s %s" % (alias, " ".join(apis))]
    names = sorted({n for (a, v, n) in want if a == alias}, key=lambda n: type_order(alias, n))
    for n in names:
        present = [vi for vi in range(len(versions)) if (alias, vi, n) in want]
        decl = [decl_lines(model, alias, vi, versions[vi][n]) if n in versions[vi] or
                (alias == "meta" and n in META_SPECIAL) else None for vi in range(len(versions))]
        if alias == "meta" and n in META_SPECIAL:
            decl = [decl_lines(model, alias, 0, Decl(n, "type"))]
            present = [0]
        lines.append("")
        if len(present) == 1 and len(versions) > 1:
            head, rows = decl[present[0]]
            lines.append("%s @%s" % (head, apis[present[0]].rsplit("/", 1)[1]))
            lines.extend(fmt_row(r) for r in rows)
        elif len(present) == 1 or (decl[0][0] == decl[1][0] and decl[0][1] == decl[1][1]):
            head, rows = decl[present[0]]
            lines.append(head)
            lines.extend(fmt_row(r) for r in rows)
        elif decl[0][0].startswith("struct") and decl[1][0].startswith("struct"):
            lines.append(decl[0][0])
            for r, who in merge_rows(decl[0][1], decl[1][1]):
                mark = "" if who is None else "@" + apis[who].rsplit("/", 1)[1]
                lines.append(fmt_row(r, mark))
        else:
            for vi in present:
                head, rows = decl[vi]
                lines.append("%s @%s" % (head, apis[vi].rsplit("/", 1)[1]))
                lines.extend(fmt_row(r) for r in rows)
    return "\n".join(lines) + "\n"


def type_order(alias, name):
    """The roots first, in ROOTS' order, then the other types by name."""
    roots = ROOTS.get(alias, [])
    return (0, roots.index(name), "") if name in roots else (1, 0, name)


if __name__ == "__main__":
    main()
