package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"sort"
	"strings"

	"github.com/openkruise/kruise/apis/apps/defaults"
	appsv1alpha1 "github.com/openkruise/kruise/apis/apps/v1alpha1"
	appsv1beta1 "github.com/openkruise/kruise/apis/apps/v1beta1"
)

// The image kinds: ImagePullJob and ImageListPullJob defaulting and validation (image
// references in the docker reference grammar the daemon parses, the node and Pod selectors,
// parallelism, the completion and pull policies, the pull secrets an update may not change),
// NodeImage defaulting and validation (its per-image tag specs, sorted by the defaulting
// webhook in spec and status). Both API versions, CREATE and UPDATE, the gates the validating
// handlers consult (KruiseDaemon, ImagePullJobGate and the two gates that force the latter on).
// Objects are drawn as users and kruise-daemon write them, with hostile values now and then.

func init() {
	register(generator{name: "imagepulljob-mutate", area: "imagepulljob", path: "/mutate-apps-kruise-io-imagepulljob", gen: genImagePullJobMutate})
	register(generator{name: "imagepulljob-validate", area: "imagepulljob", path: "/validate-apps-kruise-io-imagepulljob", gen: genImagePullJobValidate})
	register(generator{name: "imagelistpulljob-mutate", area: "imagelistpulljob", path: "/mutate-apps-kruise-io-imagelistpulljob", gen: genImageListPullJobMutate})
	register(generator{name: "imagelistpulljob-validate", area: "imagelistpulljob", path: "/validate-apps-kruise-io-imagelistpulljob", gen: genImageListPullJobValidate})
	register(generator{name: "nodeimage-mutate", area: "nodeimage", path: "/mutate-apps-kruise-io-nodeimage", gen: genNodeImageMutate})
	register(generator{name: "nodeimage-validate", area: "nodeimage", path: "/validate-apps-kruise-io-nodeimage", gen: genNodeImageValidate})
}

// --- image references ------------------------------------------------------------------------

var (
	refDomains = []string{"docker.io", "index.docker.io", "localhost", "localhost:5000", "registry.example.com",
		"registry.example.com:5000", "my-registry.io:443", "quay.io", "gcr.io", "127.0.0.1:5000", "a.b.c.d.e",
		"xn--bcher-kva.example", "Example.com", "UPPER.IO", "[::1]:5000", "[fe80::1]", "reg_istry.io", "-bad.io",
		"bad-.io", "a..b", "host:port", "host:", ":5000", "host:99999", "h:0", "1.2.3.4:5", "x"}
	refComponents = []string{"nginx", "library", "team", "app", "a", "b-c", "a.b", "a_b", "a__b", "a___b", "a--b",
		"a---b", "a-", "-a", "_a", ".a", "a.", "A", "Nginx", "a..b", "x9", "9x", "ünï", "caf\u00e9", "\u212a",
		strings.Repeat("ab", 32), strings.Repeat("AB", 32), strings.Repeat("n", 100), strings.Repeat("n", 255)}
	refTags = []string{"latest", "1.25", "v1.0.0-rc1", "_ok", "A", "UPPER", "-bad", ".bad", "a:b", "", "1.0_beta",
		strings.Repeat("t", 128), strings.Repeat("t", 129), "\u212a", "x y"}
	refDigests = []string{"sha256:" + strings.Repeat("ab", 32), "sha256:" + strings.Repeat("a", 63),
		"sha256:" + strings.Repeat("a", 65), "sha256:" + strings.Repeat("A", 64), "sha512:" + strings.Repeat("f", 128),
		"sha384:" + strings.Repeat("0", 96), "sha384:" + strings.Repeat("0", 95), "md5:" + strings.Repeat("a", 32),
		"sha256:", "", "SHA256:" + strings.Repeat("ab", 32), "sha256+b64:" + strings.Repeat("ab", 32),
		"sha256:" + strings.Repeat("g", 64), "s:" + strings.Repeat("a", 32), "sha256:" + strings.Repeat("ab", 16)}
	refWhole = []string{"", " ", "nginx ", " nginx", "\tnginx", "nginx\n", "nginx@", "@sha256:" + strings.Repeat("ab", 32),
		strings.Repeat("ab", 32), "sha256:" + strings.Repeat("ab", 32), "a//b", "/a", "a/", "a\u0000b", ":", "@", ":tag",
		"nginx:1.0@sha256:" + strings.Repeat("cd", 32), "docker.io/nginx", "docker.io/library/nginx:latest",
		"localhost/nginx", "LOCALHOST/x", "index.docker.io/library/busybox", strings.Repeat("a/", 130) + "a",
		"registry.example.com/" + strings.Repeat("n", 240), "ab" + strings.Repeat("cd", 31), "docker.io/" + strings.Repeat("ab", 32)}
)

// imageRef draws a reference: mostly grammatical ones of every part (domain, path, tag,
// digest), each part now and then outside the grammar; sometimes a whole string from the
// corner cases.
func imageRef(r *rand.Rand) string {
	if chance(r, 0.12) {
		return pick(r, refWhole)
	}
	plain := chance(r, 0.6) // every part from the grammar's good half
	var b strings.Builder
	if chance(r, 0.35) {
		if plain {
			b.WriteString(pick(r, refDomains[:11]))
		} else {
			b.WriteString(pick(r, refDomains))
		}
		b.WriteString("/")
	}
	for n := 1 + r.Intn(3); n > 0; n-- {
		if plain {
			b.WriteString(pick(r, refComponents[:11]))
		} else {
			b.WriteString(pick(r, refComponents))
		}
		if n > 1 {
			b.WriteString("/")
		}
	}
	if chance(r, 0.55) {
		b.WriteString(":")
		if plain {
			b.WriteString(pick(r, refTags[:4]))
		} else {
			b.WriteString(pick(r, refTags))
		}
	}
	if chance(r, 0.2) {
		b.WriteString("@")
		if plain {
			b.WriteString(pick(r, refDigests[:1]))
		} else {
			b.WriteString(pick(r, refDigests))
		}
	}
	return b.String()
}

// --- values the two job kinds share ----------------------------------------------------------

// imageGates: the gates the validating handlers consult. ImagePullJobGate is off by default
// (its handlers then answer 403), so most cases turn it on, one way or another.
func imageGates(r *rand.Rand, validating bool) map[string]bool {
	if !validating {
		if chance(r, 0.05) {
			return map[string]bool{"KruiseDaemon": false}
		}
		return nil
	}
	switch x := r.Float64(); {
	case x < 0.04:
		return nil
	case x < 0.07:
		return map[string]bool{"KruiseDaemon": false}
	case x < 0.09:
		return map[string]bool{"KruiseDaemon": false, "ImagePullJobGate": true}
	case x < 0.11:
		return map[string]bool{"PreDownloadImageForInPlaceUpdate": true}
	case x < 0.13:
		return map[string]bool{"PreDownloadImageForDaemonSetUpdate": true, "ImagePullJobGate": false}
	case x < 0.14:
		return map[string]bool{"ImagePullJobGate": false}
	}
	return map[string]bool{"ImagePullJobGate": true}
}

// int32ish: a number for an *int32 or *int64 field: plausible, or (at the rate hostile) at a
// boundary (negative, zero, the limits of int32 and past them, a fraction, a string).
func int32ish(r *rand.Rand, hostile float64, plausible ...int) interface{} {
	if !chance(r, hostile) {
		return float64(plausible[r.Intn(len(plausible))])
	}
	return []interface{}{float64(-1), float64(0), float64(-2147483648), float64(2147483647), float64(2147483648),
		float64(-2147483649), float64(1 << 40), 1.5, "600", nil}[r.Intn(10)]
}

func nodeNameList(r *rand.Rand) interface{} {
	switch x := r.Float64(); {
	case x < 0.1:
		return list{}
	case x < 0.15:
		return nil
	case x < 0.3:
		return list{"node-a", "node-b", "node-a"}
	case x < 0.35:
		return list{"", ""}
	}
	var out list
	for _, n := range distinctNames(r, []string{"node-a", "node-b", "node-c", "node-1", "Node_X", ""}, 1+r.Intn(3)) {
		out = append(out, n)
	}
	return out
}

// labelSelectorParts sets matchLabels and matchExpressions on s the ways LabelSelectorAsSelector
// tells apart: valid, empty but set ({} and [] are not nil), invalid keys, values and operators.
func labelSelectorParts(r *rand.Rand, s obj) {
	switch x := r.Float64(); {
	case x < 0.45:
		if l := labels(r, 2); len(l) > 0 {
			s["matchLabels"] = l
		}
	case x < 0.52:
		s["matchLabels"] = obj{}
	case x < 0.57:
		s["matchLabels"] = obj{pick(r, []string{"bad key!", "", "a/b/c", strings.Repeat("k", 64), "example.com/ok",
			strings.Repeat("k", 900) + "!"}): "v"}
	case x < 0.62:
		s["matchLabels"] = obj{"app": pick(r, []string{"bad value!", strings.Repeat("v", 64), "-x", "ok"})}
	case x < 0.64:
		s["matchLabels"] = nil
	}
	switch x := r.Float64(); {
	case x < 0.25:
		var exprs list
		for i := 1 + r.Intn(2); i > 0; i-- {
			op := pick(r, []string{"In", "NotIn", "Exists", "DoesNotExist", "In", "Bogus", "in", "Gt"})
			e := obj{"key": pick(r, []string{"zone", "app", "kubernetes.io/hostname", "bad key!", ""}), "operator": op}
			switch y := r.Float64(); {
			case y < 0.6:
				if op != "Exists" && op != "DoesNotExist" || chance(r, 0.2) {
					e["values"] = list{pick(r, []string{"a", "b", "bad value!", ""})}
				}
			case y < 0.7:
				e["values"] = list{}
			case y < 0.8:
				e["values"] = list{"a", "b", "a"}
			}
			exprs = append(exprs, e)
		}
		s["matchExpressions"] = exprs
	case x < 0.3:
		s["matchExpressions"] = list{}
	case x < 0.32:
		s["matchExpressions"] = nil
	}
}

// nodeSelector: spec.selector, names or a label selector or, now and then, both.
func nodeSelector(r *rand.Rand) obj {
	s := obj{}
	switch x := r.Float64(); {
	case x < 0.4:
		s["names"] = nodeNameList(r)
	case x < 0.85:
		labelSelectorParts(r, s)
	default:
		s["names"] = nodeNameList(r)
		labelSelectorParts(r, s)
	}
	return s
}

func podSelectorValue(r *rand.Rand) obj {
	s := obj{}
	labelSelectorParts(r, s)
	return s
}

func parallelismValue(r *rand.Rand) interface{} {
	if chance(r, 0.6) {
		return float64(r.Intn(10))
	}
	return []interface{}{float64(-1), float64(2147483647), float64(2147483648), 1.5, "3", "0", "-1", "50%", "100%", "%",
		"-5%", "abc", "", " 5", "+5", "0x10", "1_000", "2147483647", "2147483648", "-2147483649",
		"99999999999999999999", "\u0665", "5\u0000", nil, true, obj{}}[r.Intn(26)]
}

// jobTemplateFields fills the ImagePullJobTemplate members of spec.
func jobTemplateFields(r *rand.Rand, spec obj) {
	if chance(r, 0.35) {
		spec["selector"] = nodeSelector(r)
		if chance(r, 0.1) {
			spec["selector"] = nil
		}
	}
	if chance(r, 0.2) {
		spec["podSelector"] = podSelectorValue(r)
		if chance(r, 0.1) {
			spec["podSelector"] = nil
		}
	}
	if chance(r, 0.35) {
		spec["parallelism"] = parallelismValue(r)
	}
	if chance(r, 0.75) {
		cp := obj{}
		if chance(r, 0.85) {
			cp["type"] = pick(r, []string{"Always", "Always", "Always", "Never", "Never", "", "always", "Sometimes"})
			if chance(r, 0.01) {
				cp["type"] = pick(r, []string{"Always\u0000", "Never\u0000x", "\u0000"})
			}
		}
		if chance(r, 0.4) {
			cp["activeDeadlineSeconds"] = int32ish(r, 0.08, 300, 599, 600, 601, 1200, 100000)
		}
		if chance(r, 0.3) {
			cp["ttlSecondsAfterFinished"] = int32ish(r, 0.08, 0, 60, 300, 86400)
		}
		spec["completionPolicy"] = cp
	} else if chance(r, 0.05) {
		spec["completionPolicy"] = nil
	}
	if chance(r, 0.45) {
		pp := obj{}
		if chance(r, 0.7) {
			pp["timeoutSeconds"] = int32ish(r, 0.08, 60, 300, 599, 600, 601, 1800)
		}
		if chance(r, 0.5) {
			pp["backoffLimit"] = int32ish(r, 0.08, 0, 1, 3, 10)
		}
		spec["pullPolicy"] = pp
	} else if chance(r, 0.05) {
		spec["pullPolicy"] = nil
	}
	if chance(r, 0.3) {
		spec["imagePullPolicy"] = pick(r, []string{"Always", "IfNotPresent", "IfNotPresent", "Never", "", "Sometimes"})
	}
	if chance(r, 0.3) {
		spec["pullSecrets"] = pullSecretsValue(r)
	}
	if chance(r, 0.15) {
		sc := obj{}
		if chance(r, 0.7) {
			sc["labels"] = obj{"io.kubernetes.pod.namespace": "default", "x": "y"}
		}
		if chance(r, 0.4) {
			sc["annotations"] = obj{"note": "pulled by kruise"}
		}
		spec["sandboxConfig"] = sc
	}
}

func pullSecretsValue(r *rand.Rand) interface{} {
	switch x := r.Float64(); {
	case x < 0.15:
		return list{}
	case x < 0.2:
		return nil
	case x < 0.3:
		return list{"sec-a", "sec-a"}
	}
	var out list
	for _, n := range distinctNames(r, []string{"sec-a", "sec-b", "regcred", "Bad_Secret", ""}, 1+r.Intn(2)) {
		out = append(out, n)
	}
	return out
}

func imageJobMeta(r *rand.Rand, kind string, alpha bool) obj {
	m := jobMeta(r, kind)
	if alpha && chance(r, 0.2) {
		switch r.Intn(4) {
		case 0:
			m["finalizers"] = list{defaults.ProtectionFinalizer}
		case 1:
			m["finalizers"] = list{"example.com/keep", defaults.ProtectionFinalizer}
		case 2:
			m["finalizers"] = list{}
		default:
			m["finalizers"] = list{"example.com/keep"}
		}
	}
	return m
}

func imageJobObject(r *rand.Rand, kind, version string, spec, status obj) obj {
	av := "apps.kruise.io/" + version
	switch {
	case version == "v2":
		av = "apps.kruise.io/v1beta1"
	case chance(r, 0.03):
		av = pick(r, []string{"apps.kruise.io/v1alpha1", "apps.kruise.io/v1beta1", "apps.kruise.io/v9", "v1"})
	}
	o := obj{"metadata": imageJobMeta(r, kind, version == "v1alpha1"), "spec": spec}
	if chance(r, 0.95) {
		o["apiVersion"], o["kind"] = av, kind
	}
	if chance(r, 0.02) {
		o["kind"] = pick(r, []string{"ImagePullJob", "ImageListPullJob", "NodeImage", "BroadcastJob"})
	}
	if status != nil {
		o["status"] = status
	}
	corruptJob(r, o)
	return o
}

// defaultedShare: how many objects are sent as the mutating webhook left them. The API server
// calls the validating webhook after the mutating one, so most objects it validates are
// defaulted; the mutating webhook mostly meets objects as users write them.
func defaultedShare(validating bool) float64 {
	if validating {
		return 0.65
	}
	return 0.2
}

// imageDefaulted: o with upstream's own defaults of its version applied, as the mutating
// webhook stored it, so that defaulting it again changes nothing; o when it does not decode.
func imageDefaulted(o obj, kind, version string, create bool) obj {
	data, _ := json.Marshal(o)
	var t interface{}
	switch kind + "/" + version {
	case "ImagePullJob/v1alpha1":
		t = typedDefaults(data, func(v *appsv1alpha1.ImagePullJob) { defaults.SetDefaultsImagePullJob(v, create) })
	case "ImagePullJob/v1beta1":
		t = typedDefaults(data, func(v *appsv1beta1.ImagePullJob) { defaults.SetDefaultsImagePullJobV1beta1(v, create) })
	case "ImageListPullJob/v1alpha1":
		t = typedDefaults(data, defaults.SetDefaultsImageListPullJob)
	case "ImageListPullJob/v1beta1":
		t = typedDefaults(data, defaults.SetDefaultsImageListPullJobV1beta1)
	case "NodeImage/v1alpha1":
		t = typedDefaults(data, defaults.SetDefaultsNodeImage)
	case "NodeImage/v1beta1":
		t = typedDefaults(data, defaults.SetDefaultsNodeImageV1beta1)
	}
	if t == nil {
		return o
	}
	out, _ := json.Marshal(t)
	var m obj
	_ = json.Unmarshal(out, &m)
	return m
}

// typedDefaults decodes data into a T and applies set: the value, or nil when it does not decode.
func typedDefaults[T any](data []byte, set func(*T)) interface{} {
	v := new(T)
	if json.Unmarshal(data, v) != nil {
		return nil
	}
	set(v)
	return v
}

func imageJobStatus(r *rand.Rand, listJob bool) obj {
	if !chance(r, 0.15) {
		return nil
	}
	st := obj{"desired": float64(3), "active": float64(1), "succeeded": float64(r.Intn(3))}
	if chance(r, 0.5) {
		st["startTime"] = pick(r, []string{"2025-03-01T08:30:00Z", "2025-03-01T08:30:00.123456Z", "2025-03-01T10:30:00+02:00"})
	}
	if chance(r, 0.3) {
		st["completionTime"] = "2025-03-01T09:00:00Z"
	}
	if listJob {
		st["completed"] = float64(1)
		if chance(r, 0.5) {
			st["failedImageStatuses"] = []interface{}{obj{"imagePullJob": "job-x", "name": "nginx", "message": "timeout"}, nil}[:1+r.Intn(2)]
		}
	} else {
		st["failed"] = float64(r.Intn(2))
		if chance(r, 0.5) {
			st["failedNodes"] = []interface{}{"node-a", "node-b"}[:1+r.Intn(2)]
		}
		if chance(r, 0.3) {
			st["message"] = "pulling"
		}
	}
	return st
}

// agedImageJob: the old object of an update: the same job, its pull secrets changed now and
// then (the one rule of updates), or other fields changed, which no rule looks at.
func agedImageJob(r *rand.Rand, o obj) obj {
	old := copyObj(o)
	spec := asMap(old["spec"])
	if spec == nil {
		return old
	}
	switch x := r.Float64(); {
	case x < 0.12:
		spec["pullSecrets"] = pullSecretsValue(r)
	case x < 0.18:
		delete(spec, "pullSecrets")
	case x < 0.22:
		if l := asList(spec["pullSecrets"]); len(l) > 1 {
			spec["pullSecrets"] = list{l[1], l[0]}
		}
	case x < 0.35:
		spec["parallelism"] = float64(7)
		spec["completionPolicy"] = obj{"type": "Never"}
	}
	if md := asMap(old["metadata"]); md != nil && chance(r, 0.3) {
		md["resourceVersion"] = "999"
	}
	if chance(r, 0.05) {
		spec["pullSecrets"] = "sec-a" // an old object that does not decode
	}
	return old
}

// --- ImagePullJob ------------------------------------------------------------------------------

func imagePullJobSpec(r *rand.Rand) obj {
	spec := obj{}
	switch x := r.Float64(); {
	case x < 0.45:
		spec["image"] = pick(r, pullImages[:8])
	case x < 0.95:
		spec["image"] = imageRef(r)
	case x < 0.97:
		spec["image"] = nil
	}
	jobTemplateFields(r, spec)
	return spec
}

func genImagePullJob(r *rand.Rand, validating bool) testCase {
	version := jobVersion(r)
	o := imageJobObject(r, "ImagePullJob", version, imagePullJobSpec(r), imageJobStatus(r, false))
	op := jobOp(r)
	if chance(r, defaultedShare(validating)) {
		o = imageDefaulted(o, "ImagePullJob", version, op == "CREATE" || chance(r, 0.5))
	}
	var old obj
	if op == "UPDATE" {
		old = agedImageJob(r, o)
	}
	return testCase{Gates: imageGates(r, validating), Requests: []map[string]interface{}{
		jobRequest(r, "ImagePullJob", "imagepulljobs", version, op, o, old)}}
}

func genImagePullJobMutate(r *rand.Rand, i int) testCase   { return genImagePullJob(r, false) }
func genImagePullJobValidate(r *rand.Rand, i int) testCase { return genImagePullJob(r, true) }

// --- ImageListPullJob --------------------------------------------------------------------------

func imageListPullJobSpec(r *rand.Rand) obj {
	spec := obj{}
	switch x := r.Float64(); {
	case x < 0.8:
		var imgs list
		for n := 1 + r.Intn(4); n > 0; n-- {
			if chance(r, 0.6) {
				imgs = append(imgs, pick(r, pullImages[:8]))
			} else {
				imgs = append(imgs, imageRef(r))
			}
		}
		spec["images"] = imgs
	case x < 0.86:
		spec["images"] = list{}
	case x < 0.88:
		spec["images"] = nil
	case x < 0.93:
		// around the limit of 255, now and then with a repeat or a bad reference in it
		n := pick2(r, 255, 256).(int)
		if chance(r, 0.3) {
			n = 254 + r.Intn(4)
		}
		var imgs list
		for i := 0; i < n; i++ {
			imgs = append(imgs, fmt.Sprintf("registry.example.com/team/img-%d:v1", i))
		}
		if chance(r, 0.25) {
			imgs[r.Intn(n)] = imgs[0]
		}
		if chance(r, 0.25) {
			imgs[r.Intn(n)] = "Bad/Image"
		}
		spec["images"] = imgs
	}
	jobTemplateFields(r, spec)
	return spec
}

func genImageListPullJob(r *rand.Rand, validating bool) testCase {
	version := jobVersion(r)
	o := imageJobObject(r, "ImageListPullJob", version, imageListPullJobSpec(r), imageJobStatus(r, true))
	op := jobOp(r)
	if chance(r, defaultedShare(validating)) {
		o = imageDefaulted(o, "ImageListPullJob", version, op == "CREATE")
	}
	var old obj
	if op == "UPDATE" {
		old = agedImageJob(r, o)
	}
	return testCase{Gates: imageGates(r, validating), Requests: []map[string]interface{}{
		jobRequest(r, "ImageListPullJob", "imagelistpulljobs", version, op, o, old)}}
}

func genImageListPullJobMutate(r *rand.Rand, i int) testCase   { return genImageListPullJob(r, false) }
func genImageListPullJobValidate(r *rand.Rand, i int) testCase { return genImageListPullJob(r, true) }

// --- NodeImage ---------------------------------------------------------------------------------

var (
	nodeImageNames = []string{"nginx", "docker.io/library/nginx", "registry.example.com:5000/team/app", "busybox",
		"quay.io/a/b", "envoyproxy/envoy"}
	nodeImageTags = []string{"latest", "1.25", "v1", "v2", "1.0.0", "alpha", "Beta", "a", "b", "10", "9", "1.25.1"}
	// createdAt as kruise writes it, in other forms of RFC 3339 Go reads (a fraction, an
	// offset, both), and as what Go's time parser refuses
	nodeImageTimes    = []interface{}{"2025-02-28T23:59:59Z", "2025-03-01T08:30:00.5Z", "2025-03-01T10:30:00+02:00", "2025-03-01T08:30:00.999999999-07:00", nil}
	nodeImageBadTimes = []interface{}{"2025-03-01 08:30:00Z", "yesterday", "", float64(1740817800), "2025-13-01T00:00:00Z"}
)

func imageTagPullPolicy(r *rand.Rand, bad float64) interface{} {
	switch x := r.Float64(); {
	case x < 0.06:
		return nil
	case x < 0.12:
		return obj{}
	}
	p := obj{}
	if chance(r, 0.85) {
		p["ttlSecondsAfterFinished"] = int32ish(r, bad, 300, 600, 86400, 0)
	}
	if chance(r, 0.5) {
		p["timeoutSeconds"] = int32ish(r, bad, 60, 600, 1800)
	}
	if chance(r, 0.4) {
		p["backoffLimit"] = int32ish(r, bad, 0, 3, 5)
	}
	if chance(r, 0.2) {
		p["activeDeadlineSeconds"] = int32ish(r, bad, 1200, 3600)
	}
	return p
}

// nodeImageTag: one tag's spec; bad is the rate of values Go's decoder refuses.
func nodeImageTag(r *rand.Rand, tag string, bad float64) obj {
	t := obj{"tag": tag}
	if chance(r, 0.8) {
		switch x := r.Float64(); {
		case x < bad*3:
			t["createdAt"] = nodeImageBadTimes[r.Intn(len(nodeImageBadTimes))]
		case x < bad*3+0.12:
			t["createdAt"] = nodeImageTimes[r.Intn(len(nodeImageTimes))]
		default:
			t["createdAt"] = "2025-03-01T08:30:00Z"
		}
	}
	if chance(r, 0.85) {
		t["pullPolicy"] = imageTagPullPolicy(r, bad)
	}
	if chance(r, 0.4) {
		t["version"] = []interface{}{float64(0), float64(1), float64(3), float64(-1), float64(1 << 40)}[r.Intn(5)]
		if chance(r, bad*3) {
			t["version"] = pick2(r, 1.5, "2")
		}
	}
	if chance(r, 0.3) {
		t["ownerReferences"] = list{obj{"apiVersion": "apps.kruise.io/v1beta1", "kind": "ImagePullJob",
			"name": pick(r, []string{"job-1", "pull-images"}), "namespace": "default", "uid": uid(r)}}
	}
	if chance(r, 0.2) {
		t["imagePullPolicy"] = pick(r, []string{"Always", "IfNotPresent", "", "Sometimes"})
	}
	return t
}

// nodeImageTags draws an image's tags: distinct most of the time, in any order (the defaulting
// webhook sorts them), with repeats and empty ones now and then.
func nodeImageTagList(r *rand.Rand, bad float64) interface{} {
	switch x := r.Float64(); {
	case x < 0.05:
		return nil
	case x < 0.1:
		return list{}
	}
	names := distinctNames(r, nodeImageTags, 1+r.Intn(4))
	if chance(r, 0.1) {
		names = distinctNames(r, nodeImageTags, len(nodeImageTags))
	}
	if chance(r, 0.08) {
		names = append(names, names[r.Intn(len(names))])
	}
	if chance(r, 0.04) {
		names = append(names, "")
	}
	if chance(r, 0.05) {
		names = append(names, "\u00e9t\u00e9", "z", "Z", "0")
	}
	if chance(r, 0.01) {
		names = append(names, "v1\u0000", "v1")
	}
	var tags list
	for _, n := range names {
		tags = append(tags, nodeImageTag(r, n, bad))
	}
	// a repeat that is otherwise the same, so that only the sort's treatment of equal tags tells
	if chance(r, 0.05) && len(tags) > 0 {
		tags = append(tags, copyObj(asMap(tags[0])))
	}
	return tags
}

func nodeImageSpecImage(r *rand.Rand, bad float64) obj {
	img := obj{"tags": nodeImageTagList(r, bad)}
	if chance(r, 0.05) {
		delete(img, "tags")
	}
	if chance(r, 0.25) {
		img["pullSecrets"] = list{obj{"namespace": "default", "name": pick(r, []string{"regcred", "sec-a"})}}
		if chance(r, 0.3) {
			asMap(asList(img["pullSecrets"])[0])["mode"] = pick(r, []string{"batch", ""})
		}
	}
	if chance(r, 0.15) {
		img["sandboxConfig"] = obj{"labels": obj{"a": "b"}, "annotations": obj{"c": "d"}}
	}
	return img
}

func nodeImageStatusImage(r *rand.Rand) obj {
	names := distinctNames(r, nodeImageTags, 1+r.Intn(4))
	if chance(r, 0.08) {
		names = append(names, names[0])
	}
	var tags list
	for _, n := range names {
		t := obj{"tag": n, "phase": pick(r, []string{"Succeeded", "Pulling", "Failed", "Waiting", ""})}
		if chance(r, 0.4) {
			t["progress"] = float64(r.Intn(101))
		}
		if chance(r, 0.4) {
			t["startTime"] = "2025-03-01T08:30:00Z"
		}
		if chance(r, 0.3) {
			t["completionTime"] = "2025-03-01T08:31:00Z"
		}
		if chance(r, 0.3) {
			t["version"] = float64(r.Intn(3))
		}
		if chance(r, 0.3) {
			t["imageID"] = "docker.io/library/nginx@sha256:" + strings.Repeat("ab", 32)
		}
		if chance(r, 0.2) {
			t["message"] = "pulled"
		}
		tags = append(tags, t)
	}
	return obj{"tags": tags}
}

func nodeImageObject(r *rand.Rand, version string) obj {
	bad := []float64{0, 0, 0.01, 0.05}[r.Intn(4)]
	images := obj{}
	n := r.Intn(4)
	if chance(r, 0.03) {
		n = pick2(r, 256, 257).(int)
	}
	for i := 0; i < n; i++ {
		name := pick(r, nodeImageNames)
		if n > len(nodeImageNames) {
			name = fmt.Sprintf("registry.example.com/img-%d", i)
		}
		images[name] = nodeImageSpecImage(r, bad)
	}
	if chance(r, 0.04) {
		images[""] = nodeImageSpecImage(r, bad)
	}
	spec := obj{}
	switch x := r.Float64(); {
	case x < 0.9:
		spec["images"] = images
	case x < 0.93:
		spec["images"] = obj{}
	case x < 0.95:
		spec["images"] = nil
	}
	meta := obj{"name": pick(r, []string{"node-a", "node-b", "worker-1", "ip-10-0-0-1.ec2.internal"})}
	if chance(r, 0.3) {
		meta["labels"] = obj{"kubernetes.io/hostname": meta["name"]}
	}
	if chance(r, 0.3) {
		meta["ownerReferences"] = list{obj{"apiVersion": "v1", "kind": "Node", "name": meta["name"], "uid": uid(r)}}
	}
	if chance(r, 0.4) {
		meta["resourceVersion"] = fmt.Sprint(1000 + r.Intn(50))
		meta["creationTimestamp"] = "2025-03-01T08:30:00Z"
	}
	o := obj{"metadata": meta, "spec": spec}
	av := "apps.kruise.io/" + version
	if version == "v2" {
		av = "apps.kruise.io/v1beta1"
	}
	if chance(r, 0.95) {
		o["apiVersion"], o["kind"] = av, "NodeImage"
	}
	if chance(r, 0.4) {
		st := obj{"desired": float64(n), "succeeded": float64(r.Intn(3)), "failed": float64(0), "pulling": float64(1), "waiting": float64(0)}
		if chance(r, 0.8) {
			ss := obj{}
			for k := 1 + r.Intn(2); k > 0; k-- {
				ss[pick(r, nodeImageNames)] = nodeImageStatusImage(r)
			}
			st["imageStatuses"] = ss
		}
		if chance(r, 0.3) {
			st["firstSyncStatus"] = obj{"syncAt": "2025-03-01T08:30:00Z", "status": pick(r, []string{"Succeeded", "Failed"}), "message": "ok"}
		}
		o["status"] = st
	}
	corruptJob(r, o)
	return o
}

// nodeImageDefaulted: o defaulted and sorted as upstream's mutating webhook leaves it. A tag
// without createdAt gets a fixed time first: the defaults' own (metav1.Now) would make a seed's
// cases differ from run to run. The tags are sorted stably (the generator's own order, which is
// upstream's where the tags are distinct).
func nodeImageDefaulted(o obj, version string) obj {
	o = copyObj(o)
	images := asMap(get(o, "spec", "images"))
	for _, name := range sortedKeysAny(images) {
		for _, tag := range asList(asMap(images[name])["tags"]) {
			if t := asMap(tag); t != nil && t["createdAt"] == nil {
				t["createdAt"] = "2025-03-01T08:30:00Z"
			}
		}
	}
	m := imageDefaulted(o, "NodeImage", version, false)
	images = asMap(get(m, "spec", "images"))
	for _, name := range sortedKeysAny(images) {
		tags := asList(asMap(images[name])["tags"])
		sort.SliceStable(tags, func(i, j int) bool {
			a, _ := asMap(tags[i])["tag"].(string)
			b, _ := asMap(tags[j])["tag"].(string)
			return a < b
		})
	}
	return m
}

// agedNodeImage: the old object of an update, as kruise-daemon and the controllers change one:
// a tag added or gone, a status written.
func agedNodeImage(r *rand.Rand, o obj) obj {
	old := copyObj(o)
	if spec := asMap(old["spec"]); spec != nil && chance(r, 0.5) {
		spec["images"] = obj{"nginx": obj{"tags": list{obj{"tag": "old", "createdAt": "2024-01-01T00:00:00Z",
			"pullPolicy": obj{"ttlSecondsAfterFinished": float64(300)}}}}}
	}
	if chance(r, 0.3) {
		old["status"] = obj{"desired": float64(1)}
	}
	return old
}

func genNodeImage(r *rand.Rand, validating bool) testCase {
	version := jobVersion(r)
	o := nodeImageObject(r, version)
	if version != "v2" && chance(r, defaultedShare(validating)) {
		o = nodeImageDefaulted(o, version)
	}
	op := jobOp(r)
	var old obj
	if op == "UPDATE" {
		old = agedNodeImage(r, o)
	}
	var gates map[string]bool
	if chance(r, 0.06) {
		gates = map[string]bool{"KruiseDaemon": false}
	}
	name, _ := get(o, "metadata", "name").(string)
	var object, oldObject interface{} = o, nil
	if old != nil {
		oldObject = old
	}
	if op == "DELETE" {
		object, oldObject = nil, o
	}
	// NodeImage is cluster-scoped: no namespace in the request
	return testCase{Gates: gates, Requests: []map[string]interface{}{
		admissionRequest(r, "apps.kruise.io", version, "NodeImage", "nodeimages", "", op, "", name, object, oldObject)}}
}

func genNodeImageMutate(r *rand.Rand, i int) testCase   { return genNodeImage(r, false) }
func genNodeImageValidate(r *rand.Rand, i int) testCase { return genNodeImage(r, true) }
