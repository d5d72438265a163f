package main

import (
	"encoding/json"
	"fmt"
	"math/rand"

	"github.com/openkruise/kruise/apis/apps/defaults"
	appsv1alpha1 "github.com/openkruise/kruise/apis/apps/v1alpha1"
	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
)

// The workloads: CloneSet, Advanced StatefulSet, Advanced DaemonSet and UnitedDeployment, each
// defaulted (/mutate-apps-kruise-io-<kind>) and validated (/validate-apps-kruise-io-<kind>) in
// both versions. Objects are plausible (a Pod template of every shape defaulting touches,
// claim templates, strategies with valid and invalid values); updates start from an object as
// upstream's defaulting stored it and change one thing; a few requests carry what the API server
// never sends (nulls, unknown members, other versions, no object).

func init() {
	for _, k := range workloadKinds {
		k := k
		register(generator{name: k.short + "-mutate", area: "workloads", path: "/mutate-apps-kruise-io-" + k.path,
			gen: func(r *rand.Rand, i int) testCase { return genWorkloadMutate(r, k) }})
		register(generator{name: k.short + "-validate", area: "workloads", path: "/validate-apps-kruise-io-" + k.path,
			gen: func(r *rand.Rand, i int) testCase { return genWorkloadValidate(r, k) }})
	}
}

type workloadKind struct {
	kind, resource, path, short string
}

var workloadKinds = []workloadKind{
	{"CloneSet", "clonesets", "cloneset", "cloneset"},
	{"StatefulSet", "statefulsets", "statefulset", "asts"},
	{"DaemonSet", "daemonsets", "daemonset", "ads"},
	{"UnitedDeployment", "uniteddeployments", "uniteddeployment", "ud"},
}

// --- Pod templates -------------------------------------------------------------------------

// workloadQuantity is a quantity of a workload template that the defaults rewrite or keep as it
// is written (oddQuantity, of gen_shapes.go, is the Pod generators' own).
func workloadQuantity(r *rand.Rand) interface{} {
	switch r.Intn(12) {
	case 0:
		return "1500000n" // rounded up to 2m by the defaults
	case 1:
		return "1000000n" // 1m exactly: only its representation changes
	case 2:
		return "100u"
	case 3:
		return float64(1)
	case 4:
		return "0.5"
	case 5:
		return "1000m"
	case 6:
		return "2Gi"
	case 7:
		return "1e3"
	default:
		return quantity(r, r.Intn(2) == 0)
	}
}

func templateContainer(r *rand.Rand, name string) obj {
	c := container(r, name)
	if chance(r, 0.3) {
		c["livenessProbe"] = probe(r)
	}
	if chance(r, 0.2) {
		c["readinessProbe"] = probe(r)
	}
	if chance(r, 0.1) {
		c["startupProbe"] = probe(r)
	}
	if chance(r, 0.1) {
		c["lifecycle"] = obj{"postStart": obj{"httpGet": obj{"port": float64(80)}}, "preStop": obj{"exec": obj{"command": list{"sleep", "5"}}}}
	}
	if chance(r, 0.15) {
		c["resources"] = obj{pick(r, []string{"limits", "requests"}): obj{"cpu": workloadQuantity(r), "memory": workloadQuantity(r)}}
	}
	if chance(r, 0.05) {
		c["image"] = pick(r, []string{"nginx:latest", "", "repo/app@sha256:" + fmt.Sprintf("%064d", 1)})
	}
	if chance(r, 0.05) {
		c["terminationMessagePolicy"] = "FallbackToLogsOnError"
	}
	if chance(r, 0.03) {
		c["name"] = "Bad_Name"
	}
	return c
}

// podTemplate makes a Pod template whose labels carry app.
func podTemplate(r *rand.Rand, app string) obj {
	spec := podSpec(r)
	cs := list{}
	for _, n := range distinctNames(r, containerNms, 1+r.Intn(2)) {
		cs = append(cs, templateContainer(r, n))
	}
	spec["containers"] = cs
	if chance(r, 0.1) {
		spec["hostNetwork"] = true
		cs[0].(obj)["ports"] = list{obj{"containerPort": float64(8080)}}
	}
	if chance(r, 0.15) {
		spec["readinessGates"] = list{obj{"conditionType": pick(r, []string{"InPlaceUpdateReady", "other"})}}
	}
	if chance(r, 0.1) {
		spec["restartPolicy"] = pick(r, []string{"Always", "Never", "OnFailure", ""})
	}
	if chance(r, 0.05) {
		spec["activeDeadlineSeconds"] = float64(30)
	}
	if chance(r, 0.1) {
		spec["dnsPolicy"] = pick(r, []string{"Default", "ClusterFirstWithHostNet", "Bad"})
	}
	if chance(r, 0.1) {
		spec["volumes"] = append(asList(spec["volumes"]),
			obj{"name": "dapi", "downwardAPI": obj{"items": list{obj{"path": "labels", "fieldRef": obj{"fieldPath": "metadata.labels"}}}}},
			obj{"name": "proj", "projected": obj{"sources": list{obj{"serviceAccountToken": obj{"path": "token"}}}}})
	}
	if chance(r, 0.05) {
		spec["terminationGracePeriodSeconds"] = nil
	}
	if chance(r, 0.05) {
		spec["securityContext"] = obj{"runAsUser": float64(1000)}
	}
	md := obj{"labels": obj{"app": app}}
	if chance(r, 0.1) {
		md["labels"].(obj)["tier"] = pick(r, labelValues)
	}
	if chance(r, 0.1) {
		md["annotations"] = obj{"example.com/note": "x"}
	}
	return obj{"metadata": md, "spec": spec}
}

func claimTemplates(r *rand.Rand) list {
	var out list
	for _, n := range distinctNames(r, []string{"data", "logs", "cache"}, r.Intn(3)) {
		c := obj{"metadata": obj{"name": n}, "spec": obj{"accessModes": list{pick(r, []string{"ReadWriteOnce", "ReadWriteMany"})},
			"resources": obj{"requests": obj{"storage": pick(r, []string{"1Gi", "10Gi", "500Mi", "1000000n"})}}}}
		if chance(r, 0.3) {
			c["spec"].(obj)["storageClassName"] = pick(r, []string{"standard", "fast"})
		}
		if chance(r, 0.1) {
			c["status"] = obj{"phase": "Bound"}
		}
		out = append(out, c)
	}
	return out
}

func wlIntOrPercent(r *rand.Rand) interface{} {
	switch r.Intn(8) {
	case 0:
		return float64(0)
	case 1:
		return float64(1 + r.Intn(3))
	case 2:
		return "20%"
	case 3:
		return pick(r, []string{"0%", "100%", "150%", "50%"})
	case 4:
		return pick(r, []string{"x", "1.5%", "5", "abc%", "-1", "2e1%"})
	case 5:
		return float64(-1)
	default:
		return float64(r.Intn(2))
	}
}

// --- objects of each kind ------------------------------------------------------------------

func workloadMeta(r *rand.Rand, k workloadKind) obj {
	m := obj{"name": pick(r, []string{"web", "db", "web-2"}), "namespace": "default", "uid": "11111111-2222-3333-4444-555555555555"}
	if chance(r, 0.03) {
		m["name"] = pick(r, []string{"Bad_Name", "a.b", fmt.Sprintf("%070d", 1)})
	}
	if chance(r, 0.03) {
		delete(m, "namespace")
	}
	if chance(r, 0.1) {
		m["labels"] = obj{"app": "web"}
	}
	return m
}

func workloadSelector(r *rand.Rand, app string) interface{} {
	switch r.Intn(20) {
	case 0:
		return nil
	case 1:
		return obj{}
	case 2:
		return obj{"matchLabels": obj{"app": "other"}}
	case 3:
		return obj{"matchExpressions": list{obj{"key": "app", "operator": pick(r, []string{"In", "Equals"}), "values": list{app}}}}
	case 4:
		return obj{"matchLabels": obj{"bad key!": app}}
	default:
		return obj{"matchLabels": obj{"app": app}}
	}
}

// put sets v's member key when v is an object; a hostile case's null or scalar element is left
// as it is (writing into it would panic: assignment to entry in nil map).
func put(v interface{}, key string, val interface{}) {
	if m := asMap(v); m != nil {
		m[key] = val
	}
}

func setMaybe(r *rand.Rand, m obj, key string, p float64, v func() interface{}) {
	if chance(r, p) {
		m[key] = v()
	}
}

func rawCloneSet(r *rand.Rand, alpha bool) obj {
	app := pick(r, labelValues[:4])
	spec := obj{"selector": workloadSelector(r, app), "template": podTemplate(r, app)}
	setMaybe(r, spec, "replicas", 0.7, func() interface{} { return float64(r.Intn(5) - r.Intn(2)) })
	setMaybe(r, spec, "volumeClaimTemplates", 0.3, func() interface{} { return claimTemplates(r) })
	setMaybe(r, spec, "revisionHistoryLimit", 0.2, func() interface{} { return float64(r.Intn(20)) })
	setMaybe(r, spec, "minReadySeconds", 0.2, func() interface{} { return float64(r.Intn(10)) })
	setMaybe(r, spec, "scaleStrategy", 0.2, func() interface{} {
		return obj{"podsToDelete": list{pick(r, []string{"web-0", "web-1", "gone"}), pick(r, []string{"web-0", "web-2"})}}
	})
	setMaybe(r, spec, "lifecycle", 0.1, func() interface{} {
		return obj{"preDelete": obj{"finalizersHandler": list{"example.com/hold"}}}
	})
	us := obj{}
	if alpha {
		setMaybe(r, spec, "progressDeadlineSeconds", 0.15, func() interface{} { return float64(r.Intn(20) - 2) })
		setMaybe(r, us, "type", 0.7, func() interface{} {
			return pick(r, []string{"ReCreate", "InPlaceIfPossible", "InPlaceOnly", "RollingUpdate", ""})
		})
		setMaybe(r, us, "partition", 0.4, func() interface{} { return wlIntOrPercent(r) })
		setMaybe(r, us, "maxUnavailable", 0.4, func() interface{} { return wlIntOrPercent(r) })
		setMaybe(r, us, "maxSurge", 0.3, func() interface{} { return wlIntOrPercent(r) })
		setMaybe(r, us, "priorityStrategy", 0.1, func() interface{} {
			return obj{"weightPriority": list{obj{"weight": float64(r.Intn(150)), "matchSelector": obj{"matchLabels": obj{"a": "b"}}}}}
		})
		setMaybe(r, us, "scatterStrategy", 0.1, func() interface{} {
			return list{obj{"key": "k", "value": "v"}, obj{"key": pick(r, []string{"k", ""}), "value": "v"}}
		})
	} else {
		setMaybe(r, us, "type", 0.7, func() interface{} { return pick(r, []string{"RollingUpdate", "OnDelete", "ReCreate", ""}) })
		if chance(r, 0.7) {
			ru := obj{}
			setMaybe(r, ru, "podUpdatePolicy", 0.6, func() interface{} {
				return pick(r, []string{"ReCreate", "InPlaceIfPossible", "InPlaceOnly", "Other"})
			})
			setMaybe(r, ru, "partition", 0.4, func() interface{} { return wlIntOrPercent(r) })
			setMaybe(r, ru, "maxUnavailable", 0.4, func() interface{} { return wlIntOrPercent(r) })
			setMaybe(r, ru, "maxSurge", 0.3, func() interface{} { return wlIntOrPercent(r) })
			setMaybe(r, ru, "inPlaceUpdateStrategy", 0.15, func() interface{} {
				return obj{"gracePeriodSeconds": float64(r.Intn(5)), "imagePreDownloadParallelism": pick2(r, wlIntOrPercent(r), pick(r, []string{"3", "x", "-2", "10%"})),
					"imagePreDownloadTimeoutSeconds": float64(r.Intn(5) - 1)}
			})
			setMaybe(r, ru, "scatterStrategy", 0.05, func() interface{} { return list{obj{"key": "", "value": "v"}} })
			us["rollingUpdate"] = ru
		}
	}
	if len(us) > 0 || chance(r, 0.1) {
		spec["updateStrategy"] = us
	}
	return obj{"apiVersion": "apps.kruise.io/" + map[bool]string{true: "v1alpha1", false: "v1beta1"}[alpha], "kind": "CloneSet",
		"metadata": nil, "spec": spec}
}

func stsRollingUpdate(r *rand.Rand) obj {
	ru := obj{}
	setMaybe(r, ru, "partition", 0.4, func() interface{} { return float64(r.Intn(4) - 1) })
	setMaybe(r, ru, "maxUnavailable", 0.4, func() interface{} { return wlIntOrPercent(r) })
	setMaybe(r, ru, "podUpdatePolicy", 0.4, func() interface{} { return pick(r, []string{"ReCreate", "InPlaceIfPossible", "InPlaceOnly", "Bad"}) })
	setMaybe(r, ru, "minReadySeconds", 0.2, func() interface{} { return pick2(r, float64(r.Intn(10)), float64(400)) })
	setMaybe(r, ru, "paused", 0.1, func() interface{} { return true })
	setMaybe(r, ru, "unorderedUpdate", 0.1, func() interface{} {
		return obj{"priorityStrategy": obj{"orderPriority": list{obj{"orderedKey": pick(r, []string{"k", ""})}}}}
	})
	return ru
}

func rawStatefulSet(r *rand.Rand, alpha bool) obj {
	app := pick(r, labelValues[:4])
	spec := obj{"selector": workloadSelector(r, app), "template": podTemplate(r, app)}
	setMaybe(r, spec, "replicas", 0.7, func() interface{} { return float64(r.Intn(5) - r.Intn(2)) })
	setMaybe(r, spec, "serviceName", 0.5, func() interface{} { return "svc" })
	setMaybe(r, spec, "podManagementPolicy", 0.4, func() interface{} { return pick(r, []string{"OrderedReady", "Parallel", "Bad"}) })
	setMaybe(r, spec, "volumeClaimTemplates", 0.3, func() interface{} { return claimTemplates(r) })
	setMaybe(r, spec, "revisionHistoryLimit", 0.2, func() interface{} { return float64(r.Intn(20)) })
	us := obj{}
	setMaybe(r, us, "type", 0.6, func() interface{} { return pick(r, []string{"RollingUpdate", "OnDelete", "Bad", ""}) })
	setMaybe(r, us, "rollingUpdate", 0.5, func() interface{} { return stsRollingUpdate(r) })
	if len(us) > 0 {
		spec["updateStrategy"] = us
	}
	if !alpha {
		setMaybe(r, spec, "reserveOrdinals", 0.15, func() interface{} {
			return list{float64(r.Intn(3) - 1), pick(r, []string{"3-5", "5-3", "x", "1-2-3", "07-9"})}
		})
		setMaybe(r, spec, "scaleStrategy", 0.1, func() interface{} { return obj{"maxUnavailable": wlIntOrPercent(r)} })
		setMaybe(r, spec, "persistentVolumeClaimRetentionPolicy", 0.2, func() interface{} {
			return obj{"whenDeleted": pick(r, []string{"Retain", "Delete", "Bad"}), "whenScaled": pick(r, []string{"Retain", "", "Delete"})}
		})
		setMaybe(r, spec, "volumeClaimUpdateStrategy", 0.1, func() interface{} {
			return obj{"type": pick(r, []string{"OnDelete", "OnPodRollingUpdate"})}
		})
		setMaybe(r, spec, "ordinals", 0.05, func() interface{} { return obj{"start": float64(r.Intn(3))} })
		setMaybe(r, spec, "lifecycle", 0.05, func() interface{} { return obj{"preDelete": obj{"markPodNotReady": true}} })
	}
	return obj{"apiVersion": "apps.kruise.io/" + map[bool]string{true: "v1alpha1", false: "v1beta1"}[alpha], "kind": "StatefulSet",
		"metadata": nil, "spec": spec}
}

func rawDaemonSet(r *rand.Rand, alpha bool) obj {
	app := pick(r, labelValues[:4])
	spec := obj{"selector": workloadSelector(r, app), "template": podTemplate(r, app)}
	setMaybe(r, spec, "burstReplicas", 0.2, func() interface{} { return wlIntOrPercent(r) })
	setMaybe(r, spec, "minReadySeconds", 0.2, func() interface{} { return float64(r.Intn(5) - 1) })
	setMaybe(r, spec, "revisionHistoryLimit", 0.2, func() interface{} { return float64(r.Intn(20) - 2) })
	setMaybe(r, spec, "lifecycle", 0.05, func() interface{} {
		return obj{pick(r, []string{"preDelete", "inPlaceUpdate"}): obj{"markPodNotReady": true}}
	})
	us := obj{}
	setMaybe(r, us, "type", 0.7, func() interface{} { return pick(r, []string{"RollingUpdate", "OnDelete", "Bad", ""}) })
	if chance(r, 0.6) {
		ru := obj{}
		types := []string{"Standard", "InPlaceIfPossible", "Bad", ""}
		if alpha {
			types = append(types, "Surging")
		}
		setMaybe(r, ru, "rollingUpdateType", 0.5, func() interface{} { return pick(r, types) })
		setMaybe(r, ru, "maxUnavailable", 0.4, func() interface{} { return wlIntOrPercent(r) })
		setMaybe(r, ru, "maxSurge", 0.4, func() interface{} { return wlIntOrPercent(r) })
		setMaybe(r, ru, "partition", 0.2, func() interface{} { return wlIntOrPercent(r) })
		setMaybe(r, ru, "paused", 0.1, func() interface{} { return true })
		us["rollingUpdate"] = ru
	}
	if len(us) > 0 {
		spec["updateStrategy"] = us
	}
	return obj{"apiVersion": "apps.kruise.io/" + map[bool]string{true: "v1alpha1", false: "v1beta1"}[alpha], "kind": "DaemonSet",
		"metadata": nil, "spec": spec}
}

func udSubsets(r *rand.Rand) list {
	var out list
	names := distinctNames(r, []string{"subset-a", "subset-b", "subset-c"}, 1+r.Intn(3))
	mode := r.Intn(4) // 0: replicas, 1: capacities, 2: none, 3: mixed
	for i, n := range names {
		s := obj{"name": n}
		if chance(r, 0.03) {
			s["name"] = pick(r, []string{"", "Bad_Name", names[0]})
		}
		if chance(r, 0.5) {
			s["nodeSelectorTerm"] = obj{"matchExpressions": list{obj{"key": "zone", "operator": pick(r, []string{"In", "Exists", "Bad"}), "values": list{n}}}}
		}
		if chance(r, 0.2) {
			s["tolerations"] = list{obj{"key": "dedicated", "operator": pick(r, []string{"Exists", "Equal"}), "effect": "NoSchedule"}}
		}
		switch {
		case mode == 0 || (mode == 3 && i == 0):
			s["replicas"] = pick2(r, float64(r.Intn(4)-r.Intn(2)), pick(r, []string{"50%", "x", "150%", "30"}))
		case mode == 1 || mode == 3:
			if chance(r, 0.6) {
				s["minReplicas"] = pick2(r, float64(r.Intn(3)), "10%")
			}
			if chance(r, 0.6) {
				s["maxReplicas"] = pick2(r, float64(r.Intn(4)), "50%")
			}
		}
		if chance(r, 0.1) {
			s["patch"] = obj{"metadata": obj{"labels": obj{"zone": n}}}
		}
		out = append(out, s)
	}
	return out
}

func rawUnitedDeployment(r *rand.Rand, alpha bool) obj {
	app := pick(r, labelValues[:4])
	tmeta := obj{"labels": obj{"app": app}}
	if chance(r, 0.1) {
		tmeta = obj{"labels": obj{"app": "other"}}
	}
	tmpl := obj{}
	kinds := []string{"statefulSetTemplate", "advancedStatefulSetTemplate", "cloneSetTemplate", "deploymentTemplate"}
	n := 1
	if chance(r, 0.05) {
		n = r.Intn(3) * 1 // none or two
	}
	for _, kind := range distinctNames(r, kinds, n) {
		ws := obj{"template": podTemplate(r, app)}
		if kind == "statefulSetTemplate" || kind == "advancedStatefulSetTemplate" {
			setMaybe(r, ws, "updateStrategy", 0.3, func() interface{} {
				return obj{"type": pick(r, []string{"RollingUpdate", "OnDelete", "Bad"}), "rollingUpdate": stsRollingUpdate(r)}
			})
			setMaybe(r, ws, "podManagementPolicy", 0.2, func() interface{} { return pick(r, []string{"OrderedReady", "Parallel", "Bad"}) })
			setMaybe(r, ws, "volumeClaimTemplates", 0.2, func() interface{} { return claimTemplates(r) })
			setMaybe(r, ws, "serviceName", 0.3, func() interface{} { return "svc" })
		}
		if kind == "cloneSetTemplate" {
			setMaybe(r, ws, "updateStrategy", 0.3, func() interface{} { return obj{"partition": float64(1)} })
		}
		setMaybe(r, ws, "replicas", 0.1, func() interface{} { return float64(r.Intn(3) - 1) })
		if kind != "cloneSetTemplate" || !alpha {
			tmpl[kind] = obj{"metadata": deepCopyObj(tmeta), "spec": ws}
		}
	}
	spec := obj{"selector": workloadSelector(r, app), "template": tmpl, "topology": obj{"subsets": udSubsets(r)}}
	setMaybe(r, spec, "replicas", 0.7, func() interface{} { return float64(r.Intn(8) - r.Intn(2)) })
	setMaybe(r, spec, "revisionHistoryLimit", 0.2, func() interface{} { return float64(r.Intn(20)) })
	setMaybe(r, spec, "updateStrategy", 0.3, func() interface{} {
		us := obj{"type": pick(r, []string{"Manual", "", "Bad"})}
		if chance(r, 0.5) {
			us["manualUpdate"] = obj{"partitions": obj{pick(r, []string{"subset-a", "subset-x"}): float64(r.Intn(3))}}
		}
		return us
	})
	if chance(r, 0.15) {
		ss := obj{"type": pick(r, []string{"Adaptive", "Fixed", ""})}
		if chance(r, 0.5) {
			ss["adaptive"] = obj{"reserveUnschedulablePods": chance(r, 0.5), "rescheduleCriticalSeconds": float64(30)}
		}
		spec["topology"].(obj)["scheduleStrategy"] = ss
	}
	return obj{"apiVersion": "apps.kruise.io/" + map[bool]string{true: "v1alpha1", false: "v1beta1"}[alpha], "kind": "UnitedDeployment",
		"metadata": nil, "spec": spec}
}

func rawWorkload(r *rand.Rand, k workloadKind, alpha bool) obj {
	var o obj
	switch k.kind {
	case "CloneSet":
		o = rawCloneSet(r, alpha)
	case "StatefulSet":
		o = rawStatefulSet(r, alpha)
	case "DaemonSet":
		o = rawDaemonSet(r, alpha)
	default:
		o = rawUnitedDeployment(r, alpha)
	}
	o["metadata"] = workloadMeta(r, k)
	return o
}

// defaultedWorkload is o as upstream's defaulting would have stored it.
func defaultedWorkload(o obj, k workloadKind) obj {
	data, _ := json.Marshal(o)
	alpha := o["apiVersion"] == "apps.kruise.io/v1alpha1"
	var out []byte
	var err error
	switch {
	case k.kind == "CloneSet" && alpha:
		var t appsv1alpha1.CloneSet
		if err = json.Unmarshal(data, &t); err == nil {
			defaults.SetDefaultsCloneSet(&t, true)
			out, err = json.Marshal(&t)
		}
	case k.kind == "CloneSet":
		var t appsv1beta1.CloneSet
		if err = json.Unmarshal(data, &t); err == nil {
			defaults.SetDefaultsCloneSetV1beta1(&t, true)
			out, err = json.Marshal(&t)
		}
	case k.kind == "StatefulSet" && alpha:
		var t appsv1alpha1.StatefulSet
		var b appsv1beta1.StatefulSet
		if err = json.Unmarshal(data, &t); err == nil {
			if err = t.ConvertTo(&b); err == nil {
				defaults.SetDefaultsStatefulSet(&b, true)
				if err = t.ConvertFrom(&b); err == nil {
					out, err = json.Marshal(&t)
				}
			}
		}
	case k.kind == "StatefulSet":
		var t appsv1beta1.StatefulSet
		if err = json.Unmarshal(data, &t); err == nil {
			defaults.SetDefaultsStatefulSet(&t, true)
			out, err = json.Marshal(&t)
		}
	case k.kind == "DaemonSet" && alpha:
		var t appsv1alpha1.DaemonSet
		if err = json.Unmarshal(data, &t); err == nil {
			defaults.SetDefaultsDaemonSet(&t)
			out, err = json.Marshal(&t)
		}
	case k.kind == "DaemonSet":
		var t appsv1beta1.DaemonSet
		if err = json.Unmarshal(data, &t); err == nil {
			defaults.SetDefaultsDaemonSetV1beta1(&t)
			out, err = json.Marshal(&t)
		}
	case alpha:
		var t appsv1alpha1.UnitedDeployment
		if err = json.Unmarshal(data, &t); err == nil {
			defaults.SetDefaultsUnitedDeployment(&t, true)
			out, err = json.Marshal(&t)
		}
	default:
		var t appsv1beta1.UnitedDeployment
		if err = json.Unmarshal(data, &t); err == nil {
			defaults.SetDefaultsUnitedDeploymentV1beta1(&t, true)
			out, err = json.Marshal(&t)
		}
	}
	if err != nil {
		return o
	}
	var m obj
	_ = json.Unmarshal(out, &m)
	return m
}

// --- requests ------------------------------------------------------------------------------

func workloadVersion(r *rand.Rand) (string, bool) {
	switch x := r.Intn(40); {
	case x == 0:
		return "v2", false
	case x < 20:
		return "v1alpha1", true
	default:
		return "v1beta1", false
	}
}

// changeWorkload makes the change an UPDATE carries (or none).
func changeWorkload(r *rand.Rand, o obj, k workloadKind) obj {
	o = deepCopyObj(o)
	spec, _ := o["spec"].(obj)
	if spec == nil {
		return o
	}
	tmpl := asMap(spec["template"])
	if k.kind == "UnitedDeployment" {
		for _, kind := range []string{"statefulSetTemplate", "advancedStatefulSetTemplate", "cloneSetTemplate", "deploymentTemplate"} {
			if t := asMap(get(spec, "template", kind, "spec", "template")); t != nil {
				tmpl = t
			}
		}
	}
	cs := asList(get(tmpl, "spec", "containers"))
	switch r.Intn(14) {
	case 0, 1:
		if len(cs) > 0 {
			put(cs[0], "image", pick(r, images))
		}
	case 2:
		if len(cs) > 0 {
			put(cs[0], "env", append(asList(asMap(cs[0])["env"]), obj{"name": "NEW", "value": "1"}))
		}
	case 3:
		spec["replicas"] = float64(r.Intn(6) - 1)
	case 4:
		spec["selector"] = obj{"matchLabels": obj{"app": "changed"}}
	case 5:
		if tmpl != nil {
			delete(asMap(tmpl["spec"]), "dnsPolicy") // a template without some default
		}
	case 6:
		if k.kind == "StatefulSet" {
			spec["serviceName"] = "other"
		} else if k.kind == "CloneSet" || k.kind == "DaemonSet" {
			spec["minReadySeconds"] = float64(r.Intn(5))
		} else {
			if ss := asList(get(spec, "topology", "subsets")); len(ss) > 0 {
				put(ss[0], "nodeSelectorTerm", obj{"matchExpressions": list{obj{"key": "zone", "operator": "In", "values": list{"z"}}}})
			}
		}
	case 7:
		if ss := asList(get(spec, "topology", "subsets")); len(ss) > 0 {
			put(ss[0], "tolerations", list{obj{"key": "k", "operator": "Exists"}})
		} else if vct := asList(spec["volumeClaimTemplates"]); len(vct) > 0 {
			put(get(asMap(vct[0]), "spec", "resources", "requests"), "storage", "20Gi")
		}
	case 8:
		if vct := asList(spec["volumeClaimTemplates"]); len(vct) > 0 {
			asMap(asMap(vct[0])["spec"])["accessModes"] = list{"ReadOnlyMany"}
		}
	case 9:
		md := asMap(o["metadata"])
		md["resourceVersion"] = "2"
		md["labels"] = obj{"changed": "true"}
	case 10:
		if sts := asMap(get(spec, "template", "statefulSetTemplate", "spec")); sts != nil {
			sts["serviceName"] = "other"
		} else if a := asMap(get(spec, "template", "advancedStatefulSetTemplate", "spec")); a != nil {
			a["podManagementPolicy"] = "Parallel"
		}
	case 11:
		spec["updateStrategy"] = nil
	}
	return o
}

func workloadRequest(r *rand.Rand, k workloadKind, version, op string, object, old obj) map[string]interface{} {
	name, _ := get(object, "metadata", "name").(string)
	if object == nil {
		name, _ = get(old, "metadata", "name").(string)
	}
	var o, oo interface{}
	if object != nil {
		o = object
	}
	if old != nil {
		oo = old
	}
	return admissionRequest(r, "apps.kruise.io", version, k.kind, k.resource, "", op, "default", name, o, oo)
}

// oddities: what the API server never sends, now and then.
func oddities(r *rand.Rand, o obj) obj {
	if o == nil || !chance(r, 0.08) {
		return o
	}
	o = deepCopyObj(o)
	spec := asMap(o["spec"])
	switch r.Intn(6) {
	case 0:
		o["extra"] = "unknown member"
		if spec != nil {
			spec["unknownField"] = float64(1)
		}
	case 1:
		if spec != nil {
			spec["template"] = nil
		}
	case 2:
		o["status"] = obj{"replicas": float64(3), "observedGeneration": float64(2)}
	case 3:
		o["spec"] = nil
	case 4:
		if spec != nil {
			spec["replicas"] = "3" // a decode error
		}
	case 5:
		o["apiVersion"] = pick(r, []string{"apps/v1", "apps.kruise.io/v1beta1", "apps.kruise.io/v1alpha1"})
	}
	return o
}

func workloadGates(r *rand.Rand, k workloadKind) map[string]bool {
	switch r.Intn(12) {
	case 0:
		return map[string]bool{"TemplateNoDefaults": true}
	case 1:
		if k.kind == "StatefulSet" {
			return map[string]bool{"StatefulSetAutoDeletePVC": false, "StatefulSetAutoResizePVCGate": true}
		}
		return map[string]bool{"DefaultHostNetworkHostPortsInPodTemplates": true}
	case 2:
		return map[string]bool{"ResourcesDeletionProtection": true}
	}
	return nil
}

func genWorkloadMutate(r *rand.Rand, k workloadKind) testCase {
	version, alpha := workloadVersion(r)
	raw := rawWorkload(r, k, alpha || version == "v2" && chance(r, 0.5))
	if chance(r, 0.15) {
		raw = defaultedWorkload(raw, k) // already defaulted: maybe nothing to patch
	}
	op := "CREATE"
	var old obj
	switch x := r.Intn(20); {
	case x < 8:
		op = "UPDATE"
		old = defaultedWorkload(raw, k)
		if chance(r, 0.5) {
			raw = changeWorkload(r, old, k)
		}
		if chance(r, 0.2) {
			old = changeWorkload(r, old, k)
		}
	case x == 8:
		op = "DELETE"
	}
	raw, old = oddities(r, raw), oddities(r, old)
	object := raw
	if op == "DELETE" {
		object, old = nil, raw
	}
	req := workloadRequest(r, k, version, op, object, old)
	return testCase{Gates: workloadGates(r, k), Requests: []map[string]interface{}{req}}
}

// podsToDelete's Pods: some this CloneSet's, one another's, one terminating.
func clonesetPods(r *rand.Rand, cs obj) []map[string]interface{} {
	var out []map[string]interface{}
	owner := asMap(cs["metadata"])["uid"]
	for i, n := range []string{"web-0", "web-1", "web-2"} {
		if !chance(r, 0.8) {
			continue
		}
		md := obj{"name": n, "namespace": "default"}
		switch {
		case i == 1 && chance(r, 0.4):
			md["ownerReferences"] = list{obj{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "name": "x", "uid": "another", "controller": true}}
		case i == 2 && chance(r, 0.4):
			md["deletionTimestamp"] = "2026-01-02T00:00:00Z"
			md["finalizers"] = list{"example.com/hold"}
		default:
			md["ownerReferences"] = list{obj{"apiVersion": "apps.kruise.io/v1alpha1", "kind": "CloneSet", "name": "web", "uid": owner, "controller": chance(r, 0.9)}}
		}
		out = append(out, obj{"apiVersion": "v1", "kind": "Pod", "metadata": md,
			"spec": obj{"containers": list{obj{"name": "c", "image": "nginx"}}}})
	}
	return out
}

func storageClasses(r *rand.Rand) []map[string]interface{} {
	var out []map[string]interface{}
	for _, n := range []string{"standard", "fast"} {
		if chance(r, 0.7) {
			sc := obj{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": obj{"name": n}, "provisioner": "example.com/p"}
			if chance(r, 0.5) {
				sc["allowVolumeExpansion"] = chance(r, 0.5)
			}
			if chance(r, 0.3) {
				sc["metadata"].(obj)["annotations"] = obj{"storageclass.kubernetes.io/is-default-class": "true"}
			}
			out = append(out, sc)
		}
	}
	return out
}

func genWorkloadValidate(r *rand.Rand, k workloadKind) testCase {
	version, alpha := workloadVersion(r)
	obj0 := rawWorkload(r, k, alpha || version == "v2" && chance(r, 0.5))
	if chance(r, 0.8) {
		obj0 = defaultedWorkload(obj0, k)
	}
	var world []map[string]interface{}
	if k.kind == "CloneSet" {
		world = clonesetPods(r, obj0)
	}
	if k.kind == "StatefulSet" {
		world = storageClasses(r)
	}
	op := "CREATE"
	var old obj
	switch x := r.Intn(20); {
	case x < 9:
		op = "UPDATE"
		old = obj0
		asMap(old["metadata"])["resourceVersion"] = "1"
		obj0 = changeWorkload(r, old, k)
		if chance(r, 0.7) {
			asMap(obj0["metadata"])["resourceVersion"] = "1"
		}
	case x == 9:
		op = "DELETE"
	case x == 10:
		op = "CONNECT"
	}
	obj0, old = oddities(r, obj0), oddities(r, old)
	object := obj0
	if op == "DELETE" {
		object, old = nil, obj0
	}
	req := workloadRequest(r, k, version, op, object, old)
	return testCase{World: world, Gates: workloadGates(r, k), Requests: []map[string]interface{}{req}}
}
