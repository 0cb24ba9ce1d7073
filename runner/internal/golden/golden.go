// Package golden keeps golden answers: the stored results that steps with
// expect.snapshot are compared with.
//
// A [File] is __snapshots__/<fixture file name>.json beside the fixture:
// {"schemaVersion": 1, "snapshots": {scenario: {step id: answer}}}, keys
// sorted, two-space indented, so that a run that changes nothing rewrites
// nothing. [Reduce] is what is stored and compared: the result with the
// snapshotIgnore paths left out and the snapshotSanitize sanitizers
// applied.
//
// The file is read with the bounded reader of internal/fileio (a regular
// file within the limits of a JSON document read back) and written whole, through a temporary
// file and a rename: a failed write leaves the previous answers. Writes
// never follow a symbolic link out of the fixture's directory: a
// __snapshots__ that is a link, or a snapshot file that is a link to a
// missing file or to one outside the fixture's directory, is refused,
// naming the link ([Check]), before the run reads it and again before it
// writes (a fixture tree is often a checkout of someone else's branch).
package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// SchemaVersion is the version of the snapshot file format.
const SchemaVersion = 1

// File is one fixture's golden answers, safe for concurrent use.
type File struct {
	Path string

	mu      sync.Mutex
	entries map[string]map[string]any
	// loaded is what the file held, encoded, to write only on change.
	loaded []byte
}

// PathFor is the snapshot file of a fixture file.
func PathFor(fixture string) string {
	return filepath.Join(filepath.Dir(fixture), "__snapshots__", filepath.Base(fixture)+".json")
}

type fileFormat struct {
	SchemaVersion int                       `json:"schemaVersion"`
	Snapshots     map[string]map[string]any `json:"snapshots"`
}

// New is an empty snapshot file that Save writes to path whatever it
// holds now.
func New(path string) *File {
	return &File{Path: path, entries: map[string]map[string]any{}}
}

// Check refuses a snapshot file path that a write could follow out of
// the fixture's directory (the directory of its __snapshots__): a
// __snapshots__ that is a symbolic link, or a file in it that is a link
// to nothing or to a file outside that directory. The error names the
// link.
func Check(path string) error {
	snaps := filepath.Dir(path)
	fixtureDir := filepath.Dir(snaps)
	if fi, err := os.Lstat(snaps); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		to, _ := os.Readlink(snaps)
		return fmt.Errorf("%s is a symbolic link (to %s): golden answers are written only inside the fixture's directory, never through a link; make it a directory", snaps, to)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	to, _ := os.Readlink(path)
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fmt.Errorf("%s is a symbolic link to %s, which does not exist: golden answers are not written through it", path, to)
	}
	root, err := filepath.EvalSymlinks(fixtureDir)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is a symbolic link to %s, outside the fixture's directory %s: golden answers are not written through it", path, to, fixtureDir)
	}
	return nil
}

// Load reads the snapshot file at path; a missing file is an empty one.
// A path that [Check] refuses is an error.
func Load(path string) (*File, error) {
	f := New(path)
	if err := Check(path); err != nil {
		return nil, err
	}
	data, err := fileio.ReadJSONFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, err
	}
	var ff fileFormat
	if err := jsonx.Decode(data, &ff); err != nil {
		return nil, fmt.Errorf("%s: not a snapshot file: %v", path, err)
	}
	if ff.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d is not %d, the version this mcpcheck reads", path, ff.SchemaVersion, SchemaVersion)
	}
	if ff.Snapshots != nil {
		f.entries = ff.Snapshots
	}
	f.loaded, _ = f.encode()
	return f, nil
}

// Get is the stored answer of a scenario's step.
func (f *File) Get(scenario, step string) (any, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.entries[scenario][step]
	return v, ok
}

// Put stores the answer of a scenario's step.
func (f *File) Put(scenario, step string, v any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.entries[scenario] == nil {
		f.entries[scenario] = map[string]any{}
	}
	f.entries[scenario][step] = v
}

// Prune removes every answer whose scenario and step used does not list,
// and returns how many it removed.
func (f *File) Prune(used map[string]map[string]bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for sc, steps := range f.entries {
		for id := range steps {
			if !used[sc][id] {
				delete(steps, id)
				n++
			}
		}
		if len(steps) == 0 {
			delete(f.entries, sc)
		}
	}
	return n
}

func (f *File) encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(fileFormat{SchemaVersion: SchemaVersion, Snapshots: f.entries})
	return buf.Bytes(), err
}

// Save writes the file if its content changed (and writes nothing when
// it holds nothing and did not exist); it reports whether it wrote. The
// file is replaced whole or not at all; a path [Check] refuses is an
// error.
func (f *File) Save() (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.entries) == 0 && f.loaded == nil {
		if _, err := os.Stat(f.Path); err != nil {
			return false, nil
		}
	}
	data, err := f.encode()
	if err != nil {
		return false, err
	}
	if bytes.Equal(data, f.loaded) {
		return false, nil
	}
	if err := Check(f.Path); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return false, err
	}
	// Checked again now that the directory exists (MkdirAll follows a
	// link that appeared meanwhile).
	if err := Check(f.Path); err != nil {
		return false, err
	}
	if err := fileio.WriteFile(f.Path, data, 0o644); err != nil {
		return false, err
	}
	f.loaded = data
	return true, nil
}
