package main

import (
	"encoding/base64"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	appsv1alpha1 "github.com/openkruise/kruise/apis/apps/v1alpha1"
	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
	policyv1alpha1 "github.com/openkruise/kruise/apis/policy/v1alpha1"
	policyv1beta1 "github.com/openkruise/kruise/apis/policy/v1beta1"
)

// /convert: every kind with two versions, objects made from the Go types themselves (every
// field may be set, enumerations take their declared values), converted to the other version,
// to the same one, or (rarely) to a version that does not exist.

type convKind struct {
	group, kind string
	alpha, beta reflect.Type
	clusterWide bool
}

var convKinds = []convKind{
	{"apps.kruise.io", "CloneSet", reflect.TypeOf(appsv1alpha1.CloneSet{}), reflect.TypeOf(appsv1beta1.CloneSet{}), false},
	{"apps.kruise.io", "StatefulSet", reflect.TypeOf(appsv1alpha1.StatefulSet{}), reflect.TypeOf(appsv1beta1.StatefulSet{}), false},
	{"apps.kruise.io", "DaemonSet", reflect.TypeOf(appsv1alpha1.DaemonSet{}), reflect.TypeOf(appsv1beta1.DaemonSet{}), false},
	{"apps.kruise.io", "SidecarSet", reflect.TypeOf(appsv1alpha1.SidecarSet{}), reflect.TypeOf(appsv1beta1.SidecarSet{}), true},
	{"apps.kruise.io", "BroadcastJob", reflect.TypeOf(appsv1alpha1.BroadcastJob{}), reflect.TypeOf(appsv1beta1.BroadcastJob{}), false},
	{"apps.kruise.io", "AdvancedCronJob", reflect.TypeOf(appsv1alpha1.AdvancedCronJob{}), reflect.TypeOf(appsv1beta1.AdvancedCronJob{}), false},
	{"apps.kruise.io", "ImagePullJob", reflect.TypeOf(appsv1alpha1.ImagePullJob{}), reflect.TypeOf(appsv1beta1.ImagePullJob{}), false},
	{"apps.kruise.io", "ImageListPullJob", reflect.TypeOf(appsv1alpha1.ImageListPullJob{}), reflect.TypeOf(appsv1beta1.ImageListPullJob{}), false},
	{"apps.kruise.io", "NodeImage", reflect.TypeOf(appsv1alpha1.NodeImage{}), reflect.TypeOf(appsv1beta1.NodeImage{}), true},
	{"apps.kruise.io", "ContainerRecreateRequest", reflect.TypeOf(appsv1alpha1.ContainerRecreateRequest{}), reflect.TypeOf(appsv1beta1.ContainerRecreateRequest{}), false},
	{"apps.kruise.io", "ResourceDistribution", reflect.TypeOf(appsv1alpha1.ResourceDistribution{}), reflect.TypeOf(appsv1beta1.ResourceDistribution{}), true},
	{"apps.kruise.io", "UnitedDeployment", reflect.TypeOf(appsv1alpha1.UnitedDeployment{}), reflect.TypeOf(appsv1beta1.UnitedDeployment{}), false},
	{"apps.kruise.io", "WorkloadSpread", reflect.TypeOf(appsv1alpha1.WorkloadSpread{}), reflect.TypeOf(appsv1beta1.WorkloadSpread{}), false},
	{"apps.kruise.io", "PersistentPodState", reflect.TypeOf(appsv1alpha1.PersistentPodState{}), reflect.TypeOf(appsv1beta1.PersistentPodState{}), false},
	{"policy.kruise.io", "PodUnavailableBudget", reflect.TypeOf(policyv1alpha1.PodUnavailableBudget{}), reflect.TypeOf(policyv1beta1.PodUnavailableBudget{}), false},
}

func init() {
	for _, k := range convKinds {
		k := k
		register(generator{name: "convert-" + strings.ToLower(k.kind), area: "conversion", path: "/convert",
			gen: func(r *rand.Rand, i int) testCase { return genConvert(r, k) }})
	}
}

// The annotations and labels some conversions move into or out of fields, with values they read.
var convAnnotations = map[string][]string{
	"kruise.io/pub-protect-operations":                         {"DELETE", "EVICT,DELETE", "UPDATE,RESIZE", "DELETE,EVICT,UPDATE", "", "delete"},
	"pub.kruise.io/protect-total-replicas":                     {"5", "0", "abc", "-1", "100"},
	"apps.kruise.io/image-predownload-parallelism":             {"5", "0", "x", "10"},
	"apps.kruise.io/image-predownload-timeout-seconds":         {"600", "0", "-5", "a"},
	"apps.kruise.io/image-predownload-min-updated-ready-pods":  {"1", "3", "0", "no"},
	"daemonset.kruise.io/progressive-create-pod":               {"true", "false", "True", ""},
	"crr.apps.kruise.io/sync-container-statuses":               {`[{"name":"main","ready":true,"restartCount":1,"containerID":"containerd://abc"}]`, "[]", "{"},
	"crr.apps.kruise.io/unready-acquired":                      {"true", "2025-01-01T00:00:00Z"},
	"apps.kruise.io/sidecarset-canary":                         {"1", "50%"},
	"kruise.io/required-persistent-topology":                   {"topology.kubernetes.io/zone", "kubernetes.io/hostname,topology.kubernetes.io/zone"},
	"kruise.io/preferred-persistent-topology":                  {"kubernetes.io/hostname"},
	"kruise.io/auto-generate-persistent-pod-state":             {"true", "false"},
	"kruise.io/persistent-pod-annotations":                     {"ip,mac"},
	"apps.kruise.io/cloneset-scaling-exclude-preparing-delete": {"true", "false"},
}

var convLabels = map[string][]string{
	"apps.kruise.io/cloneset-scaling-exclude-preparing-delete": {"true", "false", "yes"},
	"apps.kruise.io/sidecarset-custom-version":                 {"v1", "v2"},
	"app": {"web", "db"},
}

func genConvert(r *rand.Rand, k convKind) testCase {
	from, to := "v1alpha1", "v1beta1"
	if chance(r, 0.5) {
		from, to = to, from
	}
	switch x := r.Float64(); {
	case x < 0.05:
		to = from // already at the desired version
	case x < 0.07:
		to = "v2" // a version that does not exist
	}
	var objs list
	for n := 1 + r.Intn(3); n > 0; n-- {
		objs = append(objs, convObject(r, k, from))
	}
	if chance(r, 0.03) {
		objs = append(objs, convObject(r, convKinds[r.Intn(len(convKinds))], "v1beta1"))
	}
	return testCase{Requests: []map[string]interface{}{{
		"uid":               uid(r),
		"desiredAPIVersion": k.group + "/" + to,
		"objects":           objs,
	}}}
}

func convObject(r *rand.Rand, k convKind, version string) obj {
	t := k.alpha
	if version == "v1beta1" {
		t = k.beta
	}
	g := &typedGen{r: r}
	o := obj{"apiVersion": k.group + "/" + version, "kind": k.kind}
	ns := ""
	if !k.clusterWide {
		ns = pick(r, namespaces)
	}
	o["metadata"] = g.objectMeta(fmt.Sprintf("%s-%d", strings.ToLower(k.kind), r.Intn(100)), ns, true)
	if f, ok := t.FieldByName("Spec"); ok {
		if v := g.value(f.Type, 1); v != nil {
			o["spec"] = v
		}
	}
	if f, ok := t.FieldByName("Status"); ok && chance(r, 0.5) {
		if v := g.value(f.Type, 1); v != nil {
			o["status"] = v
		}
	}
	if chance(r, 0.03) {
		return corrupt(r, o).(obj)
	}
	return o
}

// sortedKeys: generators never range over a map directly, whose order Go varies per run, so
// that a seed gives the same cases every time.
func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// typedGen makes JSON values of Go API types.
type typedGen struct {
	r *rand.Rand
}

var (
	timeType       = reflect.TypeOf(metav1.Time{})
	microTimeType  = reflect.TypeOf(metav1.MicroTime{})
	durationType   = reflect.TypeOf(metav1.Duration{})
	quantityType   = reflect.TypeOf(resource.Quantity{})
	intOrStrType   = reflect.TypeOf(intstr.IntOrString{})
	rawExtType     = reflect.TypeOf(runtime.RawExtension{})
	selectorType   = reflect.TypeOf(metav1.LabelSelector{})
	objectMetaType = reflect.TypeOf(metav1.ObjectMeta{})
	podTmplType    = reflect.TypeOf(corev1.PodTemplateSpec{})
	podSpecType    = reflect.TypeOf(corev1.PodSpec{})
	containerType  = reflect.TypeOf(corev1.Container{})
)

func (g *typedGen) keep(depth int) bool {
	switch {
	case depth <= 2:
		return chance(g.r, 0.6)
	case depth <= 4:
		return chance(g.r, 0.35)
	default:
		return chance(g.r, 0.15)
	}
}

func (g *typedGen) timestamp() string {
	base := time.Date(2025, 3, 1, 8, 30, 0, 0, time.UTC).Add(time.Duration(g.r.Intn(86400*30)) * time.Second)
	switch g.r.Intn(4) {
	case 0:
		return base.In(time.FixedZone("", 8*3600)).Format(time.RFC3339)
	case 1:
		return base.Add(250 * time.Millisecond).Format(time.RFC3339Nano)
	default:
		return base.Format(time.RFC3339)
	}
}

func (g *typedGen) objectMeta(name, ns string, top bool) obj {
	r := g.r
	m := obj{}
	if name != "" {
		m["name"] = name
	}
	if ns != "" {
		m["namespace"] = ns
	}
	if l := labels(r, 3); len(l) > 0 {
		m["labels"] = l
	}
	ann := obj{}
	for _, key := range sortedKeys(convAnnotations) {
		if vals := convAnnotations[key]; chance(r, 0.08) {
			ann[key] = vals[r.Intn(len(vals))]
		}
	}
	for _, key := range sortedKeys(convLabels) {
		if vals := convLabels[key]; chance(r, 0.1) {
			if m["labels"] == nil {
				m["labels"] = obj{}
			}
			m["labels"].(obj)[key] = vals[r.Intn(len(vals))]
		}
	}
	if chance(r, 0.3) {
		ann["note"] = pick(r, labelValues)
	}
	if len(ann) > 0 {
		m["annotations"] = ann
	}
	if !top {
		return m
	}
	if chance(r, 0.7) {
		m["uid"] = uid(r)
		m["resourceVersion"] = fmt.Sprint(1 + r.Intn(100000))
		m["generation"] = float64(1 + r.Intn(9))
		m["creationTimestamp"] = g.timestamp()
	}
	if chance(r, 0.1) {
		m["finalizers"] = list{"apps.kruise.io/deletion-protection"}
	}
	if chance(r, 0.1) {
		m["ownerReferences"] = list{obj{"apiVersion": "apps/v1", "kind": "Deployment", "name": "d", "uid": uid(r), "controller": true}}
	}
	return m
}

// value makes a JSON value of type t, or nil to leave the field out.
func (g *typedGen) value(t reflect.Type, depth int) interface{} {
	r := g.r
	if depth > 9 {
		return nil
	}
	switch t {
	case timeType:
		return g.timestamp()
	case microTimeType:
		return time.Date(2025, 3, 1, 8, 30, 0, 123456000, time.UTC).Format("2006-01-02T15:04:05.000000Z07:00")
	case durationType:
		return []string{"30s", "5m0s", "1h0m0s", "1m30s"}[r.Intn(4)]
	case quantityType:
		return quantity(r, chance(r, 0.5))
	case intOrStrType:
		if chance(r, 0.5) {
			return float64(r.Intn(10))
		}
		return []string{"25%", "0%", "100%", "3", "50%"}[r.Intn(5)]
	case rawExtType:
		return obj{"apiVersion": "v1", "kind": "ConfigMap", "metadata": obj{"name": "cm"}, "data": obj{"k": "v"}}
	case selectorType:
		return selector(r)
	case objectMetaType:
		return g.objectMeta("", "", false)
	case podTmplType:
		if chance(r, 0.8) {
			return obj{"metadata": g.objectMeta("", "", false), "spec": podSpec(r)}
		}
	case podSpecType:
		if chance(r, 0.8) {
			return podSpec(r)
		}
	case containerType:
		if chance(r, 0.8) {
			return container(r, pick(r, containerNms))
		}
	}
	switch t.Kind() {
	case reflect.Ptr:
		return g.value(t.Elem(), depth)
	case reflect.Struct:
		out := obj{}
		g.fields(t, depth, out)
		return out
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString([]byte(pick(r, labelValues)))
		}
		var out list
		for n := r.Intn(3); n > 0; n-- {
			if v := g.value(t.Elem(), depth+1); v != nil {
				out = append(out, v)
			}
		}
		if out == nil {
			return nil
		}
		return out
	case reflect.Map:
		out := obj{}
		for n := r.Intn(3); n > 0; n-- {
			if v := g.value(t.Elem(), depth+1); v != nil {
				out[pick(r, labelKeys)] = v
			}
		}
		return out
	case reflect.String:
		if vals := enumValues[t.PkgPath()+"."+t.Name()]; len(vals) > 0 && chance(r, 0.9) {
			return vals[r.Intn(len(vals))]
		}
		return pick(r, append(append([]string{}, labelValues...), containerNms...))
	case reflect.Bool:
		return chance(r, 0.5)
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64:
		if chance(r, 0.1) {
			return float64(r.Intn(100000))
		}
		return float64(r.Intn(10))
	case reflect.Float32, reflect.Float64:
		return float64(r.Intn(100)) / 4
	}
	return nil
}

// fields sets some of the JSON fields of struct type t into out (inline members flattened).
func (g *typedGen) fields(t reflect.Type, depth int, out obj) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.PkgPath != "" {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") || (f.Anonymous && name == "") {
			ft := f.Type
			if ft.Kind() == reflect.Ptr {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				g.fields(ft, depth, out)
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !g.keep(depth) {
			continue
		}
		if v := g.value(f.Type, depth+1); v != nil {
			out[name] = v
		}
	}
}
