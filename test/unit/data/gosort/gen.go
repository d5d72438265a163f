//go:build ignore

// Writes slice.json: what Go's sort.Slice does with NodeImage's less function ("<=", not a
// strict order) on lists of keys with many duplicates, for test_gosort.c.
//
//	go run test/unit/data/gosort/gen.go > test/unit/data/gosort/slice.json
package main

import (
	"encoding/json"
	"math/rand"
	"os"
	"runtime"
	"sort"
)

type item struct{ Key, ID int }

func main() {
	r := rand.New(rand.NewSource(26))
	var cases []map[string]interface{}
	for _, n := range []int{0, 1, 2, 3, 5, 12, 13, 20, 49, 50, 51, 64, 100, 200, 500} {
		for rep := 0; rep < 4; rep++ {
			keys := make([]int, n)
			for i := range keys {
				switch rep {
				case 0:
					keys[i] = r.Intn(3)
				case 1:
					keys[i] = r.Intn(n + 1)
				case 2:
					keys[i] = n - i // decreasing
				default:
					keys[i] = i / 3 // increasing with runs
				}
			}
			items := make([]item, n)
			for i, k := range keys {
				items[i] = item{k, i}
			}
			sort.Slice(items, func(i, j int) bool { return items[i].Key <= items[j].Key })
			order := make([]int, n)
			for i, it := range items {
				order[i] = it.ID
			}
			cases = append(cases, map[string]interface{}{"keys": keys, "order": order})
		}
	}
	json.NewEncoder(os.Stdout).Encode(map[string]interface{}{"go": runtime.Version(), "cases": cases})
}
