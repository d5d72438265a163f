package main

import (
	"fmt"
	"math/rand"
	"strings"
)

// The last three steps of /mutate-pod and the webhooks of the objects two of them read:
// Pods created again under names a PersistentPodState recorded (owners of every kind, white
// lists, topologies recorded in part, the Pod's own node selection to merge into), Pods asking
// for the enhanced liveness probe (owners, annotations, probes of every handler), Pods meeting
// PodProbeMarkers (selectors, the list annotation, containers and restartable init containers,
// repeated conditions), and the PersistentPodState and PodProbeMarker objects broken one rule
// at a time.

func init() {
	register(generator{name: "pod-persistentpodstate", area: "persistentpodstate", path: "/mutate-pod", gen: genPodPPS})
	register(generator{name: "pod-enhancedliveness", area: "enhancedlivenessprobe", path: "/mutate-pod", gen: genPodELP})
	register(generator{name: "pod-podprobemarker", area: "podprobemarker", path: "/mutate-pod", gen: genPodPPM})
	register(generator{name: "pps-validate", area: "persistentpodstate", path: "/validate-apps-kruise-io-persistentpodstate", gen: genPPSValidate})
	register(generator{name: "ppm-validate", area: "podprobemarker", path: "/validate-apps-kruise-io-podprobemarker", gen: genPPMValidate})
}

var (
	topoKeys   = []string{"topology.kubernetes.io/zone", "kubernetes.io/hostname", "topology.kubernetes.io/region", "node.kubernetes.io/pool"}
	topoValues = []string{"cn-a", "cn-b", "node-1", "node-2", "", "pool-x"}
	podNames   = []string{"web-0", "web-1", "web-2", "sts-0"}
)

// --- PersistentPodState ----------------------------------------------------------------------

// ppsWhitelist is the kruise-configuration ConfigMap with a PersistentPodState white list, now
// and then one Go's decoder refuses (it fails every Pod then).
func ppsWhitelist(r *rand.Rand) obj {
	var text string
	switch x := r.Intn(20); {
	case x == 0:
		text = pick(r, []string{`{"workloads":{"Group":"game.kruise.io"}}`, `{"workloads":[{"Kind":7}]}`, `[1]`, `{"workloads":[`, `{"workloads":["x"]}`})
	case x < 4:
		text = `{"workloads":[{"group":"game.kruise.io","KIND":"GameServerSet","version":"v1"}]}`
	case x < 6:
		text = `{"Workloads":[{"Group":"game.kruise.io","Version":"v1","Kind":"GameServerSet"},{"Group":"apps","Kind":"Deployment"}]}`
	case x < 8:
		text = pick(r, []string{`{}`, `null`, `{"workloads":null}`, `{"other":1}`})
	default:
		text = `{"workloads":[{"Group":"game.kruise.io","Version":"v1","Kind":"GameServerSet"}]}`
	}
	data := obj{"PPS_Watch_Custom_Workload_WhiteList": text}
	if chance(r, 0.1) {
		data = obj{"WorkloadSpread_Watch_Custom_Workload_WhiteList": `{}`}
	}
	return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": "kruise-configuration", "namespace": kruiseNS}, "data": data}
}

type ppsOwner struct {
	av, kind, name string
}

var ppsOwners = []ppsOwner{
	{"apps/v1", "StatefulSet", "sts"},
	{"apps.kruise.io/v1beta1", "StatefulSet", "sts"},
	{"apps.kruise.io/v1alpha1", "StatefulSet", "sts"},
	{"game.kruise.io/v1", "GameServerSet", "gss"},
	{"apps/v1", "Deployment", "sts"},
	{"apps.kruise.io/v1alpha1", "CloneSet", "cs"},
	{"apps/v1", "ReplicaSet", "rs"},
	{"a/b/c", "StatefulSet", "sts"},
	{"apps.kruise.io", "StatefulSet", "sts"},
}

// ppsKeys lists 0-3 topology keys (sometimes a key none records).
func ppsKeys(r *rand.Rand) list {
	var out list
	for _, k := range distinctNames(r, append(append([]string{}, topoKeys...), "missing.io/key"), r.Intn(4)) {
		out = append(out, k)
	}
	return out
}

func ppsTerm(r *rand.Rand, alpha bool) obj {
	name := "keys"
	if alpha {
		name = "nodeTopologyKeys"
	}
	t := obj{}
	if chance(r, 0.9) {
		t[name] = ppsKeys(r)
	}
	return t
}

// ppsObject makes a PersistentPodState targeting target (or something near it).
func ppsObject(r *rand.Rand, name, ns string, target ppsOwner, alpha bool) obj {
	ref := obj{"apiVersion": target.av, "kind": target.kind, "name": target.name}
	switch r.Intn(8) {
	case 0:
		ref["name"] = "other"
	case 1:
		ref["apiVersion"] = pick(r, []string{"apps.kruise.io/v1beta1", "apps.kruise.io/v1alpha1", "apps/v1", "game.kruise.io/v1alpha1"})
	case 2:
		ref["kind"] = pick(r, []string{"StatefulSet", "GameServerSet", "Deployment"})
	}
	spec := obj{"targetRef": ref}
	if chance(r, 0.7) {
		spec["requiredPersistentTopology"] = ppsTerm(r, alpha)
	}
	if chance(r, 0.6) {
		var terms list
		for n := r.Intn(3); n > 0; n-- {
			terms = append(terms, obj{"weight": float64(r.Intn(101)), "preference": ppsTerm(r, alpha)})
		}
		spec["preferredPersistentTopology"] = terms
	}
	if chance(r, 0.2) {
		spec["persistentPodAnnotations"] = list{obj{"key": "ip"}}
	}
	md := obj{"name": name, "namespace": ns}
	if chance(r, 0.08) {
		md["deletionTimestamp"] = "2024-01-01T00:00:00Z"
		md["finalizers"] = list{"apps.kruise.io/pps"}
	}
	o := obj{"apiVersion": "apps.kruise.io/v1beta1", "kind": "PersistentPodState", "metadata": md, "spec": spec}
	if alpha {
		o["apiVersion"] = "apps.kruise.io/v1alpha1"
	}
	if chance(r, 0.85) {
		states := obj{}
		for _, p := range distinctNames(r, podNames, r.Intn(4)) {
			labels := obj{}
			for _, k := range distinctNames(r, topoKeys, r.Intn(len(topoKeys)+1)) {
				labels[k] = pick(r, topoValues)
			}
			st := obj{"nodeName": "node-" + p}
			if len(labels) > 0 || chance(r, 0.5) {
				st["nodeTopologyLabels"] = labels
			}
			states[p] = st
		}
		o["status"] = obj{"observedGeneration": float64(1), "podStates": states}
	}
	return o
}

// ppsPod is a Pod of owner with node selection of its own, now and then.
func ppsPod(r *rand.Rand, ns string, owner ppsOwner) obj {
	md := obj{"labels": obj{"app": "web"}}
	if chance(r, 0.85) {
		md["name"] = pick(r, podNames)
	} else {
		md["generateName"] = "web-"
	}
	if chance(r, 0.9) {
		md["namespace"] = ns
	}
	if chance(r, 0.9) {
		ref := obj{"apiVersion": owner.av, "kind": owner.kind, "name": owner.name, "uid": "7b1c5b6e-0000-4000-8000-000000000001"}
		if chance(r, 0.93) {
			ref["controller"] = true
		}
		md["ownerReferences"] = list{ref}
	}
	spec := obj{"containers": list{obj{"name": "main", "image": "nginx"}}}
	if chance(r, 0.3) {
		spec["nodeSelector"] = obj{pick(r, topoKeys): "old", "disk": "ssd"}
	}
	switch r.Intn(5) {
	case 0:
		spec["affinity"] = obj{"nodeAffinity": obj{
			"requiredDuringSchedulingIgnoredDuringExecution":  obj{"nodeSelectorTerms": list{obj{"matchExpressions": list{obj{"key": "gpu", "operator": "Exists"}}}}},
			"preferredDuringSchedulingIgnoredDuringExecution": list{obj{"weight": float64(5), "preference": obj{"matchExpressions": list{obj{"key": "ssd", "operator": "Exists"}}}}}}}
	case 1:
		spec["affinity"] = obj{"podAntiAffinity": obj{"preferredDuringSchedulingIgnoredDuringExecution": list{obj{"weight": float64(1),
			"podAffinityTerm": obj{"topologyKey": "kubernetes.io/hostname", "labelSelector": obj{"matchLabels": obj{"app": "web"}}}}}}}
	case 2:
		spec["affinity"] = obj{"nodeAffinity": obj{}}
	}
	if strings.HasPrefix(owner.av, "apps.kruise.io/") && chance(r, 0.8) {
		spec["readinessGates"] = list{obj{"conditionType": "KruisePodReady"}}
	}
	return obj{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}
}

func podRequestVariants(r *rand.Rand, ns string, pod obj) map[string]interface{} {
	op := "CREATE"
	var old interface{}
	if chance(r, 0.05) {
		op, old = "UPDATE", pod
	}
	req := admissionRequest(r, "", "v1", "Pod", "pods", "", op, ns, "", pod, old)
	if chance(r, 0.03) {
		req["subResource"] = "status"
	}
	if chance(r, 0.03) {
		req["dryRun"] = true
	}
	return req
}

func genPodPPS(r *rand.Rand, i int) testCase {
	world := namespaceWorld(r)
	ns := pick(r, namespaces)
	if chance(r, 0.6) {
		world = append(world, ppsWhitelist(r))
	}
	owner := ppsOwners[r.Intn(len(ppsOwners))]
	if chance(r, 0.5) {
		owner = ppsOwners[r.Intn(4)] // mostly the kinds a PersistentPodState may target
	}
	names := []string{"a-state", "m-state", "z-state"}
	for _, n := range distinctNames(r, names, r.Intn(4)) {
		target := owner
		if chance(r, 0.2) {
			target = ppsOwners[r.Intn(len(ppsOwners))]
		}
		o := ppsObject(r, n, pick(r, []string{ns, ns, ns, "other"}), target, chance(r, 0.25))
		world = append(world, o)
	}
	pod := ppsPod(r, ns, owner)
	return testCase{World: world, Requests: []map[string]interface{}{podRequestVariants(r, ns, pod)}}
}

func genPPSValidate(r *rand.Rand, i int) testCase {
	ns := pick(r, namespaces[:3])
	world := []map[string]interface{}{namespaceObj(ns, obj{"kubernetes.io/metadata.name": ns}), namespaceObj("other", nil)}
	if chance(r, 0.5) {
		world = append(world, ppsWhitelist(r))
	}
	target := ppsOwners[r.Intn(len(ppsOwners))]
	if chance(r, 0.5) {
		target = ppsOwners[r.Intn(4)]
	}
	for _, n := range distinctNames(r, []string{"a-state", "pps", "z-state"}, r.Intn(3)) {
		world = append(world, ppsObject(r, n, pick(r, []string{ns, ns, "other"}), target, chance(r, 0.2)))
	}
	alpha := chance(r, 0.3)
	o := ppsObject(r, pick(r, []string{"pps", "new"}), ns, target, alpha)
	delete(o, "status")
	spec := o["spec"].(obj)
	switch r.Intn(14) {
	case 0:
		spec["targetRef"] = obj{}
	case 1:
		spec["targetRef"].(obj)[pick(r, []string{"apiVersion", "kind", "name"})] = ""
	case 2:
		delete(spec, "requiredPersistentTopology")
		delete(spec, "preferredPersistentTopology")
		if chance(r, 0.5) {
			spec["preferredPersistentTopology"] = list{}
		}
		if chance(r, 0.4) {
			spec["persistentPodAnnotations"] = pick2(r, list{}, list{obj{"key": "a\"b"}, obj{"key": ""}})
		}
		if chance(r, 0.4) {
			spec["persistentPodStateRetentionPolicy"] = pick(r, []string{"WhenScaled", "WhenDeleted", "Sometimes"})
		}
	case 3:
		spec["requiredPersistentTopology"] = pick(r, []string{"zone"})
	case 4:
		spec["preferredPersistentTopology"] = list{obj{"weight": "ten"}}
	case 5:
		o["metadata"].(obj)["namespace"] = ""
	case 6:
		spec["targetRef"] = obj{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": target.name}
	}
	version := "v1beta1"
	if alpha {
		version = "v1alpha1"
	}
	if chance(r, 0.05) {
		version = pick(r, []string{"v1", "v1alpha1", "v1beta1"})
	}
	op := "CREATE"
	var old interface{}
	if chance(r, 0.3) {
		op = "UPDATE"
		oo := deepCopyObj(o)
		if chance(r, 0.5) {
			oo["spec"].(obj)["targetRef"] = obj{"apiVersion": pick(r, []string{target.av, "apps/v1"}), "kind": target.kind, "name": pick(r, []string{target.name, "elsewhere"})}
		}
		if chance(r, 0.05) {
			oo = nil
		}
		if oo != nil {
			old = oo
		}
	} else if chance(r, 0.03) {
		op = "DELETE"
	}
	var object interface{} = o
	if op == "DELETE" || chance(r, 0.02) {
		object = nil
	}
	req := admissionRequest(r, "apps.kruise.io", version, "PersistentPodState", "persistentpodstates", "", op, ns, o["metadata"].(obj)["name"].(string), object, old)
	return testCase{World: world, Requests: []map[string]interface{}{req}}
}

// --- the enhanced liveness probe ---------------------------------------------------------------

func probeHandler(r *rand.Rand) obj {
	switch r.Intn(6) {
	case 0:
		return obj{"exec": obj{"command": list{"sh", "-c", pick(r, []string{"test -f /ok", "echo '<ok>' && true", "cat /x | grep \"a\""})}}}
	case 1:
		h := obj{"path": pick(r, []string{"/healthz", "/", "", "//[::1/x", "path%notvalid", "http://h:8080/x?y=%zz", "/a b", "a:b", "/%41#f%zz"}), "port": pick2(r, float64(pick2(r, 8080.0, 0.0).(float64)), pick(r, []string{"http", "", "invalid-port-name-!@#"}))}
		if chance(r, 0.5) {
			h["scheme"] = pick(r, []string{"HTTP", "HTTPS", "FTP"})
		}
		if chance(r, 0.15) {
			h["host"] = "127.0.0.1"
		}
		if chance(r, 0.2) {
			h["httpHeaders"] = list{obj{"name": pick(r, []string{"X-Probe", "Bad Header", ""}), "value": "v"}}
		}
		return obj{"httpGet": h}
	case 2:
		t := obj{"port": pick2(r, float64(pick2(r, 7001.0, -1.0).(float64)), pick(r, []string{"tcp", "aaaaabbbbbcccccd"}))}
		if chance(r, 0.2) {
			t["host"] = "10.0.0.1"
		}
		return obj{"tcpSocket": t}
	case 3:
		return obj{"grpc": obj{"port": float64(9000), "service": pick(r, []string{"", "health"})}}
	case 4:
		return obj{}
	}
	return obj{"exec": obj{"command": list{"true"}}, "tcpSocket": obj{"port": float64(80)}}
}

func probeSpec(r *rand.Rand) obj {
	p := probeHandler(r)
	for _, f := range []string{"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"} {
		if chance(r, 0.4) {
			p[f] = float64(r.Intn(6) - 1)
		}
	}
	if chance(r, 0.15) {
		p["terminationGracePeriodSeconds"] = float64(r.Intn(40))
	}
	return p
}

func kruiseOwner(r *rand.Rand) (obj, bool) {
	switch r.Intn(6) {
	case 0:
		return obj{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "uid": "u-1", "controller": true}, false
	case 1:
		return nil, false
	case 2:
		return obj{"apiVersion": pick(r, []string{"apps.kruise.io", "apps.kruise.io/v1/x"}), "kind": "CloneSet", "name": "cs", "uid": "u-2", "controller": true}, false
	case 3:
		return obj{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "name": "cs", "uid": "u-3"}, false
	}
	return obj{"apiVersion": pick(r, []string{"apps.kruise.io/v1alpha1", "apps.kruise.io/v1beta1"}), "kind": pick(r, []string{"CloneSet", "StatefulSet", "DaemonSet"}), "name": "w", "uid": "u-4", "controller": true}, true
}

func genPodELP(r *rand.Rand, i int) testCase {
	world := namespaceWorld(r)
	ns := pick(r, namespaces)
	md := obj{"name": fmt.Sprintf("pod-%d", r.Intn(100)), "namespace": ns}
	owner, kruise := kruiseOwner(r)
	if owner != nil {
		md["ownerReferences"] = list{owner}
	}
	if chance(r, 0.85) {
		ann := obj{"apps.kruise.io/using-enhanced-liveness": pick(r, []string{"true", "true", "true", "false", "True", ""})}
		if chance(r, 0.1) {
			ann["apps.kruise.io/container-probe-context"] = "[]"
		}
		md["annotations"] = ann
	}
	var cs list
	for _, n := range distinctNames(r, containerNms, 1+r.Intn(3)) {
		c := obj{"name": n, "image": "nginx"}
		switch r.Intn(5) {
		case 0:
		case 1:
			c["livenessProbe"] = nil
		default:
			c["livenessProbe"] = probeSpec(r)
		}
		if chance(r, 0.2) {
			c["readinessProbe"] = probeSpec(r)
		}
		cs = append(cs, c)
	}
	spec := obj{"containers": cs}
	if chance(r, 0.2) {
		spec["initContainers"] = list{obj{"name": "init", "image": "busybox", "restartPolicy": "Always", "livenessProbe": probeSpec(r)}}
	}
	if kruise && chance(r, 0.7) {
		spec["readinessGates"] = list{obj{"conditionType": "KruisePodReady"}}
	}
	pod := obj{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}
	gates := map[string]bool{}
	if chance(r, 0.85) {
		gates["EnhancedLivenessProbe"] = true
	}
	if chance(r, 0.05) {
		gates["KruiseDaemon"] = false
	}
	return testCase{Gates: gates, World: world, Requests: []map[string]interface{}{podRequestVariants(r, ns, pod)}}
}

// --- PodProbeMarker ----------------------------------------------------------------------------

var ppmContainers = []string{"main", "envoy", "sidecar", "init-a", "init-b", "missing"}

func ppmProbe(r *rand.Rand) obj {
	p := obj{"name": pick(r, []string{"healthy", "ready", "check", "Ready", "a#b", ""}), "containerName": pick(r, ppmContainers)}
	if chance(r, 0.9) {
		p["probe"] = probeSpec(r)
	}
	if chance(r, 0.75) {
		p["podConditionType"] = pick(r, []string{"game.kruise.io/healthy", "game.kruise.io/ready", "healthy", "#bad", "x/y/z"})
	}
	if chance(r, 0.5) {
		var pol list
		for n := 1 + r.Intn(2); n > 0; n-- {
			m := obj{"state": pick(r, []string{"Succeeded", "Failed", "Unknown", ""})}
			if chance(r, 0.7) {
				m["labels"] = obj{pick(r, []string{"server-healthy", "bad key", "a/b/c"}): pick(r, []string{"true", "-x-"})}
			}
			if chance(r, 0.6) {
				m["annotations"] = obj{pick(r, []string{"controller.kubernetes.io/pod-deletion-cost", "Bad/Key/x"}): "10"}
			}
			pol = append(pol, m)
		}
		p["markerPolicy"] = pol
	}
	return p
}

func ppmSelector(r *rand.Rand) interface{} {
	switch r.Intn(8) {
	case 0:
		return nil
	case 1:
		return obj{}
	case 2:
		return obj{"matchExpressions": list{obj{"key": "app", "operator": pick(r, []string{"In", "NotIn", "Exists", "DoesNotExist", "Near"}), "values": list{"web"}}}}
	case 3:
		return obj{"matchLabels": obj{"app": "db"}}
	case 4:
		return obj{"matchLabels": obj{"app": "web"}, "matchExpressions": list{}}
	}
	return obj{"matchLabels": obj{"app": "web"}}
}

func ppmObject(r *rand.Rand, name, ns string) obj {
	spec := obj{}
	if sel := ppmSelector(r); sel != nil || chance(r, 0.5) {
		spec["selector"] = sel
	}
	var probes list
	for n := r.Intn(4); n > 0; n-- {
		probes = append(probes, ppmProbe(r))
	}
	if probes != nil || chance(r, 0.5) {
		spec["probes"] = probes
	}
	return obj{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "PodProbeMarker", "metadata": obj{"name": name, "namespace": ns}, "spec": spec}
}

func genPodPPM(r *rand.Rand, i int) testCase {
	world := namespaceWorld(r)
	ns := pick(r, namespaces)
	names := []string{"alpha", "healthy", "init", "zeta"}
	for _, n := range distinctNames(r, names, r.Intn(4)) {
		world = append(world, ppmObject(r, n, pick(r, []string{ns, ns, ns, "other"})))
	}
	md := obj{"name": "pod-1", "namespace": ns, "labels": obj{"app": pick(r, []string{"web", "web", "db"})}}
	if chance(r, 0.2) {
		md["annotations"] = obj{"kruise.io/podprobemarker-list": pick(r, []string{"healthy", "zeta,missing,alpha", "healthy,healthy", "", ",init,"})}
	}
	if chance(r, 0.1) {
		md["annotations"] = mergeObj(asMap(md["annotations"]), obj{"kruise.io/podprobe": "[]"})
	}
	var cs list
	for _, n := range distinctNames(r, ppmContainers[:3], 1+r.Intn(3)) {
		cs = append(cs, obj{"name": n, "image": "nginx"})
	}
	spec := obj{"containers": cs}
	if chance(r, 0.5) {
		spec["initContainers"] = list{obj{"name": "init-a", "image": "busybox"}, obj{"name": "init-b", "image": "busybox", "restartPolicy": pick(r, []string{"Always", "Always", "OnFailure"})}}
	}
	pod := obj{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}
	gates := map[string]bool{}
	if chance(r, 0.85) {
		gates["EnablePodProbeMarkerOnServerless"] = true
	}
	return testCase{Gates: gates, World: world, Requests: []map[string]interface{}{podRequestVariants(r, ns, pod)}}
}

func genPPMValidate(r *rand.Rand, i int) testCase {
	ns := pick(r, namespaces[:3])
	world := []map[string]interface{}{namespaceObj(ns, obj{"kubernetes.io/metadata.name": ns})}
	o := ppmObject(r, pick(r, []string{"ppm", "healthy"}), ns)
	if chance(r, 0.5) {
		// mostly valid, so that the later rules are reached
		o["spec"] = obj{"selector": obj{"matchLabels": obj{"app": "web"}}, "probes": list{obj{"name": "healthy", "containerName": "main",
			"probe": obj{"exec": obj{"command": list{"/bin/sh", "-c", "/healthy.sh"}}}, "podConditionType": "game.kruise.io/healthy"}}}
		if chance(r, 0.7) {
			p := ppmProbe(r)
			if chance(r, 0.5) {
				p["name"] = "second"
				p["containerName"] = "main"
			}
			o["spec"].(obj)["probes"] = append(o["spec"].(obj)["probes"].(list), p)
		}
	}
	if chance(r, 0.03) {
		o["spec"].(obj)["probes"] = "nope"
	}
	if chance(r, 0.03) {
		o["apiVersion"] = "apps.kruise.io/v1beta1"
	}
	op := "CREATE"
	var old interface{}
	if chance(r, 0.3) {
		op = "UPDATE"
		oo := deepCopyObj(o)
		if chance(r, 0.5) {
			oo["spec"].(obj)["selector"] = ppmSelector(r)
		}
		old = oo
	}
	gates := map[string]bool{}
	switch r.Intn(20) {
	case 0:
		gates["PodProbeMarkerGate"] = false
	case 1:
		gates["KruiseDaemon"] = false
	}
	var object interface{} = o
	if chance(r, 0.02) {
		object = nil
	}
	req := admissionRequest(r, "apps.kruise.io", "v1alpha1", "PodProbeMarker", "podprobemarkers", "", op, ns, o["metadata"].(obj)["name"].(string), object, old)
	return testCase{Gates: gates, World: world, Requests: []map[string]interface{}{req}}
}
