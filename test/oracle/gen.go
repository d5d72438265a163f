package main

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	k8scorev1 "k8s.io/kubernetes/pkg/apis/core/v1"

	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Building blocks of the generators: small pools of names, so that generated objects meet
// (the same labels, namespaces, container names), and plausible Kubernetes shapes.

type obj = map[string]interface{}
type list = []interface{}

var (
	namespaces   = []string{"default", "shop", "web", "kube-system", "team-a"}
	labelKeys    = []string{"app", "tier", "version", "env", "apps.kruise.io/owner", "x"}
	labelValues  = []string{"web", "db", "v1", "v2", "prod", "canary", "", "a-b.c"}
	containerNms = []string{"main", "app", "nginx", "sidecar", "log-agent", "istio-proxy", "envoy"}
	images       = []string{"nginx:1.25", "busybox", "registry.example.com:5000/team/app:v2", "envoyproxy/envoy@sha256:" + strings.Repeat("ab", 32), "ubuntu:22.04"}
	volumeNames  = []string{"data", "config", "logs", "tmp", "cache", "istio-certs"}
)

func pick(r *rand.Rand, xs []string) string { return xs[r.Intn(len(xs))] }
func chance(r *rand.Rand, p float64) bool   { return r.Float64() < p }

func uid(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.Intn(1<<16), r.Intn(1<<16), r.Intn(1<<16), r.Int63n(1<<48))
}

func labels(r *rand.Rand, max int) obj {
	m := obj{}
	for i := r.Intn(max + 1); i > 0; i-- {
		m[pick(r, labelKeys)] = pick(r, labelValues)
	}
	return m
}

// selector makes a LabelSelector: matchLabels, matchExpressions of every operator, or both,
// sometimes empty ({} selects everything).
func selector(r *rand.Rand) obj {
	s := obj{}
	if chance(r, 0.7) {
		if l := labels(r, 2); len(l) > 0 {
			s["matchLabels"] = l
		}
	}
	if chance(r, 0.35) {
		var exprs list
		for i := 1 + r.Intn(2); i > 0; i-- {
			op := []string{"In", "NotIn", "Exists", "DoesNotExist"}[r.Intn(4)]
			e := obj{"key": pick(r, labelKeys), "operator": op}
			if op == "In" || op == "NotIn" {
				vals := list{pick(r, labelValues)}
				if chance(r, 0.4) {
					vals = append(vals, pick(r, labelValues))
				}
				e["values"] = vals
			}
			exprs = append(exprs, e)
		}
		s["matchExpressions"] = exprs
	}
	return s
}

func quantity(r *rand.Rand, cpu bool) string {
	if cpu {
		return []string{"100m", "250m", "1", "2", "500m", "0.5", "1500m"}[r.Intn(7)]
	}
	return []string{"64Mi", "128Mi", "1Gi", "512M", "1G", "200Mi", "0"}[r.Intn(7)]
}

func resources(r *rand.Rand) obj {
	res := obj{}
	for _, kind := range []string{"requests", "limits"} {
		if chance(r, 0.5) {
			m := obj{}
			if chance(r, 0.8) {
				m["cpu"] = quantity(r, true)
			}
			if chance(r, 0.8) {
				m["memory"] = quantity(r, false)
			}
			res[kind] = m
		}
	}
	return res
}

func envVars(r *rand.Rand, max int) list {
	var out list
	for i := r.Intn(max + 1); i > 0; i-- {
		e := obj{"name": []string{"A", "B", "POD_NAME", "LOG_LEVEL", "IS_INJECTED", "MY_VAR"}[r.Intn(6)]}
		switch r.Intn(4) {
		case 0:
			e["value"] = pick(r, labelValues)
		case 1:
			e["valueFrom"] = obj{"fieldRef": obj{"fieldPath": "metadata.name"}}
		default:
			e["value"] = fmt.Sprint(r.Intn(100))
		}
		out = append(out, e)
	}
	return out
}

func container(r *rand.Rand, name string) obj {
	c := obj{"name": name, "image": pick(r, images)}
	if chance(r, 0.4) {
		c["env"] = envVars(r, 3)
	}
	if chance(r, 0.4) {
		c["resources"] = resources(r)
	}
	if chance(r, 0.3) {
		var mounts list
		for i := 1 + r.Intn(2); i > 0; i-- {
			m := obj{"name": pick(r, volumeNames), "mountPath": "/" + pick(r, volumeNames)}
			if chance(r, 0.3) {
				m["readOnly"] = true
			}
			mounts = append(mounts, m)
		}
		c["volumeMounts"] = mounts
	}
	if chance(r, 0.2) {
		c["ports"] = list{obj{"containerPort": float64(8000 + r.Intn(100)), "protocol": "TCP"}}
	}
	if chance(r, 0.15) {
		c["command"] = list{"/bin/sh", "-c", "sleep 3600"}
	}
	if chance(r, 0.1) {
		c["imagePullPolicy"] = []string{"Always", "IfNotPresent", "Never"}[r.Intn(3)]
	}
	containerExtras(r, c)
	return c
}

func volume(r *rand.Rand, name string) obj {
	if chance(r, 0.25) {
		return oddVolume(r, name)
	}
	v := obj{"name": name}
	switch r.Intn(4) {
	case 0:
		v["emptyDir"] = obj{}
	case 1:
		v["configMap"] = obj{"name": "cm-" + name}
	case 2:
		v["secret"] = obj{"secretName": "sec-" + name}
	default:
		v["hostPath"] = obj{"path": "/var/" + name}
	}
	return v
}

func distinctNames(r *rand.Rand, pool []string, n int) []string {
	idx := r.Perm(len(pool))
	if n > len(pool) {
		n = len(pool)
	}
	out := make([]string, 0, n)
	for _, i := range idx[:n] {
		out = append(out, pool[i])
	}
	return out
}

// podSpec makes a Pod's spec with 1-3 containers, maybe init containers and volumes.
func podSpec(r *rand.Rand) obj {
	var cs list
	for _, n := range distinctNames(r, containerNms, 1+r.Intn(3)) {
		cs = append(cs, container(r, n))
	}
	spec := obj{"containers": cs}
	if chance(r, 0.2) {
		spec["initContainers"] = list{container(r, "init-"+pick(r, containerNms))}
	}
	if chance(r, 0.4) {
		var vs list
		for _, n := range distinctNames(r, volumeNames, 1+r.Intn(2)) {
			vs = append(vs, volume(r, n))
		}
		spec["volumes"] = vs
	}
	if chance(r, 0.15) {
		spec["nodeSelector"] = obj{"zone": pick(r, []string{"a", "b"})}
	}
	if chance(r, 0.1) {
		spec["tolerations"] = list{obj{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}}
	}
	if chance(r, 0.1) {
		spec["serviceAccountName"] = "sa-" + pick(r, labelValues[:4])
	}
	podSpecExtras(r, spec)
	return spec
}

func objMeta(name, ns string, lbls obj) obj {
	m := obj{"name": name}
	if ns != "" {
		m["namespace"] = ns
	}
	if len(lbls) > 0 {
		m["labels"] = lbls
	}
	return m
}

func namespaceObj(name string, lbls obj) obj {
	return obj{"apiVersion": "v1", "kind": "Namespace", "metadata": objMeta(name, "", lbls)}
}

// asSent gives a Pod as the API server sends it to admission webhooks: decoded into its Go type,
// defaulted (restartPolicy, dnsPolicy, terminationMessagePath, imagePullPolicy...) and encoded
// again, so empty structs such as a container's resources are there. Other kinds unchanged.
func asSent(o obj) obj {
	if o == nil || o["apiVersion"] != "v1" || o["kind"] != "Pod" {
		return o
	}
	data, _ := json.Marshal(o)
	var pod corev1.Pod
	if err := json.Unmarshal(data, &pod); err != nil {
		return o
	}
	k8scorev1.SetObjectDefaults_Pod(&pod)
	out, _ := json.Marshal(&pod)
	var m obj
	_ = json.Unmarshal(out, &m)
	return m
}

// admissionRequest is a request member as the API server sends it.
func admissionRequest(r *rand.Rand, group, version, kind, resource, sub, op, ns, name string, object, old interface{}) obj {
	if o, ok := object.(obj); ok {
		object = asSent(o)
		if chance(r, 0.03) {
			object = corrupt(r, object)
		}
	}
	if o, ok := old.(obj); ok {
		old = asSent(o)
		if chance(r, 0.02) {
			old = corrupt(r, old)
		}
	}
	req := obj{
		"uid":       uid(r),
		"kind":      obj{"group": group, "version": version, "kind": kind},
		"resource":  obj{"group": group, "version": version, "resource": resource},
		"operation": op,
		"namespace": ns,
		"name":      name,
		"object":    object,
		"oldObject": old,
		"dryRun":    false,
		"userInfo":  obj{"username": "system:serviceaccount:kube-system:generic-garbage-collector"},
	}
	if sub != "" {
		req["subResource"] = sub
	}
	opts := map[string]string{"CREATE": "CreateOptions", "UPDATE": "UpdateOptions", "DELETE": "DeleteOptions"}[op]
	if opts != "" {
		req["options"] = obj{"apiVersion": "meta.k8s.io/v1", "kind": opts}
	}
	return req
}

// --- the existing vectors, replayed: a calibration of the oracle itself ----------------------

func init() {
	register(generator{name: "vectors", area: "vectors", path: "(every vector)", writes: true, gen: genVectors,
		limit: func() int { loadVectorCases(); return len(vectorCases) }})
}

var vectorCases []testCase

// loadVectorCases reads test/vectors and test/diff-vectors (VECTORS: other folders, separated by
// colons), once.
func loadVectorCases() {
	if vectorCases == nil {
		dirs := os.Getenv("VECTORS")
		if dirs == "" {
			dirs = "test/vectors:test/diff-vectors"
		}
		var files []string
		for _, dir := range strings.Split(dirs, ":") {
			f, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
			sort.Strings(f)
			files = append(files, f...)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var v struct {
				Endpoint string                   `json:"endpoint"`
				Gates    map[string]bool          `json:"featureGates"`
				Cluster  []map[string]interface{} `json:"cluster"`
				Request  map[string]interface{}   `json:"request"`
			}
			if json.Unmarshal(data, &v) != nil || v.Endpoint == "" {
				continue
			}
			vectorCases = append(vectorCases, testCase{Path: v.Endpoint, Gates: v.Gates, World: v.Cluster,
				Requests: []map[string]interface{}{v.Request}, Area: filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)})
		}
	}
}

// genVectors replays the vectors in order, one case each.
func genVectors(r *rand.Rand, i int) testCase {
	loadVectorCases()
	if len(vectorCases) == 0 {
		return testCase{Path: "/convert", Requests: []map[string]interface{}{{"uid": "x", "desiredAPIVersion": "apps.kruise.io/v1beta1", "objects": list{}}}}
	}
	return vectorCases[i%len(vectorCases)]
}
