package render

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestReadLock: readLock reads the [files] of a lock as labgen writes it,
// and refuses any other shape with what is off (issue 35: Write deletes
// what an old lock lists, so a lock with an injected line is trusted
// with nothing).
func TestReadLock(t *testing.T) {
	lock := string(renderSeed(t, nil)["labgen.lock"])
	if entries, err := readLock([]byte(lock)); err != nil || len(entries) < 10 {
		t.Fatalf("the seed lab's lock: %d entries, %v", len(entries), err)
	}
	line := sha("mine\n") + "  notes.txt\n"
	for _, c := range []struct{ name, lock, want string }{
		{"a second [files]", lock + "[files]\n" + line, `section "[files]" is unknown, repeated or out of order`},
		{"[files] before [images]", strings.Replace(lock, "[images]", "[files]\n"+line+"[images]", 1), `section "[images]" is unknown, repeated or out of order`},
		{"a section of its own", strings.Replace(lock, "[images]", "[mine]", 1), `section "[mine]" is unknown`},
		{"a line that is no entry", lock + "notes.txt\n", `of [files] is not "<sha256>  <path>"`},
		{"a short sum", lock + "abc  notes.txt\n", `of [files] is not "<sha256>  <path>"`},
		{"an upper-case sum", lock + strings.ToUpper(sha("mine\n")) + "  notes.txt\n", `of [files] is not "<sha256>  <path>"`},
		{"a blank line", lock + "\n" + line, `of [files] is not "<sha256>  <path>"`},
		{"a path twice", lock + line + line, "notes.txt is listed twice"},
		{"no marker", "[files]\n" + line, "its first line is not labgen's"},
		{"no [files]", lock[:strings.Index(lock, "[files]")], "it has no [files]"},
	} {
		if _, err := readLock([]byte(c.lock)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.name, err, c.want)
		}
	}
}

// TestLockValuesStayOnTheirLine: a newline in a value the lock shows
// (an image, labgen's version) cannot add a line to [files].
func TestLockValuesStayOnTheirLine(t *testing.T) {
	l := loadSeed(t, nil)
	l.Stack.Kafka.Image = "apache/kafka:4.0.0\n[files]\n" + sha("mine\n") + "  notes.txt"
	files, err := Render(l, Options{NoSource: true, LabgenVersion: "1\n" + sha("mine\n") + "  notes.txt"})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := readLock(files["labgen.lock"])
	if err != nil {
		t.Fatalf("labgen's own lock does not read back: %v\n%s", err, files["labgen.lock"])
	}
	for _, e := range entries {
		if e.path == "notes.txt" {
			t.Errorf("the lock lists notes.txt:\n%s", files["labgen.lock"])
		}
	}
	lock := string(files["labgen.lock"])
	if !strings.Contains(lock, "\nversion  \"1\\n") || !strings.Contains(lock, "  \"apache/kafka:4.0.0\\n[files]\\n") {
		t.Errorf("the version and the image are not quoted:\n%s", lock)
	}
}
