package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// A difference is one aspect of an answer on which the two servers disagree.
type difference struct {
	Aspect string      `json:"aspect"` // http, allowed, code, message, object, result, convertedObjects
	Oracle interface{} `json:"oracle"`
	Ours   interface{} `json:"ours"`
}

func (d difference) String() string {
	return fmt.Sprintf("%s: oracle %s, ours %s", d.Aspect, short(d.Oracle), short(d.Ours))
}

func short(v interface{}) string {
	data, _ := json.Marshal(v)
	s := string(data)
	if len(s) > 400 && os.Getenv("KWH_DIFF_FULL") == "" {
		s = s[:400] + "..."
	}
	return s
}

// outcome is the part of an answer the comparison looks at, normalised. An answer that is not a
// review (a path not served: upstream's router answers 404 in plain text, this server with a
// Status object) is compared by its HTTP status alone.
type outcome struct {
	HTTP    int
	Allowed interface{}
	Code    interface{}
	Message interface{}
	Object  interface{}   // mutating: request.object with the patch applied
	Result  interface{}   // conversion: result.status
	Objects []interface{} // conversion: convertedObjects, normalised
	Inputs  []interface{} // conversion: the request's objects, normalised
	Err     string        // the answer could not be read
}

func get(m map[string]interface{}, path ...string) interface{} {
	var cur interface{} = m
	for _, p := range path {
		mm, ok := cur.(map[string]interface{})
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

// admissionOutcome reads an AdmissionReview answer; object is the request's object, which the
// patch (if any) is applied to.
func admissionOutcome(a *answer, object interface{}) outcome {
	o := outcome{HTTP: a.HTTPStatus}
	if a.HTTPStatus != 200 {
		return o // an answer outside the review protocol: its status is what counts (see below)
	}
	resp, ok := get(a.Body, "response").(map[string]interface{})
	if !ok {
		o.Err = "no response in the answer: " + string(a.Raw)
		return o
	}
	o.Allowed = resp["allowed"]
	o.Code = get(resp, "status", "code")
	o.Message = get(resp, "status", "message")
	o.Object = object
	if p, ok := resp["patch"].(string); ok && p != "" {
		patched, err := applyPatch(object, p)
		if err != nil {
			o.Err = "the patch does not apply: " + err.Error()
		}
		o.Object = patched
	}
	o.Object = normalizeGenerated(asStored(o.Object), object)
	return o
}

// asStored gives a Pod as the API server stores it: decoded into its Go type and encoded again,
// which drops what carries no meaning there (an env var's "value": "", members of the wrong
// place). The API server decodes a patched Pod the same way, so two answers that differ only
// in that are the same answer. Other kinds are compared as they are.
func asStored(object interface{}) interface{} {
	m := asMap(object)
	if m["apiVersion"] != "v1" || m["kind"] != "Pod" {
		return object
	}
	data, _ := json.Marshal(m)
	var pod corev1.Pod
	if json.Unmarshal(data, &pod) != nil {
		return object
	}
	out, _ := json.Marshal(&pod)
	var v interface{}
	_ = json.Unmarshal(out, &v)
	return v
}

var uuidLike = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// normalizeGenerated replaces the values upstream makes up per request, which no two answers
// share: the uid WorkloadSpread generates for a Pod that has no name yet (in the
// matched-workloadspread annotation), the time of injection SidecarSet records
// (updateTimestamp in the sidecarset-hash annotations) when it is the current time, and a name
// made from the request's generateName (launch priority names the Pod to name its barrier),
// and the createdAt NodeImage's defaults give a tag without one (the time of the request).
func normalizeGenerated(object, request interface{}) interface{} {
	object = deepCopyJSON(object)
	for _, t := range nodeImageTagsNow(object) {
		t["createdAt"] = "<now>"
	}
	if gen, _ := get(asMap(request), "metadata", "generateName").(string); gen != "" {
		if _, named := get(asMap(request), "metadata", "name").(string); !named {
			if name, _ := get(asMap(object), "metadata", "name").(string); strings.HasPrefix(name, gen) && len(name) == len(gen)+5 {
				data, _ := json.Marshal(object)
				data = []byte(strings.ReplaceAll(string(data), `"`+name, `"`+gen+"<generated>"))
				_ = json.Unmarshal(data, &object)
			}
		}
	}
	ann, ok := get(asMap(object), "metadata", "annotations").(map[string]interface{})
	if !ok {
		return object
	}
	for key, val := range ann {
		s, ok := val.(string)
		if !ok {
			continue
		}
		var v interface{}
		switch key {
		case "apps.kruise.io/matched-workloadspread":
			if json.Unmarshal([]byte(s), &v) != nil {
				continue
			}
			if m, ok := v.(map[string]interface{}); ok {
				if u, ok := m["uid"].(string); ok && uuidLike.MatchString(u) {
					m["uid"] = "<generated uid>"
				}
			}
		case "kruise.io/sidecarset-hash", "kruise.io/sidecarset-hash-without-image":
			if json.Unmarshal([]byte(s), &v) != nil {
				continue
			}
			m, _ := v.(map[string]interface{})
			for _, entry := range m {
				e, ok := entry.(map[string]interface{})
				if !ok {
					continue
				}
				if t, ok := e["updateTimestamp"].(string); ok {
					if ts, err := time.Parse(time.RFC3339, t); err == nil && time.Since(ts).Abs() < time.Hour {
						e["updateTimestamp"] = "<now>"
					}
				}
			}
		default:
			continue
		}
		data, _ := json.Marshal(v)
		ann[key] = string(data)
	}
	return object
}

// nodeImageTagsNow: the tags of a NodeImage's spec whose createdAt is the current time (within
// an hour: the generators write older ones), as the defaults set it, by the JSON Pointer of
// their createdAt. A NodeImage is known by its spec.images, a map of tag lists (the kind may be
// missing: upstream decodes such an object by the request's kind); ImageListPullJob's is a list.
func nodeImageTagsNow(object interface{}) map[string]map[string]interface{} {
	m := asMap(object)
	out := map[string]map[string]interface{}{}
	escape := strings.NewReplacer("~", "~0", "/", "~1")
	images := asMap(get(m, "spec", "images"))
	for name, image := range images {
		tags, _ := asMap(image)["tags"].([]interface{})
		for i, tag := range tags {
			t := asMap(tag)
			if s, ok := t["createdAt"].(string); ok {
				if ts, err := time.Parse(time.RFC3339, s); err == nil && time.Since(ts).Abs() < time.Hour {
					out[fmt.Sprintf("/spec/images/%s/tags/%d/createdAt", escape.Replace(name), i)] = t
				}
			}
		}
	}
	return out
}

func deepCopyJSON(v interface{}) interface{} {
	data, _ := json.Marshal(v)
	var out interface{}
	_ = json.Unmarshal(data, &out)
	return out
}

func asMap(v interface{}) map[string]interface{} {
	m, _ := v.(map[string]interface{})
	return m
}

func applyPatch(object interface{}, b64 string) (interface{}, error) {
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.DecodePatch(raw)
	if err != nil {
		return nil, err
	}
	doc, _ := json.Marshal(object)
	out, err := patch.Apply(doc)
	if err != nil {
		return nil, err
	}
	var v interface{}
	err = json.Unmarshal(out, &v)
	return v, err
}

// conversionOutcome reads a ConversionReview answer; inputs are the request's objects, for the
// normalisation's rule 5.
func conversionOutcome(a *answer, inputs []interface{}) outcome {
	o := outcome{HTTP: a.HTTPStatus}
	if a.HTTPStatus != 200 {
		return o
	}
	resp, ok := get(a.Body, "response").(map[string]interface{})
	if !ok {
		o.Err = "no response in the answer: " + string(a.Raw)
		return o
	}
	o.Result = get(resp, "result", "status")
	if o.Result != "Success" {
		o.Message = get(resp, "result", "message")
		return o
	}
	objs, _ := resp["convertedObjects"].([]interface{})
	normed := []interface{}{}
	for _, obj := range objs {
		normed = append(normed, sortUnordered(normalizeConverted(obj)))
	}
	o.Objects = normed
	for _, in := range inputs {
		o.Inputs = append(o.Inputs, normalizeConverted(in))
	}
	return o
}

// compareOutcomes lists the aspects on which the two outcomes differ.
func compareOutcomes(oracle, ours outcome) []difference {
	var d []difference
	add := func(aspect string, a, b interface{}) {
		if !reflect.DeepEqual(a, b) {
			d = append(d, difference{aspect, a, b})
		}
	}
	if oracle.Err != "" || ours.Err != "" {
		add("answer", oracle.Err, ours.Err)
	}
	add("http", oracle.HTTP, ours.HTTP)
	add("allowed", oracle.Allowed, ours.Allowed)
	add("code", oracle.Code, ours.Code)
	add("message", normalizeMessage(oracle.Message), normalizeMessage(ours.Message))
	add("object", oracle.Object, ours.Object)
	add("result", oracle.Result, ours.Result)
	if oracle.Objects != nil || ours.Objects != nil {
		a, b := passThrough(oracle.Objects, ours.Objects, oracle.Inputs)
		add("convertedObjects", a, b)
	}
	return d
}

// Go prints the address of a pointer in some messages (a struct printed with %v): it differs
// between runs, so both sides' addresses read the same.
var goPointer = regexp.MustCompile(`0x[0-9a-f]{6,16}`)

// UnitedDeployment validation prints spec.replicas, a *int32, with %d: the address in decimal.
var goDecimalPointer = regexp.MustCompile(`(UnitedDeployment replicas )[0-9]{9,20}`)

// An InPlaceOnly update names the first operation of a patch between the two Pod specs that is
// not an image's replacement; the patch walks object keys in Go's random map order, so with
// several such operations any of them may be the one named.
var inPlaceOperation = regexp.MustCompile(`((?:only allowed to update images in spec for InPlaceOnly, but found|invalid template modified with InPlaceOnly strategy:) )(?:add|remove|replace) [^ ,\]]*`)

func normalizeMessage(m interface{}) interface{} {
	s, ok := m.(string)
	if !ok {
		return m
	}
	s = goPointer.ReplaceAllString(s, "0xPOINTER")
	s = goDecimalPointer.ReplaceAllString(s, "${1}POINTER")
	s = inPlaceOperation.ReplaceAllString(s, "${1}OPERATION")
	if parts := splitAggregate(s); len(parts) > 1 {
		sort.Strings(parts)
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return s
}

// An aggregate of field errors, "[path: detail, path: detail]", joins them in the order
// validation found them, and Kubernetes' validation ranges over Go maps (a resource list, labels)
// whose order varies per call: the errors are compared as a set.
// A path's map keys may hold spaces and other bytes ("limits[Bad Name]").
var errorStart = regexp.MustCompile(`, [a-zA-Z][A-Za-z0-9_.'/-]*(?:\[[^\]]*\][A-Za-z0-9_.'/-]*)*: `)

func splitAggregate(s string) []string {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil
	}
	inner := s[1 : len(s)-1]
	var parts []string
	start := 0
	for _, loc := range errorStart.FindAllStringIndex(inner, -1) {
		parts = append(parts, inner[start:loc[0]])
		start = loc[0] + 2
	}
	return append(parts, inner[start:])
}

// --- converted objects: the vectors' semantic comparison (test/vectors/README.md) ----------

// Quantities: the members of resource lists, and fields that hold one quantity. The vectors'
// rule 4 names the lists a CloneSet's template uses; Go re-encodes every resource.Quantity, so
// the other lists (a PVC's allocatedResources, quotas' hard and used, a Pod's overhead) and a
// single quantity (a resourceFieldRef's divisor, an emptyDir's sizeLimit) are canonical too. A zero quantity is a zero:
// Go prints an unset divisor as "0" (rule 2's reason).
var quantityParents = map[string]bool{"requests": true, "limits": true, "capacity": true,
	"allocatable": true, "allocatedResources": true, "hard": true, "used": true, "overhead": true}

// normalizeConverted applies rules 1-4: nulls, empty objects and lists, and scalar zeros go;
// timestamps are UTC whole seconds; quantities canonical. Rule 5 (members passed through from
// the input) is applied when two outcomes are compared.
func normalizeConverted(obj interface{}) interface{} {
	return norm(obj, false)
}

// norm normalises v; quantity is true for the values of a requests, limits, capacity,
// allocatable or storage map.
func norm(v interface{}, quantity bool) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		out := map[string]interface{}{}
		for k, x := range t {
			// The members of a quantity map are quantities; so is a storage member.
			_, child := x.(map[string]interface{})
			q := quantityParents[k] || k == "storage" || k == "divisor" || k == "sizeLimit" || (quantity && !child)
			if n := norm(x, q); n != nil {
				out[k] = n
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []interface{}:
		var out []interface{}
		for _, x := range t {
			n := norm(x, false)
			if n == nil {
				n = map[string]interface{}{} // an element keeps its place
			}
			out = append(out, n)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case string:
		if quantity {
			if q, err := resource.ParseQuantity(t); err == nil {
				if q.IsZero() {
					return nil
				}
				return q.String()
			}
		}
		if t == "" {
			return nil
		}
		if strings.Contains(t, "T") {
			if ts, err := time.Parse(time.RFC3339Nano, t); err == nil {
				return ts.UTC().Truncate(time.Second).Format(time.RFC3339)
			}
		}
		return t
	case float64:
		if quantity {
			// read from the number's text as the API server's encoder writes it (1e20 as
			// 100000000000000000000: 100E), as a Go reader of the object would read it
			text, _ := json.Marshal(t)
			if q, err := resource.ParseQuantity(string(text)); err == nil && !q.IsZero() {
				return q.String()
			}
		}
		if t == 0 {
			return nil
		}
		return t
	case bool:
		if !t {
			return nil
		}
		return t
	}
	return v
}

// Lists upstream's conversion fills from a Go map, whose order Go varies per call: compared
// sorted by name (UnitedDeployment v1alpha1 status.subsetReplicas -> v1beta1
// status.subsetStatuses).
var unorderedLists = map[string][][]string{
	"UnitedDeployment": {{"status", "subsetStatuses"}},
}

func sortUnordered(o interface{}) interface{} {
	m := asMap(o)
	kind, _ := m["kind"].(string)
	for _, path := range unorderedLists[kind] {
		parent := asMap(get(m, path[:len(path)-1]...))
		l, ok := parent[path[len(path)-1]].([]interface{})
		if !ok {
			continue
		}
		sort.SliceStable(l, func(i, j int) bool {
			a, _ := asMap(l[i])["name"].(string)
			b, _ := asMap(l[j])["name"].(string)
			return a < b
		})
	}
	return o
}

// passThrough applies rule 5 both ways, object by object.
func passThrough(oracle, ours, inputs []interface{}) ([]interface{}, []interface{}) {
	if len(oracle) != len(ours) {
		return oracle, ours
	}
	a := make([]interface{}, len(oracle))
	b := make([]interface{}, len(ours))
	for i := range oracle {
		var in interface{}
		if i < len(inputs) {
			in = inputs[i]
		}
		a[i] = dropPassThrough(oracle[i], ours[i], in)
		b[i] = dropPassThrough(ours[i], oracle[i], in)
	}
	return a, b
}

// dropPassThrough removes from actual what rule 5 tolerates: members absent from expected that
// the input carries with the same value at the same path (list elements pair by position).
func dropPassThrough(actual, expected, input interface{}) interface{} {
	switch a := actual.(type) {
	case map[string]interface{}:
		em, _ := expected.(map[string]interface{})
		im, _ := input.(map[string]interface{})
		out := map[string]interface{}{}
		for k, av := range a {
			ev, inExpected := em[k]
			iv, inInput := im[k]
			if !inExpected && inInput && reflect.DeepEqual(av, iv) {
				continue
			}
			out[k] = dropPassThrough(av, ev, iv)
		}
		return out
	case []interface{}:
		el, _ := expected.([]interface{})
		il, _ := input.([]interface{})
		out := make([]interface{}, len(a))
		for i, av := range a {
			var ev, iv interface{}
			if i < len(el) {
				ev = el[i]
			}
			if i < len(il) {
				iv = il[i]
			}
			out[i] = dropPassThrough(av, ev, iv)
		}
		return out
	}
	return actual
}
