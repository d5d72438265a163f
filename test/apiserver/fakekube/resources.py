"""Resource types served by the fake API server: the built-in ones, the ones that
CustomResourceDefinition objects define, the OpenKruise CRDs, and discovery documents."""

import functools
import re

CORE_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
# The order the apiextensions discovery controller lists them in.
CRD_VERBS = ["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"]
SUB_VERBS = ["get", "patch", "update"]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"

CRD_GROUP = "apiextensions.k8s.io"
CRD_SKEY = (CRD_GROUP, "customresourcedefinitions")
NS_SKEY = ("", "namespaces")


class ResourceType(object):
    """One resource at one group/version.

    skey: (group, plural), the storage key. Objects are stored once per skey; a CRD served at
    several versions has one ResourceType per version sharing one skey.
    """

    def __init__(self, group, version, plural, singular, kind, namespaced, short_names=(),
                 status=False, generation=False, return_deleted=False, fields=None, crd=False,
                 list_kind=None, categories=()):
        self.group = group
        self.version = version
        self.plural = plural
        self.singular = singular
        self.kind = kind
        self.list_kind = list_kind or kind + "List"
        self.namespaced = namespaced
        self.short_names = list(short_names)
        self.categories = list(categories)
        self.status = status
        self.generation = generation
        self.return_deleted = return_deleted
        # Field selector label -> path (list of keys) in the object, beyond metadata.name/namespace.
        self.fields = dict(fields or {})
        self.crd = crd

    @property
    def gv(self):
        return self.group + "/" + self.version if self.group else self.version

    @property
    def skey(self):
        return (self.group, self.plural)

    @property
    def gr(self):
        return (self.group, self.plural)

    @property
    def patch_types(self):
        # Custom resources do not support strategic merge patch (no Go struct tags to drive it).
        if self.crd:
            return [JSON_PATCH, MERGE_PATCH, APPLY_PATCH]
        return [JSON_PATCH, MERGE_PATCH, STRATEGIC_PATCH, APPLY_PATCH]

    def field_value(self, obj, label):
        meta = obj.get("metadata") or {}
        if label == "metadata.name":
            return meta.get("name", "")
        if label == "metadata.namespace":
            return meta.get("namespace", "")
        cur = obj
        for k in self.fields[label]:
            cur = cur.get(k) if isinstance(cur, dict) else None
        if cur is None:
            return ""
        if isinstance(cur, bool):
            return "true" if cur else "false"
        if isinstance(cur, (dict, list)):
            return ""
        return str(cur)

    def supports_field(self, label):
        return label in ("metadata.name", "metadata.namespace") or label in self.fields


def _p(dotted):
    return dotted.split(".")


_POD_FIELDS = {f: _p(f) for f in ("spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                                  "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
                                  "status.podIP", "status.nominatedNodeName")}
_EVENT_FIELDS = {f: _p(f) for f in ("involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
                                    "involvedObject.uid", "involvedObject.apiVersion",
                                    "involvedObject.resourceVersion", "involvedObject.fieldPath",
                                    "reason", "reportingComponent", "type")}
_EVENT_FIELDS["source"] = ["source", "component"]


def _builtin():
    R = ResourceType
    return [
        R("", "v1", "namespaces", "namespace", "Namespace", False, ["ns"], status=True, return_deleted=True,
          fields={"status.phase": ["status", "phase"]}),
        R("", "v1", "pods", "pod", "Pod", True, ["po"], status=True, return_deleted=True, fields=_POD_FIELDS,
          categories=["all"]),
        R("", "v1", "services", "service", "Service", True, ["svc"], status=True, return_deleted=True,
          categories=["all"]),
        R("", "v1", "configmaps", "configmap", "ConfigMap", True, ["cm"]),
        R("", "v1", "secrets", "secret", "Secret", True, fields={"type": ["type"]}),
        R("", "v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", True, ["pvc"],
          status=True, return_deleted=True),
        R("", "v1", "persistentvolumes", "persistentvolume", "PersistentVolume", False, ["pv"], status=True,
          return_deleted=True),
        R("", "v1", "events", "event", "Event", True, ["ev"], fields=_EVENT_FIELDS),
        R("", "v1", "nodes", "node", "Node", False, ["no"], status=True, return_deleted=True),
        R("apps", "v1", "deployments", "deployment", "Deployment", True, ["deploy"], status=True,
          generation=True, categories=["all"]),
        R("apps", "v1", "replicasets", "replicaset", "ReplicaSet", True, ["rs"], status=True, generation=True,
          fields={"status.replicas": ["status", "replicas"]}, categories=["all"]),
        R("apps", "v1", "statefulsets", "statefulset", "StatefulSet", True, ["sts"], status=True,
          generation=True, categories=["all"]),
        R("apps", "v1", "controllerrevisions", "controllerrevision", "ControllerRevision", True),
        R("apps", "v1", "daemonsets", "daemonset", "DaemonSet", True, ["ds"], status=True, generation=True,
          categories=["all"]),
        R("networking.k8s.io", "v1", "ingresses", "ingress", "Ingress", True, ["ing"], status=True,
          generation=True),
        R(CRD_GROUP, "v1", "customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition",
          False, ["crd", "crds"], status=True, generation=True, categories=["api-extensions"]),
        R("admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "mutatingwebhookconfiguration",
          "MutatingWebhookConfiguration", False, generation=True, categories=["api-extensions"]),
        R("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
          "validatingwebhookconfiguration", "ValidatingWebhookConfiguration", False, generation=True,
          categories=["api-extensions"]),
        R("storage.k8s.io", "v1", "storageclasses", "storageclass", "StorageClass", False, ["sc"]),
        R("coordination.k8s.io", "v1", "leases", "lease", "Lease", True),
        R("batch", "v1", "jobs", "job", "Job", True, status=True, generation=True, categories=["all"]),
        R("policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", True, ["pdb"],
          status=True, generation=True),
    ]


BUILTIN = _builtin()
BUILTIN_BY_GVR = {(r.group, r.version, r.plural): r for r in BUILTIN}
BUILTIN_BY_GVK = {(r.group, r.version, r.kind): r for r in BUILTIN}
# Groups in the order the real server lists them in /apis (core first, then by priority).
BUILTIN_GROUPS = ["apps", "batch", "networking.k8s.io", "policy", "admissionregistration.k8s.io",
                  CRD_GROUP, "coordination.k8s.io"]

_KUBE_VERSION_RE = re.compile(r"^v([0-9]+)(?:(alpha|beta)([0-9]+))?$")


def _version_key(v):
    """Sort key: higher sorts first (negate for ascending sort)."""
    m = _KUBE_VERSION_RE.match(v)
    if not m:
        return (0, 0, 0, 0, v)
    vtype = {"alpha": 0, "beta": 1, None: 2}[m.group(2)]
    return (1, vtype, int(m.group(1)), int(m.group(3) or 0), "")


def compare_kube_versions(a, b):
    """version.CompareKubeAwareVersionStrings: >0 if a has higher priority than b.

    Kube-like versions (v1, v2beta1, v1alpha1) sort before anything else: GA before beta
    before alpha, then by major, then by minor, all descending. Other strings sort after them,
    in ascending lexical order."""
    if a == b:
        return 0
    ka, kb = _version_key(a), _version_key(b)
    if ka[0] != kb[0]:
        return 1 if ka[0] > kb[0] else -1
    if ka[0] == 0:
        return 1 if a < b else -1
    return 1 if ka[1:4] > kb[1:4] else -1


def sort_kube_versions(versions):
    return sorted(versions, key=functools.cmp_to_key(lambda x, y: -compare_kube_versions(x, y)))


def crd_types(crd):
    """ResourceTypes a CRD object serves (one per served version). Assumes a validated CRD."""
    spec = crd.get("spec") or {}
    names = spec.get("names") or {}
    group = spec.get("group", "")
    kind = names.get("kind", "")
    out = []
    for v in spec.get("versions") or []:
        if not v.get("served"):
            continue
        sub = v.get("subresources") or {}
        fields = {}
        for sf in v.get("selectableFields") or []:
            jp = sf.get("jsonPath", "")
            if jp.startswith("."):
                fields[jp[1:]] = jp[1:].split(".")
        out.append(ResourceType(group, v.get("name", ""), names.get("plural", ""),
                                names.get("singular") or kind.lower(), kind,
                                spec.get("scope") == "Namespaced", names.get("shortNames") or [],
                                status="status" in sub, generation=True, return_deleted=False,
                                fields=fields, crd=True, list_kind=names.get("listKind") or kind + "List",
                                categories=names.get("categories") or []))
    return out


def crd_storage_version(crd):
    for v in (crd.get("spec") or {}).get("versions") or []:
        if v.get("storage"):
            return v.get("name")
    return None


# OpenKruise CRDs (config/crd/bases at the commit the specs were written from):
# (group, plural, kind, scope, shortNames, both versions?, scale subresource?, conversion webhook?)
KRUISE_CRDS = [
    ("apps.kruise.io", "advancedcronjobs", "AdvancedCronJob", "Namespaced", ["acj"], True, False, False),
    ("apps.kruise.io", "broadcastjobs", "BroadcastJob", "Namespaced", ["bcj"], True, False, False),
    ("apps.kruise.io", "clonesets", "CloneSet", "Namespaced", ["clone"], True, True, True),
    ("apps.kruise.io", "containerrecreaterequests", "ContainerRecreateRequest", "Namespaced", ["crr"], True, False,
     True),
    ("apps.kruise.io", "daemonsets", "DaemonSet", "Namespaced", ["daemon", "ads"], True, False, True),
    ("apps.kruise.io", "ephemeraljobs", "EphemeralJob", "Namespaced", ["ejob"], False, False, False),
    ("apps.kruise.io", "imagelistpulljobs", "ImageListPullJob", "Namespaced", [], True, False, False),
    ("apps.kruise.io", "imagepulljobs", "ImagePullJob", "Namespaced", [], True, False, False),
    ("apps.kruise.io", "nodeimages", "NodeImage", "Cluster", [], True, False, False),
    ("apps.kruise.io", "nodepodprobes", "NodePodProbe", "Cluster", [], False, False, False),
    ("apps.kruise.io", "persistentpodstates", "PersistentPodState", "Namespaced", [], True, False, True),
    ("apps.kruise.io", "podprobemarkers", "PodProbeMarker", "Namespaced", [], False, False, False),
    ("apps.kruise.io", "resourcedistributions", "ResourceDistribution", "Cluster", ["distributor"], True, False,
     True),
    ("apps.kruise.io", "sidecarsets", "SidecarSet", "Cluster", [], True, False, True),
    ("apps.kruise.io", "statefulsets", "StatefulSet", "Namespaced", ["sts", "asts"], True, True, True),
    ("apps.kruise.io", "uniteddeployments", "UnitedDeployment", "Namespaced", ["ud"], True, True, True),
    ("apps.kruise.io", "workloadspreads", "WorkloadSpread", "Namespaced", ["ws"], True, False, True),
    ("policy.kruise.io", "podunavailablebudgets", "PodUnavailableBudget", "Namespaced", ["pub"], True, False,
     False),
]


def kruise_crds(alpha_only=False):
    """CRD objects like the ones OpenKruise installs (schemas replaced by
    x-kubernetes-preserve-unknown-fields). With alpha_only every CRD serves and stores only
    v1alpha1 and has no conversion webhook, like an older OpenKruise."""
    out = []
    schema = {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}
    for group, plural, kind, scope, short, both, scale, webhook in KRUISE_CRDS:
        sub = {"status": {}}
        if scale:
            sub["scale"] = {"labelSelectorPath": ".status.labelSelector", "specReplicasPath": ".spec.replicas",
                            "statusReplicasPath": ".status.replicas"}
        names = {"kind": kind, "listKind": kind + "List", "plural": plural, "singular": kind.lower()}
        if short:
            names["shortNames"] = list(short)
        versions = [{"name": "v1alpha1", "served": True, "storage": alpha_only or not both,
                     "schema": schema, "subresources": sub}]
        if both and not alpha_only:
            versions.append({"name": "v1beta1", "served": True, "storage": True,
                             "schema": schema, "subresources": sub})
        spec = {"group": group, "names": names, "scope": scope, "versions": versions}
        if webhook and both and not alpha_only:
            spec["conversion"] = {"strategy": "Webhook", "webhook": {
                "clientConfig": {"service": {"namespace": "kruise-system", "name": "kruise-webhook-service",
                                             "path": "/convert", "port": 443}},
                "conversionReviewVersions": ["v1", "v1beta1"]}}
        else:
            spec["conversion"] = {"strategy": "None"}
        out.append({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": plural + "." + group,
                                 "annotations": {"controller-gen.kubebuilder.io/version": "v0.17.3"}},
                    "spec": spec})
    return out


def api_resource(rt):
    r = {"name": rt.plural, "singularName": rt.singular, "namespaced": rt.namespaced, "kind": rt.kind,
         "verbs": list(CRD_VERBS if rt.crd else CORE_VERBS)}
    if rt.short_names:
        r["shortNames"] = list(rt.short_names)
    if rt.categories:
        r["categories"] = list(rt.categories)
    return r


def api_resource_list(gv, types):
    res = []
    for rt in types:
        res.append(api_resource(rt))
        if rt.status:
            res.append({"name": rt.plural + "/status", "singularName": "", "namespaced": rt.namespaced,
                        "kind": rt.kind, "verbs": list(SUB_VERBS)})
    return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": res}
