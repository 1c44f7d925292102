package record

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// HeadRow is one line of a record's head: a label and its value.
type HeadRow struct{ Label, Value string }

// ProvenanceRows are the head's lines that say what ran: versions,
// grouped by how they were known, and the engine settings, grouped by
// what they belong to. record.md and the published page both show these
// rows, so both say the same.
func (r *Record) ProvenanceRows() []HeadRow {
	var out []HeadRow
	var groups []string
	bySource := map[string][]string{}
	for _, v := range r.Versions {
		// Versions pinned by the lock are many and alike: one line.
		if strings.HasPrefix(v.Source, "labgen.lock") {
			if _, ok := bySource[v.Source]; !ok {
				groups = append(groups, v.Source)
			}
			bySource[v.Source] = append(bySource[v.Source], v.Name+" "+v.Version)
			continue
		}
		out = append(out, HeadRow{"Version of " + v.Name, fmt.Sprintf("%s (%s)", v.Version, v.Source)})
	}
	for _, g := range groups {
		out = append(out, HeadRow{"Jars of " + g, strings.Join(bySource[g], ", ")})
	}
	out = append(out, r.jvmRows()...)
	var ofs []string
	byOf := map[string][]string{}
	srcOf := map[string][]string{}
	for _, s := range r.Settings {
		if _, ok := byOf[s.Of]; !ok {
			ofs = append(ofs, s.Of)
		}
		byOf[s.Of] = append(byOf[s.Of], s.Name+" = "+s.Value)
		if !slices.Contains(srcOf[s.Of], s.Source) {
			srcOf[s.Of] = append(srcOf[s.Of], s.Source)
		}
	}
	for _, of := range ofs {
		out = append(out, HeadRow{"Settings of " + of, strings.Join(byOf[of], "; ") + " (" + strings.Join(srcOf[of], ", ") + ")"})
	}
	return out
}

// RunRows are the head's lines about the sessions that wrote the record:
// each one's command as typed and its outcome, then where it ran (CI or
// local) and on what machine, said once when every session shares them.
func (r *Record) RunRows() []HeadRow {
	var out []HeadRow
	for _, s := range r.Sessions {
		v := stamp(s.Started)
		if s.Command != "" {
			v += " " + s.Command
		}
		out = append(out, HeadRow{"Run", v + ": " + s.Status})
	}
	seen := map[string]bool{}
	for _, s := range r.Sessions {
		for _, row := range []HeadRow{{"Ran in", s.Where}, {"Host", s.Host.Text()}} {
			if row.Value != "" && !seen[row.Label+"\x00"+row.Value] {
				seen[row.Label+"\x00"+row.Value] = true
				out = append(out, row)
			}
		}
	}
	return out
}

// Text is the host in one line: "2 cores, 23.4 GiB, Debian GNU/Linux 13
// (trixie), Linux 6.12.57, amd64".
func (h *Host) Text() string {
	if h == nil {
		return ""
	}
	parts := []string{fmt.Sprintf("%d cores", h.Cores)}
	if h.MemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("%.1f GiB memory", float64(h.MemoryBytes)/(1<<30)))
	}
	if h.OS != "" {
		parts = append(parts, h.OS)
	}
	if h.Kernel != "" {
		parts = append(parts, "Linux "+h.Kernel)
	}
	return strings.Join(append(parts, h.Arch), ", ")
}

// DevBuild tells whether a labgen version names no release: a build
// from a checkout ("dev", "dev-<commit>"), or from one with uncommitted
// changes ("…-dirty"), whose code no reader can get back exactly.
func DevBuild(version string) bool {
	return version == "" || version == "dev" || strings.HasPrefix(version, "dev-") || strings.HasSuffix(version, "-dirty")
}

// LabgenText is labgen's version as the head says it, with what a
// development build means for a reader.
func (r *Record) LabgenText() string { return DevBuildNote(r.Labgen) }

// DevBuildNote is a labgen version with what a development build means.
func DevBuildNote(v string) string {
	switch {
	case strings.HasSuffix(v, "-dirty"):
		return v + " (a development build with uncommitted changes: no commit holds the code that ran)"
	case DevBuild(v):
		return v + " (a development build, not a release)"
	}
	return v
}

// jvmRows are the head's lines of the stack's Java processes.
func (r *Record) jvmRows() []HeadRow {
	var out []HeadRow
	for _, j := range r.JVMs {
		v := "Java " + j.Version
		if strings.HasPrefix(j.Version, "not known") {
			v = j.Version
		}
		if j.Heap != "" {
			v += ", heap " + j.Heap
		}
		out = append(out, HeadRow{"JVM of " + j.Service, v + " (" + j.Source + ")"})
	}
	return out
}

// JavaSize reads a JVM size flag's value: bytes, or with k, m, g or t
// (either case), as java reads -Xmx.
func JavaSize(s string) (int64, bool) {
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			s = s[:n-1]
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n * mult, true
}

// HeapText is a JVM's -Xmx flag as a record shows it: "288 MiB
// (-Xmx301989887)", or what stands instead of a flag.
func HeapText(xmx string) string {
	n, ok := JavaSize(strings.TrimPrefix(xmx, "-Xmx"))
	if xmx == "" || !ok {
		return "the JVM's default (no -Xmx)"
	}
	return fmt.Sprintf("%.0f MiB (%s)", float64(n)/(1<<20), xmx)
}
