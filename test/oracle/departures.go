package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// A departure is a difference from upstream this project makes on purpose; it is listed, with
// its reason, in test/oracle/departures.json and in the README's departures list. A difference
// is explained when one departure matches it whole: its path, every aspect that differs, and
// the request and messages as the departure describes them.
type departure struct {
	ID      string            `json:"id"`
	Reason  string            `json:"reason"`
	Paths   []string          `json:"paths,omitempty"`
	Aspects []string          `json:"aspects,omitempty"`
	Request map[string]string `json:"request,omitempty"` // JSON Pointer -> regexp on the value's JSON
	Oracle  string            `json:"oracleMessage,omitempty"`
	Ours    string            `json:"oursMessage,omitempty"`

	request      map[string]*regexp.Regexp
	oracle, ours *regexp.Regexp
}

func loadDepartures(path string) ([]departure, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var deps []departure
	if err := json.Unmarshal(data, &deps); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for i := range deps {
		d := &deps[i]
		if d.ID == "" || d.Reason == "" {
			return nil, fmt.Errorf("%s: departure %d needs an id and a reason", path, i+1)
		}
		d.request = map[string]*regexp.Regexp{}
		for ptr, re := range d.Request {
			c, err := regexp.Compile(re)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, d.ID, err)
			}
			d.request[ptr] = c
		}
		if d.Oracle != "" {
			if d.oracle, err = regexp.Compile(d.Oracle); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, d.ID, err)
			}
		}
		if d.Ours != "" {
			if d.ours, err = regexp.Compile(d.Ours); err != nil {
				return nil, fmt.Errorf("%s: %s: %v", path, d.ID, err)
			}
		}
	}
	return deps, nil
}

// explain returns the id of the departure that explains res, or "".
func (r *runner) explain(c *testCase, res *result) string {
	for i := range r.deps {
		if r.deps[i].matches(c, res) {
			return r.deps[i].ID
		}
	}
	return ""
}

func (d *departure) matches(c *testCase, res *result) bool {
	if len(d.Paths) > 0 && !contains(d.Paths, c.Path) {
		return false
	}
	for _, diff := range res.diffs {
		if len(d.Aspects) > 0 && !contains(d.Aspects, diff.Aspect) {
			return false
		}
	}
	for ptr, re := range d.request {
		v, ok := pointer(res.request, ptr)
		if !ok {
			return false
		}
		data, _ := json.Marshal(v)
		if !re.Match(data) {
			return false
		}
	}
	if d.oracle != nil && !d.oracle.MatchString(answerMessage(res.oracle)) {
		return false
	}
	if d.ours != nil && !d.ours.MatchString(answerMessage(res.ours)) {
		return false
	}
	return true
}

func answerMessage(a *answer) string {
	if a == nil {
		return ""
	}
	for _, path := range [][]string{{"response", "status", "message"}, {"response", "result", "message"}, {"message"}} {
		if m, ok := get(a.Body, path...).(string); ok {
			return m
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// pointer resolves an RFC 6901 JSON Pointer in v.
func pointer(v interface{}, ptr string) (interface{}, bool) {
	if ptr == "" {
		return v, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false
	}
	cur := v
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := cur.(type) {
		case map[string]interface{}:
			x, ok := t[tok]
			if !ok {
				return nil, false
			}
			cur = x
		case []interface{}:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			cur = t[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
