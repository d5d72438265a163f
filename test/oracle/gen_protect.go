package main

import (
	"fmt"
	"math/rand"
)

// Deletion protection: the protected kinds with the label's values, deletion timestamps,
// replicas, sub-resources and old objects missing; Namespaces with Pods and PVCs in them and in
// other namespaces; CRDs with their custom resources; all under the four settings of the two
// gates.

const protectLabel = "policy.kruise.io/delete-protection"

func init() {
	register(generator{name: "protect-namespace", area: "deletion-protection", path: "/validate-namespace", gen: genProtectNamespace})
	register(generator{name: "protect-crd", area: "deletion-protection", path: "/validate-customresourcedefinition", gen: genProtectCRD})
	register(generator{name: "protect-builtin", area: "deletion-protection", path: "/validate-apps-deployment", gen: genProtectBuiltin})
	register(generator{name: "protect-kruise-workload", area: "deletion-protection", path: "/validate-apps-kruise-io-cloneset", gen: genProtectKruise})
	register(generator{name: "protect-service-ingress", area: "deletion-protection", path: "/validate-service", gen: genProtectServiceIngress})
}

func protectGates(r *rand.Rand) map[string]bool {
	switch r.Intn(6) {
	case 0:
		return map[string]bool{"ResourcesDeletionProtection": false}
	case 1:
		return map[string]bool{"ResourcesDeletionProtection": true, "DeletionProtectionForCRDCascadingGate": false}
	default:
		return map[string]bool{"ResourcesDeletionProtection": true, "DeletionProtectionForCRDCascadingGate": true}
	}
}

func protectValue(r *rand.Rand) (string, bool) {
	switch x := r.Intn(10); {
	case x < 4:
		return "Always", true
	case x < 8:
		return "Cascading", true
	case x < 9:
		return []string{"always", "", "true", "Cascading ", "ALWAYS"}[r.Intn(5)], true
	}
	return "", false
}

// protectedMeta gives an old object its label (maybe) and, sometimes, a deletion timestamp.
func protectedMeta(r *rand.Rand, name, ns string) obj {
	m := objMeta(name, ns, labels(r, 1))
	if v, ok := protectValue(r); ok {
		if m["labels"] == nil {
			m["labels"] = obj{}
		}
		m["labels"].(obj)[protectLabel] = v
	}
	if chance(r, 0.1) {
		m["deletionTimestamp"] = "2026-01-02T00:00:00Z"
		m["finalizers"] = list{"example.com/hold"}
	}
	m["uid"] = uid(r)
	return m
}

// deleteRequest makes the request for deleting old (nil: an old object the API server did not
// send), sometimes with another operation or a sub-resource.
func deleteRequest(r *rand.Rand, group, version, kind, resource, ns, name string, old obj) map[string]interface{} {
	op, sub := "DELETE", ""
	switch x := r.Intn(20); {
	case x == 0:
		op = "CREATE"
	case x == 1:
		op = "UPDATE"
	case x == 2:
		sub = "status"
	}
	var oldObject interface{} = old
	if chance(r, 0.04) {
		oldObject = nil
	}
	var object interface{}
	if op != "DELETE" {
		object = old
	}
	return admissionRequest(r, group, version, kind, resource, sub, op, ns, name, object, oldObject)
}

func podPhase(r *rand.Rand) obj {
	st := obj{}
	if chance(r, 0.85) {
		st["phase"] = []string{"Running", "Pending", "Succeeded", "Failed", "Unknown"}[r.Intn(5)]
	}
	return st
}

func genProtectNamespace(r *rand.Rand, i int) testCase {
	name := pick(r, namespaces)
	old := obj{"apiVersion": "v1", "kind": "Namespace", "metadata": protectedMeta(r, name, "")}
	world := []map[string]interface{}{old}
	for n := r.Intn(4); n > 0; n-- {
		ns := name
		if chance(r, 0.3) {
			ns = pick(r, namespaces)
		}
		p := obj{"apiVersion": "v1", "kind": "Pod", "metadata": objMeta(fmt.Sprintf("pod-%d", n), ns, nil),
			"spec": obj{"containers": list{obj{"name": "main", "image": "nginx"}}}, "status": podPhase(r)}
		if chance(r, 0.2) {
			md := p["metadata"].(obj)
			md["deletionTimestamp"] = "2026-01-02T00:00:00Z"
			md["finalizers"] = list{"example.com/hold"}
		}
		world = append(world, p)
	}
	for n := r.Intn(3); n > 0; n-- {
		ns := name
		if chance(r, 0.3) {
			ns = pick(r, namespaces)
		}
		pvc := obj{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": objMeta(fmt.Sprintf("pvc-%d", n), ns, nil),
			"spec": obj{"accessModes": list{"ReadWriteOnce"}, "resources": obj{"requests": obj{"storage": "1Gi"}}}}
		if chance(r, 0.8) {
			pvc["status"] = obj{"phase": []string{"Bound", "Pending", "Lost"}[r.Intn(3)]}
		}
		world = append(world, pvc)
	}
	return testCase{Gates: protectGates(r), World: world, Requests: []map[string]interface{}{
		deleteRequest(r, "", "v1", "Namespace", "namespaces", name, name, old)}}
}

func crdObject(r *rand.Rand, group, kind, plural string, cluster bool) obj {
	versions := list{}
	storage := r.Intn(2)
	if chance(r, 0.05) {
		storage = -1 // no storage version: nothing can be listed
	}
	for j, v := range []string{"v1alpha1", "v1"} {
		versions = append(versions, obj{"name": v, "served": true, "storage": j == storage,
			"schema": obj{"openAPIV3Schema": obj{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
	}
	scope := "Namespaced"
	if cluster {
		scope = "Cluster"
	}
	listKind := kind + "List"
	if chance(r, 0.05) {
		listKind = kind + "Items"
	}
	return obj{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": protectedMeta(r, plural+"."+group, ""),
		"spec": obj{"group": group, "scope": scope, "versions": versions,
			"names": obj{"kind": kind, "plural": plural, "singular": "widget", "listKind": listKind}}}
}

func genProtectCRD(r *rand.Rand, i int) testCase {
	cluster := chance(r, 0.3)
	crd := crdObject(r, "example.com", "Widget", "widgets", cluster)
	world := []map[string]interface{}{crd}
	storage := "v1alpha1"
	for _, v := range crd["spec"].(obj)["versions"].(list) {
		if v.(obj)["storage"] == true {
			storage = v.(obj)["name"].(string)
		}
	}
	for n := r.Intn(4); n > 0; n-- {
		ns := pick(r, namespaces)
		if cluster {
			ns = ""
		}
		cr := obj{"apiVersion": "example.com/" + storage, "kind": "Widget", "metadata": objMeta(fmt.Sprintf("w-%d", n), ns, nil)}
		if chance(r, 0.25) {
			md := cr["metadata"].(obj)
			md["deletionTimestamp"] = "2026-01-02T00:00:00Z"
			md["finalizers"] = list{"example.com/hold"}
		}
		world = append(world, cr)
	}
	version := "v1"
	if chance(r, 0.1) {
		version = []string{"v1beta1", "v2"}[r.Intn(2)]
	}
	req := deleteRequest(r, "apiextensions.k8s.io", version, "CustomResourceDefinition", "customresourcedefinitions", "", crd["metadata"].(obj)["name"].(string), crd)
	return testCase{Gates: protectGates(r), World: world, Requests: []map[string]interface{}{req}}
}

func replicasSpec(r *rand.Rand, spec obj) obj {
	switch r.Intn(4) {
	case 0:
	case 1:
		spec["replicas"] = float64(0)
	default:
		spec["replicas"] = float64(1 + r.Intn(5))
	}
	return spec
}

func workloadSpec(r *rand.Rand) obj {
	app := pick(r, labelValues[:4])
	return replicasSpec(r, obj{"selector": obj{"matchLabels": obj{"app": app}},
		"template": obj{"metadata": obj{"labels": obj{"app": app}}, "spec": podSpec(r)}})
}

func genProtectBuiltin(r *rand.Rand, i int) testCase {
	kinds := []struct{ kind, resource, path string }{
		{"Deployment", "deployments", "/validate-apps-deployment"},
		{"ReplicaSet", "replicasets", "/validate-apps-replicaset"},
		{"StatefulSet", "statefulsets", "/validate-apps-statefulset"},
	}
	k := kinds[r.Intn(3)]
	path := k.path
	if chance(r, 0.15) { // the handler is shared: it judges the kind, whatever the path
		path = kinds[r.Intn(3)].path
	}
	ns := pick(r, namespaces)
	old := obj{"apiVersion": "apps/v1", "kind": k.kind, "metadata": protectedMeta(r, "wl", ns), "spec": workloadSpec(r)}
	kind := k.kind
	if chance(r, 0.05) {
		kind = "DaemonSet"
	}
	req := deleteRequest(r, "apps", "v1", kind, k.resource, ns, "wl", old)
	return testCase{Path: path, Gates: protectGates(r), Requests: []map[string]interface{}{req}}
}

func genProtectKruise(r *rand.Rand, i int) testCase {
	kinds := []struct{ kind, resource, path string }{
		{"CloneSet", "clonesets", "/validate-apps-kruise-io-cloneset"},
		{"StatefulSet", "statefulsets", "/validate-apps-kruise-io-statefulset"},
		{"UnitedDeployment", "uniteddeployments", "/validate-apps-kruise-io-uniteddeployment"},
	}
	k := kinds[r.Intn(3)]
	version := []string{"v1alpha1", "v1beta1"}[r.Intn(2)]
	if chance(r, 0.05) {
		version = "v2"
	}
	ns := pick(r, namespaces)
	spec := workloadSpec(r)
	if k.kind == "UnitedDeployment" {
		spec = replicasSpec(r, obj{"selector": spec["selector"], "template": obj{}})
	}
	old := obj{"apiVersion": "apps.kruise.io/" + version, "kind": k.kind, "metadata": protectedMeta(r, "wl", ns), "spec": spec}
	// CREATE and UPDATE of these kinds are validated by upstream (issue 25): only DELETE here.
	req := admissionRequest(r, "apps.kruise.io", version, k.kind, k.resource, "", "DELETE", ns, "wl", nil, old)
	if chance(r, 0.04) {
		req["oldObject"] = nil
	}
	return testCase{Path: k.path, Gates: protectGates(r), Requests: []map[string]interface{}{req}}
}

func genProtectServiceIngress(r *rand.Rand, i int) testCase {
	ns := pick(r, namespaces)
	if chance(r, 0.5) {
		old := obj{"apiVersion": "v1", "kind": "Service", "metadata": protectedMeta(r, "svc", ns),
			"spec": obj{"ports": list{obj{"port": float64(80)}}, "selector": obj{"app": "web"}}}
		return testCase{Path: "/validate-service", Gates: protectGates(r), Requests: []map[string]interface{}{
			deleteRequest(r, "", "v1", "Service", "services", ns, "svc", old)}}
	}
	version := "v1"
	if chance(r, 0.2) {
		version = "v1beta1"
	}
	old := obj{"apiVersion": "networking.k8s.io/" + version, "kind": "Ingress", "metadata": protectedMeta(r, "ing", ns),
		"spec": obj{"rules": list{obj{"host": "example.com"}}}}
	return testCase{Path: "/validate-ingress", Gates: protectGates(r), Requests: []map[string]interface{}{
		deleteRequest(r, "networking.k8s.io", version, "Ingress", "ingresses", ns, "ing", old)}}
}
