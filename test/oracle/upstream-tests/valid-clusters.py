#!/usr/bin/env python3
"""Makes the cluster objects of ported vectors (test/handler-vectors) objects a real API server
accepts, without changing what upstream's handlers read of them: upstream's _test.go tables
hand their fake client any object, and make e2e creates each vector's cluster through a real
kube-apiserver. Run it after `kwh-oracle port`, then test/oracle/ask-vectors.py on the same
files to confirm upstream still answers as each vector expects.

    test/oracle/upstream-tests/valid-clusters.py FILE...

- an owner reference with an empty apiVersion, kind or name (the tables set only the uid,
  which is all the handlers compare) gets the request's kind, apiVersion and name;
- a Pod without containers gets one (the handlers that read these Pods read their owners);
- StorageClasses named allowExpand and disallowExpand (not DNS subdomains) are renamed
  allow-expand and disallow-expand, with every storageClassName that names them, and get the
  provisioner a StorageClass requires (the resize check reads allowVolumeExpansion only).
Prints the files it changed."""
import json
import sys

RENAMES = {"allowExpand": "allow-expand", "disallowExpand": "disallow-expand"}


def rename_classes(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("storageClassName", "name") and v in RENAMES:
                node[k] = RENAMES[v]
            else:
                rename_classes(v)
    elif isinstance(node, list):
        for v in node:
            rename_classes(v)


def fix(vector):
    req = vector.get("request") or {}
    owner = req.get("object") or req.get("oldObject") or {}
    kind = (req.get("kind") or {})
    api = owner.get("apiVersion") or "%s/%s" % (kind.get("group"), kind.get("version"))
    for o in vector.get("cluster") or []:
        meta = o.get("metadata") or {}
        for ref in meta.get("ownerReferences") or []:
            ref["apiVersion"] = ref.get("apiVersion") or api
            ref["kind"] = ref.get("kind") or kind.get("kind") or "Unknown"
            ref["name"] = ref.get("name") or (owner.get("metadata") or {}).get("name") or "owner"
        if o.get("kind") == "Pod" and o.get("apiVersion") == "v1":
            spec = o.setdefault("spec", {})
            if not spec.get("containers"):
                spec["containers"] = [{"name": "main", "image": "nginx"}]
    rename_classes(vector.get("cluster"))
    for o in vector.get("cluster") or []:
        if o.get("kind") == "StorageClass" and not o.get("provisioner"):
            o["provisioner"] = "kubernetes.io/no-provisioner"
    if any(o.get("kind") == "StorageClass" for o in vector.get("cluster") or []):
        rename_classes(req)
        rename_classes(vector.get("expect"))


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            before = f.read()
        vector = json.loads(before)
        fix(vector)
        after = json.dumps(vector, indent=2, sort_keys=True) + "\n"
        if json.loads(after) != json.loads(before):
            with open(path, "w") as f:
                f.write(after)
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
