package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// ServiceMemory is one service's memory limit (compose mem_limit) and why
// it is that size.
type ServiceMemory struct {
	Service string
	MB      int
	// OneShot services run once at start and exit.
	OneShot bool
	Why     string
}

// hasLakes tells whether the stack keeps lake tables (Fluss/Paimon or
// Iceberg) on the shared warehouse volume.
func hasLakes(l *schemas.Lab) bool { return l.Stack.HasLakes() }

// heap is a service's JVM heap flags, as its description in the registry
// sizes it.
func heap(l *schemas.Lab, service string) string {
	return schemas.Service(service).Memory(l).Heap
}

// memoryPlan lists the memory of every service the stack runs, in
// serviceOrder, as each service's description in the registry budgets it
// (schemas.ServiceDesc.Memory).
func memoryPlan(l *schemas.Lab, st *stack) []ServiceMemory {
	var out []ServiceMemory
	for _, name := range st.services() {
		d := schemas.Service(name)
		if d == nil || d.Memory == nil {
			continue
		}
		m := d.Memory(l)
		out = append(out, ServiceMemory{Service: name, MB: m.MB, OneShot: st.oneShot[name], Why: m.Why})
	}
	return out
}

// memoryTotal sums the limits.
func memoryTotal(ms []ServiceMemory) int {
	n := 0
	for _, m := range ms {
		n += m.MB
	}
	return n
}

// MemoryBudget is the memory limit of each service of the lab's compose
// stack, for labgen render to print.
func MemoryBudget(l *schemas.Lab) []ServiceMemory {
	return memoryPlan(l, buildStack(l, imagePrefix(l), Files{}))
}

// FormatBudget is one line: the total and the largest services.
func FormatBudget(ms []ServiceMemory) string {
	if len(ms) == 0 {
		return ""
	}
	big := append([]ServiceMemory(nil), ms...)
	sort.SliceStable(big, func(i, j int) bool { return big[i].MB > big[j].MB })
	var parts []string
	for _, m := range big[:min(4, len(big))] {
		parts = append(parts, fmt.Sprintf("%s %s", m.Service, mib(m.MB)))
	}
	return fmt.Sprintf("Memory: %s of limits over %d services (%s, …); runbook.md lists them all.", mib(memoryTotal(ms)), len(ms), strings.Join(parts, ", "))
}

// mib writes MiB as "512 MB" or "1.3 GB".
func mib(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d MB", n)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1024)
}
