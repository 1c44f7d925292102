package schemas

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// The language reference (docs/reference.md) is generated from the
// schemas the loader decodes with, so that it names every block,
// attribute, step kind, function and store the loader accepts; its prose
// is refText's, keyed by path. A path the loader accepts and refText does
// not describe is reported by Reference, and its test fails.

// refNode is one block of the language: its path ("producer.follow"),
// how it is written, and the schema the loader reads its body with.
type refNode struct {
	path, header string
	schema       *hcl.BodySchema
	// free says what a body of free-form attributes holds (update's
	// column = value); schema is nil then.
	free     string
	children []*refNode
}

// childSchemas are the bodies of nested blocks by path; a block header
// the walk meets without an entry here is an error of the reference, so
// a new block cannot go undocumented.
func childSchema(path string) (*hcl.BodySchema, bool) {
	switch path {
	case "lab":
		return labSchema, true
	case "variable":
		return variableSchema, true
	case "variable.validation":
		return validationSchema, true
	case "stack":
		return stackSchema, true
	case "stack.flink.restart":
		return restartSchema, true
	case "table":
		return tableSchema, true
	case "table.column":
		return columnSchema, true
	case "table.event_time":
		return eventTimeSchema, true
	case "producer":
		return producerSchema, true
	case "producer.field", "producer.follow.field":
		return fieldSchema, true
	case "producer.follow":
		return followSchema, true
	case "job":
		return jobSchema, true
	case "preset":
		return presetSchema, true
	case "experiment":
		return experimentSchema, true
	case "experiment.step":
		return stepSchema, true
	case "experiment.step.expect":
		return expectSchema, true
	case "experiment.measure":
		return measureSchema, true
	case "control":
		return controlSchema, true
	}
	if sharedKey(path) == "table.store.event_time" {
		return eventTimeSchema, true
	}
	if c, ok := strings.CutPrefix(path, "stack."); ok && Component(c) != nil {
		return Component(c).schema, true
	}
	return nil, false
}

// walk builds the tree below a block header.
func walk(parent string, h hcl.BlockHeaderSchema, missing *[]string) []*refNode {
	path := h.Type
	if parent != "" {
		path = parent + "." + h.Type
	}
	header := h.Type
	for _, l := range h.LabelNames {
		header += ` "` + strings.ToUpper(l) + `"`
	}
	switch path {
	case "table.store":
		// One block per store kind, each with its own attributes.
		var out []*refNode
		for _, k := range StoreRegistry {
			n := &refNode{path: path + "." + k.Kind, header: fmt.Sprintf("store %q", k.Kind), schema: k.schema()}
			n.children = walkBlocks(n.path, n.schema, missing)
			out = append(out, n)
		}
		return out
	case "producer.follow.update":
		return []*refNode{{path: path, header: header, free: "COLUMN = VALUE"}}
	}
	s, ok := childSchema(path)
	if !ok {
		*missing = append(*missing, path+" (a block without a schema in childSchema)")
		return nil
	}
	n := &refNode{path: path, header: header, schema: s}
	n.children = walkBlocks(path, s, missing)
	return []*refNode{n}
}

func walkBlocks(path string, s *hcl.BodySchema, missing *[]string) []*refNode {
	var out []*refNode
	for _, b := range s.Blocks {
		out = append(out, walk(path, b, missing)...)
	}
	return out
}

// languageTree is every top-level block and what it holds.
func languageTree(missing *[]string) []*refNode {
	return walkBlocks("", rootSchema, missing)
}

// Reference returns docs/reference.md, and every path the loader accepts
// that refText leaves undescribed (and every description of nothing).
func Reference() (string, []string) {
	var missing []string
	used := map[string]bool{}
	text := func(key string) string {
		key = sharedKey(key)
		used[key] = true
		t, ok := refText[key]
		if !ok || strings.TrimSpace(t) == "" {
			missing = append(missing, key)
		}
		return strings.TrimSpace(t)
	}
	tree := languageTree(&missing)

	var b strings.Builder
	b.WriteString("<!-- Generated from the loader's schemas (schemas/reference.go) and their descriptions\n")
	b.WriteString("     (schemas/reference_text.go) by `make golden`; edit those, not this page. -->\n\n")
	b.WriteString("# The lab language: reference\n\n")
	b.WriteString(text("intro") + "\n\n")

	b.WriteString("## Contents\n\n")
	for _, n := range tree {
		fmt.Fprintf(&b, "- [`%s`](#%s)\n", n.header, anchor(n.path))
	}
	for _, s := range []string{"Step kinds", "Expressions", "Functions", "Column types", "Stores", "Stack components", "Limits"} {
		fmt.Fprintf(&b, "- [%s](#%s)\n", s, strings.ReplaceAll(strings.ToLower(s), " ", "-"))
	}
	b.WriteString("\n")

	var node func(n *refNode, depth int)
	node = func(n *refNode, depth int) {
		fmt.Fprintf(&b, "<a id=\"%s\"></a>\n%s `%s`", anchor(n.path), strings.Repeat("#", min(depth, 4)), n.header)
		if depth > 2 {
			fmt.Fprintf(&b, " (in `%s`)", strings.Join(strings.Split(n.path, ".")[:strings.Count(n.path, ".")], " › "))
		}
		b.WriteString("\n\n" + text(n.path) + "\n\n")
		if n.free != "" {
			fmt.Fprintf(&b, "Its body is `%s` lines.\n\n", n.free)
		}
		if n.schema != nil && len(n.schema.Attributes) > 0 {
			b.WriteString("| attribute | | what it is |\n| --- | --- | --- |\n")
			for _, a := range n.schema.Attributes {
				req := ""
				if a.Required {
					req = "required"
				}
				key := n.path + "." + a.Name
				fmt.Fprintf(&b, "| `%s` | %s | %s |\n", a.Name, req, cell(text(key)))
				if n.path == "experiment.step" {
					if args := objectArgs[a.Name]; args != nil {
						for _, arg := range args {
							fmt.Fprintf(&b, "| `%s.%s` | | %s |\n", a.Name, arg, cell(text(key+"."+arg)))
						}
					}
				}
			}
			b.WriteString("\n")
		}
		if len(n.children) > 0 {
			var hs []string
			for _, c := range n.children {
				hs = append(hs, fmt.Sprintf("[`%s`](#%s)", c.header, anchor(c.path)))
			}
			fmt.Fprintf(&b, "Blocks inside: %s.\n\n", strings.Join(hs, ", "))
		}
		for _, c := range n.children {
			node(c, depth+1)
		}
	}
	for _, n := range tree {
		node(n, 2)
	}

	b.WriteString("## Step kinds\n\n" + text("kinds") + "\n\n")
	b.WriteString("| kind | written as | a wait may re-run it | attributes only it takes |\n| --- | --- | --- | --- |\n")
	for _, k := range StepKinds {
		rerun := "no"
		if k.Rerun {
			rerun = "yes"
		}
		var own []string
		for _, o := range k.own {
			own = append(own, "`"+o.name+"`")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", k.Name, cell(k.Form), rerun, strings.Join(own, ", "))
	}
	b.WriteString("\n")

	b.WriteString("## Expressions\n\n" + text("expressions") + "\n\n")

	b.WriteString("## Functions\n\n" + text("functions") + "\n\n| function | what it does |\n| --- | --- |\n")
	fns := Functions(func(string) ([]byte, error) { return nil, nil })
	names := make([]string, 0, len(fns))
	for name := range fns {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&b, "| `%s` | %s |\n", name, cell(text("fn."+name)))
	}
	b.WriteString("\n")

	b.WriteString("## Column types\n\n" + text("types") + "\n\nThe types: " + typeList + ".\n\n")

	b.WriteString("## Stores\n\n" + text("stores") + "\n\n| store | what it is |\n| --- | --- |\n")
	for _, k := range storeKinds {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", k, anchor("table.store."+k), cell(text("store."+k)))
	}
	b.WriteString("\n")

	b.WriteString("## Stack components\n\n" + text("components") + "\n\n| block | services it runs |\n| --- | --- |\n")
	for _, c := range ComponentRegistry {
		if c.Name == "" {
			continue
		}
		var svcs []string
		for _, s := range c.Services {
			svcs = append(svcs, "`"+s.Name+"`")
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", c.Name, anchor("stack."+c.Name), strings.Join(svcs, ", "))
	}

	b.WriteString("\n## Limits\n\n" + text("limits") + "\n")

	for k := range refText {
		if !used[k] {
			missing = append(missing, k+" (described, but the loader has no such thing)")
		}
	}
	sort.Strings(missing)
	return b.String(), slices.Compact(missing)
}

// sharedKey is the description's key for a path: the event_time block of
// every store kind that has one is described once.
func sharedKey(path string) string {
	parts := strings.Split(path, ".")
	if len(parts) >= 4 && parts[0] == "table" && parts[1] == "store" && parts[3] == "event_time" {
		return strings.Join(append([]string{"table", "store"}, parts[3:]...), ".")
	}
	return path
}

// anchor is a section's id: its path, which never changes with its prose.
func anchor(path string) string { return strings.ReplaceAll(path, ".", "-") }

// cell makes prose fit a table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`)
}
