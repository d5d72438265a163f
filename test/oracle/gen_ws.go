package main

import (
	"fmt"
	"math/rand"
)

// WorkloadSpread: Pods of workloads (Deployments through ReplicaSets, CloneSets, StatefulSets,
// Jobs, a white-listed custom kind) created in sequences against WorkloadSpreads with subsets,
// so that each creation sees the bookkeeping of the earlier ones (/mutate-pod); their deletions
// and evictions (/validate-pod); and the object's validation
// (/validate-apps-kruise-io-workloadspread).

func init() {
	register(generator{name: "pod-workloadspread", area: "workloadspread", path: "/mutate-pod", writes: true, gen: genPodWorkloadSpread})
	register(generator{name: "pod-validate-ws", area: "workloadspread", path: "/validate-pod", writes: true, gen: genPodValidateWS})
	register(generator{name: "ws-validate", area: "workloadspread", path: "/validate-apps-kruise-io-workloadspread", gen: genWSValidate})
}

const wsWhitelist = `{"workloads":[{"Group":"mock.kruise.io","Version":"v1","Kind":"GameServerSet","replicasPath":"spec.replicas","subResources":[{"Group":"mock.kruise.io","Version":"v1","Kind":"GameServer"}]}]}`

// workload is a pod owner chain put in the world.
type workload struct {
	av, kind, name string // the target the WorkloadSpread names
	owner          obj    // the Pod's owner reference
	podLabels      obj
}

func wsWorkload(r *rand.Rand, ns string, world *[]map[string]interface{}) workload {
	sel := obj{"matchLabels": obj{"app": "web"}}
	tmpl := obj{"metadata": obj{"labels": obj{"app": "web"}}, "spec": obj{"containers": list{obj{"name": "main", "image": "nginx"}}}}
	replicas := float64(r.Intn(12))
	ref := func(av, kind, name, u string) obj {
		return obj{"apiVersion": av, "kind": kind, "name": name, "uid": u, "controller": true, "blockOwnerDeletion": true}
	}
	add := func(o obj) {
		if chance(r, 0.95) { // now and then the owner is gone
			*world = append(*world, o)
		}
	}
	switch r.Intn(6) {
	case 0:
		du, ru := uid(r), uid(r)
		hash := pick(r, []string{"6d4cf56db6", "5b8c7d6f9"})
		add(obj{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": obj{"name": "dep", "namespace": ns, "uid": du},
			"spec": obj{"replicas": replicas, "selector": sel, "template": tmpl}})
		add(obj{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": obj{"name": "dep-" + hash, "namespace": ns, "uid": ru,
			"labels": obj{"pod-template-hash": hash}, "ownerReferences": list{ref("apps/v1", "Deployment", "dep", du)}},
			"spec": obj{"replicas": replicas, "selector": sel, "template": tmpl}})
		return workload{"apps/v1", "Deployment", "dep", ref("apps/v1", "ReplicaSet", "dep-"+hash, ru), obj{"app": "web", "pod-template-hash": hash}}
	case 1:
		u := uid(r)
		add(obj{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "metadata": obj{"name": "cs", "namespace": ns, "uid": u},
			"spec": obj{"replicas": replicas, "selector": sel, "template": tmpl}})
		return workload{"apps.kruise.io/v1alpha1", "CloneSet", "cs", ref("apps.kruise.io/v1alpha1", "CloneSet", "cs", u), obj{"app": "web"}}
	case 2:
		u := uid(r)
		av := pick(r, []string{"apps/v1", "apps.kruise.io/v1beta1"})
		add(obj{"apiVersion": av, "kind": "StatefulSet", "metadata": obj{"name": "sts", "namespace": ns, "uid": u},
			"spec": obj{"replicas": replicas, "selector": sel, "template": tmpl, "serviceName": "sts"}})
		return workload{av, "StatefulSet", "sts", ref(av, "StatefulSet", "sts", u), obj{"app": "web"}}
	case 3:
		u := uid(r)
		add(obj{"apiVersion": "batch/v1", "kind": "Job", "metadata": obj{"name": "job", "namespace": ns, "uid": u},
			"spec": obj{"parallelism": replicas, "template": tmpl}})
		return workload{"batch/v1", "Job", "job", ref("batch/v1", "Job", "job", u), obj{"app": "web"}}
	case 4:
		u := uid(r)
		*world = append(*world,
			obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": "kruise-configuration", "namespace": kruiseNS},
				"data": obj{"WorkloadSpread_Watch_Custom_Workload_WhiteList": wsWhitelist}},
			obj{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": obj{"name": "gameserversets.mock.kruise.io"},
				"spec": obj{"group": "mock.kruise.io", "scope": "Namespaced", "names": obj{"kind": "GameServerSet", "plural": "gameserversets", "singular": "gameserverset", "listKind": "GameServerSetList"},
					"versions": list{obj{"name": "v1", "served": true, "storage": true, "schema": obj{"openAPIV3Schema": obj{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}})
		add(obj{"apiVersion": "mock.kruise.io/v1", "kind": "GameServerSet", "metadata": obj{"name": "gss", "namespace": ns, "uid": u},
			"spec": obj{"replicas": replicas}})
		return workload{"mock.kruise.io/v1", "GameServerSet", "gss", ref("mock.kruise.io/v1", "GameServerSet", "gss", u), obj{"app": "web"}}
	}
	u := uid(r)
	add(obj{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "metadata": obj{"name": "cs-other", "namespace": ns, "uid": u},
		"spec": obj{"replicas": replicas, "selector": sel, "template": tmpl}})
	return workload{"apps.kruise.io/v1alpha1", "CloneSet", "cs", ref("apps.kruise.io/v1alpha1", "CloneSet", "cs-other", u), obj{"app": "web"}}
}

func nodeTerm(r *rand.Rand) obj {
	return obj{"matchExpressions": list{obj{"key": "topology.kubernetes.io/zone", "operator": pick(r, []string{"In", "NotIn"}),
		"values": list{pick(r, []string{"zone-a", "zone-b"})}}}}
}

func wsSubsets(r *rand.Rand, percent bool) list {
	var subsets list
	n := 1 + r.Intn(3)
	left := 100
	for i := 0; i < n; i++ {
		s := obj{"name": fmt.Sprintf("subset-%c", 'a'+i)}
		if chance(r, 0.7) {
			s["requiredNodeSelector"] = nodeTerm(r)
		}
		if chance(r, 0.3) {
			s["preferredNodeSelector"] = list{obj{"weight": float64(1 + r.Intn(100)), "preference": nodeTerm(r)}}
		}
		if chance(r, 0.3) {
			s["tolerations"] = list{obj{"key": "dedicated", "operator": "Equal", "value": s["name"], "effect": "NoSchedule"}}
		}
		if chance(r, 0.25) {
			s["patch"] = obj{"metadata": obj{"labels": obj{"subset": s["name"]}, "annotations": obj{"spread": "yes"}}}
		} else if chance(r, 0.2) {
			s["patch"] = wsSpecPatch(r)
		}
		last := i == n-1
		switch {
		case last && chance(r, 0.6):
		case percent:
			p := r.Intn(left + 1)
			if last {
				p = left
			}
			left -= p
			s["maxReplicas"] = fmt.Sprintf("%d%%", p)
		default:
			s["maxReplicas"] = float64(r.Intn(4))
		}
		subsets = append(subsets, s)
	}
	return subsets
}

// wsSpecPatch makes a subset patch that reaches into the Pod's spec (a strategic merge patch:
// containers merged by name, a directive, a field set to null).
func wsSpecPatch(r *rand.Rand) obj {
	switch r.Intn(9) {
	case 0:
		return obj{"spec": obj{"containers": list{obj{"name": "main", "resources": obj{"limits": obj{"cpu": oddQuantity(r)}, "requests": obj{"memory": "64Mi"}}}}}}
	case 1:
		return obj{"spec": obj{"containers": list{obj{"name": "main", "env": list{obj{"name": "ZONE", "value": "a"}}}}}}
	case 2:
		return obj{"metadata": obj{"annotations": obj{"existing": nil, "spread": "yes"}, "labels": obj{"app": nil}}}
	case 3:
		return obj{"spec": obj{"tolerations": list{obj{"key": "spot", "operator": "Exists"}}, "nodeSelector": obj{"zone": "b"}}}
	case 4:
		return obj{"spec": obj{"containers": list{obj{"name": "sidecar", "image": "busybox"}}}}
	case 5:
		return obj{"spec": obj{"volumes": list{obj{"name": "data", "emptyDir": obj{"medium": "Memory"}}}}}
	case 6:
		return obj{"spec": obj{"containers": list{obj{"name": "main", "$patch": "delete"}}}}
	case 7:
		return obj{"spec": obj{"affinity": obj{"podAntiAffinity": obj{"requiredDuringSchedulingIgnoredDuringExecution": list{
			obj{"topologyKey": "kubernetes.io/hostname", "labelSelector": obj{"matchLabels": obj{"app": "web"}}}}}}}}
	}
	return obj{"spec": obj{"priorityClassName": "low", "containers": list{obj{"name": "main", "image": "nginx:1.27"}}}}
}

func wsObject(r *rand.Rand, name, ns string, w workload) obj {
	spec := obj{"targetRef": obj{"apiVersion": w.av, "kind": w.kind, "name": w.name}, "subsets": wsSubsets(r, chance(r, 0.3))}
	if chance(r, 0.15) {
		spec["targetFilter"] = obj{"selector": pick2(r, obj{"matchLabels": obj{"app": "web"}}, obj{"matchLabels": obj{"app": "other"}})}
	}
	if chance(r, 0.2) {
		spec["scheduleStrategy"] = obj{"type": pick(r, []string{"Fixed", "Adaptive"})}
	}
	ws := obj{"apiVersion": "apps.kruise.io/v1beta1", "kind": "WorkloadSpread",
		"metadata": obj{"name": name, "namespace": ns, "uid": uid(r)}, "spec": spec}
	if chance(r, 0.3) {
		// bookkeeping from earlier creations and deletions
		var st list
		for _, s := range spec["subsets"].(list) {
			e := obj{"name": s.(obj)["name"], "replicas": float64(r.Intn(3)), "missingReplicas": float64(r.Intn(3) - 1)}
			if chance(r, 0.3) {
				e["creatingPods"] = obj{"pod-7": "2026-01-01T00:00:00Z"}
			}
			if chance(r, 0.2) {
				e["conditions"] = list{obj{"type": "Schedulable", "status": "False", "reason": "x", "lastTransitionTime": "2026-01-01T00:00:00Z"}}
			}
			st = append(st, e)
		}
		ws["status"] = obj{"versionedSubsetStatuses": obj{pick(r, []string{"versionIgnored", "6d4cf56db6"}): st}, "subsetStatuses": st}
	}
	return ws
}

func wsPod(r *rand.Rand, ns string, w workload, n int) obj {
	md := obj{"namespace": ns, "labels": mergeObj(obj{}, w.podLabels), "ownerReferences": list{w.owner}}
	if chance(r, 0.5) {
		md["generateName"] = "web-"
	} else {
		md["name"] = fmt.Sprintf("web-%d", n)
	}
	spec := obj{"containers": list{obj{"name": "main", "image": "nginx"}}}
	if chance(r, 0.3) {
		spec = podSpec(r) // the long tail of Pod shapes (affinity of its own, odd volumes...)
		if chance(r, 0.5) {
			spec["containers"].(list)[0].(obj)["name"] = "main"
		}
		if chance(r, 0.3) {
			md["annotations"] = obj{"existing": "x"}
		}
	}
	if chance(r, 0.5) {
		spec["tolerations"] = append(asList(spec["tolerations"]), obj{"key": "x", "operator": "Exists"})
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}
}

func wsGates(r *rand.Rand) map[string]bool {
	if chance(r, 0.05) {
		return map[string]bool{"WorkloadSpread": false}
	}
	return nil
}

func genPodWorkloadSpread(r *rand.Rand, i int) testCase {
	ns := pick(r, namespaces[:3])
	world := []map[string]interface{}{namespaceObj(ns, obj{"kubernetes.io/metadata.name": ns})}
	w := wsWorkload(r, ns, &world)
	world = append(world, wsObject(r, "ws", ns, w))
	if chance(r, 0.2) {
		world = append(world, wsObject(r, "ws-2", ns, w))
	}
	var reqs []map[string]interface{}
	for n := 0; n < 1+r.Intn(4); n++ {
		pod := wsPod(r, ns, w, n)
		req := admissionRequest(r, "", "v1", "Pod", "pods", "", "CREATE", ns, "", pod, nil)
		if chance(r, 0.05) {
			req["options"] = obj{"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions", "dryRun": list{"All"}}
		}
		reqs = append(reqs, req)
	}
	return testCase{Gates: wsGates(r), World: world, Requests: reqs}
}

func genPodValidateWS(r *rand.Rand, i int) testCase {
	ns := pick(r, namespaces[:3])
	world := []map[string]interface{}{namespaceObj(ns, obj{"kubernetes.io/metadata.name": ns})}
	w := wsWorkload(r, ns, &world)
	ws := wsObject(r, "ws", ns, w)
	world = append(world, ws)
	var reqs []map[string]interface{}
	for n := 0; n < 1+r.Intn(3); n++ {
		pod := wsPod(r, ns, w, n)
		md := pod["metadata"].(obj)
		md["name"] = fmt.Sprintf("web-%d", n)
		delete(md, "generateName")
		subset := pick(r, []string{"subset-a", "subset-b", "subset-z"})
		md["annotations"] = obj{"apps.kruise.io/matched-workloadspread": pick(r, []string{
			`{"name":"ws","subset":"` + subset + `"}`, `{"Name":"ws","Subset":"` + subset + `"}`, `not json`, `{"name":"other","subset":"subset-a"}`})}
		pod["status"] = obj{"phase": pick(r, []string{"Running", "Running", "Succeeded"})}
		if chance(r, 0.9) {
			world = append(world, pod)
		}
		var req obj
		if chance(r, 0.5) {
			ev := obj{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": obj{"name": md["name"], "namespace": ns}}
			req = admissionRequest(r, "policy", "v1", "Eviction", "pods", "eviction", "CREATE", ns, md["name"].(string), ev, nil)
			req["resource"] = obj{"group": "", "version": "v1", "resource": "pods"}
		} else {
			req = admissionRequest(r, "", "v1", "Pod", "pods", "", "DELETE", ns, md["name"].(string), nil, pod)
		}
		reqs = append(reqs, req)
	}
	return testCase{Gates: wsGates(r), World: world, Requests: reqs}
}

func breakWS(r *rand.Rand, ws obj) {
	spec := ws["spec"].(obj)
	subsets := asList(spec["subsets"])
	first := func() obj {
		if len(subsets) == 0 {
			return obj{}
		}
		return subsets[0].(obj)
	}
	switch r.Intn(18) {
	case 0:
		delete(spec, "targetRef")
	case 1:
		spec["targetRef"] = obj{"apiVersion": pick(r, []string{"apps/v1", "", "a/b/c"}), "kind": pick(r, []string{"CloneSet", "Deployment", "Job", "Unknown"}), "name": pick(r, []string{"x", ""})}
	case 2:
		delete(spec, "subsets")
	case 3:
		first()["name"] = ""
	case 4:
		if len(subsets) > 1 {
			subsets[1].(obj)["name"] = first()["name"]
		}
	case 5:
		first()["maxReplicas"] = pick2(r, float64(-1), pick(r, []string{"0.2%", "5", "-1%", "150%"}))
	case 6:
		first()["maxReplicas"] = "50%"
		if len(subsets) > 1 {
			subsets[1].(obj)["maxReplicas"] = float64(2)
		}
	case 7:
		first()["requiredNodeSelector"] = obj{"matchExpressions": list{obj{"key": "zone", "operator": pick(r, []string{"Exists", "Gt", "In", "Bogus"}), "values": list{"a"}}}}
	case 8:
		first()["preferredNodeSelector"] = list{obj{"weight": float64(pick2(r, 0.0, 101.0).(float64)), "preference": nodeTerm(r)}}
	case 9:
		first()["tolerations"] = list{obj{"key": "k", "operator": "Exists", "value": "v"}}
	case 10:
		spec["scheduleStrategy"] = obj{"type": pick(r, []string{"Sometimes", "Fixed"}), "adaptive": obj{"rescheduleCriticalSeconds": float64(pick2(r, -1.0, 500.0).(float64))}}
	case 11:
		spec["targetFilter"] = obj{"selector": obj{"matchExpressions": list{obj{"key": "a", "operator": "In"}}}}
	case 12:
		first()["patch"] = obj{"spec": obj{"containers": list{obj{"name": "main", "image": ""}}}}
	case 13:
		first()["patch"] = obj{"metadata": obj{"labels": obj{"bad key!": "v"}}}
	}
}

func genWSValidate(r *rand.Rand, i int) testCase {
	ns := pick(r, namespaces[:3])
	world := []map[string]interface{}{namespaceObj(ns, obj{"kubernetes.io/metadata.name": ns})}
	w := wsWorkload(r, ns, &world)
	if chance(r, 0.3) {
		world = append(world, wsObject(r, "other", ns, w))
	}
	ws := wsObject(r, pick(r, []string{"ws", "other"}), ns, w)
	delete(ws, "status")
	if chance(r, 0.6) {
		breakWS(r, ws)
	}
	version := "v1beta1"
	if chance(r, 0.3) {
		version = "v1alpha1"
		ws["apiVersion"] = "apps.kruise.io/v1alpha1"
		for _, s := range asList(ws["spec"].(obj)["subsets"]) {
			so := s.(obj)
			if v, ok := so["requiredNodeSelector"]; ok {
				so["requiredNodeSelectorTerm"] = v
				delete(so, "requiredNodeSelector")
			}
			if v, ok := so["preferredNodeSelector"]; ok {
				so["preferredNodeSelectorTerms"] = v
				delete(so, "preferredNodeSelector")
			}
		}
	}
	op := "CREATE"
	var old interface{}
	if chance(r, 0.25) {
		op = "UPDATE"
		o := deepCopyObj(ws)
		if chance(r, 0.5) {
			o["spec"].(obj)["targetRef"] = obj{"apiVersion": "apps/v1", "kind": "Deployment", "name": "elsewhere"}
		}
		if chance(r, 0.7) {
			ws["metadata"].(obj)["resourceVersion"] = "5"
			o["metadata"].(obj)["resourceVersion"] = "4"
		}
		old = o
	}
	rv := version
	if chance(r, 0.03) {
		rv = "v2"
	}
	req := admissionRequest(r, "apps.kruise.io", rv, "WorkloadSpread", "workloadspreads", "", op, ns, ws["metadata"].(obj)["name"].(string), ws, old)
	return testCase{Gates: wsGates(r), World: world, Requests: []map[string]interface{}{req}}
}
