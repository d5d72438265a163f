package main

import (
	_ "unsafe" // go:linkname

	_ "github.com/openkruise/kruise/pkg/util/workloadspread"
)

// Upstream remembers, for the life of its process, the custom workloads of the WorkloadSpread
// white list it read at the first Pod creation. A world here stands for a cluster the process
// has just met, so that memory goes back to its start with every world.

// upstreamWorkload has the layout of pkg/util/workloadspread's workload type.
type upstreamWorkload struct {
	Kind   string
	Groups []string
}

//go:linkname wsWorkloads github.com/openkruise/kruise/pkg/util/workloadspread.workloads
var wsWorkloads []upstreamWorkload

//go:linkname wsWorkloadsInitialized github.com/openkruise/kruise/pkg/util/workloadspread.workloadsInWhiteListInitialized
var wsWorkloadsInitialized bool

var wsBuiltinWorkloads []upstreamWorkload

// rememberUpstreamDefaults keeps what upstream starts with; call once before any request.
func rememberUpstreamDefaults() {
	wsBuiltinWorkloads = append([]upstreamWorkload(nil), wsWorkloads...)
}

// resetUpstreamMemory puts upstream's process-wide memory back to its start.
func resetUpstreamMemory() {
	wsWorkloads = append([]upstreamWorkload(nil), wsBuiltinWorkloads...)
	wsWorkloadsInitialized = false
}
