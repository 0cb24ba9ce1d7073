//go:build unix

package fileio

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test when it has not returned after d: a
// regression that blocks (a FIFO opened for reading) fails instead of
// hanging the test binary.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
}

func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fixture.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal("mkfifo:", err)
	}
	for _, c := range []struct{ path, what string }{
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
		{dir, "is a directory, not a regular file"},
	} {
		within(t, 20*time.Second, func() {
			_, err := ReadFile(c.path, 1<<20)
			if !errors.Is(err, ErrNotRegular) || err.Error() != c.path+" "+c.what {
				t.Errorf("ReadFile(%s) = %v", c.path, err)
			}
		})
	}
	// A link to a regular file is read; a link to a FIFO is refused.
	reg := filepath.Join(dir, "real.yaml")
	os.WriteFile(reg, []byte("a: 1\n"), 0o644)
	for target, ok := range map[string]bool{reg: true, fifo: false} {
		link := filepath.Join(dir, "link-"+filepath.Base(target))
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		within(t, 20*time.Second, func() {
			data, err := ReadFile(link, 1<<20)
			if ok != (err == nil) || ok && string(data) != "a: 1\n" {
				t.Errorf("ReadFile(link to %s) = %q, %v", target, data, err)
			}
		})
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	os.WriteFile(path, bytes.Repeat([]byte("x"), 1000), 0o644)
	if data, err := ReadFile(path, 1000); err != nil || len(data) != 1000 {
		t.Errorf("at the limit: %d bytes, %v", len(data), err)
	}
	_, err := ReadFile(path, 999)
	if !errors.Is(err, ErrTooLarge) || err.Error() != path+" is larger than 999 bytes, the limit for this file" {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadFile(path, 1<<20); err != nil {
		t.Error(err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 10); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing: %v", err)
	}
	if got := Size(16 << 20); got != "16 MiB" {
		t.Errorf("Size = %q", got)
	}
}

// TestReadFileGrowing: a file whose size says little (as in /proc) is read
// to its end, and still stops one byte past the limit.
func TestReadFileGrowing(t *testing.T) {
	data, err := ReadFile("/proc/self/status", 1<<20)
	if err != nil {
		t.Fatal("reading /proc/self/status:", err)
	}
	if !bytes.Contains(data, []byte("VmRSS")) {
		t.Errorf("read %q", data)
	}
	if _, err := ReadFile("/proc/self/status", 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("limit 10: %v", err)
	}
}

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	if err := WriteFile(path, []byte("new\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600)
	if err := WriteFile(path, []byte("newer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if b, _ := os.ReadFile(path); string(b) != "newer\n" || st.Mode().Perm() != 0o600 {
		t.Errorf("got %q, mode %v (want the replaced file's 0600)", b, st.Mode())
	}
	onlyFiles(t, dir, "report.json")
}

// onlyFiles checks that dir holds exactly names: no temporary file left.
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Errorf("%s holds %v, want %v", dir, got, names)
	}
}

func TestPendingAbortAndErrorsKeepTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "trace.jsonl")
	os.WriteFile(path, []byte("before\n"), 0o644)
	p, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.Write([]byte("half a line"))
	if b, _ := os.ReadFile(path); string(b) != "before\n" {
		t.Errorf("while pending: %q", b)
	}
	p.Abort()
	p.Abort()
	if err := p.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "before\n" {
		t.Errorf("after Abort: %q", b)
	}
	onlyFiles(t, dir, "trace.jsonl")

	// Commit then Abort: the deferred Abort does nothing.
	p, _ = Create(path, 0o644)
	p.Write([]byte("after\n"))
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	p.Abort()
	if b, _ := os.ReadFile(path); string(b) != "after\n" {
		t.Errorf("after Commit: %q", b)
	}

	// A directory in place of the target is refused at once.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if _, err := Create(sub, 0o644); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), sub) {
		t.Errorf("directory target: %v", err)
	}
	// A device is refused, never renamed over.
	if _, err := Create("/dev/null", 0o644); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/null: %v", err)
	}
	// A missing directory fails at Create, naming the path.
	if _, err := Create(filepath.Join(dir, "no", "x.json"), 0o644); err == nil || !strings.Contains(err.Error(), "no/x.json") {
		t.Errorf("missing directory: %v", err)
	}
}

func TestCommitFailureKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "contract.json")
	os.WriteFile(path, []byte(`{"old":true}`), 0o644)
	p, err := Create(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	p.Write([]byte(`{"new":true}`))
	// The target became a directory meanwhile: the rename fails.
	os.Remove(path)
	os.Mkdir(path, 0o755)
	os.WriteFile(filepath.Join(path, "keep"), nil, 0o644)
	err = p.Commit()
	if err == nil || !strings.Contains(err.Error(), "writing "+path+": ") || !strings.Contains(err.Error(), "unchanged") {
		t.Errorf("Commit = %v", err)
	}
	onlyFiles(t, dir, "contract.json")
}

func TestWriteThroughLink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	os.WriteFile(real, []byte("old"), 0o640)
	os.Symlink("real.json", link)
	if err := WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	st, _ := os.Stat(real)
	if b, _ := os.ReadFile(real); string(b) != "new" || st.Mode().Perm() != 0o640 {
		t.Errorf("target: %q %v", b, st.Mode())
	}
	dangling := filepath.Join(dir, "dangling.json")
	os.Symlink("nowhere/x.json", dangling)
	if err := WriteFile(dangling, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), dangling) {
		t.Errorf("dangling link: %v", err)
	}
}

func TestAppendIsOneWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "summary.md")
	os.WriteFile(path, []byte("# earlier step\n"), 0o644)
	a, err := OpenAppend(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	// Another writer appends while ours is open: both texts stay whole.
	os.WriteFile(path, []byte("# earlier step\n# other\n"), 0o644)
	if err := a.Append([]byte("# mcpcheck\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "# earlier step\n# other\n# mcpcheck\n" {
		t.Errorf("got %q", b)
	}
	fifo := filepath.Join(dir, "fifo")
	if syscall.Mkfifo(fifo, 0o644) == nil {
		within(t, 20*time.Second, func() {
			if _, err := OpenAppend(fifo, 0o644); !errors.Is(err, ErrNotRegular) {
				t.Errorf("FIFO: %v", err)
			}
		})
	}
}

func TestJSONValues(t *testing.T) {
	for doc, want := range map[string]int{
		`1`:                            1,
		`{"a": [1, 2, {"b": "x,[{"}]}`: 6,
		`["\\", "\",", 3]`:             4,
	} {
		if got := JSONValues([]byte(doc)); got != want {
			t.Errorf("JSONValues(%s) = %d, want %d", doc, got, want)
		}
	}
	path := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(path, []byte("["+strings.Repeat("{},", MaxJSONValues)+"{}]"), 0o644)
	if _, err := ReadJSONFile(path); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "holds more than 500000 JSON values") {
		t.Errorf("ReadJSONFile: %v", err)
	}
}
