package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Modes of a rendered lab's new files and directories, whatever the
// umask: the containers read the directory through a bind mount as their
// own users (flink, labgen, mysql, …), whom a directory of mode 0700 or a
// file of 0600 would shut out. Files with passwords are the exception:
// only the user's own compose, kubectl and labgen read them (the console
// in the stack has its users from its environment). Write never widens
// what is there already (modeFor).
const (
	dirMode    os.FileMode = 0o755
	fileMode   os.FileMode = 0o644
	execMode   os.FileMode = 0o755
	secretMode os.FileMode = 0o600
)

// Names of a lab directory that are not render's: records of runs, the
// native stack's state, and the temporary directory of a render that
// died before it could remove it. Write never writes, moves or deletes
// anything under them, and does not count them against an empty directory.
const (
	recordsDir = "records"
	nativeDir  = ".native"
	tmpPrefix  = ".labgen-render-"
)

const (
	lockName   = "labgen.lock"
	origSuffix = ".orig"
)

// secretFile tells whether the rendered file p holds passwords: .env and
// its copies (kubernetes/lab.env).
func secretFile(p string) bool { return strings.HasSuffix(path.Base(p), ".env") }

func executable(p string) bool {
	return p == "stream-lab" || strings.HasSuffix(p, ".sh")
}

// baseMode is the mode of a new file p.
func baseMode(p string) os.FileMode {
	switch {
	case secretFile(p):
		return secretMode
	case executable(p):
		return execMode
	}
	return fileMode
}

// modeFor is the mode of p over a file of mode cur: p's own, less what
// cur denies the group and others (a file the user tightened stays so;
// the owner's bits are p's, so a script stays executable).
func modeFor(p string, cur os.FileMode) os.FileMode {
	return baseMode(p) & (cur.Perm() | 0o700)
}

// WriteOptions tune WriteWith.
type WriteOptions struct {
	// Force writes into a directory that holds files no labgen render
	// wrote, which is refused otherwise. A file of the user's where the
	// render puts one is kept as NAME.orig: Write replaces or deletes
	// only what a render wrote.
	Force bool
}

// Written is what WriteWith did besides writing the files.
type Written struct {
	// Kept lists the files of the old lock that this render no longer
	// writes but left in place, each as "PATH (why)".
	Kept []string
	// Moved lists the user's files kept under another name (Force), as
	// "NAME → NAME.orig".
	Moved []string
	// Mode is the lab directory's (the user's, when it was there).
	Mode os.FileMode
}

// RefusedError is WriteWith's refusal to write into a directory with
// files no labgen render wrote. Nothing was written.
type RefusedError struct {
	Dir string
	// Found are those files, relative to Dir.
	Found []string
	// Replace tells whether the render would replace them (else it
	// would write beside them, in a directory no render owns).
	Replace bool
	// Lock says why Dir's labgen.lock is not trusted, "" if it has none.
	Lock string
}

func (e *RefusedError) Error() string {
	if e.Replace {
		return fmt.Sprintf("%s holds %s, which no labgen render wrote and this render would replace", e.Dir, listNames(e.Found))
	}
	why := "it has no labgen.lock"
	if e.Lock != "" {
		why = "its labgen.lock is not one labgen wrote: " + e.Lock
	}
	return fmt.Sprintf("%s holds %s, which no labgen render wrote (%s)", e.Dir, listNames(e.Found), why)
}

// listNames is "a", "a and b", "a, b and c", or the first four "and N more".
func listNames(names []string) string {
	const show = 4
	if len(names) > show+1 {
		return strings.Join(names[:show], ", ") + fmt.Sprintf(" and %d more", len(names)-show)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// OutDir is dir as Options.Dir wants it: absolute, with the symbolic
// links of the part of it that exists resolved, so that a directory has
// one name (and one compose project) however it is reached.
func OutDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	rest := ""
	for cur := abs; ; {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(cur)
		if !errors.Is(err, iofs.ErrNotExist) || parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// Write is WriteWith without Force.
func Write(dir string, files Files) error {
	_, err := WriteWith(dir, files, WriteOptions{})
	return err
}

// WriteWith puts files into dir, which must be missing, empty, or a
// previous render's (its labgen.lock lists what it wrote); else it
// refuses with a *RefusedError, unless opts.Force. Everything is
// written into a temporary directory inside dir first and then moved
// into place file by file, so a failure before the move leaves dir as it
// was. The files of the previous render that this one no longer writes
// are deleted if they are still what it wrote; records/, .native/ and
// the user's files are left alone. dir keeps its mode, an existing file
// its mode if narrower (modeFor); new files and directories get the
// modes above.
func WriteWith(dir string, files Files, opts WriteOptions) (*Written, error) {
	root, err := OutDir(dir)
	if err != nil {
		return nil, err
	}
	if filepath.Dir(root) == root {
		return nil, fmt.Errorf("%s is the root of the file system: render into a directory of its own", dir)
	}
	paths := files.Paths()
	if err := checkPaths(paths); err != nil {
		return nil, err
	}
	p, err := planWrite(dir, root, files, paths, opts)
	if err != nil {
		return nil, err
	}
	return p.apply()
}

// checkPaths makes sure every rendered path is one Write may write.
func checkPaths(paths []string) error {
	set := map[string]bool{}
	for _, p := range paths {
		set[p] = true
	}
	for _, p := range paths {
		if !localPath(p) || notRenders(p) != "" {
			return fmt.Errorf("render: %q is not a path of a lab directory", p)
		}
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			if set[d] {
				return fmt.Errorf("render: %s is both a file and a directory", d)
			}
		}
	}
	return nil
}

// localPath tells whether p, a path of a lock or of a render, names a
// file inside the lab directory the way labgen writes it: relative,
// slash-separated and clean (no "..", no "./", no doubled slash).
func localPath(p string) bool {
	return p != "." && p == path.Clean(p) && filepath.IsLocal(filepath.FromSlash(p)) && !strings.ContainsAny(p, "\\\x00")
}

// notRenders says why p is under a part of the lab directory that is not
// render's, or "".
func notRenders(p string) string {
	top, _, _ := strings.Cut(p, "/")
	switch {
	case top == recordsDir:
		return "under " + recordsDir + "/"
	case top == nativeDir:
		return "under " + nativeDir + "/"
	case strings.HasPrefix(top, tmpPrefix):
		return "in a render's temporary directory"
	}
	return ""
}

// ancestors lists the directories above p, outermost first ("a", "a/b"
// for "a/b/c").
func ancestors(p string) []string {
	var out []string
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}

// writePlan is what WriteWith found in the directory before it writes.
type writePlan struct {
	root    string
	files   Files
	paths   []string
	created bool                   // root is not there yet
	modes   map[string]os.FileMode // of the files to write
	same    map[string]bool        // the file is there already, byte for byte
	aside   []string               // the user's, in the way (Force): kept as NAME.orig
	stale   []lockEntry            // of the old lock, no longer rendered
}

// planWrite looks at root (dir as the user named it, for messages) and
// says what writing files there does, or refuses.
func planWrite(dir, root string, files Files, paths []string, opts WriteOptions) (*writePlan, error) {
	p := &writePlan{root: root, files: files, paths: paths, modes: map[string]os.FileMode{}, same: map[string]bool{}}
	for _, rel := range paths {
		p.modes[rel] = baseMode(rel)
	}
	fi, err := os.Lstat(root)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		p.created = true
		return p, nil
	case err != nil:
		return nil, err
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is not a directory", dir)
	}

	old, lockWhy, err := readOldLock(root)
	if err != nil {
		return nil, err
	}
	owned := old != nil
	if !owned {
		ents, err := os.ReadDir(root)
		if err != nil {
			return nil, err
		}
		var found []string
		for _, e := range ents {
			if notRenders(e.Name()) == "" {
				found = append(found, e.Name())
			}
		}
		if len(found) > 0 && !opts.Force {
			return nil, &RefusedError{Dir: dir, Found: found, Lock: lockWhy}
		}
	}
	ours := map[string]bool{lockName: owned}
	for _, e := range old {
		ours[e.path] = true
		if _, rendered := files[e.path]; !rendered {
			p.stale = append(p.stale, e)
		}
	}

	inWay := map[string]bool{}
	for _, rel := range paths {
		blocked := false
		for _, d := range ancestors(rel) {
			fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(d)))
			if errors.Is(err, iofs.ErrNotExist) {
				break
			}
			if err != nil {
				return nil, err
			}
			if !fi.IsDir() { // a file or a symbolic link where a directory goes
				inWay[d], blocked = true, true
				break
			}
		}
		if blocked {
			continue
		}
		full := filepath.Join(root, filepath.FromSlash(rel))
		fi, err := os.Lstat(full)
		if errors.Is(err, iofs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if fi.Mode().IsRegular() {
			cur, err := os.ReadFile(full)
			if err != nil {
				return nil, err
			}
			if same := bytes.Equal(cur, files[rel]); same || ours[rel] {
				p.same[rel] = same
				p.modes[rel] = modeFor(rel, fi.Mode())
				continue
			}
		}
		inWay[rel] = true
	}
	for n := range inWay {
		p.aside = append(p.aside, n)
	}
	sort.Strings(p.aside)
	if len(p.aside) > 0 && !opts.Force {
		return nil, &RefusedError{Dir: dir, Found: p.aside, Replace: true}
	}
	for _, n := range p.aside {
		if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(n+origSuffix))); !errors.Is(err, iofs.ErrNotExist) {
			return nil, fmt.Errorf("%s holds %s, which no labgen render wrote, and %s%s: move one of them away (labgen keeps a file of yours it would replace as NAME%s)", dir, n, n, origSuffix, origSuffix)
		}
	}
	return p, nil
}

// Owned says why dir is not a directory a labgen render wrote (nil: it
// is): its labgen.lock must be a regular file shaped as labgen writes
// one, the same test render uses before it writes there again.
func Owned(dir string) error {
	entries, why, err := readOldLock(dir)
	switch {
	case err != nil:
		return err
	case why != "":
		return fmt.Errorf("its labgen.lock is not labgen's: %s", why)
	case entries == nil:
		return fmt.Errorf("%s has no labgen.lock", dir)
	}
	return nil
}

// readOldLock reads the [files] of root's labgen.lock. Without one, or
// with one it does not trust, entries is nil and why says why not ("" if
// there is none).
func readOldLock(root string) (entries []lockEntry, why string, err error) {
	full := filepath.Join(root, lockName)
	fi, err := os.Lstat(full)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return nil, "", nil
	case err != nil:
		return nil, "", err
	case !fi.Mode().IsRegular():
		return nil, "it is not a regular file", nil
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return nil, "", err
	}
	entries, err = readLock(b)
	if err != nil {
		return nil, err.Error(), nil
	}
	if entries == nil {
		entries = []lockEntry{} // an empty [files] still makes it a render's
	}
	return entries, "", nil
}

// apply writes the plan: every file into a temporary directory inside
// root, then, once all are there, the user's files in the way aside, the
// lock, and the others into place one by one; then it deletes the stale
// files of the old lock.
func (p *writePlan) apply() (w *Written, err error) {
	w = &Written{}
	moving := false
	if p.created {
		made, merr := mkdirs(p.root)
		if merr != nil {
			return nil, merr
		}
		// Nothing of a render that failed before the move stays behind.
		defer func() {
			if err != nil && !moving {
				for i := len(made) - 1; i >= 0; i-- {
					os.Remove(made[i])
				}
			}
		}()
	}
	fi, err := os.Stat(p.root)
	if err != nil {
		return nil, err
	}
	w.Mode = fi.Mode().Perm()
	tmp, err := os.MkdirTemp(p.root, tmpPrefix+"*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, rel := range p.paths {
		if p.same[rel] {
			continue
		}
		if err := writeNew(filepath.Join(tmp, filepath.FromSlash(rel)), p.files[rel], p.modes[rel]); err != nil {
			return nil, fmt.Errorf("writing %s: %w", rel, err)
		}
	}

	// From here a failure leaves some files old and some new. The lock
	// goes first: a render after a failure then owns every file it lists.
	moving = true
	for _, n := range p.aside {
		from := filepath.Join(p.root, filepath.FromSlash(n))
		if err := os.Rename(from, from+origSuffix); err != nil {
			return nil, err
		}
		w.Moved = append(w.Moved, n+" → "+n+origSuffix)
	}
	order := p.paths
	if _, ok := p.files[lockName]; ok {
		order = append([]string{lockName}, order...)
	}
	done, dirs := map[string]bool{}, map[string]bool{}
	for _, rel := range order {
		if done[rel] {
			continue
		}
		done[rel] = true
		if err := p.place(tmp, rel, dirs); err != nil {
			return nil, fmt.Errorf("moving %s into place (the directory now holds a part of the new render; render again): %w", rel, err)
		}
	}
	w.Kept = p.removeStale()
	return w, nil
}

// place moves rel from tmp into root, making the directories above it
// (dirs: those already seen).
func (p *writePlan) place(tmp, rel string, dirs map[string]bool) error {
	for _, d := range ancestors(rel) {
		if dirs[d] {
			continue
		}
		full := filepath.Join(p.root, filepath.FromSlash(d))
		fi, err := os.Lstat(full)
		if errors.Is(err, iofs.ErrNotExist) {
			if err := os.Mkdir(full, dirMode); err != nil {
				return err
			}
			if err := os.Chmod(full, dirMode); err != nil { // past the umask
				return err
			}
		} else if err != nil {
			return err
		} else if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", d)
		}
		dirs[d] = true
	}
	full := filepath.Join(p.root, filepath.FromSlash(rel))
	if p.same[rel] {
		fi, err := os.Lstat(full)
		if err != nil {
			return err
		}
		if fi.Mode().Perm() != p.modes[rel] {
			return os.Chmod(full, p.modes[rel])
		}
		return nil
	}
	return os.Rename(filepath.Join(tmp, filepath.FromSlash(rel)), full)
}

// removeStale deletes the files of the old lock that this render no
// longer writes, each only if it is still what labgen wrote there, and
// the directories that this leaves empty. It returns the ones it left,
// with why.
func (p *writePlan) removeStale() []string {
	var kept []string
	emptied := map[string]bool{}
	for _, e := range p.stale {
		why := p.staleWhy(e)
		if why == "" {
			full := filepath.Join(p.root, filepath.FromSlash(e.path))
			if err := os.Remove(full); err != nil {
				why = err.Error()
			} else {
				for _, d := range ancestors(e.path) {
					emptied[d] = true
				}
			}
		}
		if why != "" && why != staleGone {
			kept = append(kept, e.path+" ("+why+")")
		}
	}
	// Deepest first; a directory that still holds something stays.
	dirs := make([]string, 0, len(emptied))
	for d := range emptied {
		dirs = append(dirs, d)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		os.Remove(filepath.Join(p.root, filepath.FromSlash(d)))
	}
	return kept
}

// staleGone is staleWhy's answer for a file that is not there: nothing
// to delete, nothing to say.
const staleGone = "gone"

// staleWhy says why the old lock's e must not be deleted, or "".
func (p *writePlan) staleWhy(e lockEntry) string {
	if !localPath(e.path) {
		return "not a clean path inside the directory"
	}
	if why := notRenders(e.path); why != "" {
		return why
	}
	for _, d := range ancestors(e.path) {
		fi, err := os.Lstat(filepath.Join(p.root, filepath.FromSlash(d)))
		switch {
		case err != nil:
			return staleGone
		case fi.Mode()&os.ModeSymlink != 0:
			return "through the symbolic link " + d
		case !fi.IsDir():
			return staleGone
		}
	}
	full := filepath.Join(p.root, filepath.FromSlash(e.path))
	fi, err := os.Lstat(full)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return staleGone
	case err != nil:
		return err.Error()
	case !fi.Mode().IsRegular():
		return "not a regular file"
	}
	b, err := os.ReadFile(full)
	if err != nil {
		return err.Error()
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != e.sum {
		return "changed since labgen wrote it"
	}
	return ""
}

// mkdirs makes dir and the directories above it that are missing, each
// with dirMode (os.MkdirAll's mode is cut by the umask), and returns
// them, outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		} else if !errors.Is(err, iofs.ErrNotExist) || filepath.Dir(d) == d {
			return nil, err
		}
		missing = append(missing, d)
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		if err := os.Mkdir(d, dirMode); err != nil {
			return made, err
		}
		made = append(made, d)
		if err := os.Chmod(d, dirMode); err != nil {
			return made, err
		}
	}
	return made, nil
}

// writeNew writes a new file of the temporary directory, making the
// directories above it, synced so that a crash after the rename never
// leaves the name with empty contents.
func writeNew(full string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil { // past the umask
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
