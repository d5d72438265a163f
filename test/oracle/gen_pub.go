package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
)

// PodUnavailableBudget: the object's validation with conflicts
// (/validate-policy-kruise-io-podunavailablebudget), and the budget gating Pod deletions,
// evictions and updates (/validate-pod), several requests per case so that each sees what the
// earlier ones wrote.

func init() {
	register(generator{name: "pub-validate", area: "pub", path: "/validate-policy-kruise-io-podunavailablebudget", gen: genPubValidate})
	register(generator{name: "pod-validate-pub", area: "pub", path: "/validate-pod", writes: true, gen: genPodValidatePub})
}

func intOrPercent(r *rand.Rand) interface{} {
	switch r.Intn(8) {
	case 0:
		return float64(-1)
	case 1:
		return pick(r, []string{"150%", "abc", "1.5%", "-5%"})
	case 2, 3:
		return fmt.Sprintf("%d%%", r.Intn(101))
	}
	return float64(r.Intn(5))
}

func pubForValidation(r *rand.Rand, name, ns, version string) obj {
	spec := obj{}
	switch r.Intn(10) {
	case 0:
	case 1:
		spec["selector"] = obj{"matchLabels": obj{"app": "web"}}
		spec["targetRef"] = obj{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
	case 2, 3, 4:
		spec["targetRef"] = obj{"apiVersion": pick(r, []string{"apps/v1", "apps.kruise.io/v1alpha1", "", "a/b/c"}),
			"kind": pick(r, []string{"Deployment", "CloneSet", "", "Anything"}), "name": pick(r, []string{"web", "", "db"})}
	default:
		spec["selector"] = pick2(r, obj{"matchLabels": obj{"app": pick(r, []string{"web", "db"})}}, selector(r))
	}
	switch r.Intn(10) {
	case 0:
	case 1:
		spec["maxUnavailable"] = intOrPercent(r)
		spec["minAvailable"] = intOrPercent(r)
	case 2, 3, 4, 5:
		spec["maxUnavailable"] = intOrPercent(r)
	default:
		spec["minAvailable"] = intOrPercent(r)
	}
	md := obj{"name": name, "namespace": ns}
	ann := obj{}
	if chance(r, 0.2) {
		ann["kruise.io/pub-protect-operations"] = pick(r, []string{"DELETE,EVICT", "DELETE, UPDATE", "RESIZE", "BOGUS", ",DELETE,", ""})
	}
	if chance(r, 0.15) {
		ann["pub.kruise.io/protect-total-replicas"] = pick(r, []string{"10", "0", "abc", "99999999999", "-3", ""})
	}
	if len(ann) > 0 {
		md["annotations"] = ann
	}
	if version == "v1beta1" {
		if chance(r, 0.25) {
			var ops list
			for _, op := range []string{"DELETE", "UPDATE", "EVICT", "RESIZE", "CREATE"} {
				if chance(r, 0.4) {
					ops = append(ops, op)
				}
			}
			spec["protectOperations"] = ops
		}
		if chance(r, 0.15) {
			spec["protectTotalReplicas"] = float64(r.Intn(12) - 1)
		}
		if chance(r, 0.15) {
			spec["ignoredPodSelector"] = pick2(r, obj{"matchLabels": obj{"kruise.io/force-deletable": "true"}}, obj{})
		}
	}
	return obj{"apiVersion": "policy.kruise.io/" + version, "kind": "PodUnavailableBudget", "metadata": md, "spec": spec}
}

func pubGates(r *rand.Rand) map[string]bool {
	switch r.Intn(8) {
	case 0:
		return map[string]bool{"PodUnavailableBudgetDeleteGate": false}
	case 1:
		return map[string]bool{"PodUnavailableBudgetUpdateGate": true}
	case 2:
		return map[string]bool{"PodUnavailableBudgetUpdateGate": true, "InPlacePodVerticalScaling": true}
	}
	return nil
}

func genPubValidate(r *rand.Rand, i int) testCase {
	ns := pick(r, namespaces[:3])
	var world []map[string]interface{}
	for n := r.Intn(3); n > 0; n-- {
		o := pubForValidation(r, fmt.Sprintf("other-%d", n), pick(r, []string{ns, ns, "shop"}), "v1beta1")
		world = append(world, o)
	}
	version := pick(r, []string{"v1alpha1", "v1beta1", "v1beta1"})
	pub := pubForValidation(r, pick(r, []string{"pub", "other-1"}), ns, version)
	if chance(r, 0.05) {
		delete(pub["metadata"].(obj), "namespace") // a PUB naming no namespace: compared across all
	}
	op := "CREATE"
	var old interface{}
	switch r.Intn(10) {
	case 0, 1:
		op = "UPDATE"
		old = pubForValidation(r, pub["metadata"].(obj)["name"].(string), ns, version)
	case 2:
		op = "DELETE"
	}
	rv := version
	if chance(r, 0.03) {
		rv = "v2"
	}
	var object interface{} = pub
	if op == "DELETE" {
		object, old = nil, pub
	}
	req := admissionRequest(r, "policy.kruise.io", rv, "PodUnavailableBudget", "podunavailablebudgets", "", op, ns, pub["metadata"].(obj)["name"].(string), object, old)
	return testCase{Gates: pubGates(r), World: world, Requests: []map[string]interface{}{req}}
}

// --- the budget -------------------------------------------------------------------------------

// readyPod makes pod name in ns, owned by nothing, protected by pub (annotation) and usually
// ready and consistent.
func budgetPod(r *rand.Rand, name, ns, pub string) obj {
	img := pick(r, []string{"nginx:1.25", "repo/app@sha256:" + fmt.Sprintf("%064x", 7)})
	md := obj{"name": name, "namespace": ns, "labels": obj{"app": "web"}, "uid": uid(r)}
	ann := obj{}
	if pub != "" {
		switch r.Intn(6) {
		case 0:
			ann["kruise.io/related-pub"] = pub
		case 1:
			ann["pub.kruise.io/related-pub"] = pub
			ann["kruise.io/related-pub"] = "other"
		default:
			ann["pub.kruise.io/related-pub"] = pub
		}
	}
	if chance(r, 0.05) {
		ann["pub.kruise.io/no-protect"] = pick(r, []string{"true", "1", "no", "T"})
	}
	if chance(r, 0.04) {
		ann["apps.kruise.io/inplace-update-grace"] = "{}"
	}
	if len(ann) > 0 {
		md["annotations"] = ann
	}
	if chance(r, 0.05) {
		md["labels"].(obj)["unavailable-pod.kruise.io/offline"] = "true"
	}
	status := obj{"phase": "Running", "conditions": list{obj{"type": "Ready", "status": "True"}},
		"containerStatuses": list{obj{"name": "main", "ready": true, "restartCount": float64(0), "image": img,
			"imageID": "docker-pullable://" + img, "containerID": "containerd://abc"}}}
	switch r.Intn(12) {
	case 0:
		status["phase"] = "Pending"
	case 1:
		status["conditions"] = list{obj{"type": "Ready", "status": "False"}}
	}
	c := obj{"name": "main", "image": img, "resources": obj{"requests": obj{"cpu": "500m", "memory": "128Mi"}}}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": md,
		"spec": obj{"containers": list{c}}, "status": status}
}

func budgetPUB(r *rand.Rand, name, ns string) obj {
	spec := obj{"selector": obj{"matchLabels": obj{"app": "web"}}, "maxUnavailable": float64(1)}
	if chance(r, 0.2) {
		spec["protectOperations"] = pick2(r, list{"DELETE"}, list{"EVICT", "UPDATE"})
	}
	if chance(r, 0.1) {
		spec["ignoredPodSelector"] = obj{"matchLabels": obj{"app": pick(r, []string{"web", "x"})}}
	}
	md := obj{"name": name, "namespace": ns}
	if chance(r, 0.1) {
		md["annotations"] = obj{"kruise.io/pub-protect-operations": pick(r, []string{"EVICT", "DELETE,UPDATE", ""})}
	}
	allowed := r.Intn(4)
	status := obj{"totalReplicas": float64(5), "desiredAvailable": float64(pick2(r, 3.0, 0.0).(float64)),
		"currentAvailable": float64(5), "unavailableAllowed": float64(allowed)}
	if chance(r, 0.3) {
		status["disruptedPods"] = obj{"web-1": "2026-01-01T00:00:00Z"}
	}
	if chance(r, 0.2) {
		status["unavailablePods"] = obj{"web-2": "2026-01-01T00:00:00Z"}
	}
	return obj{"apiVersion": "policy.kruise.io/v1beta1", "kind": "PodUnavailableBudget", "metadata": md, "spec": spec, "status": status}
}

func deepCopyObj(o obj) obj {
	data, _ := json.Marshal(o)
	var c obj
	_ = json.Unmarshal(data, &c)
	return c
}

func genPodValidatePub(r *rand.Rand, i int) testCase {
	ns := pick(r, namespaces[:3])
	world := []map[string]interface{}{namespaceObj(ns, obj{"kubernetes.io/metadata.name": ns})}
	pubName := "pub-web"
	if chance(r, 0.9) {
		world = append(world, budgetPUB(r, pubName, ns))
	}
	var pods []obj
	for n := 0; n < 2+r.Intn(3); n++ {
		p := budgetPod(r, fmt.Sprintf("web-%d", n), ns, pick(r, []string{pubName, pubName, pubName, "", "missing-pub"}))
		pods = append(pods, p)
		if chance(r, 0.9) {
			world = append(world, p)
		}
	}
	var reqs []map[string]interface{}
	for n := 1 + r.Intn(4); n > 0; n-- {
		p := pods[r.Intn(len(pods))]
		name := p["metadata"].(obj)["name"].(string)
		var req obj
		switch r.Intn(5) {
		case 0, 1: // eviction
			ev := obj{"apiVersion": "policy/v1", "kind": "Eviction", "metadata": obj{"name": name, "namespace": ns}}
			if chance(r, 0.2) {
				ev["deleteOptions"] = obj{"dryRun": list{"All"}}
			}
			req = admissionRequest(r, "policy", "v1", "Eviction", "pods", "eviction", "CREATE", ns, name, ev, nil)
			req["resource"] = obj{"group": "", "version": "v1", "resource": "pods"}
		case 2, 3: // delete
			req = admissionRequest(r, "", "v1", "Pod", "pods", "", "DELETE", ns, name, nil, p)
			if chance(r, 0.15) {
				req["options"] = obj{"apiVersion": "meta.k8s.io/v1", "kind": "DeleteOptions", "dryRun": list{"All"}}
			}
		default: // update: image, resources, an unavailable label, or labels only
			next := deepCopyObj(p)
			c := next["spec"].(obj)["containers"].(list)[0].(obj)
			switch r.Intn(4) {
			case 0:
				c["image"] = "nginx:1.26"
			case 1:
				c["resources"] = obj{"requests": obj{"cpu": "800m", "memory": "128Mi"}}
			case 2:
				next["metadata"].(obj)["labels"].(obj)["unavailable-pod.kruise.io/offline"] = "true"
			default:
				next["metadata"].(obj)["labels"].(obj)["tier"] = "x"
			}
			req = admissionRequest(r, "", "v1", "Pod", "pods", "", "UPDATE", ns, name, next, p)
		}
		if chance(r, 0.05) {
			req["dryRun"] = true
		}
		reqs = append(reqs, req)
	}
	return testCase{Gates: pubGates(r), World: world, Requests: reqs}
}
