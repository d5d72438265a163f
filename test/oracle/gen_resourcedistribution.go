package main

import (
	"math/rand"
	"strings"
)

// ResourceDistribution validation: the distributed resource as raw JSON (Secrets and
// ConfigMaps as users write them; other kinds, other groups and versions, lists, missing kinds,
// apiVersions that do not parse, values of other JSON types, nothing at all), the targets
// (included and excluded namespaces, valid names or not, overlapping or not, allNamespaces, a
// namespace selector under its v1alpha1 or v1beta1 name, with operators that do not parse),
// the metadata of a cluster-scoped object, and updates that keep or change the resource's kind
// and name. The world holds namespaces with labels and resources that this distribution or
// another one placed there (which the webhook at the pinned commit does not read: the
// controller deals with conflicts). The ResourceDistributionGate (alpha, off by default) is on
// most of the time.

func init() {
	register(generator{name: "resourcedistribution-validate", area: "resourcedistribution", path: "/validate-apps-kruise-io-resourcedistribution", gen: genRDValidate})
}

const rdSourceKey = "kruise.io/resourcedistribution.resource.from"

var rdNamespaces = []string{"ns-1", "ns-2", "default", "kube-system", "kruise-system", "team-a"}

func rdWorld(r *rand.Rand, rdName, resName string) []map[string]interface{} {
	world := []map[string]interface{}{namespaceObj("kruise-system", nil)}
	for _, ns := range distinctNames(r, rdNamespaces, 2+r.Intn(4)) {
		if ns == "kruise-system" {
			continue
		}
		world = append(world, namespaceObj(ns, labels(r, 2)))
	}
	placed := map[string]bool{}
	for i := r.Intn(3); i > 0; i-- {
		kind := pick(r, []string{"Secret", "ConfigMap"})
		meta := objMeta(pick(r, []string{resName, "other"}), pick(r, []string{"ns-1", "ns-2", "default"}), nil)
		if key := kind + "/" + meta["namespace"].(string) + "/" + meta["name"].(string); placed[key] {
			continue
		} else {
			placed[key] = true
		}
		if chance(r, 0.6) {
			meta["annotations"] = obj{rdSourceKey: pick(r, []string{rdName, "another-rd"})}
		}
		o := obj{"apiVersion": "v1", "kind": kind, "metadata": meta}
		if kind == "Secret" {
			o["data"] = obj{"k": "dg=="}
		} else {
			o["data"] = obj{"k": "v"}
		}
		world = append(world, o)
	}
	return world
}

// rdResource is spec.resource: mostly a Secret or a ConfigMap.
func rdResource(r *rand.Rand, name string) interface{} {
	meta := obj{}
	if chance(r, 0.92) {
		meta["name"] = name
	}
	if chance(r, 0.15) {
		meta["namespace"] = pick(r, []string{"ns-1", "default", ""})
	}
	if chance(r, 0.15) {
		meta["labels"] = labels(r, 2)
	}
	if chance(r, 0.08) {
		meta["annotations"] = obj{rdSourceKey: "another-rd"}
	}
	var o obj
	switch x := r.Float64(); {
	case x < 0.45:
		o = obj{"apiVersion": "v1", "kind": "Secret", "metadata": meta}
		if chance(r, 0.8) {
			o["data"] = obj{"k": pick(r, []string{"dg==", "aGVsbG8=", ""})}
		}
		if chance(r, 0.3) {
			o["stringData"] = obj{"user": "admin"}
		}
		if chance(r, 0.4) {
			o["type"] = pick(r, []string{"Opaque", "kubernetes.io/tls", "kubernetes.io/dockerconfigjson"})
		}
		if chance(r, 0.05) {
			o["immutable"] = true
		}
	case x < 0.8:
		o = obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}
		if chance(r, 0.8) {
			o["data"] = obj{"app.conf": "a=b", "k": "v"}
		}
		if chance(r, 0.15) {
			o["binaryData"] = obj{"bin": "AAE="}
		}
	case x < 0.84:
		o = obj{"apiVersion": pick(r, []string{"v1", "apps/v1"}), "kind": pick(r, []string{"Pod", "Deployment", "Service"}), "metadata": meta}
	case x < 0.87:
		o = obj{"apiVersion": pick(r, []string{"v2", "v1beta1", "example.com/v1", "core/v1"}), "kind": pick(r, []string{"Secret", "ConfigMap"}), "metadata": meta}
	case x < 0.89:
		o = obj{"apiVersion": pick(r, []string{"a/b/c", "/v1", "v1/", ""}), "kind": "Secret", "metadata": meta}
	case x < 0.91:
		// no kind: the message quotes the bytes as sent, numbers and escapes as Go wrote them
		o = obj{"apiVersion": "v1", "metadata": meta, "data": obj{"k": "v"}}
		if chance(r, 0.5) {
			o["kind"] = ""
		}
		if chance(r, 0.5) {
			o["data"] = obj{"html": "<a href=\"x\">&amp;</a>", "uni": "ünï\u2028\t", "n": []interface{}{1e21, 0.000001, 1.5, -0.0, 12345678901234567890.0, float64(1 << 53)}[r.Intn(6)]}
		}
	case x < 0.92:
		o = obj{"kind": "ConfigMap", "metadata": meta}
	case x < 0.94:
		// a list: of a supported kind or not, its items of any JSON type
		o = obj{"apiVersion": "v1", "kind": pick(r, []string{"SecretList", "List", "ConfigMapList", "Secret", "ConfigMap"}),
			"items": pick2(r, list{obj{"apiVersion": "v1", "kind": "Secret", "metadata": obj{"name": name}}}, list{})}
		if chance(r, 0.3) {
			o["items"] = []interface{}{"x", list{"x"}, nil, list{nil, obj{}}, obj{"a": "b"}}[r.Intn(5)]
		}
		if chance(r, 0.1) {
			o["metadata"] = meta
		}
	case x < 0.96:
		return pick2(r, "a secret", pick2(r, float64(3), list{obj{"kind": "Secret"}}))
	case x < 0.98:
		return nil
	default:
		return obj{}
	}
	if chance(r, 0.04) {
		o["metadata"] = pick2(r, "m", list{})
	}
	if chance(r, 0.04) {
		o["kind"] = pick2(r, float64(1), list{"Secret"})
	}
	if chance(r, 0.03) {
		o["apiVersion"] = float64(1)
	}
	return o
}

func rdNamespaceList(r *rand.Rand, names []string) interface{} {
	if chance(r, 0.1) {
		return obj{}
	}
	if chance(r, 0.05) {
		return obj{"list": list{}}
	}
	var l list
	for _, n := range names {
		e := obj{"name": n}
		if chance(r, 0.03) {
			e = obj{}
		}
		l = append(l, e)
		if chance(r, 0.05) {
			l = append(l, obj{"name": n}) // a repeat: the same error twice, which the aggregate keeps once
		}
	}
	return obj{"list": l}
}

func rdNamespaceName(r *rand.Rand) string {
	if chance(r, 0.1) {
		return pick(r, []string{"Bad_NS", "a.b", "", strings.Repeat("n", 63), strings.Repeat("n", 64), "-lead", "UPPER", "ünï", "a\"b", "tab\there", "a b"})
	}
	return pick(r, rdNamespaces)
}

// rdSelector is a namespace selector, sometimes one LabelSelectorAsSelector refuses.
func rdSelector(r *rand.Rand) obj {
	s := selector(r)
	if chance(r, 0.15) {
		// empty where Go's value is not nil: %#v prints them otherwise
		switch r.Intn(3) {
		case 0:
			s["matchLabels"] = obj{}
		case 1:
			s["matchExpressions"] = list{}
		default:
			s["matchExpressions"] = list{obj{"key": "env", "operator": "DoesNotExist", "values": list{}}}
		}
	}
	if chance(r, 0.15) {
		switch r.Intn(5) {
		case 0:
			s["matchExpressions"] = list{obj{"key": "env", "operator": "Equals", "values": list{"x"}}}
		case 1:
			s["matchExpressions"] = list{obj{"key": "env", "operator": "In"}}
		case 2:
			s["matchExpressions"] = list{obj{"key": "env", "operator": "Exists", "values": list{"x"}}}
		case 3:
			s["matchLabels"] = obj{"bad key!": "x"}
		default:
			s["matchLabels"] = obj{"app": "bad value!"}
		}
	}
	return s
}

func rdTargets(r *rand.Rand, alpha bool) obj {
	t := obj{}
	if chance(r, 0.3) {
		t["allNamespaces"] = chance(r, 0.7)
	}
	var inc []string
	if chance(r, 0.7) {
		for i := 1 + r.Intn(3); i > 0; i-- {
			inc = append(inc, rdNamespaceName(r))
		}
		t["includedNamespaces"] = rdNamespaceList(r, inc)
	}
	if chance(r, 0.4) {
		var exc []string
		for i := 1 + r.Intn(2); i > 0; i-- {
			if len(inc) > 0 && chance(r, 0.3) {
				exc = append(exc, inc[r.Intn(len(inc))])
			} else {
				exc = append(exc, rdNamespaceName(r))
			}
		}
		t["excludedNamespaces"] = rdNamespaceList(r, exc)
	}
	if chance(r, 0.4) {
		key := "namespaceSelector"
		if alpha {
			key = "namespaceLabelSelector"
		}
		if chance(r, 0.05) {
			// the other version's name: an unknown field, dropped
			key = map[bool]string{true: "namespaceSelector", false: "namespaceLabelSelector"}[alpha]
		}
		t[key] = rdSelector(r)
	}
	return t
}

// rdMeta: the metadata the job kinds draw (gen_jobs.go), of a cluster-scoped object: a
// namespace now and then only, names as long as a DNS subdomain may be and longer.
func rdMeta(r *rand.Rand) obj {
	m := jobMeta(r, "ResourceDistribution")
	if chance(r, 0.95) {
		delete(m, "namespace")
	}
	if chance(r, 0.03) {
		m["name"] = strings.Repeat("n", 253+r.Intn(2))
	}
	if chance(r, 0.04) {
		m["annotations"] = obj{"Bad Key": "x"}
	}
	return m
}

func rdObject(r *rand.Rand, alpha bool, resName string) obj {
	version := "v1beta1"
	if alpha {
		version = "v1alpha1"
	}
	spec := obj{"targets": rdTargets(r, alpha)}
	if chance(r, 0.97) {
		spec["resource"] = rdResource(r, resName)
	}
	if chance(r, 0.03) {
		delete(spec, "targets")
	}
	o := obj{"apiVersion": "apps.kruise.io/" + version, "kind": "ResourceDistribution", "metadata": rdMeta(r), "spec": spec}
	if chance(r, 0.1) {
		o["status"] = obj{"desired": float64(2), "succeeded": float64(1), "observedGeneration": float64(1)}
	}
	corruptJob(r, o)
	return o
}

// rdAged: the old object of an update: the same resource, or one of another kind, name or
// version, or one that does not decode.
func rdAged(r *rand.Rand, o obj, resName string) obj {
	old := copyObj(o)
	spec := asMap(old["spec"])
	if spec == nil {
		return old
	}
	res := asMap(spec["resource"])
	switch x := r.Float64(); {
	case x < 0.4:
	case x < 0.5:
		if res != nil {
			if m := asMap(res["metadata"]); m != nil {
				m["name"] = "old-" + resName
			}
		}
	case x < 0.6:
		if res != nil {
			res["kind"] = map[bool]string{true: "ConfigMap", false: "Secret"}[res["kind"] == "Secret"]
		}
	case x < 0.65:
		if res != nil {
			res["apiVersion"] = pick(r, []string{"v2", "apps/v1"})
		}
	case x < 0.7:
		if res != nil {
			delete(res, "kind")
		}
	case x < 0.73:
		spec["resource"] = pick2(r, nil, "x")
	case x < 0.76:
		spec["resource"] = obj{"apiVersion": "v1", "kind": "SecretList", "items": list{}}
	default:
		if res != nil {
			res["data"] = obj{"k": "b2xk"}
		}
		spec["targets"] = rdTargets(r, strings.HasSuffix(asString(old["apiVersion"]), "v1alpha1"))
	}
	return old
}

func asString(v interface{}) string {
	s, _ := v.(string)
	return s
}

func genRDValidate(r *rand.Rand, i int) testCase {
	name := pick(r, []string{"rd-1", "share-secret", "x"})
	resName := pick(r, []string{"my-secret", "app-config", "x.y"})
	world := rdWorld(r, name, resName)
	alpha := chance(r, 0.4)
	version := map[bool]string{true: "v1alpha1", false: "v1beta1"}[alpha]
	if chance(r, 0.03) {
		version = pick(r, []string{"v1", "v2"})
	}
	objAlpha := alpha
	if chance(r, 0.05) {
		objAlpha = !alpha
	}
	o := rdObject(r, objAlpha, resName)
	op := "CREATE"
	var old interface{}
	switch x := r.Float64(); {
	case x < 0.35:
		op = "UPDATE"
		oo := rdAged(r, o, resName)
		if chance(r, 0.03) {
			oo["spec"] = "broken"
		}
		if !chance(r, 0.03) {
			old = oo
		}
	case x < 0.37:
		op = "DELETE"
	}
	n, _ := get(o, "metadata", "name").(string)
	var object interface{} = o
	if chance(r, 0.02) {
		object = nil
	}
	req := admissionRequest(r, "apps.kruise.io", version, "ResourceDistribution", "resourcedistributions", "", op, "", n, object, old)
	gates := map[string]bool{"ResourceDistributionGate": true}
	switch x := r.Float64(); {
	case x < 0.04:
		gates = nil
	case x < 0.07:
		gates = map[string]bool{"ResourceDistributionGate": false}
	}
	return testCase{Gates: gates, World: world, Requests: []map[string]interface{}{req}}
}
