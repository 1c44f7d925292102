package native

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// Inputs are digests of what a service is started from, one per part:
// "argv", "env", "dir", "user", "file PATH" for each file the planner
// gives it, and each of its Reads. A running process keeps what it read
// at its start, so a part that differs from what it started with means
// it runs on old inputs.
func (s Service) Inputs() map[string]string {
	in := map[string]string{
		"argv": digest(strings.Join(s.Argv, "\x00")),
		"dir":  digest(s.Dir),
	}
	// The order of the variables is no input: a planner may build them
	// from a map.
	env := slices.Clone(s.Env)
	sort.Strings(env)
	in["env"] = digest(strings.Join(env, "\x00"))
	if s.Credential != nil {
		in["user"] = digest(fmt.Sprint(s.Credential.Uid, s.Credential.Gid, s.Credential.Groups))
	}
	for p, b := range s.Files {
		in["file "+p] = digest(string(b))
	}
	for name, b := range s.Reads {
		in[name] = digest(string(b))
	}
	return in
}

// Fingerprint is one digest of all of Inputs.
func (s Service) Fingerprint() string { return fingerprint(s.Inputs()) }

func fingerprint(in map[string]string) string {
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, in[k])
	}
	return digest(b.String())
}

// ChangedInputs names the parts of two Inputs that differ (added, removed
// or changed), sorted; none when the service runs on what it would be
// started from now.
func ChangedInputs(old, now map[string]string) []string {
	var out []string
	for k, v := range now {
		if old[k] != v {
			out = append(out, k)
		}
	}
	for k := range old {
		if _, ok := now[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}

// producerReads is the part of lab.json labgen produce works from: the
// producers, the tables they write and the source database's block
// (which database, which port). Only these: an edit of a job, an
// experiment or Flink's settings must not restart the producer.
func producerReads(l *schemas.Lab) map[string][]byte {
	var mysql, postgres any
	if l.Stack != nil {
		mysql, postgres = l.Stack.MySQL, l.Stack.Postgres
	}
	b, _ := json.Marshal(struct {
		Producers []*schemas.Producer `json:"producers"`
		Tables    any                 `json:"tables"`
		MySQL     any                 `json:"mysql"`
		Postgres  any                 `json:"postgres"`
	}{l.Producers, l.Tables, mysql, postgres})
	return map[string][]byte{"lab.json: producers, tables, source database": b}
}

// consoleReads is the part of lab.json the console shows and connects
// with (runtime/console): the lab's name, title and presets, and the
// blocks of the databases it queries and of itself.
func consoleReads(l *schemas.Lab) map[string][]byte {
	var stack struct{ MySQL, Postgres, ClickHouse, Console any }
	if l.Stack != nil {
		stack.MySQL, stack.Postgres, stack.ClickHouse, stack.Console = l.Stack.MySQL, l.Stack.Postgres, l.Stack.ClickHouse, l.Stack.Console
	}
	b, _ := json.Marshal(struct {
		Name    string `json:"name"`
		Title   string `json:"title"`
		Presets any    `json:"presets"`
		Stack   any    `json:"stack"`
	}{l.Name, l.Title, l.Presets, stack})
	return map[string][]byte{"lab.json: name, title, presets, databases": b}
}

// inputsText shows changed parts for a person: files relative to the
// stack's state directory.
func inputsText(lay Layout, parts []string) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		if f, ok := strings.CutPrefix(p, "file "); ok {
			if rel, err := filepath.Rel(lay.State, f); err == nil && !strings.HasPrefix(rel, "..") {
				f = filepath.ToSlash(filepath.Join(".native", rel))
			}
			p = f
		}
		out[i] = p
	}
	return strings.Join(out, ", ")
}
