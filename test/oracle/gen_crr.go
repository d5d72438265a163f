package main

import (
	"fmt"
	"math/rand"
)

// ContainerRecreateRequest defaulting: a CRR against a world that holds its Pod (or not, or in
// another namespace), in every phase, deleting or not, scheduled or not, with the sidecar
// terminator's condition, container statuses with and without IDs, preStop hooks of every kind
// and ports; its Node with or without the virtual-kubelet label, or missing. The CRR names
// containers that exist, do not, repeat, or carry the read-only fields; its strategy and
// deadlines take bad values now and then. Updates change the spec, the immutable labels or the
// unready-acquired annotation, or nothing. The KruiseDaemon gate is off now and then.

func init() {
	register(generator{name: "crr-mutate", area: "containerrecreaterequest", path: "/mutate-apps-kruise-io-containerrecreaterequest", gen: genCRRMutate})
}

const (
	crrPodUIDKey      = "crr.apps.kruise.io/pod-uid"
	crrNodeNameKey    = "crr.apps.kruise.io/node-name"
	crrActiveKey      = "crr.apps.kruise.io/active"
	crrUnreadyAcqKey  = "crr.apps.kruise.io/unready-acquired"
	crrVirtualKubelet = "virtual-kubelet"
)

var crrContainers = []string{"main", "app", "sidecar", "log-agent"}

// crrHook is a preStop handler as a Pod's lifecycle holds it: exec, httpGet, tcpSocket, sleep
// (not copied into the CRR) or more than one.
func crrHook(r *rand.Rand) obj {
	h := obj{}
	switch r.Intn(6) {
	case 0:
		h["exec"] = obj{"command": list{"/bin/sh", "-c", "sleep 5"}}
	case 1:
		g := obj{"port": pick2(r, float64(8080), "http")}
		if chance(r, 0.6) {
			g["path"] = pick(r, []string{"/quit", "/", "/pre-stop?x=1"})
		}
		if chance(r, 0.3) {
			g["scheme"] = pick(r, []string{"HTTP", "HTTPS"})
		}
		if chance(r, 0.2) {
			g["httpHeaders"] = list{obj{"name": "X-Stop", "value": "1"}}
		}
		if chance(r, 0.1) {
			g["host"] = "127.0.0.1"
		}
		h["httpGet"] = g
	case 2:
		h["tcpSocket"] = obj{"port": pick2(r, float64(9000), "admin")}
	case 3:
		h["sleep"] = obj{"seconds": float64(3)}
	case 4:
		h["exec"] = obj{"command": list{"stop"}}
		h["httpGet"] = obj{"port": float64(80)}
	default:
		// an empty handler: lifecycle.preStop is there, none of its members
	}
	return h
}

func crrPodContainer(r *rand.Rand, name string) obj {
	c := obj{"name": name, "image": pick(r, images)}
	if chance(r, 0.45) {
		c["lifecycle"] = obj{"preStop": crrHook(r)}
		if chance(r, 0.1) {
			c["lifecycle"] = obj{"postStart": obj{"exec": obj{"command": list{"true"}}}}
		}
	}
	if chance(r, 0.5) {
		var ports list
		for i := 1 + r.Intn(2); i > 0; i-- {
			p := obj{"containerPort": float64(8000 + r.Intn(100))}
			if chance(r, 0.5) {
				p["name"] = pick(r, []string{"http", "admin", "metrics"})
			}
			if chance(r, 0.4) {
				p["protocol"] = pick(r, []string{"TCP", "UDP"})
			}
			if chance(r, 0.1) {
				p["hostPort"] = float64(18080)
			}
			ports = append(ports, p)
		}
		c["ports"] = ports
	}
	return c
}

// crrPod is the Pod a CRR names, in one of the states the handler tells apart.
func crrPod(r *rand.Rand, name, ns, node string) obj {
	names := distinctNames(r, crrContainers, 1+r.Intn(3))
	var cs list
	for _, n := range names {
		cs = append(cs, crrPodContainer(r, n))
	}
	spec := obj{"containers": cs}
	var inits []string
	if chance(r, 0.25) {
		n := pick(r, []string{"init", "main", "setup"})
		inits = append(inits, n)
		spec["initContainers"] = list{crrPodContainer(r, n)}
	}
	if node != "" {
		spec["nodeName"] = node
	}
	if chance(r, 0.5) {
		spec["terminationGracePeriodSeconds"] = pick2(r, 45.0, 0.0)
	}
	meta := objMeta(name, ns, labels(r, 1))
	if chance(r, 0.9) {
		meta["uid"] = uid(r)
	}
	if chance(r, 0.08) {
		meta["deletionTimestamp"] = "2026-01-02T00:00:00Z"
		meta["finalizers"] = list{"example.com/hold"}
	}
	status := obj{}
	switch x := r.Float64(); {
	case x < 0.65:
		status["phase"] = "Running"
	case x < 0.73:
		status["phase"] = "Pending"
	case x < 0.81:
		status["phase"] = "Succeeded"
	case x < 0.89:
		status["phase"] = "Failed"
	case x < 0.94:
		status["phase"] = "Unknown"
	}
	var conds list
	if chance(r, 0.5) {
		conds = append(conds, obj{"type": "Ready", "status": pick(r, []string{"True", "False"})})
	}
	if chance(r, 0.15) {
		conds = append(conds, obj{"type": "SidecarTerminated", "status": pick(r, []string{"True", "False"})})
	}
	if conds != nil {
		status["conditions"] = conds
	}
	var sts list
	for _, n := range append(append([]string{}, names...), inits...) {
		if !chance(r, 0.85) {
			continue
		}
		st := obj{"name": n, "ready": chance(r, 0.7), "image": "x", "imageID": ""}
		if chance(r, 0.9) {
			st["containerID"] = pick(r, []string{"containerd://" + n + "-1", "docker://abc" + n})
		}
		if chance(r, 0.7) {
			st["restartCount"] = float64(r.Intn(5))
		}
		sts = append(sts, st)
	}
	if sts != nil {
		status["containerStatuses"] = sts
	}
	if len(inits) > 0 && chance(r, 0.5) {
		// where the kubelet reports an init container: not where the webhook looks
		status["initContainerStatuses"] = list{obj{"name": inits[0], "ready": false, "restartCount": float64(1), "image": "x", "imageID": "", "containerID": "containerd://" + inits[0]}}
	}
	pod := obj{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
	if chance(r, 0.7) {
		pod = asSent(pod)
	}
	return pod
}

func crrNode(r *rand.Rand, name string) obj {
	lbls := obj{}
	if chance(r, 0.3) {
		lbls["type"] = pick(r, []string{crrVirtualKubelet, crrVirtualKubelet, "kubelet", "Virtual-Kubelet"})
	}
	if chance(r, 0.3) {
		lbls["kubernetes.io/hostname"] = name
	}
	return obj{"apiVersion": "v1", "kind": "Node", "metadata": objMeta(name, "", lbls)}
}

func crrSeconds(r *rand.Rand, good, bad []float64) interface{} {
	if chance(r, 0.2) {
		return bad[r.Intn(len(bad))]
	}
	return good[r.Intn(len(good))]
}

// crrObject is a CRR as a user or kruise's own controllers write it.
func crrObject(r *rand.Rand, version, ns, podName string, pod obj) obj {
	meta := objMeta(pick(r, []string{"crr-1", "restart-app", "x"}), ns, nil)
	if chance(r, 0.02) {
		delete(meta, "namespace") // the Pod is looked up in the object's namespace, not the request's
	}
	if chance(r, 0.3) {
		l := labels(r, 2)
		if chance(r, 0.2) {
			l[pick(r, []string{crrPodUIDKey, crrNodeNameKey, crrActiveKey, "type"})] = pick(r, []string{"stale", "", "true"})
		}
		meta["labels"] = l
	}
	if chance(r, 0.15) {
		meta["annotations"] = obj{crrUnreadyAcqKey: pick(r, []string{"", "2026-01-01T00:00:00Z"})}
	}
	if chance(r, 0.3) {
		meta["uid"] = uid(r)
		meta["resourceVersion"] = fmt.Sprint(100 + r.Intn(50))
	}
	spec := obj{}
	switch x := r.Float64(); {
	case x < 0.95:
		spec["podName"] = podName
	case x < 0.97:
		spec["podName"] = ""
	}
	// the containers: mostly the Pod's, now and then another, a repeat or read-only fields
	var podNames []string
	if pod != nil {
		for _, c := range asList(get(pod, "spec", "containers")) {
			podNames = append(podNames, asMap(c)["name"].(string))
		}
		for _, c := range asList(get(pod, "spec", "initContainers")) {
			podNames = append(podNames, asMap(c)["name"].(string))
		}
	}
	var cs list
	n := 1 + r.Intn(2)
	if chance(r, 0.06) {
		n = 0
	}
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		name := pick(r, crrContainers)
		if len(podNames) > 0 && chance(r, 0.8) {
			name = pick(r, podNames)
		}
		if seen[name] && chance(r, 0.8) {
			continue // a repeat now and then only
		}
		seen[name] = true
		if chance(r, 0.02) {
			name = pick(r, []string{"", "MAIN", "main "})
		}
		c := obj{"name": name}
		if chance(r, 0.06) {
			switch r.Intn(4) {
			case 0:
				c["preStop"] = obj{"exec": obj{"command": list{"x"}}}
			case 1:
				c["ports"] = pick2(r, list{obj{"containerPort": float64(80)}}, list{})
			case 2:
				c["statusContext"] = obj{"containerID": "docker://x", "restartCount": float64(1)}
			default:
				c["preStop"] = obj{}
			}
		}
		cs = append(cs, c)
	}
	if len(cs) > 0 && chance(r, 0.06) {
		cs = append(cs, copyObj(asMap(cs[0])))
	}
	if cs != nil || chance(r, 0.5) {
		if cs == nil {
			cs = list{}
		}
		spec["containers"] = cs
	}
	if chance(r, 0.6) {
		st := obj{}
		if chance(r, 0.6) {
			st["failurePolicy"] = pick(r, []string{"Fail", "Ignore", "Fail", "Ignore", "", "Fail", "Ignore", "", "ignore", "Retry"})
		}
		if chance(r, 0.3) {
			st["terminationGracePeriodSeconds"] = crrSeconds(r, []float64{0, 10, 60}, []float64{-1, -30})
		}
		if chance(r, 0.3) {
			st["unreadyGracePeriodSeconds"] = crrSeconds(r, []float64{0, 5}, []float64{-1})
		}
		if chance(r, 0.2) {
			st["orderedRecreate"] = true
		}
		if chance(r, 0.2) {
			st["forceRecreate"] = chance(r, 0.5)
		}
		if chance(r, 0.2) {
			st["minStartedSeconds"] = float64(r.Intn(10))
		}
		spec["strategy"] = st
	} else if chance(r, 0.1) {
		spec["strategy"] = nil
	}
	if chance(r, 0.3) {
		spec["activeDeadlineSeconds"] = crrSeconds(r, []float64{3, 60, 300}, []float64{2, 0, -5})
	}
	if chance(r, 0.2) {
		spec["ttlSecondsAfterFinished"] = float64(r.Intn(600))
	}
	if chance(r, 0.05) {
		spec["unknownField"] = obj{"a": "b"} // dropped by the decoder, and by the patch
	}
	if chance(r, 0.03) {
		meta["labels"] = nil
	}
	o := obj{"apiVersion": "apps.kruise.io/" + version, "kind": "ContainerRecreateRequest", "metadata": meta, "spec": spec}
	if chance(r, 0.1) {
		o["status"] = obj{"phase": pick(r, []string{"Pending", "Recreating", "Completed", ""})}
	}
	corruptJob(r, o)
	return o
}

// crrUpdated: the old object of an update, from the new one: as kruise's controller changes
// CRRs (labels and annotations, the status), or a change of what may not change.
func crrUpdated(r *rand.Rand, o obj) obj {
	old := copyObj(o)
	meta := asMap(old["metadata"])
	if meta == nil {
		meta = obj{}
		old["metadata"] = meta
	}
	setLabel := func(k string, v interface{}) {
		l := asMap(meta["labels"])
		if l == nil {
			l = obj{}
			meta["labels"] = l
		}
		if v == nil {
			delete(l, k)
		} else {
			l[k] = v
		}
	}
	switch r.Intn(11) {
	case 0:
		if spec := asMap(old["spec"]); spec != nil {
			spec["podName"] = "other-pod"
		}
	case 1:
		if spec := asMap(old["spec"]); spec != nil {
			if st := asMap(spec["strategy"]); st != nil {
				st["failurePolicy"] = "Ignore"
			} else {
				spec["strategy"] = obj{"failurePolicy": "Fail"}
			}
		}
	case 2:
		setLabel(crrPodUIDKey, pick2(r, "uid-old", nil))
	case 3:
		setLabel(crrNodeNameKey, pick2(r, "node-old", nil))
	case 4:
		meta["annotations"] = obj{crrUnreadyAcqKey: pick(r, []string{"2025-12-31T00:00:00Z", ""})}
	case 5:
		setLabel(crrActiveKey, pick2(r, "false", nil))
	case 6:
		old["status"] = obj{"phase": "Recreating"}
	case 7, 8:
		// the same spec written otherwise: zero values spelled out, null for absent, empty
		// lists; Go's value tells some apart (an empty list is not nil) and not others
		spec := asMap(old["spec"])
		if spec == nil {
			break
		}
		switch r.Intn(8) {
		case 0:
			if st := asMap(spec["strategy"]); st != nil {
				st[pick(r, []string{"orderedRecreate", "forceRecreate"})] = false
			} else {
				spec["strategy"] = nil
			}
		case 1:
			if st := asMap(spec["strategy"]); st != nil {
				st[pick(r, []string{"minStartedSeconds", "failurePolicy", "terminationGracePeriodSeconds"})] = pick2(r, nil, pick2(r, float64(0), ""))
			}
		case 2:
			spec[pick(r, []string{"ttlSecondsAfterFinished", "activeDeadlineSeconds"})] = nil
		case 3:
			if cs := asList(spec["containers"]); len(cs) > 0 {
				if c := asMap(cs[0]); c != nil {
					c[pick(r, []string{"ports", "preStop", "statusContext"})] = pick2(r, nil, list{})
				}
			} else {
				spec["containers"] = pick2(r, nil, list{})
			}
		case 4:
			if _, ok := spec["strategy"]; !ok {
				spec["strategy"] = obj{}
			}
		case 5:
			setLabel(crrPodUIDKey, "")
		case 6:
			spec["unknownField"] = "x"
		default:
			if cs := asList(spec["containers"]); len(cs) > 0 {
				if c := asMap(cs[0]); c != nil {
					c["statusContext"] = obj{"containerID": "", "restartCount": float64(0)}
				}
			}
		}
	}
	return old
}

func crrVersion(r *rand.Rand) string {
	switch x := r.Float64(); {
	case x < 0.03:
		return pick(r, []string{"v1", "v2"})
	case x < 0.5:
		return "v1alpha1"
	}
	return "v1beta1"
}

func genCRRMutate(r *rand.Rand, i int) testCase {
	ns := pick(r, []string{"default", "shop"})
	podName := pick(r, []string{"pod-0", "web-1"})
	node := pick(r, []string{"node-1", "node-2"})
	if chance(r, 0.08) {
		node = ""
	}
	var world []map[string]interface{}
	var pod obj
	switch x := r.Float64(); {
	case x < 0.85:
		pod = crrPod(r, podName, ns, node)
		world = append(world, pod)
	case x < 0.92:
		// the Pod of that name lives in another namespace only
		world = append(world, crrPod(r, podName, "team-a", node))
	}
	if chance(r, 0.3) {
		world = append(world, crrPod(r, "other-pod", ns, "node-2"))
	}
	if node != "" && chance(r, 0.9) {
		world = append(world, crrNode(r, node))
	}
	if chance(r, 0.2) {
		world = append(world, crrNode(r, "node-3"))
	}
	version := crrVersion(r)
	objVersion := version
	if chance(r, 0.05) || (version != "v1alpha1" && version != "v1beta1") {
		objVersion = pick(r, []string{"v1alpha1", "v1beta1"})
	}
	o := crrObject(r, objVersion, ns, podName, pod)
	op := "CREATE"
	var old interface{}
	switch x := r.Float64(); {
	case x < 0.3:
		op = "UPDATE"
		if chance(r, 0.6) {
			// an update of a CRR this webhook filled in when it was created
			if spec := asMap(o["spec"]); spec != nil && pod != nil {
				meta := asMap(o["metadata"])
				if meta != nil {
					l := asMap(meta["labels"])
					if l == nil {
						l = obj{}
						meta["labels"] = l
					}
					l[crrActiveKey] = "true"
					l[crrNodeNameKey] = node
					l[crrPodUIDKey] = fmt.Sprint(get(pod, "metadata", "uid"))
				}
			}
		}
		oo := crrUpdated(r, o)
		if chance(r, 0.03) {
			oo = nil
		} else if chance(r, 0.03) {
			oo["spec"] = "broken"
		} else if chance(r, 0.03) {
			oo["apiVersion"] = map[bool]string{true: "apps.kruise.io/v1beta1", false: "apps.kruise.io/v1alpha1"}[oo["apiVersion"] == "apps.kruise.io/v1alpha1"]
		}
		if oo != nil {
			old = oo
		}
	case x < 0.33:
		op = pick(r, []string{"DELETE", "CONNECT"})
	}
	name, _ := get(o, "metadata", "name").(string)
	var object interface{} = o
	if chance(r, 0.02) {
		object = nil
	}
	req := admissionRequest(r, "apps.kruise.io", version, "ContainerRecreateRequest", "containerrecreaterequests", "", op, ns, name, object, old)
	var gates map[string]bool
	if chance(r, 0.06) {
		gates = map[string]bool{"KruiseDaemon": false}
	}
	return testCase{Gates: gates, World: world, Requests: []map[string]interface{}{req}}
}
