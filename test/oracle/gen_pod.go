package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
)

// /mutate-pod: Pods against SidecarSets (selectors, namespaces, volumes, env, hot upgrade,
// resources, patchPodMetadata, revisions, canaries), owners that make the readiness gate and
// PodUnavailableBudgets apply, and container launch priorities.

func init() {
	register(generator{name: "pod-sidecarset", area: "sidecarset", path: "/mutate-pod", gen: genPodSidecarSet})
	register(generator{name: "pod-launch-pub", area: "pub", path: "/mutate-pod", gen: genPodLaunchPub})
}

const kruiseNS = "kruise-system"

// world of namespaces (each with the standard metadata.name label, sometimes more).
func namespaceWorld(r *rand.Rand) []map[string]interface{} {
	var out []map[string]interface{}
	for _, ns := range namespaces {
		if chance(r, 0.1) && ns != "default" {
			continue // a Pod's namespace that does not exist (yet)
		}
		l := obj{"kubernetes.io/metadata.name": ns}
		if chance(r, 0.5) {
			l["env"] = pick(r, []string{"prod", "test"})
		}
		out = append(out, namespaceObj(ns, l))
	}
	return out
}

// podObject makes a Pod in ns with labels drawn so that selectors often match.
func podObject(r *rand.Rand, ns string) obj {
	lbls := labels(r, 3)
	if chance(r, 0.7) {
		lbls["app"] = pick(r, []string{"web", "db"})
	}
	md := obj{"labels": lbls}
	if chance(r, 0.6) {
		md["generateName"] = "web-" + fmt.Sprint(r.Intn(9)) + "-"
	} else {
		md["name"] = fmt.Sprintf("pod-%d", r.Intn(1000))
	}
	if chance(r, 0.85) {
		md["namespace"] = ns
	}
	ann := obj{}
	if chance(r, 0.2) {
		ann["existing"] = pick(r, []string{`{"app":0}`, "plain", `[1,2]`, `{"a":{"b":1}}`})
	}
	if chance(r, 0.08) {
		ann["kruise.io/sidecarset-injected-list"] = "old-set"
		ann["kruise.io/sidecarset-hash"] = pick(r, []string{`{"old-set":"abc"}`,
			`{"old-set":{"updateTimestamp":"2024-01-01T00:00:00Z","hash":"abc","sidecarSetName":"old-set","sidecarList":["x"]}}`})
	}
	if len(ann) > 0 {
		md["annotations"] = ann
	}
	spec := podSpec(r)
	// An app container with an env var a sidecar may take, and a subPathExpr naming one.
	if chance(r, 0.3) {
		c := spec["containers"].(list)[0].(obj)
		c["env"] = append(asList(c["env"]), obj{"name": "POD_IP", "valueFrom": obj{"fieldRef": obj{"fieldPath": "status.podIP"}}})
		c["volumeMounts"] = append(asList(c["volumeMounts"]), obj{"name": "logs", "mountPath": "/var/log/app", "subPathExpr": "$(POD_IP)/logs"})
		spec["volumes"] = append(asList(spec["volumes"]), obj{"name": "logs", "emptyDir": obj{}})
	}
	if chance(r, 0.1) {
		c := spec["containers"].(list)[0].(obj)
		c["volumeDevices"] = list{obj{"name": "raw", "devicePath": "/dev/xvda"}}
	}
	if chance(r, 0.1) {
		spec["initContainers"] = append(asList(spec["initContainers"]), obj{"name": "native-" + pick(r, containerNms),
			"image": "busybox", "restartPolicy": "Always", "resources": resources(r)})
	}
	if chance(r, 0.15) {
		spec["imagePullSecrets"] = list{obj{"name": "pull-a"}, obj{"name": "pull-a"}}
	}
	p := obj{"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}
	if chance(r, 0.05) {
		p["status"] = obj{"phase": pick(r, []string{"Succeeded", "Failed", "Running"})}
	}
	return p
}

func asList(v interface{}) list {
	l, _ := v.(list)
	return l
}

func sidecarContainer(r *rand.Rand, name string, init bool) obj {
	c := container(r, name)
	if chance(r, 0.5) {
		c["podInjectPolicy"] = pick(r, []string{"BeforeAppContainer", "AfterAppContainer"})
	}
	if chance(r, 0.3) {
		c["shareVolumePolicy"] = obj{"type": pick(r, []string{"enabled", "disabled"})}
	}
	if chance(r, 0.1) {
		c["shareVolumeDevicePolicy"] = obj{"type": "enabled"}
	}
	if chance(r, 0.25) {
		te := obj{}
		if chance(r, 0.7) {
			te["sourceContainerName"] = pick(r, containerNms)
		} else {
			te["sourceContainerNameFrom"] = obj{"fieldRef": obj{"fieldPath": pick(r, []string{
				"metadata.labels['app']", "metadata.annotations['main-container']", "metadata.name"})}}
		}
		if chance(r, 0.6) {
			te["envName"] = pick(r, []string{"POD_IP", "A", "MY_VAR"})
		} else {
			te["envNames"] = list{"B", "A", "POD_NAME"}
		}
		c["transferEnv"] = list{te}
	}
	if !init && chance(r, 0.15) {
		c["upgradeStrategy"] = obj{"upgradeType": "HotUpgrade", "hotUpgradeEmptyImage": pick(r, []string{"busybox:empty", ""})}
	}
	if init && chance(r, 0.4) {
		c["restartPolicy"] = "Always"
		if chance(r, 0.3) {
			c["upgradeStrategy"] = obj{"upgradeType": "HotUpgrade", "hotUpgradeEmptyImage": "busybox:empty"}
		}
	}
	if chance(r, 0.12) {
		exprs := obj{}
		if chance(r, 0.7) {
			exprs["limits"] = obj{"cpu": pick(r, []string{"cpu*50%", "max(cpu*20%, 50m)", "200m", "cpu/2+10m"}),
				"memory": pick(r, []string{"memory*50%", "200Mi", "min(memory, 1Gi)"})}
		}
		if chance(r, 0.7) {
			exprs["requests"] = obj{"cpu": pick(r, []string{"cpu*50%", "100m", "0.1"}), "memory": pick(r, []string{"memory/4", "100Mi"})}
		}
		c["resourcesPolicy"] = obj{"targetContainersMode": pick(r, []string{"sum", "max", "sum"}),
			"targetContainersNameRegex": pick(r, []string{"^main$", ".*", "^(app|main)$", "nginx|main", "^nomatch$"}),
			"resourcesExpr":             exprs}
	}
	return c
}

func sidecarSet(r *rand.Rand, name string, pod obj) obj {
	spec := obj{}
	podLabels, _ := get(pod, "metadata", "labels").(obj)
	switch x := r.Intn(10); {
	case x < 6 && len(podLabels) > 0:
		// a selector built from the Pod's labels: matches, unless a value is changed
		m := obj{}
		for _, k := range sortedKeysAny(podLabels) {
			if chance(r, 0.6) {
				m[k] = podLabels[k]
			}
		}
		if len(m) == 0 {
			m["app"] = "web"
		}
		if chance(r, 0.15) {
			m["app"] = "other"
		}
		spec["selector"] = obj{"matchLabels": m}
	case x < 7:
		spec["selector"] = obj{}
	default:
		spec["selector"] = selector(r)
	}
	if chance(r, 0.25) {
		switch r.Intn(3) {
		case 0:
			spec["namespaceSelector"] = obj{"matchLabels": obj{"kubernetes.io/metadata.name": pick(r, namespaces)}}
		case 1:
			spec["namespaceSelector"] = obj{"matchExpressions": list{obj{"key": "kubernetes.io/metadata.name", "operator": "In", "values": list{pick(r, namespaces), pick(r, namespaces)}}}}
		default:
			spec["namespaceSelector"] = obj{"matchLabels": obj{"env": pick(r, []string{"prod", "test"})}}
		}
	}
	var cs list
	for _, n := range distinctNames(r, containerNms, 1+r.Intn(2)) {
		cs = append(cs, sidecarContainer(r, n, false))
	}
	if chance(r, 0.9) {
		spec["containers"] = cs
	}
	if chance(r, 0.2) {
		spec["initContainers"] = list{sidecarContainer(r, "init-"+pick(r, []string{"a", "b", "setup"}), true)}
	}
	if chance(r, 0.5) {
		var vs list
		for _, n := range distinctNames(r, volumeNames, 1+r.Intn(2)) {
			vs = append(vs, volume(r, n))
		}
		spec["volumes"] = vs
	}
	if chance(r, 0.15) {
		spec["imagePullSecrets"] = list{obj{"name": pick(r, []string{"pull-a", "pull-b"})}}
	}
	if chance(r, 0.1) {
		spec["injectionStrategy"] = obj{"paused": true}
	}
	if chance(r, 0.05) {
		spec["updateStrategy"] = obj{"paused": true}
	}
	if chance(r, 0.2) {
		var ppm list
		for n := 1 + r.Intn(2); n > 0; n-- {
			ann := obj{pick(r, []string{"existing", "note", "sidecar.io/config"}): pick(r, []string{`{"log-agent":1}`, "v", `{"a":{"c":2}}`, `{"app":null}`, "not json"})}
			ppm = append(ppm, obj{"annotations": ann, "patchPolicy": pick(r, []string{"Retain", "Overwrite", "MergePatchJson", ""})})
		}
		spec["patchPodMetadata"] = ppm
	}
	md := obj{"name": name, "annotations": obj{
		"kruise.io/sidecarset-hash":               fmt.Sprintf("%x", r.Int63()),
		"kruise.io/sidecarset-hash-without-image": fmt.Sprintf("%x", r.Int63()),
	}}
	ss := obj{"apiVersion": "apps.kruise.io/v1beta1", "kind": "SidecarSet", "metadata": md, "spec": spec}
	if chance(r, 0.3) {
		ss["status"] = obj{"latestRevision": name + "-rev1"}
	}
	return ss
}

func sortedKeysAny(m obj) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// controllerRevision makes a SidecarSet's history entry as the controller writes it.
func controllerRevision(r *rand.Rand, ss obj, name string, custom string) obj {
	spec := ss["spec"].(obj)
	data := obj{"$patch": "replace"}
	for _, k := range []string{"volumes", "containers", "initContainers", "imagePullSecrets", "patchPodMetadata"} {
		data[k] = spec[k]
	}
	if cs, ok := data["containers"].(list); ok && chance(r, 0.7) {
		// the history's images differ from the current ones
		var old list
		for _, c := range cs {
			b, _ := json.Marshal(c)
			var cc obj
			_ = json.Unmarshal(b, &cc)
			cc["image"] = "registry.example.com/old:" + name
			old = append(old, cc)
		}
		data["containers"] = old
	}
	lbls := obj{"kruise.io/sidecarset-name": ss["metadata"].(obj)["name"]}
	if custom != "" {
		lbls["apps.kruise.io/sidecarset-custom-version"] = custom
	}
	cr := obj{"apiVersion": "apps/v1", "kind": "ControllerRevision",
		"metadata": obj{"name": name, "namespace": kruiseNS, "labels": lbls},
		"data":     obj{"spec": data}, "revision": float64(1 + r.Intn(3))}
	if chance(r, 0.5) {
		cr["metadata"].(obj)["annotations"] = obj{"kruise.io/sidecarset-hash": "hist-hash"}
	}
	return cr
}

func genPodSidecarSet(r *rand.Rand, i int) testCase {
	world := namespaceWorld(r)
	ns := pick(r, namespaces)
	pod := podObject(r, ns)
	if chance(r, 0.2) {
		pod["metadata"].(obj)["annotations"] = mergeObj(asMap(pod["metadata"].(obj)["annotations"]), obj{"main-container": pick(r, containerNms)})
	}
	names := []string{"alpha", "log-sidecarset", "mesh", "zeta"}
	for n, k := 0, r.Intn(4); n < k; n++ {
		ss := sidecarSet(r, names[n], pod)
		if n > 0 && chance(r, 0.1) {
			// a canary of the previous SidecarSet
			ss["metadata"].(obj)["annotations"].(obj)["apps.kruise.io/sidecarset-canary"] = "true"
			ss["metadata"].(obj)["annotations"].(obj)["apps.kruise.io/sidecarset-base"] = names[n-1]
		}
		if chance(r, 0.12) {
			rev := obj{}
			switch r.Intn(3) {
			case 0:
				rev["revisionName"] = names[n] + "-rev1"
			case 1:
				rev["customVersion"] = "v1"
			default:
				rev["revisionName"] = names[n] + "-missing"
			}
			rev["policy"] = pick(r, []string{"Always", "Partial", ""})
			inj, _ := ss["spec"].(obj)["injectionStrategy"].(obj)
			if inj == nil {
				inj = obj{}
			}
			inj["revision"] = rev
			ss["spec"].(obj)["injectionStrategy"] = inj
			if chance(r, 0.5) {
				ss["spec"].(obj)["updateStrategy"] = obj{"partition": pick(r, []string{"100%", "0%"}), "selector": obj{"matchLabels": obj{"app": "web"}}}
			}
			world = append(world, controllerRevision(r, ss, names[n]+"-rev1", "v1"))
		}
		world = append(world, ss)
	}
	op := "CREATE"
	var old interface{}
	if chance(r, 0.1) {
		op = "UPDATE"
		old = pod
	}
	req := admissionRequest(r, "", "v1", "Pod", "pods", "", op, ns, "", pod, old)
	if chance(r, 0.05) {
		req["subResource"] = "status"
	}
	if chance(r, 0.05) {
		req["dryRun"] = true
	}
	gates := map[string]bool{}
	if chance(r, 0.3) {
		gates["EnableSortSidecarContainerByName"] = true
	}
	return testCase{Gates: gates, World: world, Requests: []map[string]interface{}{req}}
}

func mergeObj(a, b obj) obj {
	if a == nil {
		a = obj{}
	}
	for k, v := range b {
		a[k] = v
	}
	return a
}

// --- owners, readiness gate, PodUnavailableBudget annotation, launch priority -----------------

// ownerChain gives the Pod an owner (a CloneSet, a ReplicaSet of a Deployment, an Advanced
// StatefulSet, a Job) and puts the owners in the world; it returns the top workload's
// apiVersion, kind and name, or "".
func ownerChain(r *rand.Rand, pod obj, ns string, world *[]map[string]interface{}) (string, string, string) {
	md := pod["metadata"].(obj)
	app := "web"
	sel := obj{"matchLabels": obj{"app": app}}
	tmpl := obj{"metadata": obj{"labels": obj{"app": app}}, "spec": obj{"containers": list{obj{"name": "main", "image": "nginx"}}}}
	ref := func(av, kind, name, uid string) list {
		return list{obj{"apiVersion": av, "kind": kind, "name": name, "uid": uid, "controller": true, "blockOwnerDeletion": true}}
	}
	switch r.Intn(5) {
	case 0:
		u := uid(r)
		*world = append(*world, obj{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet",
			"metadata": obj{"name": "cs", "namespace": ns, "uid": u}, "spec": obj{"replicas": float64(3), "selector": sel, "template": tmpl}})
		md["ownerReferences"] = ref("apps.kruise.io/v1alpha1", "CloneSet", "cs", u)
		return "apps.kruise.io/v1alpha1", "CloneSet", "cs"
	case 1:
		du, ru := uid(r), uid(r)
		*world = append(*world, obj{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": obj{"name": "dep", "namespace": ns, "uid": du}, "spec": obj{"replicas": float64(2), "selector": sel, "template": tmpl}})
		*world = append(*world, obj{"apiVersion": "apps/v1", "kind": "ReplicaSet",
			"metadata": obj{"name": "dep-5d9f", "namespace": ns, "uid": ru, "ownerReferences": ref("apps/v1", "Deployment", "dep", du)},
			"spec":     obj{"replicas": float64(2), "selector": sel, "template": tmpl}})
		md["ownerReferences"] = ref("apps/v1", "ReplicaSet", "dep-5d9f", ru)
		return "apps/v1", "Deployment", "dep"
	case 2:
		u := uid(r)
		*world = append(*world, obj{"apiVersion": "apps.kruise.io/v1beta1", "kind": "StatefulSet",
			"metadata": obj{"name": "sts", "namespace": ns, "uid": u}, "spec": obj{"replicas": float64(3), "selector": sel, "template": tmpl, "serviceName": "sts"}})
		md["ownerReferences"] = ref("apps.kruise.io/v1beta1", "StatefulSet", "sts", u)
		return "apps.kruise.io/v1beta1", "StatefulSet", "sts"
	case 3:
		md["ownerReferences"] = ref("batch/v1", "Job", "job", uid(r))
		return "", "", ""
	}
	return "", "", ""
}

func pubObject(r *rand.Rand, name, ns, av, kind, wl string) obj {
	spec := obj{}
	if wl != "" && chance(r, 0.5) {
		spec["targetRef"] = obj{"apiVersion": av, "kind": kind, "name": wl}
	} else {
		spec["selector"] = pick2(r, obj{"matchLabels": obj{"app": "web"}}, selector(r))
	}
	if chance(r, 0.5) {
		spec["maxUnavailable"] = pick2(r, float64(1), "30%")
	} else {
		spec["minAvailable"] = pick2(r, float64(2), "50%")
	}
	return obj{"apiVersion": "policy.kruise.io/v1alpha1", "kind": "PodUnavailableBudget",
		"metadata": obj{"name": name, "namespace": ns}, "spec": spec}
}

func pick2(r *rand.Rand, a, b interface{}) interface{} {
	if chance(r, 0.5) {
		return a
	}
	return b
}

func genPodLaunchPub(r *rand.Rand, i int) testCase {
	world := namespaceWorld(r)
	ns := pick(r, namespaces)
	pod := podObject(r, ns)
	av, kind, wl := ownerChain(r, pod, ns, &world)
	for n := r.Intn(3); n > 0; n-- {
		p := pubObject(r, fmt.Sprintf("pub-%d", n), pick(r, []string{ns, ns, "other"}), av, kind, wl)
		if chance(r, 0.2) {
			p["apiVersion"] = "policy.kruise.io/v1beta1"
		}
		world = append(world, p)
	}
	md := pod["metadata"].(obj)
	switch r.Intn(4) {
	case 0:
		md["annotations"] = mergeObj(asMap(md["annotations"]), obj{"apps.kruise.io/container-launch-priority": pick(r, []string{"Ordered", "ordered", "Other"})})
	case 1:
		for _, c := range pod["spec"].(obj)["containers"].(list) {
			if chance(r, 0.6) {
				c.(obj)["env"] = append(asList(c.(obj)["env"]), obj{"name": "KRUISE_CONTAINER_PRIORITY",
					"value": pick(r, []string{"1", "10", "-1", "1000", "abc", "0"})})
			}
		}
	}
	gates := map[string]bool{}
	switch r.Intn(4) {
	case 0:
		gates["KruisePodReadinessGate"] = true
	case 1:
		gates["PodUnavailableBudgetDeleteGate"] = false
	case 2:
		gates["PodUnavailableBudgetUpdateGate"] = true
	}
	op := "CREATE"
	var old interface{}
	if chance(r, 0.08) {
		op, old = "UPDATE", pod
	}
	req := admissionRequest(r, "", "v1", "Pod", "pods", "", op, ns, "", pod, old)
	return testCase{Gates: gates, World: world, Requests: []map[string]interface{}{req}}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && strings.Compare(s[j-1], s[j]) > 0; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}
