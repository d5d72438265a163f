"""The object store: one lock, one global resourceVersion counter, an event history, the
write semantics of the real API server, and fan-out of events to watchers.

Rule: a dict that has been stored is never changed again; every write stores a new dict.
Events, list results and watch queues can therefore share objects without copying.
"""

import base64
import collections
import copy
import json
import random
import re
import threading
import time
import uuid

from . import errors as E
from . import patch as P
from . import resources as R
from .selectors import label_value_error, match_fields, match_labels, qualified_name_error

# How long a list or watch with a resourceVersion newer than the store's waits for it
# (the watch cache's blockTimeout), and the Retry-After it then suggests.
FRESHNESS_WAIT = 3.0

_NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789"
_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS1035_RE = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                  "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used "
                  "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
              "start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "
              "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')")
_DNS1035_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
                "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
_CONTINUE_EXPIRED = ("The provided continue parameter is too old to display a consistent list result. You can "
                     "start a new list without the continue parameter, or use the continue token in this "
                     "response to retrieve the remainder of the results. Continuing with the provided token "
                     "results in an inconsistent list - objects that were created, modified, or deleted between "
                     "the time the first chunk was returned and now may show up in the list.")
SYSTEM_NAMESPACES = ["default", "kube-node-lease", "kube-public", "kube-system"]
# The NamespaceLifecycle admission plugin refuses to delete these.
IMMORTAL_NAMESPACES = ("default", "kube-public", "kube-system")
INITIAL_EVENTS_END = "k8s.io/initial-events-end"


def now_rfc3339():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def obj_key(obj):
    """The storage key: "<namespace>/<name>" or "<name>"; lists are sorted by it, like etcd keys."""
    meta = obj.get("metadata") or {}
    ns = meta.get("namespace")
    return ns + "/" + meta.get("name", "") if ns else meta.get("name", "")


def _with_rv(obj, rv):
    out = dict(obj)
    out["metadata"] = dict(obj.get("metadata") or {})
    out["metadata"]["resourceVersion"] = str(rv)
    return out


def _canon(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def _same(a, b):
    return _canon(a) == _canon(b)


def typed(rt, obj):
    """obj as served at rt's version: apiVersion and kind first."""
    out = {"apiVersion": rt.gv, "kind": rt.kind}
    for k, v in obj.items():
        if k not in ("apiVersion", "kind"):
            out[k] = v
    return out


def list_item(rt, obj):
    """Items of a typed (built-in) list carry no apiVersion/kind; custom resource items do."""
    if rt.crd:
        return typed(rt, obj)
    return {k: v for k, v in obj.items() if k not in ("apiVersion", "kind")}


class Query(object):
    """What a list or watch selects: namespace (None = all), label and field requirements."""

    def __init__(self, ns=None, labels=None, fields=None):
        self.ns = ns
        self.labels = labels or []
        self.fields = fields or []

    def empty(self):
        return not self.labels and not self.fields

    def matches(self, rt, obj):
        meta = obj.get("metadata") or {}
        if self.ns is not None and meta.get("namespace", "") != self.ns:
            return False
        if self.labels and not match_labels(self.labels, meta.get("labels")):
            return False
        if self.fields:
            vals = {f: rt.field_value(obj, f) for f, _, _ in self.fields}
            if not match_fields(self.fields, vals):
                return False
        return True


class Event(object):
    __slots__ = ("rv", "skey", "type", "obj", "prev")

    def __init__(self, rv, skey, etype, obj, prev):
        self.rv = rv
        self.skey = skey
        self.type = etype
        self.obj = obj
        self.prev = prev


class Watcher(object):
    """One open watch. The store offers events under its lock; the HTTP thread takes them
    (and writes them to the socket) without it.

    Queue items: (type, obj) for ADDED/MODIFIED/DELETED, ("BOOKMARK", rv, initial_end),
    ("ERROR", status). state: None while open, "end" to finish the stream cleanly after the
    queued items, "drop" to cut the connection at once.
    """

    def __init__(self, rt, query, allow_bookmarks, max_queue):
        self.rt = rt
        self.query = query
        self.allow_bookmarks = allow_bookmarks
        self.max_queue = max_queue
        self.min_rv = 0
        self.cond = threading.Condition()
        self.queue = collections.deque()
        self.state = None

    def offer(self, ev):
        if ev.rv <= self.min_rv:
            return
        cur_ok = ev.type != "DELETED" and self.query.matches(self.rt, ev.obj)
        old_ok = ev.prev is not None and self.query.matches(self.rt, ev.prev)
        if cur_ok and not old_ok:
            self.push(("ADDED", ev.obj))
        elif cur_ok:
            self.push(("MODIFIED", ev.obj))
        elif old_ok:
            # Leaving the selection looks like a deletion: last matching content, new RV.
            self.push(("DELETED", ev.obj if ev.type == "DELETED" else _with_rv(ev.prev, ev.rv)))

    def push(self, item):
        with self.cond:
            if self.state is not None:
                return
            if len(self.queue) >= self.max_queue:
                # Like the watch cache, give up on a consumer that does not keep up.
                self.state = "end"
            else:
                self.queue.append(item)
            self.cond.notify()

    def end(self, how):
        with self.cond:
            if self.state != "drop":
                self.state = how
            self.cond.notify()

    def take(self, timeout):
        with self.cond:
            if not self.queue and self.state is None and timeout > 0:
                self.cond.wait(timeout)
            if self.state == "drop":
                self.queue.clear()
                return [], "drop"
            items = list(self.queue)
            self.queue.clear()
            return items, self.state


def pod_qos(spec):
    """status.qosClass as the real server computes it, for plain quantities."""
    conts = list(spec.get("containers") or []) + list(spec.get("initContainers") or [])
    any_set, guaranteed = False, bool(conts)
    for c in conts:
        res = c.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        if req or lim:
            any_set = True
        for r in ("cpu", "memory"):
            if r not in lim or (r in req and str(req[r]) != str(lim[r])):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


class Store(object):
    def __init__(self, namespace_check=True, history_limit=100000, watch_queue_limit=10000):
        self.lock = threading.RLock()
        self.cond = threading.Condition(self.lock)
        self.namespace_check = namespace_check
        self.history_limit = history_limit
        self.watch_queue_limit = watch_queue_limit
        self.rv = 0
        self.compacted = 0       # history holds every event with rv > compacted
        self.objects = {}        # skey -> {key: obj}
        self.history = collections.deque()
        self.watchers = {}       # skey -> set(Watcher)
        self.crd_index = {}      # (group, version, plural) -> ResourceType
        self.baseline = {}       # (skey, key) -> obj restored by reset()

    # ----- resource types -------------------------------------------------------------

    def resolve(self, group, version, plural):
        with self.lock:
            return R.BUILTIN_BY_GVR.get((group, version, plural)) or self.crd_index.get((group, version, plural))

    def resolve_kind(self, api_version, kind):
        """ResourceType for apiVersion/kind; a custom resource may name any version of its group."""
        group, _, version = api_version.rpartition("/")
        with self.lock:
            rt = R.BUILTIN_BY_GVK.get((group, version, kind))
            if rt:
                return rt
            fallback = None
            for (g, v, _), t in self.crd_index.items():
                if g == group and t.kind == kind:
                    if v == version:
                        return t
                    fallback = fallback or t
            return fallback

    def type_for_skey(self, skey):
        """The built-in type, or for custom resources the preferred (highest priority) served version."""
        with self.lock:
            for t in R.BUILTIN:
                if t.skey == skey:
                    return t
            cands = {t.version: t for t in self.crd_index.values() if t.skey == skey}
        if not cands:
            return None
        return cands[R.sort_kube_versions(cands)[0]]

    def discovery_groups(self):
        """[(group, [versions sorted by priority])] for /apis."""
        with self.lock:
            out = []
            for g in R.BUILTIN_GROUPS:
                out.append((g, ["v1"]))
            crd_groups = {}
            for (g, v, _) in self.crd_index:
                crd_groups.setdefault(g, set()).add(v)
            for g in sorted(crd_groups):
                out.append((g, R.sort_kube_versions(crd_groups[g])))
            return out

    def discovery_resources(self, group, version):
        with self.lock:
            types = [t for t in R.BUILTIN if t.group == group and t.version == version]
            types += sorted((t for (g, v, _), t in self.crd_index.items() if g == group and v == version),
                            key=lambda t: t.plural)
            return types

    def _rebuild_crd_index(self):
        idx = {}
        for crd in self.objects.get(R.CRD_SKEY, {}).values():
            for t in R.crd_types(crd):
                idx[(t.group, t.version, t.plural)] = t
        self.crd_index = idx

    # ----- low-level writes (lock held) -------------------------------------------------

    def _commit(self, skey, etype, obj, prev):
        """Store obj (a dict owned by the store from now on), record and fan out the event."""
        self.rv += 1
        rv = self.rv
        objs = self.objects.setdefault(skey, {})
        if etype == "DELETED":
            obj = _with_rv(prev, rv)
            objs.pop(obj_key(prev), None)
        else:
            obj["metadata"]["resourceVersion"] = str(rv)
            objs[obj_key(obj)] = obj
        ev = Event(rv, skey, etype, obj, prev)
        self.history.append(ev)
        if len(self.history) > self.history_limit:
            keep = int(self.history_limit * 0.9)
            while len(self.history) > keep:
                self.compacted = self.history.popleft().rv
        for w in list(self.watchers.get(skey, ())):
            w.offer(ev)
        if skey == R.CRD_SKEY:
            self._crd_changed(etype, obj, prev)
        self.cond.notify_all()
        return obj

    def _crd_changed(self, etype, obj, prev):
        self._rebuild_crd_index()
        spec = (obj.get("spec") or {})
        cr_skey = (spec.get("group", ""), (spec.get("names") or {}).get("plural", ""))
        if etype == "DELETED" or (prev is not None and not _same(prev.get("spec"), obj.get("spec"))):
            # The real server rebuilds a custom resource's storage when its CRD's spec changes
            # (or the CRD goes away), which ends the open watches on it.
            for w in list(self.watchers.get(cr_skey, ())):
                w.end("end")

    def _remove(self, skey, key):
        """Delete one object for good, with the cascades the real server's controllers
        eventually perform: a Namespace takes its contents along, a CRD its custom resources."""
        obj = self.objects.get(skey, {}).get(key)
        if obj is None:
            return None
        if skey == R.NS_SKEY:
            name = obj["metadata"]["name"]
            for s in list(self.objects):
                for k, o in list(self.objects[s].items()):
                    if (o.get("metadata") or {}).get("namespace") == name:
                        self._remove(s, k)
        elif skey == R.CRD_SKEY:
            spec = obj.get("spec") or {}
            cr_skey = (spec.get("group", ""), (spec.get("names") or {}).get("plural", ""))
            for k in list(self.objects.get(cr_skey, {})):
                self._remove(cr_skey, k)
        return self._commit(skey, "DELETED", None, obj)

    # ----- validation and defaulting ------------------------------------------------------

    def _decode(self, rt, body, verb):
        if not isinstance(body, dict):
            raise E.bad_request("the object provided is unrecognized (must be of type %s): couldn't get "
                                "version/kind; json parse error: expected a JSON object" % rt.kind)
        av = body.get("apiVersion")
        if av and av != rt.gv:
            ok = rt.crd and av.rpartition("/")[0] == rt.group and self.resolve_kind(av, rt.kind) is not None
            if not ok:
                raise E.bad_request("the API version in the data (%s) does not match the expected API version "
                                    "(%s)" % (av, rt.gv))
        kind = body.get("kind")
        if kind and kind != rt.kind:
            raise E.bad_request("the object provided is unrecognized (must be of type %s): no kind \"%s\" is "
                                "expected here (%s)" % (rt.kind, kind, verb))
        meta = body.get("metadata")
        if meta is not None and not isinstance(meta, dict):
            raise E.bad_request("the object provided is unrecognized (must be of type %s): metadata must be an "
                                "object" % rt.kind)
        obj = copy.deepcopy({k: v for k, v in body.items() if k not in ("apiVersion", "kind")})
        obj["metadata"] = obj.get("metadata") or {}
        return obj

    def _validate_meta(self, rt, obj, old=None):
        meta = obj["metadata"]
        name = meta.get("name", "")
        causes = []
        if not name:
            causes.append(("metadata.name", "Required", "name or generateName is required"))
        elif old is None:
            if rt.skey == R.NS_SKEY:
                ok, msg = len(name) <= 63 and _LABEL_RE.match(name), _LABEL_MSG
            elif rt.skey == ("", "services"):
                ok, msg = len(name) <= 63 and _DNS1035_RE.match(name), _DNS1035_MSG
            else:
                ok, msg = len(name) <= 253 and _SUBDOMAIN_RE.match(name), _SUBDOMAIN_MSG
            if not ok:
                causes.append(("metadata.name", "Invalid", E.invalid_value(name, msg)))
        labels = meta.get("labels")
        if labels is not None:
            if not isinstance(labels, dict):
                causes.append(("metadata.labels", "Invalid", "must be a map of strings"))
            else:
                for k, v in labels.items():
                    err = qualified_name_error(k)
                    if err:
                        causes.append(("metadata.labels", "Invalid", E.invalid_value(k, err)))
                    elif not isinstance(v, str):
                        causes.append(("metadata.labels", "Invalid", "label values must be strings"))
                    else:
                        verr = label_value_error(v)
                        if verr:
                            causes.append(("metadata.labels", "Invalid", E.invalid_value(v, verr)))
        annotations = meta.get("annotations")
        if annotations is not None:
            if not isinstance(annotations, dict) or not all(isinstance(v, str) for v in annotations.values()):
                causes.append(("metadata.annotations", "Invalid", "must be a map of strings"))
            else:
                total = 0
                for k, v in annotations.items():
                    err = qualified_name_error(k.lower())
                    if err:
                        causes.append(("metadata.annotations", "Invalid", E.invalid_value(k, err)))
                    total += len(k) + len(v)
                if total > 256 * 1024:
                    causes.append(("metadata.annotations", "TooLong", "must have at most 262144 bytes"))
        if old is not None:
            omd = old["metadata"]
            if omd.get("deletionTimestamp"):
                had = set(omd.get("finalizers") or [])
                new = [f for f in meta.get("finalizers") or [] if f not in had]
                if new:
                    causes.append(("metadata.finalizers", "Forbidden",
                                   "no new finalizers can be added if the object is being deleted, found new "
                                   "finalizers []string{%s}" % ", ".join('"%s"' % f for f in new)))
        if rt.skey == R.CRD_SKEY:
            causes += self._crd_causes(obj, old)
        if causes:
            raise E.invalid(rt.group, rt.kind, name, causes)

    def _crd_causes(self, crd, old):
        causes = []
        spec = crd.get("spec")
        if not isinstance(spec, dict):
            return [("spec", "Required", "")]
        group = spec.get("group") or ""
        names = spec.get("names") if isinstance(spec.get("names"), dict) else {}
        plural, kind = names.get("plural") or "", names.get("kind") or ""
        if not group:
            causes.append(("spec.group", "Required", ""))
        elif "." not in group:
            causes.append(("spec.group", "Invalid", E.invalid_value(group, "should be a domain with at least one dot")))
        if not plural:
            causes.append(("spec.names.plural", "Required", ""))
        if not kind:
            causes.append(("spec.names.kind", "Required", ""))
        name = crd["metadata"].get("name", "")
        if name and plural and group and name != plural + "." + group:
            causes.append(("metadata.name", "Invalid",
                           E.invalid_value(name, 'must be spec.names.plural+"."+spec.group')))
        if spec.get("scope") not in ("Namespaced", "Cluster"):
            causes.append(("spec.scope", "Unsupported", E.invalid_value(spec.get("scope") or "",
                                                                        'supported values: "Cluster", "Namespaced"')))
        versions = spec.get("versions")
        if not isinstance(versions, list) or not versions:
            causes.append(("spec.versions", "Invalid", "must have exactly one version marked as storage version"))
        else:
            seen = set()
            for i, v in enumerate(versions):
                vn = (v or {}).get("name") or ""
                if not _LABEL_RE.match(vn):
                    causes.append(("spec.versions[%d].name" % i, "Invalid", E.invalid_value(vn, _LABEL_MSG)))
                if vn in seen:
                    causes.append(("spec.versions", "Invalid", "must contain unique version names"))
                seen.add(vn)
            if sum(1 for v in versions if (v or {}).get("storage")) != 1:
                causes.append(("spec.versions", "Invalid", "must have exactly one version marked as storage version"))
        if old is not None and not causes:
            ospec = old.get("spec") or {}
            if ospec.get("scope") != spec.get("scope"):
                causes.append(("spec.scope", "Invalid", E.invalid_value(spec.get("scope"), "field is immutable")))
        return causes

    def _crd_status(self, crd, old_status=None):
        spec = crd["spec"]
        names = dict(spec["names"])
        names.setdefault("singular", names["kind"].lower())
        names.setdefault("listKind", names["kind"] + "List")
        status = copy.deepcopy(old_status) if old_status else {}
        if not status.get("conditions"):
            ts = now_rfc3339()
            status["conditions"] = [
                {"type": "NamesAccepted", "status": "True", "lastTransitionTime": ts, "reason": "NoConflicts",
                 "message": "no conflicts found"},
                {"type": "Established", "status": "True", "lastTransitionTime": ts, "reason": "InitialNamesAccepted",
                 "message": "the initial names have been accepted"}]
        status["acceptedNames"] = names
        stored = list(status.get("storedVersions") or [])
        sv = R.crd_storage_version(crd)
        if sv and sv not in stored:
            stored.append(sv)
        status["storedVersions"] = stored
        return status

    def _kind_rules(self, rt, obj, old):
        """Defaulting and validation of the few kinds whose content the project relies on:
        Secret (type defaults to Opaque and is immutable, stringData is folded into data,
        data must be base64) and ConfigMap/Secret `immutable`."""
        if rt.skey not in (("", "secrets"), ("", "configmaps")):
            return
        name = obj["metadata"].get("name", "")
        causes = []
        if rt.skey == ("", "secrets"):
            data = obj.get("data")
            if data is not None and not isinstance(data, dict):
                raise E.bad_request('Secret in version "v1" cannot be handled as a Secret: data must be a map')
            for k, v in (data or {}).items():
                try:
                    if not isinstance(v, str):
                        raise ValueError("not a string")
                    base64.b64decode(v, validate=True)
                except ValueError as e:
                    raise E.bad_request('Secret in version "v1" cannot be handled as a Secret: illegal base64 '
                                        'data in data[%s]: %s' % (k, e))
            sd = obj.pop("stringData", None)
            if isinstance(sd, dict) and sd:
                data = dict(data or {})
                for k, v in sd.items():
                    data[k] = base64.b64encode(str(v).encode()).decode()
                obj["data"] = data
            if not obj.get("type"):
                obj["type"] = "Opaque"
            if old is not None and obj["type"] != old.get("type", "Opaque"):
                causes.append(("type", "Invalid", E.invalid_value(obj["type"], "field is immutable")))
        if old is not None and old.get("immutable") is True:
            if obj.get("immutable") is not True:
                causes.append(("immutable", "Forbidden", "field is immutable when `immutable` is set"))
            for f in ("data", "binaryData"):
                if not _same(obj.get(f) or {}, old.get(f) or {}):
                    causes.append((f, "Forbidden", "field is immutable when `immutable` is set"))
        if causes:
            raise E.invalid(rt.group, rt.kind, name, causes)

    def _prepare_create(self, rt, obj):
        """System fields and the strategy's PrepareForCreate for a new object."""
        meta = obj["metadata"]
        for k in ("deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"):
            meta.pop(k, None)
        meta["uid"] = str(uuid.uuid4())
        meta["creationTimestamp"] = now_rfc3339()
        if rt.generation:
            meta["generation"] = 1
        else:
            meta.pop("generation", None)
        if rt.status:
            obj.pop("status", None)
        if rt.skey == R.NS_SKEY:
            meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = meta["name"]
            spec = obj.setdefault("spec", {})
            if not isinstance(spec, dict):
                spec = obj["spec"] = {}
            spec["finalizers"] = ["kubernetes"]
            obj["status"] = {"phase": "Active"}
        elif rt.skey == ("", "pods"):
            obj["status"] = {"phase": "Pending", "qosClass": pod_qos(obj.get("spec") or {})}
        elif rt.skey == R.CRD_SKEY:
            obj["status"] = self._crd_status(obj)

    def _generation(self, rt, old, new):
        if not rt.generation:
            return
        gen = old["metadata"].get("generation", 0)
        drop = {"metadata", "status"} if rt.status else {"metadata"}
        a = {k: v for k, v in old.items() if k not in drop}
        b = {k: v for k, v in new.items() if k not in drop}
        new["metadata"]["generation"] = gen + 1 if not _same(a, b) else gen

    # ----- API operations -----------------------------------------------------------------

    def get(self, rt, ns, name):
        with self.lock:
            obj = self.objects.get(rt.skey, {}).get(ns + "/" + name if rt.namespaced else name)
        if obj is None:
            raise E.not_found(rt.gr, name)
        return obj

    def create(self, rt, ns, body, dry_run=False):
        obj = self._decode(rt, body, "create")
        meta = obj["metadata"]
        if rt.namespaced:
            if meta.get("namespace") and meta["namespace"] != ns:
                raise E.bad_request("the namespace of the provided object does not match the namespace sent on "
                                    "the request")
            meta["namespace"] = ns
        else:
            meta.pop("namespace", None)
        with self.lock:
            if rt.namespaced and self.namespace_check and ns not in self.objects.get(R.NS_SKEY, {}):
                raise E.not_found(R.NS_SKEY, ns)
            if not meta.get("name") and meta.get("generateName"):
                base = meta["generateName"][:58]
                for _ in range(16):
                    meta["name"] = base + "".join(random.choice(_NAME_CHARS) for _ in range(5))
                    if obj_key(obj) not in self.objects.get(rt.skey, {}):
                        break
            self._validate_meta(rt, obj)
            self._kind_rules(rt, obj, None)
            if meta.get("resourceVersion"):
                raise E.unknown(500, "resourceVersion should not be set on objects to be created")
            if obj_key(obj) in self.objects.get(rt.skey, {}):
                raise E.already_exists(rt.gr, meta["name"])
            self._prepare_create(rt, obj)
            if dry_run:
                return obj
            return self._commit(rt.skey, "ADDED", obj, None)

    def update(self, rt, ns, name, body, subresource=None, dry_run=False):
        new = self._decode(rt, body, "update")
        with self.lock:
            cur = self.get(rt, ns, name)
            return self._update_locked(rt, cur, new, subresource, dry_run)

    def _update_locked(self, rt, cur, new, subresource, dry_run):
        meta = new["metadata"]
        name = cur["metadata"]["name"]
        if meta.get("name", "") != name:
            raise E.bad_request("the name of the object (%s) does not match the name on the URL (%s)"
                                % (meta.get("name", ""), name))
        if rt.namespaced:
            if meta.get("namespace") and meta["namespace"] != cur["metadata"]["namespace"]:
                raise E.bad_request("the namespace of the provided object does not match the namespace sent on "
                                    "the request")
        rv = meta.get("resourceVersion")
        if rv and rv != cur["metadata"]["resourceVersion"]:
            raise E.conflict(rt.gr, name, E.MODIFIED)
        uid = meta.get("uid")
        if uid and uid != cur["metadata"]["uid"]:
            raise E.conflict(rt.gr, name, "Precondition failed: UID in precondition: %s, UID in object meta: %s"
                             % (uid, cur["metadata"]["uid"]))
        if subresource == "status":
            # Only .status changes; everything else comes from the stored object.
            result = {k: v for k, v in copy.deepcopy(cur).items() if k != "status"}
            if "status" in new:
                result["status"] = new["status"]
        else:
            result = new
            omd = cur["metadata"]
            for k in ("uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "namespace",
                      "generation"):
                if k in omd:
                    meta[k] = omd[k]
                else:
                    meta.pop(k, None)
            meta.pop("managedFields", None)
            meta.pop("selfLink", None)
            if rt.status:
                if "status" in cur:
                    result["status"] = copy.deepcopy(cur["status"])
                else:
                    result.pop("status", None)
            if rt.skey == R.NS_SKEY:
                meta.setdefault("labels", {})["kubernetes.io/metadata.name"] = name
            self._validate_meta(rt, result, cur)
            self._kind_rules(rt, result, cur)
            if rt.skey == R.CRD_SKEY:
                result["status"] = self._crd_status(result, cur.get("status"))
            self._generation(rt, cur, result)
        result["metadata"]["resourceVersion"] = cur["metadata"]["resourceVersion"]
        if _same(result, cur):
            # The real server does not write (nor bump resourceVersion) for a no-op update.
            return cur
        if dry_run:
            return result
        out = self._commit(rt.skey, "MODIFIED", result, cur)
        md = out["metadata"]
        if md.get("deletionTimestamp") and not md.get("finalizers"):
            self._remove(rt.skey, obj_key(out))
        return out

    def patch(self, rt, ns, name, content_type, body, subresource=None, dry_run=False):
        """body: raw bytes of the patch document."""
        if content_type not in rt.patch_types or content_type == R.APPLY_PATCH:
            raise E.unsupported_media_type([t for t in rt.patch_types if t != R.APPLY_PATCH])
        try:
            doc = json.loads(body.decode("utf-8") if body else "null")
        except (ValueError, UnicodeDecodeError) as e:
            raise E.bad_request("error decoding patch: %s" % e)
        with self.lock:
            cur = self.get(rt, ns, name)
            current = typed(rt, cur)
            try:
                if content_type == R.JSON_PATCH:
                    patched = P.json_patch(current, doc)
                else:
                    if not isinstance(doc, dict):
                        raise E.bad_request("error decoding patch: the patch is not a JSON object")
                    # Strategic merge patch is served as a JSON merge patch (see README).
                    patched = P.merge_patch(current, doc)
            except P.PatchFormatError as e:
                raise E.bad_request(str(e))
            except P.PatchApplyError:
                # errors.NewGenericServerResponse(422, ...): the real server drops the detail.
                raise E.ApiError(422, "Invalid", "the server rejected our request due to an error in our request",
                                 {})
            if not isinstance(patched, dict):
                raise E.invalid("", "", "", [("patch", "Invalid", "the patched document is not an object")])
            new = self._decode(rt, {k: v for k, v in patched.items() if k not in ("apiVersion", "kind")}, "patch")
            return self._update_locked(rt, cur, new, subresource, dry_run)

    def delete(self, rt, ns, name, options, dry_run=False):
        """Returns (object, deleted_now)."""
        pre = options.get("preconditions") or {}
        if rt.skey == R.NS_SKEY and name in IMMORTAL_NAMESPACES:
            raise E.ApiError(403, "Forbidden", 'namespaces "%s" is forbidden: this namespace may not be deleted'
                             % name, {"name": name, "kind": "namespaces"})
        with self.lock:
            cur = self.get(rt, ns, name)
            md = cur["metadata"]
            if pre.get("uid") and pre["uid"] != md.get("uid"):
                raise E.conflict(rt.gr, name, "Precondition failed: UID in precondition: %s, UID in object meta: %s"
                                 % (pre["uid"], md.get("uid")))
            if pre.get("resourceVersion") and pre["resourceVersion"] != md.get("resourceVersion"):
                raise E.conflict(rt.gr, name, "Precondition failed: ResourceVersion in precondition: %s, "
                                 "ResourceVersion in object meta: %s" % (pre["resourceVersion"],
                                                                          md.get("resourceVersion")))
            if md.get("finalizers"):
                if md.get("deletionTimestamp"):
                    return cur, False
                new = copy.deepcopy(cur)
                new["metadata"]["deletionTimestamp"] = now_rfc3339()
                new["metadata"]["deletionGracePeriodSeconds"] = 0
                if dry_run:
                    return new, False
                return self._commit(rt.skey, "MODIFIED", new, cur), False
            if dry_run:
                return cur, True
            return self._remove(rt.skey, obj_key(cur)), True

    def list(self, rt, query, limit=0, cont=None, rv=None, rv_match=None):
        """Returns (items, list_rv, continue_token, remaining_count)."""
        with self.lock:
            start = None
            if cont:
                trv, start = decode_continue(cont)
                if trv == -1:
                    objs, snap = self.objects.get(rt.skey, {}), self.rv
                elif trv < self.compacted:
                    raise E.expired(_CONTINUE_EXPIRED, encode_continue(-1, start))
                else:
                    objs, snap = self._state_at(rt.skey, trv), trv
            elif rv_match == "Exact":
                n = int(rv)
                self._wait_fresh(n)
                if n < self.compacted:
                    raise E.expired("The resourceVersion for the provided list is too old.")
                objs, snap = self._state_at(rt.skey, n), n
            else:
                if rv not in (None, "", "0"):
                    self._wait_fresh(int(rv))
                objs, snap = self.objects.get(rt.skey, {}), self.rv
            keys = sorted(k for k in objs if start is None or k >= start)
            items = [objs[k] for k in keys if query.matches(rt, objs[k])]
        token, remaining = None, None
        if limit and limit > 0 and len(items) > limit:
            remaining = len(items) - limit if query.empty() else None
            items = items[:limit]
            token = encode_continue(snap, obj_key(items[-1]) + "\x00")
        return items, snap, token, remaining

    def _wait_fresh(self, n):
        deadline = time.monotonic() + FRESHNESS_WAIT
        while self.rv < n:
            left = deadline - time.monotonic()
            if left <= 0:
                err = E.timeout("Too large resource version: %d, current: %d" % (n, self.rv), 1)
                err.details["causes"] = [{"reason": "ResourceVersionTooLarge",
                                          "message": "Too large resource version"}]
                raise err
            self.cond.wait(left)

    def _state_at(self, skey, n):
        """The objects of skey as they were at resourceVersion n (n >= compacted)."""
        objs = dict(self.objects.get(skey, {}))
        for ev in reversed(self.history):
            if ev.rv <= n:
                break
            if ev.skey != skey:
                continue
            k = obj_key(ev.obj)
            if ev.type == "ADDED":
                objs.pop(k, None)
            else:
                objs[k] = ev.prev
        return objs

    def watch(self, rt, query, rv=None, allow_bookmarks=False, send_initial=False):
        w = Watcher(rt, query, allow_bookmarks, self.watch_queue_limit)
        with self.lock:
            if send_initial or rv in (None, "", "0"):
                if send_initial and rv not in (None, "", "0"):
                    self._wait_fresh(int(rv))
                objs = self.objects.get(rt.skey, {})
                for k in sorted(objs):
                    if query.matches(rt, objs[k]):
                        w.push(("ADDED", objs[k]))
                if send_initial:
                    w.push(("BOOKMARK", self.rv, True))
                w.min_rv = self.rv
            else:
                n = int(rv)
                if n < self.compacted:
                    st = E.expired("too old resource version: %d (%d)" % (n, self.compacted)).status()
                    w.push(("ERROR", st))
                    w.end("end")
                    return w
                w.min_rv = n
                pending = []
                for ev in reversed(self.history):
                    if ev.rv <= n:
                        break
                    if ev.skey == rt.skey:
                        pending.append(ev)
                for ev in reversed(pending):
                    w.offer(ev)
            self.watchers.setdefault(rt.skey, set()).add(w)
        return w

    def bookmark(self, w):
        with self.lock:
            if self.rv >= w.min_rv:
                w.push(("BOOKMARK", self.rv, False))

    def unwatch(self, w):
        with self.lock:
            s = self.watchers.get(w.rt.skey)
            if s is not None:
                s.discard(w)
                if not s:
                    del self.watchers[w.rt.skey]

    # ----- control operations -------------------------------------------------------------

    def load(self, items, baseline=False):
        """Create or replace objects as given (status included), bypassing validation.
        Returns the stored objects."""
        out = []
        with self.lock:
            for i, o in enumerate(items):
                if not isinstance(o, dict):
                    raise E.bad_request("item %d is not an object" % i)
                rt = self.resolve_kind(o.get("apiVersion") or "", o.get("kind") or "")
                if rt is None:
                    raise E.bad_request("item %d: no resource serves apiVersion %r kind %r"
                                        % (i, o.get("apiVersion"), o.get("kind")))
                obj = copy.deepcopy({k: v for k, v in o.items() if k not in ("apiVersion", "kind")})
                meta = obj.setdefault("metadata", {})
                if not meta.get("name"):
                    raise E.bad_request("item %d: metadata.name is required" % i)
                if rt.namespaced:
                    meta["namespace"] = meta.get("namespace") or "default"
                else:
                    meta.pop("namespace", None)
                meta.pop("resourceVersion", None)
                meta.setdefault("uid", str(uuid.uuid4()))
                meta.setdefault("creationTimestamp", now_rfc3339())
                if rt.generation:
                    meta.setdefault("generation", 1)
                if rt.skey == R.CRD_SKEY:
                    if self._crd_causes(obj, None):
                        raise E.bad_request("item %d: invalid CustomResourceDefinition: %s"
                                            % (i, "; ".join(c[0] + ": " + c[2] for c in self._crd_causes(obj, None))))
                    obj["status"] = self._crd_status(obj, obj.get("status"))
                elif rt.skey == R.NS_SKEY:
                    meta.setdefault("labels", {}).setdefault("kubernetes.io/metadata.name", meta["name"])
                    obj.setdefault("spec", {"finalizers": ["kubernetes"]})
                    obj.setdefault("status", {"phase": "Active"})
                key = obj_key(obj)
                cur = self.objects.get(rt.skey, {}).get(key)
                stored = self._commit(rt.skey, "MODIFIED" if cur else "ADDED", obj, cur)
                if baseline:
                    self.baseline[(rt.skey, key)] = stored
                out.append(typed(rt, stored))
        return out

    def add_system_namespaces(self):
        self.load([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in SYSTEM_NAMESPACES],
                  baseline=True)

    def reset(self):
        """Back to the start state: remove what is not baseline, restore baseline objects."""
        with self.lock:
            for skey in list(self.objects):
                for key in list(self.objects.get(skey, {})):
                    if (skey, key) not in self.baseline and key in self.objects.get(skey, {}):
                        self._remove(skey, key)
            for (skey, key), base in self.baseline.items():
                cur = self.objects.get(skey, {}).get(key)
                if cur is None:
                    self._commit(skey, "ADDED", copy.deepcopy(base), None)
                else:
                    a = {k: v for k, v in cur.items() if k != "metadata"}
                    b = {k: v for k, v in base.items() if k != "metadata"}
                    ma = {k: v for k, v in cur["metadata"].items() if k != "resourceVersion"}
                    mb = {k: v for k, v in base["metadata"].items() if k != "resourceVersion"}
                    if not _same(a, b) or not _same(ma, mb):
                        self._commit(skey, "MODIFIED", copy.deepcopy(base), cur)

    def compact(self):
        with self.lock:
            self.history.clear()
            self.compacted = self.rv
            return self.rv

    def all_watchers(self):
        with self.lock:
            return [w for s in self.watchers.values() for w in s]

    def dump(self):
        with self.lock:
            out = []
            for skey in sorted(self.objects):
                rt = self.type_for_skey(skey)
                for k in sorted(self.objects[skey]):
                    obj = self.objects[skey][k]
                    out.append(typed(rt, obj) if rt else dict(obj))
            return out


def encode_continue(rv, start):
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_continue(token):
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        d = json.loads(raw.decode("utf-8"))
        if d.get("v") != "meta.k8s.io/v1":
            raise ValueError("continue key is not valid: incorrect encoded start resourceVersion (version "
                             "meta.k8s.io/v1)")
        rv, start = d["rv"], d["start"]
        if not isinstance(rv, int) or not isinstance(start, str) or (rv < 1 and rv != -1):
            raise ValueError("continue key is not valid: incorrect encoded start resourceVersion")
        return rv, start
    except E.ApiError:
        raise
    except Exception as e:
        msg = str(e) if str(e).startswith("continue key") else "continue key is not valid: %s" % e
        raise E.bad_request(msg)
