package main

import (
	"encoding/json"
	"fmt"
	"sort"
)

// shrink makes a failing case as small as it stays failing in the same aspect: later requests
// dropped, then earlier ones, then world objects one at a time, then members and elements of
// the last request's objects, parents before children. It stops after maxShrink re-runs.
func (r *runner) shrink(p *pair, c *testCase, first *result) (*testCase, error) {
	aspect := first.diffs[0].Aspect
	broken := false // the original difference is an answer that could not be read
	for _, d := range first.diffs {
		broken = broken || d.Aspect == "answer"
	}
	runs := 0
	fails := func(t *testCase) (bool, error) {
		if runs >= r.f.maxShrink {
			return false, nil
		}
		runs++
		res, err := execute(p, t, true)
		if err != nil {
			return false, err
		}
		if res.diffs == nil || r.explain(t, res) != "" {
			return false, nil
		}
		same := false
		for _, d := range res.diffs {
			if d.Aspect == "answer" && !broken {
				return false, nil // a smaller input that makes a patch not apply is another case
			}
			same = same || d.Aspect == aspect
		}
		return same, nil
	}
	cur := cloneCase(c)
	cur.Requests = cur.Requests[:first.step+1]
	for i := len(cur.Requests) - 2; i >= 0; i-- {
		t := cloneCase(cur)
		t.Requests = append(t.Requests[:i:i], t.Requests[i+1:]...)
		ok, err := fails(t)
		if err != nil {
			return nil, err
		}
		if ok {
			cur = t
		}
	}
	for i := len(cur.World) - 1; i >= 0; i-- {
		t := cloneCase(cur)
		t.World = append(t.World[:i:i], t.World[i+1:]...)
		ok, err := fails(t)
		if err != nil {
			return nil, err
		}
		if ok {
			cur = t
		}
	}
	last := len(cur.Requests) - 1
	for _, member := range []string{"object", "oldObject", "objects"} {
		for progress := true; progress && runs < r.f.maxShrink; {
			progress = false
			for _, path := range removable(cur.Requests[last][member]) {
				t := cloneCase(cur)
				v, ok := removeAt(t.Requests[last][member], path)
				if !ok {
					continue
				}
				if o, isObj := v.(map[string]interface{}); isObj {
					v = map[string]interface{}(asSent(o)) // still as the API server sends it
				}
				t.Requests[last][member] = v
				ok, err := fails(t)
				if err != nil {
					return nil, err
				}
				if ok {
					cur = t
					progress = true
					break
				}
			}
		}
	}
	if r.f.verbose {
		fmt.Printf("diff: shrunk %s case %d in %d runs\n", c.Gen, c.Index, runs)
	}
	return cur, nil
}

func cloneCase(c *testCase) *testCase {
	data, _ := json.Marshal(c)
	var t testCase
	_ = json.Unmarshal(data, &t)
	return &t
}

// removable lists the paths of every member and element under v, parents first; members that
// identify a Kubernetes object (apiVersion, kind, metadata.name) are kept.
func removable(v interface{}) [][]interface{} {
	var out [][]interface{}
	var walk func(x interface{}, path []interface{})
	walk = func(x interface{}, path []interface{}) {
		switch t := x.(type) {
		case map[string]interface{}:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if len(path) <= 1 && (k == "apiVersion" || k == "kind") {
					continue
				}
				p := append(append([]interface{}{}, path...), k)
				if !(k == "name" && len(path) >= 1 && path[len(path)-1] == "metadata") {
					out = append(out, p)
				}
			}
			for _, k := range keys {
				walk(t[k], append(append([]interface{}{}, path...), k))
			}
		case []interface{}:
			for i := range t {
				out = append(out, append(append([]interface{}{}, path...), i))
			}
			for i := range t {
				walk(t[i], append(append([]interface{}{}, path...), i))
			}
		}
	}
	walk(v, nil)
	return out
}

// removeAt returns v without the member or element at path (v is not shared: a clone).
func removeAt(v interface{}, path []interface{}) (interface{}, bool) {
	if len(path) == 0 {
		return v, false
	}
	switch t := v.(type) {
	case map[string]interface{}:
		k, ok := path[0].(string)
		if !ok {
			return v, false
		}
		x, ok := t[k]
		if !ok {
			return v, false
		}
		if len(path) == 1 {
			delete(t, k)
			return t, true
		}
		nx, ok := removeAt(x, path[1:])
		t[k] = nx
		return t, ok
	case []interface{}:
		i, ok := path[0].(int)
		if !ok || i >= len(t) {
			return v, false
		}
		if len(path) == 1 {
			return append(t[:i:i], t[i+1:]...), true
		}
		nx, ok := removeAt(t[i], path[1:])
		t[i] = nx
		return t, ok
	}
	return v, false
}
