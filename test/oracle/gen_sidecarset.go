package main

import (
	"encoding/json"
	"fmt"
	"math/rand"

	"github.com/openkruise/kruise/apis/apps/defaults"
	appsv1alpha1 "github.com/openkruise/kruise/apis/apps/v1alpha1"
	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
)

// SidecarSet objects: defaulting and hashing (/mutate-apps-kruise-io-sidecarset), and validation
// with every rule's failure and the conflicts with other SidecarSets
// (/validate-apps-kruise-io-sidecarset).

func init() {
	register(generator{name: "sidecarset-mutate", area: "sidecarset", path: "/mutate-apps-kruise-io-sidecarset", gen: genSidecarSetMutate})
	register(generator{name: "sidecarset-validate", area: "sidecarset", path: "/validate-apps-kruise-io-sidecarset", gen: genSidecarSetValidate})
}

func probe(r *rand.Rand) obj {
	p := obj{}
	switch r.Intn(3) {
	case 0:
		p["httpGet"] = obj{"port": pick2(r, float64(8080), "http")}
	case 1:
		p["tcpSocket"] = obj{"port": float64(9000)}
	default:
		p["exec"] = obj{"command": list{"cat", "/tmp/healthy"}}
	}
	if chance(r, 0.4) {
		p["periodSeconds"] = float64(1 + r.Intn(30))
	}
	return p
}

// rawSidecarSet makes a SidecarSet as a user writes it (nothing defaulted) in version.
func rawSidecarSet(r *rand.Rand, name, version string) obj {
	pod := obj{"metadata": obj{"labels": obj{"app": pick(r, []string{"web", "db"})}}}
	ss := sidecarSet(r, name, pod)
	ss["apiVersion"] = "apps.kruise.io/" + version
	spec := ss["spec"].(obj)
	delete(ss, "status")
	delete(ss["metadata"].(obj), "annotations")
	for _, key := range []string{"containers", "initContainers"} {
		for _, c := range asList(spec[key]) {
			co := c.(obj)
			if chance(r, 0.3) {
				co["livenessProbe"] = probe(r)
			}
			if chance(r, 0.2) {
				co["readinessProbe"] = probe(r)
			}
			if chance(r, 0.1) {
				co["lifecycle"] = obj{"preStop": obj{"httpGet": obj{"port": float64(80)}}}
			}
			if chance(r, 0.2) {
				co["env"] = append(asList(co["env"]), obj{"name": "NODE", "valueFrom": obj{"fieldRef": obj{"fieldPath": "spec.nodeName"}}})
			}
			if chance(r, 0.15) {
				co["image"] = pick(r, []string{"nginx", "nginx:latest", "", "repo/app@sha256:" + fmt.Sprintf("%064d", 0)})
			}
		}
	}
	if chance(r, 0.3) {
		spec["updateStrategy"] = obj{"type": pick(r, []string{"RollingUpdate", "NotUpdate", ""}),
			"maxUnavailable": pick2(r, float64(r.Intn(3)), "20%")}
	}
	if chance(r, 0.2) {
		spec["revisionHistoryLimit"] = float64(r.Intn(20))
	}
	if chance(r, 0.3) {
		var vs list
		for _, v := range asList(spec["volumes"]) {
			vo := v.(obj)
			switch r.Intn(4) {
			case 0:
				delete(vo, "emptyDir")
				delete(vo, "configMap")
				delete(vo, "secret")
				delete(vo, "hostPath")
			case 1:
				vo["downwardAPI"] = obj{"items": list{obj{"path": "labels", "fieldRef": obj{"fieldPath": "metadata.labels"}}}}
				delete(vo, "emptyDir")
				delete(vo, "configMap")
				delete(vo, "secret")
				delete(vo, "hostPath")
			}
			vs = append(vs, vo)
		}
		spec["volumes"] = vs
	}
	if version == "v1alpha1" && chance(r, 0.3) {
		spec["namespace"] = pick(r, namespaces)
	}
	if version == "v1beta1" && chance(r, 0.1) {
		spec["customVersion"] = "v2"
	}
	if version == "v1alpha1" && chance(r, 0.1) {
		ss["metadata"].(obj)["labels"] = obj{"apps.kruise.io/sidecarset-custom-version": "v2"}
	}
	return ss
}

// defaulted runs upstream's own SidecarSet defaults, as the mutating webhook would have before
// the validating one sees the object.
func defaulted(ss obj) obj {
	data, _ := json.Marshal(ss)
	var out []byte
	if ss["apiVersion"] == "apps.kruise.io/v1alpha1" {
		var t appsv1alpha1.SidecarSet
		if json.Unmarshal(data, &t) != nil {
			return ss
		}
		defaults.SetDefaultsSidecarSet(&t)
		out, _ = json.Marshal(&t)
	} else {
		var t appsv1beta1.SidecarSet
		if json.Unmarshal(data, &t) != nil {
			return ss
		}
		defaults.SetDefaultsSidecarSetV1beta1(&t)
		out, _ = json.Marshal(&t)
	}
	var m obj
	_ = json.Unmarshal(out, &m)
	return m
}

func sidecarSetRequest(r *rand.Rand, ss, old obj, op string) map[string]interface{} {
	version := "v1beta1"
	if av, _ := ss["apiVersion"].(string); av == "apps.kruise.io/v1alpha1" {
		version = "v1alpha1"
	}
	if chance(r, 0.02) {
		version = "v2"
	}
	name, _ := get(ss, "metadata", "name").(string)
	var object, oldObject interface{} = ss, nil
	if old != nil {
		oldObject = old
	}
	if op == "DELETE" {
		object, oldObject = nil, ss
	}
	return admissionRequest(r, "apps.kruise.io", version, "SidecarSet", "sidecarsets", "", op, "", name, object, oldObject)
}

func genSidecarSetMutate(r *rand.Rand, i int) testCase {
	version := pick(r, []string{"v1alpha1", "v1beta1", "v1beta1"})
	ss := rawSidecarSet(r, pick(r, []string{"log", "mesh", "sidecar-1"}), version)
	if chance(r, 0.15) {
		ss = defaulted(ss) // already defaulted: maybe nothing to patch
	}
	op := "CREATE"
	switch x := r.Intn(20); {
	case x < 5:
		op = "UPDATE"
	case x == 5:
		op = "DELETE" // not in upstream's configuration, but answered
	}
	var old obj
	if op == "UPDATE" {
		old = rawSidecarSet(r, ss["metadata"].(obj)["name"].(string), version)
	}
	return testCase{Requests: []map[string]interface{}{sidecarSetRequest(r, ss, old, op)}}
}

// breakSidecarSet applies one of the mistakes validation catches (or none).
func breakSidecarSet(r *rand.Rand, ss obj, world []map[string]interface{}) obj {
	md := ss["metadata"].(obj)
	spec := ss["spec"].(obj)
	cs := asList(spec["containers"])
	first := func() obj {
		if len(cs) == 0 {
			return obj{}
		}
		return cs[0].(obj)
	}
	switch r.Intn(34) {
	case 0:
		md["name"] = pick(r, []string{"Bad_Name", "a.b", fmt.Sprintf("%070d", 1)})
	case 1:
		md["namespace"] = "default"
	case 2:
		delete(spec, "selector")
	case 3:
		spec["selector"] = obj{}
	case 4:
		spec["selector"] = obj{"matchExpressions": list{obj{"key": "app", "operator": pick(r, []string{"Equals", "In", "Exists"}), "values": list{}}}}
	case 5:
		spec["namespaceSelector"] = obj{"matchLabels": obj{"bad key!": "x"}}
	case 6:
		spec["injectionStrategy"] = obj{"revision": obj{"policy": pick(r, []string{"Always", "Sometimes"})}}
	case 7:
		spec["injectionStrategy"] = obj{"revision": obj{"revisionName": "missing-rev", "policy": "Always"}}
	case 8:
		spec["updateStrategy"] = obj{"type": "RollingUpdate", "partition": pick2(r, float64(2), "10%"), "selector": obj{"matchLabels": obj{"app": "web"}}, "maxUnavailable": float64(1)}
	case 9:
		spec["updateStrategy"] = obj{"type": "RollingUpdate", "partition": pick2(r, float64(-1), "abc"), "maxUnavailable": pick2(r, "150%", "1.5%")}
	case 10:
		spec["updateStrategy"] = obj{"type": "RollingUpdate", "maxUnavailable": float64(1), "partition": float64(0),
			"priorityStrategy": obj{"weightPriority": list{obj{"weight": float64(r.Intn(150)), "matchSelector": obj{"matchLabels": obj{"a": "b"}}}},
				"orderPriority": pick2(r, list{obj{"orderedKey": "k"}}, nil)}}
	case 11:
		spec["updateStrategy"] = obj{"type": "RollingUpdate", "maxUnavailable": float64(1), "partition": float64(0),
			"scatterStrategy": list{obj{"key": "k", "value": "v"}, obj{"key": pick(r, []string{"k", ""}), "value": "v"}}}
	case 12:
		delete(spec, "containers")
		delete(spec, "initContainers")
	case 13:
		spec["initContainers"] = list{obj{"name": "init-x", "image": "busybox", "resourcesPolicy": obj{"targetContainersNameRegex": ".*", "resourcesExpr": obj{"limits": obj{"cpu": "cpu"}}}}}
	case 14:
		first()["podInjectPolicy"] = pick(r, []string{"Middle", "before"})
	case 15:
		first()["shareVolumePolicy"] = obj{"type": "sometimes"}
	case 16:
		first()["transferEnv"] = list{obj{"sourceContainerNameFrom": obj{"fieldRef": obj{"fieldPath": pick(r, []string{"metadata.name", "metadata.labels['x']", "metadata.annotations['bad key!']", ""})}}, "envName": "A"}}
	case 17:
		c := first()
		c["resources"] = obj{"limits": obj{"cpu": "1"}}
		c["resourcesPolicy"] = obj{"targetContainersNameRegex": ".*", "resourcesExpr": obj{"limits": obj{"cpu": "cpu"}}}
	case 18:
		c := first()
		delete(c, "resources")
		c["resourcesPolicy"] = obj{"targetContainersNameRegex": pick(r, []string{"", "(", "[a-", "a{1001}", `\p{Nope}`, "^main$"}),
			"resourcesExpr": pick2(r, obj{}, obj{"requests": obj{"cpu": pick(r, []string{"cpu*", "max(cpu", "cpu*50%", "2*(cpu+1"})}})}
	case 19:
		first()["image"] = ""
	case 20:
		first()["volumeMounts"] = list{obj{"name": "not-a-volume", "mountPath": "/x"}}
	case 21:
		if len(cs) > 0 {
			spec["containers"] = append(cs, cs[0])
		}
	case 22:
		first()["name"] = pick(r, []string{"Bad_Name", "x.y"})
	case 23:
		md["annotations"] = obj{"apps.kruise.io/sidecarset-canary": "true", "apps.kruise.io/sidecarset-base": pick(r, []string{md["name"].(string), "missing-base", "alpha"})}
		if chance(r, 0.5) {
			spec["updateStrategy"] = obj{"type": "NotUpdate"}
		}
	case 24:
		spec["patchPodMetadata"] = list{obj{"annotations": obj{}, "patchPolicy": "Retain"}}
	case 25:
		spec["patchPodMetadata"] = list{obj{"annotations": obj{"k": "v"}, "patchPolicy": "Retain"}, obj{"annotations": obj{"k": "w"}, "patchPolicy": pick(r, []string{"Overwrite", ""})}}
	case 26:
		spec["patchPodMetadata"] = list{obj{"annotations": obj{pick(r, []string{"sidecar.io/config", "other.io/x", "bad key!"}): "v"}, "patchPolicy": pick(r, []string{"Overwrite", "MergePatchJson", "Retain"})}}
	case 27:
		spec["initContainers"] = list{obj{"name": "native", "image": "busybox", "restartPolicy": "Always"}}
		spec["updateStrategy"] = obj{"type": pick(r, []string{"RollingUpdate", "NotUpdate"}), "maxUnavailable": float64(1), "partition": float64(0)}
	case 28:
		spec["volumes"] = list{obj{"name": "data"}}
	case 29:
		first()["imagePullPolicy"] = "Sometimes"
	case 30:
		md["labels"] = obj{"bad label!": "x"}
	}
	return ss
}

// repairSidecarSet makes a generated SidecarSet pass validation as far as generation allows: a
// selector that is not empty, a container, and a volume for every mount.
func repairSidecarSet(r *rand.Rand, ss obj) {
	spec := ss["spec"].(obj)
	if sel := asMap(spec["selector"]); len(sel) == 0 {
		spec["selector"] = obj{"matchLabels": obj{"app": pick(r, []string{"web", "db"})}}
	}
	if len(asList(spec["containers"])) == 0 && len(asList(spec["initContainers"])) == 0 {
		spec["containers"] = list{sidecarContainer(r, "log-agent", false)}
	}
	have := map[string]bool{}
	for _, v := range asList(spec["volumes"]) {
		have[asMap(v)["name"].(string)] = true
	}
	for _, key := range []string{"containers", "initContainers"} {
		for _, c := range asList(spec[key]) {
			for _, m := range asList(asMap(c)["volumeMounts"]) {
				n, _ := asMap(m)["name"].(string)
				if !have[n] {
					spec["volumes"] = append(asList(spec["volumes"]), volume(r, n))
					have[n] = true
				}
			}
		}
	}
}

func genSidecarSetValidate(r *rand.Rand, i int) testCase {
	world := namespaceWorld(r)
	names := []string{"alpha", "log", "mesh"}
	for n := r.Intn(3); n > 0; n-- {
		o := defaulted(rawSidecarSet(r, names[n-1], "v1beta1"))
		if n == 1 && chance(r, 0.2) {
			o["metadata"].(obj)["annotations"] = obj{"apps.kruise.io/sidecarset-canary": "true", "apps.kruise.io/sidecarset-base": "log"}
		}
		world = append(world, o)
	}
	if chance(r, 0.6) {
		rules := pick(r, []string{
			`{"rules":[{"allowedAnnotationKeyExprs":["^sidecar\\.io/.*$"]}]}`,
			`{"rules":[{"selector":{"matchLabels":{"app":"web"}},"allowedAnnotationKeyExprs":[".*"]}]}`,
			`{"rules":[{"allowedAnnotationKeyExprs":["("]}]}`,
			`{"rules":`,
			`{"rules":[]}`,
		})
		world = append(world, obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": "kruise-configuration", "namespace": kruiseNS},
			"data": obj{"SidecarSet_PatchPodMetadata_WhiteList": rules}})
	}
	version := pick(r, []string{"v1beta1", "v1beta1", "v1alpha1"})
	name := pick(r, []string{"new-set", "alpha", "log", "mesh-2"})
	ss := rawSidecarSet(r, name, version)
	if chance(r, 0.8) {
		repairSidecarSet(r, ss)
	}
	if chance(r, 0.85) {
		ss = defaulted(ss)
	}
	if chance(r, 0.1) {
		ss["spec"].(obj)["injectionStrategy"] = obj{"revision": obj{"customVersion": "v1", "policy": "Always"}}
		world = append(world, controllerRevision(r, ss, name+"-rev", "v1"))
	}
	if chance(r, 0.5) {
		ss = breakSidecarSet(r, ss, world)
	}
	op := "CREATE"
	var old obj
	if chance(r, 0.25) {
		op = "UPDATE"
		data, _ := json.Marshal(ss)
		_ = json.Unmarshal(data, &old)
		if cs := asList(old["spec"].(obj)["containers"]); len(cs) > 0 && chance(r, 0.6) {
			switch r.Intn(3) {
			case 0: // the new object adds a container the old one lacked
				old["spec"].(obj)["containers"] = cs[:len(cs)-1]
			case 1:
				cs[0].(obj)["upgradeStrategy"] = obj{"upgradeType": pick(r, []string{"HotUpgrade", "ColdUpgrade"})}
			default:
				old["metadata"].(obj)["annotations"] = obj{"apps.kruise.io/sidecarset-canary": "true", "apps.kruise.io/sidecarset-base": "other"}
			}
		}
	}
	return testCase{World: world, Requests: []map[string]interface{}{sidecarSetRequest(r, ss, old, op)}}
}
