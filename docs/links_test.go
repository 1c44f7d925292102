package docs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// TestMarkdownLinks checks every relative link of the README and of
// docs/*.md: the file or directory it names exists, and an #anchor (in the
// same page or another .md page) is a heading of that page as GitHub
// slugs it, or an explicit id. Links in code (fenced blocks, code spans)
// and links to other sites are not checked.
func TestMarkdownLinks(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join("..", "README.md")}, pages...)
	anchors := map[string]map[string]bool{} // cleaned path → anchors of that page
	anchorsOf := func(path string) (map[string]bool, error) {
		path = filepath.Clean(path)
		if a, ok := anchors[path]; ok {
			return a, nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		a := markdownAnchors(string(b))
		anchors[path] = a
		return a, nil
	}
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range markdownLinks(string(b)) {
			if linkIsExternal(l.target) {
				continue
			}
			checked++
			target, anchor, _ := strings.Cut(l.target, "#")
			dest := page
			if target != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link %q: %s does not exist", repoPath(page), l.line, l.target, repoPath(dest))
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(strings.ToLower(dest), ".md") {
				continue
			}
			a, err := anchorsOf(dest)
			if err != nil {
				t.Errorf("%s:%d: link %q: %v", repoPath(page), l.line, l.target, err)
				continue
			}
			if !a[strings.ToLower(anchor)] {
				t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s (it has: %s)",
					repoPath(page), l.line, l.target, repoPath(dest), anchor, anchorList(a))
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link found: the test reads nothing")
	}
}

// TestMarkdownAnchors pins the GitHub slugs the link check relies on.
func TestMarkdownAnchors(t *testing.T) {
	doc := strings.Join([]string{
		"# The lab language: reference",
		"## `lab \"NAME\"`",
		"### `store \"mysql\"` (in `table › store`)",
		"#### `event_time` (in `table › store`)",
		"#### `event_time` (in `table › store`)",
		"## What only Docker shows",
		"## [Linked](x.md) *heading* ##",
		"```",
		"## not a heading: in a fence",
		"```",
		`<a id="Explicit-Id"></a>`,
	}, "\n")
	got := markdownAnchors(doc)
	for _, want := range []string{
		"the-lab-language-reference", "lab-name", "store-mysql-in-table--store",
		"event_time-in-table--store", "event_time-in-table--store-1",
		"what-only-docker-shows", "linked-heading", "explicit-id",
	} {
		if !got[want] {
			t.Errorf("no anchor %q in %s", want, anchorList(got))
		}
	}
	if got["not-a-heading-in-a-fence"] {
		t.Error("a heading inside a fenced block made an anchor")
	}
	links := markdownLinks("see [a](a.md#x) and `[b](b.md)`,\n```\n[c](c.md)\n```\n![img](i.png \"title\")\n[ref]: r.md\n`code\n[d](d.md)` [e](<e f.md>)")
	var targets []string
	for _, l := range links {
		targets = append(targets, fmt.Sprintf("%s@%d", l.target, l.line))
	}
	if want := "a.md#x@1 i.png@5 r.md@6 e f.md@8"; strings.Join(targets, " ") != want {
		t.Errorf("links = %q, want %q", strings.Join(targets, " "), want)
	}
}

// repoPath names a path relative to docs/ as from the repository's root.
func repoPath(p string) string {
	return filepath.ToSlash(filepath.Clean(filepath.Join("docs", p)))
}

type markdownLink struct {
	target string
	line   int
}

var (
	fenceOpen    = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
	headingLine  = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	inlineLink   = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s()]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)`)
	refDef       = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)`)
	htmlID       = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	linkInText   = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	schemeprefix = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// prose returns the page with fenced blocks and code spans blanked out
// (newlines kept, so that offsets still give line numbers).
func prose(doc string) string {
	lines := strings.Split(doc, "\n")
	fence := ""
	for i, line := range lines {
		if fence != "" {
			if m := fenceOpen.FindStringSubmatch(line); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) && strings.TrimSpace(line[strings.Index(line, m[1])+len(m[1]):]) == "" {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			fence = m[1]
			lines[i] = ""
		}
	}
	return blankCodeSpans(strings.Join(lines, "\n"))
}

// blankCodeSpans replaces each code span (a run of n backticks up to the
// next run of exactly n) by spaces, keeping newlines.
func blankCodeSpans(s string) string {
	b := []byte(s)
	run := func(i int) int {
		n := 0
		for i+n < len(b) && b[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		n := run(i)
		end := -1
		for j := i + n; j < len(b); {
			if b[j] == '`' {
				m := run(j)
				if m == n {
					end = j + m
					break
				}
				j += m
				continue
			}
			// A code span does not cross a blank line (a paragraph's end).
			if b[j] == '\n' && blankLineAt(b, j+1) {
				break
			}
			j++
		}
		if end < 0 {
			i += n
			continue
		}
		for k := i; k < end; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
		i = end
	}
	return string(b)
}

// blankLineAt says whether the line starting at i holds only spaces.
func blankLineAt(b []byte, i int) bool {
	for ; i < len(b) && b[i] != '\n'; i++ {
		if b[i] != ' ' && b[i] != '\t' {
			return false
		}
	}
	return true
}

// markdownLinks lists the inline links, images and reference definitions
// of a page outside code, with their line numbers.
func markdownLinks(doc string) []markdownLink {
	text := prose(doc)
	var out []markdownLink
	add := func(target string, at int) {
		target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
		out = append(out, markdownLink{target: target, line: 1 + strings.Count(text[:at], "\n")})
	}
	for _, m := range inlineLink.FindAllStringSubmatchIndex(text, -1) {
		add(text[m[2]:m[3]], m[0])
	}
	for _, m := range refDef.FindAllStringSubmatchIndex(text, -1) {
		add(text[m[2]:m[3]], m[0])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

func linkIsExternal(target string) bool {
	return schemeprefix.MatchString(target) || strings.HasPrefix(target, "//")
}

// markdownAnchors returns the anchors GitHub gives a page's headings
// (lower case, punctuation dropped, spaces as hyphens, -1, -2 … for
// repeats) and its explicit <a name|id="…"> anchors, all lower case.
func markdownAnchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(doc, "\n") {
		if fence != "" {
			if m := fenceOpen.FindStringSubmatch(line); m != nil && m[1][0] == fence[0] && len(m[1]) >= len(fence) {
				fence = ""
			}
			continue
		}
		if m := fenceOpen.FindStringSubmatch(line); m != nil {
			fence = m[1]
			continue
		}
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			out[strings.ToLower(m[1])] = true
		}
		m := headingLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := githubSlug(m[2])
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// githubSlug is the anchor of a heading's text: its rendered text (code
// spans' contents, links' text, no emphasis marks) in lower case, every
// character but letters, digits, marks, spaces, '-' and '_' dropped, each
// space a hyphen.
func githubSlug(heading string) string {
	text := linkInText.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func anchorList(a map[string]bool) string {
	var l []string
	for k := range a {
		l = append(l, "#"+k)
	}
	sort.Strings(l)
	if len(l) > 12 {
		l = append(l[:12], fmt.Sprintf("… %d more", len(l)-12))
	}
	return strings.Join(l, " ")
}
