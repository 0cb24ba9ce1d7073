// Package fileio reads and writes the files a user hands mcpcheck or asks
// it to write. config (fixtures, baselines), runner (contracts, golden
// answers) and cmd/mcpcheck (reports, traces, recordings, the inputs of
// merge and diff) all read and write user files, and the rules of
// DESIGN.md "Hostile input" are the same for every one of them, so they
// are kept once, here:
//
//   - Files are files. [ReadFile] reads only a regular file (a symbolic
//     link to one is followed): a directory, a named pipe, a device such as
//     /dev/zero or a socket is refused at once with an error naming it
//     ([ErrNotRegular]). It is opened without blocking (a FIFO with no
//     writer would otherwise block the open forever, deaf to signals) and
//     checked again once open, so a file swapped in between is refused too.
//   - Every read has a size limit: a file larger than the caller's limit is
//     an error naming the file and the limit ([ErrTooLarge]), found from its
//     size before anything is read and, for a file that grows while it is
//     read, after at most limit+1 bytes.
//   - Nothing is lost. [WriteFile] and [Create] write to a temporary file in
//     the target's directory (".NAME.RANDOM.tmp"), sync it, rename it over
//     the target and sync the directory. Until [Pending.Commit] renames it
//     the target is untouched: an error, an [Pending.Abort] or the end of
//     the process leaves the previous file byte for byte (a process killed
//     outright may leave its temporary file behind, never a truncated
//     target). A replaced file keeps its permission bits; a new one gets
//     perm less the umask. A target that is a symbolic link is written
//     through: the link's target is replaced and the link stays (callers
//     that must not follow a link, the golden answers under __snapshots__,
//     check before they write). A target that exists and is not a regular
//     file (a directory, a device such as /dev/stdout, a FIFO) is refused:
//     it cannot be replaced, and writing into it is not writing a file.
//   - An append ([OpenAppend], for GITHUB_STEP_SUMMARY, which the other
//     steps of a CI job write too) is a single write(2) of the whole text
//     with O_APPEND: what the file held stays, and no other writer's text
//     can land inside ours.
package fileio

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is what an error unwraps to when a path names something
// other than a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is what an error unwraps to when a file is larger than the
// limit its reader sets.
var ErrTooLarge = errors.New("file too large")

// Error is a file that was refused, with the path as the caller named it.
type Error struct {
	Path string
	// Msg says what is wrong, after the path ("is a named pipe, not a
	// regular file").
	Msg string
	// Kind is ErrNotRegular or ErrTooLarge.
	Kind error
}

func (e *Error) Error() string { return e.Path + " " + e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// What describes a file mode that is not a regular file, for messages.
func What(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file"
}

func notRegular(path string, m fs.FileMode) error {
	return &Error{Path: path, Msg: "is " + What(m) + ", not a regular file", Kind: ErrNotRegular}
}

func tooLarge(path string, limit int64) error {
	return &Error{Path: path, Msg: "is larger than " + Size(limit) + ", the limit for this file", Kind: ErrTooLarge}
}

// Size writes a byte count the way limits are documented: "16 MiB".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads the regular file at path, of at most limit bytes. A path
// that is not a regular file is an [*Error] matching [ErrNotRegular], a
// larger file one matching [ErrTooLarge]; errors from the os package (a
// missing file, permission denied) are returned as they are and name the
// path too.
func ReadFile(path string, limit int64) ([]byte, error) {
	// Checked before opening (where a FIFO cannot be opened without
	// blocking) and again once open (a file swapped in between). A path
	// that cannot be stat'ed is left to open, whose error says why.
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	if st.Size() > limit {
		return nil, tooLarge(path, limit)
	}
	// One allocation of the size the file has now, plus one byte to see
	// that it grew past the limit.
	buf := make([]byte, 0, min(st.Size(), limit)+1)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, tooLarge(path, limit)
			}
			buf = append(buf, 0)[:len(buf)] // grow (the file grew)
		}
		n, err := f.Read(buf[len(buf):min(int64(cap(buf)), limit+1)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, tooLarge(path, limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Pending is a file being written: its content goes to a temporary file
// beside the target, and [Pending.Commit] puts it in place. Writes are
// buffered. Commit and Abort may each be called any number of times, in
// any order (a deferred Abort after a Commit does nothing), so a caller
// that may be interrupted can always end with one or the other. A Pending
// is not safe for concurrent use: a file written from several goroutines
// (the trace) is written through a lock, and Commit or Abort come after
// the last write.
type Pending struct {
	path   string // as the caller named it, for messages
	target string // the file replaced: path, or the target of its link
	tmp    string
	f      *os.File
	w      *bufio.Writer
	// mode is the replaced file's permission bits (keep is set when there
	// was one).
	mode fs.FileMode
	keep bool
	done bool
	err  error
}

// Create starts writing the file at path. Nothing at path changes until
// Commit. It fails at once, naming path, when the target cannot be
// written: its directory is missing or read-only, or it exists and is not
// a regular file.
func Create(path string, perm fs.FileMode) (*Pending, error) {
	p := &Pending{path: path, target: path}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			t, err := filepath.EvalSymlinks(path)
			if err != nil {
				return nil, fmt.Errorf("writing %s: a symbolic link whose target cannot be resolved: %v", path, unwrapPath(err))
			}
			p.target = t
			if fi, err = os.Stat(t); err != nil {
				return nil, fmt.Errorf("writing %s: %v", path, unwrapPath(err))
			}
		}
		if !fi.Mode().IsRegular() {
			return nil, notRegular(path, fi.Mode())
		}
		p.mode, p.keep = fi.Mode().Perm(), true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	f, tmp, err := createTemp(p.target, perm)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	p.f, p.tmp = f, tmp
	p.w = bufio.NewWriterSize(f, 64<<10)
	return p, nil
}

// createTemp creates ".BASE.RANDOM.tmp" beside target with perm (less the
// umask, as for any new file). The name starts with a dot and does not end
// in .yaml, .yml or .json, so no fixture directory takes it for a fixture.
func createTemp(target string, perm fs.FileMode) (*os.File, string, error) {
	dir, base := filepath.Split(target)
	if len(base) > 100 { // the name stays under NAME_MAX (255)
		base = base[:100]
	}
	var rnd [6]byte
	for range 100 {
		rand.Read(rnd[:])
		name := filepath.Join(dir, "."+base+"."+hex.EncodeToString(rnd[:])+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("no free temporary name in %s", dir)
}

// Path is the path the file was created with.
func (p *Pending) Path() string { return p.path }

// Write adds b to the file.
func (p *Pending) Write(b []byte) (int, error) {
	if p.done {
		return 0, fmt.Errorf("writing %s: %w", p.path, os.ErrClosed)
	}
	return p.w.Write(b)
}

// Commit puts the written content in place of the target: flush, sync,
// close, rename, sync the directory. On an error the target is untouched,
// the temporary file removed and the error names the path. After the
// first call it returns that call's result.
func (p *Pending) Commit() error {
	if p.done {
		return p.err
	}
	p.done = true
	err := p.w.Flush()
	if err == nil && p.keep {
		err = p.f.Chmod(p.mode)
	}
	if err == nil {
		err = p.f.Sync()
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.tmp, p.target)
	}
	if err != nil {
		os.Remove(p.tmp)
		p.err = fmt.Errorf("writing %s: %v (the file is unchanged)", p.path, unwrapPath(err))
		return p.err
	}
	syncDir(filepath.Dir(p.target))
	return nil
}

// Abort drops what was written: the temporary file is removed, the target
// is untouched. It does nothing after Commit, or on a nil Pending (a file
// that was never started).
func (p *Pending) Abort() {
	if p == nil || p.done {
		return
	}
	p.done = true
	p.err = fmt.Errorf("writing %s: abandoned (the file is unchanged)", p.path)
	p.f.Close()
	os.Remove(p.tmp)
}

// WriteFile replaces the file at path with data, as Create, Write and
// Commit do.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	p, err := Create(path, perm)
	if err != nil {
		return err
	}
	if _, err := p.Write(data); err != nil {
		p.Abort()
		return fmt.Errorf("writing %s: %v (the file is unchanged)", path, unwrapPath(err))
	}
	return p.Commit()
}

// syncDir makes a rename in dir durable. It is best effort: some systems
// cannot sync a directory, and the rename has happened either way.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Appender adds one text to the end of a file ([OpenAppend]).
type Appender struct {
	path string
	f    *os.File
}

// OpenAppend opens the file at path to add to it, creating it with perm
// when it is missing. It refuses a path that is not a regular file and
// never blocks (a FIFO without a reader is refused, not waited on).
func OpenAppend(path string, perm fs.FileMode) (*Appender, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|openNonblock, perm)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %v", path, unwrapPath(err))
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("writing %s: %v", path, unwrapPath(err))
		}
		return nil, notRegular(path, st.Mode())
	}
	return &Appender{path: path, f: f}, nil
}

// Append writes data at the end of the file in one write and closes it.
func (a *Appender) Append(data []byte) error {
	if a.f == nil {
		return fmt.Errorf("writing %s: %w", a.path, os.ErrClosed)
	}
	_, err := a.f.Write(data)
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	a.f = nil
	if err != nil {
		return fmt.Errorf("writing %s: %v", a.path, unwrapPath(err))
	}
	return nil
}

// Close closes the file without adding anything. It does nothing after
// Append, or on a nil Appender.
func (a *Appender) Close() {
	if a != nil && a.f != nil {
		a.f.Close()
		a.f = nil
	}
}

// unwrapPath drops the os package's "op path:" prefix, which would name
// the temporary file rather than the one the user asked for.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// MaxJSONBytes bounds each JSON document mcpcheck reads back, one it wrote
// itself or another run did: a report to merge, a contract (--contract,
// diff), golden answers. Such a document is decoded whole, and decoding
// costs about ten to twelve times its size at the peak (merging a 6 MB
// report of 20,000 steps peaks at 76 MB RSS, an 18 MB one at 211 MB), so
// 16 MiB keeps one file within mcpcheck's 256 MiB budget while leaving
// room for a report of some 50,000 steps or a contract of thousands of
// tools. Fixtures and baselines have their own limit (config.MaxFileSize).
const MaxJSONBytes = 16 << 20

// MaxJSONValues bounds the values of such a document, counted as its
// commas and opening brackets outside strings. The byte limit alone does
// not bound the decoding: 16 MiB of "{}," is 5.6 million objects, each a
// map and, in a report, a schema violation of its own (merging one took
// 6 GB and 200 s). A report mcpcheck writes has a value per ~28 bytes
// (20,000 steps: 220,000 values), so 500,000 values is about the report
// the byte limit allows (14 MB), and the most a decoder and the schema
// validator are ever handed (a hostile report of 500,000 violations is
// refused at a peak of about 210 MB).
const MaxJSONValues = 500_000

// ReadJSONFile is ReadFile with MaxJSONBytes for a JSON document that is
// then decoded whole: it also refuses, before any decoding, a document of
// more than MaxJSONValues values (an [*Error] matching [ErrTooLarge]).
func ReadJSONFile(path string) ([]byte, error) {
	data, err := ReadFile(path, MaxJSONBytes)
	if err != nil {
		return nil, err
	}
	if n := JSONValues(data); n > MaxJSONValues {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("holds more than %d JSON values, the limit for this file", MaxJSONValues), Kind: ErrTooLarge}
	}
	return data, nil
}

// JSONValues counts the commas and opening brackets of data outside
// strings: about its number of values, for a bound, without allocating.
// Data that is not JSON is counted all the same; the decoder says what is
// wrong with it.
func JSONValues(data []byte) int {
	n, inString, escaped := 1, false, false
	for _, c := range data {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ',' || c == '[' || c == '{':
			n++
		}
	}
	return n
}
