package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The notes folder (--notes DIR): four tools over a real directory, shaped
// like a filesystem server's, for the inputs that reach a file tool's code
// (issue 19 item 10). The tools are honest; what they refuse is what such
// servers refuse:
//
//   - notes_folder (read-only, no argument) names the folder, as
//     server-filesystem's list_allowed_directories does;
//   - list_notes (read-only; folder) lists it as "[FILE] name" / "[DIR]
//     name" lines;
//   - read_note (read-only; path, and head or tail, never both: "Cannot
//     specify both head and tail") reads a note;
//   - write_note (destructive; path, content) writes one.
//
// Every path must be absolute and inside the folder ("access denied"); a
// directory given to read_note or write_note is "EISDIR: illegal operation
// on a directory". So a client that sends the folder itself, both head and
// tail, or a relative path never reaches the reading or writing code.
const (
	toolNotesFolder = "notes_folder"
	toolListNotes   = "list_notes"
	toolReadNote    = "read_note"
	toolWriteNote   = "write_note"
)

// maxNote bounds what read_note returns and write_note accepts.
const maxNote = 64 << 10

var (
	listNotesSchema = json.RawMessage(`{"type":"object","properties":{"folder":{"type":"string","description":"An absolute path inside the notes folder"}},"required":["folder"],"additionalProperties":false}`)
	readNoteSchema  = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"An absolute path inside the notes folder"},"head":{"type":"integer","minimum":1,"description":"If provided, returns only the first N lines"},"tail":{"type":"integer","minimum":1,"description":"If provided, returns only the last N lines"}},"required":["path"],"additionalProperties":false}`)
	writeNoteSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"An absolute path inside the notes folder"},"content":{"type":"string","maxLength":65536}},"required":["path","content"],"additionalProperties":false}`)
)

// notes serves one folder.
type notes struct{ root string }

// addNotes registers the notes tools over root (made absolute).
func addNotes(s *mcp.Server, root string) error {
	abs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return fmt.Errorf("--notes %s: not a directory", root)
	}
	n := &notes{root: filepath.Clean(abs)}
	mcp.AddTool(s, &mcp.Tool{Name: toolNotesFolder, Title: "Notes folder", Description: "Names the folder the notes tools may use.",
		InputSchema: noArgsSchema, Annotations: readOnly("Notes folder")},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			return textResult("Notes folder:\n" + n.root), nil, nil
		})
	// The SDK validates arguments against these schemas, as a real
	// filesystem server does: the tools are honest about their inputs.
	mcp.AddTool(s, &mcp.Tool{Name: toolListNotes, Title: "List notes", Description: "Lists a folder inside the notes folder.",
		InputSchema: listNotesSchema, Annotations: readOnly("List notes")}, n.list)
	mcp.AddTool(s, &mcp.Tool{Name: toolReadNote, Title: "Read note", Description: "Reads a note, or its first (head) or last (tail) lines.",
		InputSchema: readNoteSchema, Annotations: readOnly("Read note")}, n.read)
	destructive := true
	mcp.AddTool(s, &mcp.Tool{Name: toolWriteNote, Title: "Write note", Description: "Creates a note or replaces its content.",
		InputSchema: writeNoteSchema, Annotations: &mcp.ToolAnnotations{Title: "Write note", DestructiveHint: &destructive}}, n.write)
	return nil
}

// inside resolves p, which must be absolute and inside the folder.
func (n *notes) inside(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("access denied: %q is not an absolute path", p)
	}
	c := filepath.Clean(p)
	if c != n.root && !strings.HasPrefix(c, n.root+string(filepath.Separator)) {
		return "", fmt.Errorf("access denied: %s is outside the notes folder %s", c, n.root)
	}
	return c, nil
}

type listNotesIn struct {
	Folder string `json:"folder"`
}

type readNoteIn struct {
	Path string `json:"path"`
	Head int    `json:"head,omitempty"`
	Tail int    `json:"tail,omitempty"`
}

type writeNoteIn struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (n *notes) list(_ context.Context, _ *mcp.CallToolRequest, in listNotesIn) (*mcp.CallToolResult, any, error) {
	dir, err := n.inside(in.Folder)
	if err != nil {
		return nil, nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var lines []string
	for i, e := range entries {
		if i >= 200 {
			break
		}
		tag := "[FILE]"
		if e.IsDir() {
			tag = "[DIR]"
		}
		lines = append(lines, tag+" "+e.Name())
	}
	sort.Strings(lines)
	return textResult(strings.Join(lines, "\n")), nil, nil
}

func (n *notes) read(_ context.Context, _ *mcp.CallToolRequest, in readNoteIn) (*mcp.CallToolResult, any, error) {
	if in.Head > 0 && in.Tail > 0 {
		return nil, nil, errors.New("Cannot specify both head and tail")
	}
	p, err := n.inside(in.Path)
	if err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return nil, nil, errors.New("EISDIR: illegal operation on a directory, read")
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	buf := make([]byte, maxNote)
	k, _ := f.Read(buf)
	lines := strings.Split(strings.TrimRight(string(buf[:k]), "\n"), "\n")
	switch {
	case in.Head > 0 && in.Head < len(lines):
		lines = lines[:in.Head]
	case in.Tail > 0 && in.Tail < len(lines):
		lines = lines[len(lines)-in.Tail:]
	}
	return textResult(strings.Join(lines, "\n")), nil, nil
}

func (n *notes) write(_ context.Context, _ *mcp.CallToolRequest, in writeNoteIn) (*mcp.CallToolResult, any, error) {
	p, err := n.inside(in.Path)
	if err != nil {
		return nil, nil, err
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		return nil, nil, errors.New("EISDIR: illegal operation on a directory, open")
	}
	if len(in.Content) > maxNote {
		return nil, nil, fmt.Errorf("content is larger than %d bytes", maxNote)
	}
	if err := os.WriteFile(p, []byte(in.Content), 0o600); err != nil {
		return nil, nil, err
	}
	return textResult(fmt.Sprintf("Wrote %d bytes to %s", len(in.Content), p)), nil, nil
}
