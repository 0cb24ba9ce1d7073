package demo

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRecords bounds the notes, labels, folders and files that one session
// of the defects profile may hold at once (deleted notes included, since
// delete_note keeps them), so that a client cannot grow the server's memory
// without limit. The lengths of the strings stored are bounded by the
// tools' input schemas.
const maxRecords = 1000

// cacheFetchDelay is how long shared_cache_get spends "fetching" between
// recording its key and reading it back: the window of its planted race.
// Overlapping calls on one session arrive within tens of milliseconds of
// each other on a loaded machine, so the window is wide enough to catch
// them there too (at 20 ms the crossing came and went with the load), and
// under the latency rule's 500 ms margin.
const cacheFetchDelay = 200 * time.Millisecond

var errRecordLimit = fmt.Errorf("record limit reached: a session may hold at most %d notes, labels, folders and files; delete some or start a new session", maxRecords)

// notFound is the tool error of a read or delete of an unknown id.
func notFound(kind, id string) error {
	return fmt.Errorf("%s not found: %q", kind, id)
}

// perSession holds one value per live session of a server, made on the
// session's first use and dropped when the session ends, as the household
// registry does.
type perSession[T any] struct {
	mu      sync.Mutex
	m       map[*mcp.ServerSession]*T
	newItem func() *T
}

func newPerSession[T any](newItem func() *T) *perSession[T] {
	return &perSession[T]{m: make(map[*mcp.ServerSession]*T), newItem: newItem}
}

func (p *perSession[T]) get(ss *mcp.ServerSession) *T {
	p.mu.Lock()
	defer p.mu.Unlock()
	if v, ok := p.m[ss]; ok {
		return v
	}
	v := p.newItem()
	p.m[ss] = v
	go func() {
		_ = ss.Wait()
		p.mu.Lock()
		delete(p.m, ss)
		p.mu.Unlock()
	}()
	return v
}

type note struct {
	id, title, body string
	deleted         bool
}

type file struct {
	id, folderID, name string
}

// records is what one session of the defects profile holds: the lifecycle
// tools' resources and shared_cache_get's scratch key.
type records struct {
	mu      sync.Mutex
	held    int              // records held, at most maxRecords
	notes   map[string]*note // by id, deleted ones included
	order   []*note          // every note, oldest first
	labels  map[string]string
	folders map[string]string
	files   map[string]*file
	lastKey string // the key of the latest shared_cache_get call
}

func newRecords() *records {
	return &records{
		notes:   make(map[string]*note),
		labels:  make(map[string]string),
		folders: make(map[string]string),
		files:   make(map[string]*file),
	}
}

// newID returns a random version 4 UUID.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// reserve takes one record slot; call it with r.mu held.
func (r *records) reserve() error {
	if r.held >= maxRecords {
		return errRecordLimit
	}
	r.held++
	return nil
}

func (r *records) createNote(title, body string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.reserve(); err != nil {
		return "", err
	}
	n := &note{id: newID(), title: title, body: body}
	r.notes[n.id] = n
	r.order = append(r.order, n)
	return n.id, nil
}

// getNote returns a note.
//
// Planted defect: delete_note only marks a note deleted, and this read path
// never checks the mark, so a deleted note is still returned (a stale read).
func (r *records) getNote(id string) (note, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.notes[id]
	if !ok {
		return note{}, notFound("note", id)
	}
	return *n, nil
}

// deleteNote marks a note deleted; it stays stored (and counted against
// maxRecords), a second delete is a tool error, and search_notes and
// counter_snapshot leave it out.
func (r *records) deleteNote(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.notes[id]
	if !ok || n.deleted {
		return notFound("note", id)
	}
	n.deleted = true
	return nil
}

// searchNotes returns the notes that are not deleted whose title or body
// contains query (ignoring case), oldest first: at most limit of them, and
// how many matched.
func (r *records) searchNotes(query string, limit int) (total int, hits []noteRef) {
	q := strings.ToLower(query)
	r.mu.Lock()
	defer r.mu.Unlock()
	hits = []noteRef{}
	for _, n := range r.order {
		if n.deleted || !strings.Contains(strings.ToLower(n.title+"\n"+n.body), q) {
			continue
		}
		total++
		if len(hits) < limit {
			hits = append(hits, noteRef{NoteID: n.id, Title: n.title})
		}
	}
	return total, hits
}

// create, get and drop implement the correct lifecycles (labels, folders):
// a deleted record is gone.
func (r *records) create(m map[string]string, name string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.reserve(); err != nil {
		return "", err
	}
	id := newID()
	m[id] = name
	return id, nil
}

func (r *records) get(m map[string]string, kind, id string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name, ok := m[id]
	if !ok {
		return "", notFound(kind, id)
	}
	return name, nil
}

func (r *records) drop(m map[string]string, kind, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := m[id]; !ok {
		return notFound(kind, id)
	}
	delete(m, id)
	r.held--
	return nil
}

// createFile creates a file in an existing folder. Deleting the folder later
// leaves its files in place, still naming it (the orphan observation).
func (r *records) createFile(folderID, name string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.folders[folderID]; !ok {
		return "", notFound("folder", folderID)
	}
	if err := r.reserve(); err != nil {
		return "", err
	}
	f := &file{id: newID(), folderID: folderID, name: name}
	r.files[f.id] = f
	return f.id, nil
}

func (r *records) getFile(id string) (file, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, ok := r.files[id]
	if !ok {
		return file{}, notFound("file", id)
	}
	return *f, nil
}

func (r *records) deleteFile(id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.files[id]; !ok {
		return notFound("file", id)
	}
	delete(r.files, id)
	r.held--
	return nil
}

func (r *records) counts() counterSnapshotOut {
	r.mu.Lock()
	defer r.mu.Unlock()
	live := 0
	for _, n := range r.order {
		if !n.deleted {
			live++
		}
	}
	return counterSnapshotOut{Notes: live, Labels: len(r.labels), Folders: len(r.folders), Files: len(r.files)}
}

// cacheKey is shared_cache_get's lookup of which key to answer for.
//
// Planted defect: the key goes through a per-session scratch variable that
// every call overwrites, and is read back after the (simulated) fetch. One
// call at a time always gets its own key back; calls that overlap on a
// session all get the key of the latest of them, so sending distinct keys
// at once on one session catches it. Sessions never interfere.
func (r *records) cacheKey(ctx context.Context, key string) (string, error) {
	r.mu.Lock()
	r.lastKey = key
	r.mu.Unlock()
	t := time.NewTimer(cacheFetchDelay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastKey, nil
}

// Inputs and outputs of the lifecycle tools.

type createNoteIn struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

type createNoteOut struct {
	NoteID string `json:"note_id"`
	Title  string `json:"title"`
}

// noteKey, labelKey, folderKey and fileKey are the arguments of the read and
// delete tools, and (but for notes) the results of the create tools.
type noteKey struct {
	NoteID string `json:"note_id"`
}

type noteOut struct {
	NoteID string `json:"note_id"`
	Title  string `json:"title"`
	Body   string `json:"body"`
}

type noteRef struct {
	NoteID string `json:"note_id"`
	Title  string `json:"title"`
}

type nameIn struct {
	Name string `json:"name"`
}

type labelKey struct {
	LabelID string `json:"label_id"`
}

type labelOut struct {
	LabelID string `json:"label_id"`
	Name    string `json:"name"`
}

type folderKey struct {
	FolderID string `json:"folder_id"`
}

type folderOut struct {
	FolderID string `json:"folder_id"`
	Name     string `json:"name"`
}

type createFileIn struct {
	FolderID string `json:"folder_id"`
	Name     string `json:"name"`
}

type fileKey struct {
	FileID string `json:"file_id"`
}

type fileOut struct {
	FileID   string `json:"file_id"`
	FolderID string `json:"folder_id"`
	Name     string `json:"name"`
}

type deletedOut struct {
	Deleted bool `json:"deleted"`
}

// addLifecycleTools registers the create, get and delete tools of notes
// (with the stale read), labels (the control: after a delete, get_label is
// a tool error), folders and files (correct, and a file outlives its
// folder). They group by name (create_/get_/delete_RESOURCE, id property
// RESOURCE_id), and a create result carries RESOURCE_id, a random UUID, at
// the top level.
func (d *defects) addLifecycleTools(s *mcp.Server) {
	d.addNoteTools(s)
	d.addLabelTools(s)
	d.addFolderTools(s)
	d.addFileTools(s)
}

// recs is the records of the session the call came on.
func (d *defects) recs(req *mcp.CallToolRequest) *records { return d.records.get(req.Session) }

// The hints of the lifecycle tools: a create adds, a read only reads, a
// delete destroys and may be repeated.
func createHints(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: new(bool), OpenWorldHint: new(bool)}
}

func readHints(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: new(bool)}
}

func deleteHints(title string) *mcp.ToolAnnotations {
	yes := true
	return &mcp.ToolAnnotations{Title: title, DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: new(bool)}
}

// addNoteTools registers the note tools; get_note reads a deleted note
// (the stale read).
func (d *defects) addNoteTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolCreateNote,
		Title:        "Create note",
		Description:  "Creates a note with a title and a body and returns its note_id.",
		InputSchema:  createNoteInputSchema,
		OutputSchema: createNoteOutputSchema,
		Annotations:  createHints("Create note"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in createNoteIn) (*mcp.CallToolResult, createNoteOut, error) {
		id, err := d.recs(req).createNote(in.Title, in.Body)
		if err != nil {
			return nil, createNoteOut{}, err
		}
		return nil, createNoteOut{NoteID: id, Title: in.Title}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolGetNote,
		Title:        "Get note",
		Description:  "Returns a note by note_id. A note that does not exist, or was deleted, is a tool error.",
		InputSchema:  idInputSchema("note_id", "A note_id from create_note."),
		OutputSchema: noteOutputSchema,
		Annotations:  readHints("Get note"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in noteKey) (*mcp.CallToolResult, noteOut, error) {
		n, err := d.recs(req).getNote(in.NoteID)
		if err != nil {
			return nil, noteOut{}, err
		}
		return nil, noteOut{NoteID: n.id, Title: n.title, Body: n.body}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolDeleteNote,
		Title:        "Delete note",
		Description:  "Deletes a note by note_id.",
		InputSchema:  idInputSchema("note_id", "A note_id from create_note."),
		OutputSchema: deletedOutputSchema,
		Annotations:  deleteHints("Delete note"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in noteKey) (*mcp.CallToolResult, deletedOut, error) {
		if err := d.recs(req).deleteNote(in.NoteID); err != nil {
			return nil, deletedOut{}, err
		}
		return nil, deletedOut{Deleted: true}, nil
	})
}

// addLabelTools registers the label tools, the control: after a delete,
// get_label is a tool error.
func (d *defects) addLabelTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolCreateLabel,
		Title:        "Create label",
		Description:  "Creates a label and returns its label_id.",
		InputSchema:  nameInputSchema("The label's name, such as urgent."),
		OutputSchema: idOutputSchema("label_id"),
		Annotations:  createHints("Create label"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, labelKey, error) {
		r := d.recs(req)
		id, err := r.create(r.labels, in.Name)
		if err != nil {
			return nil, labelKey{}, err
		}
		return nil, labelKey{LabelID: id}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolGetLabel,
		Title:        "Get label",
		Description:  "Returns a label by label_id. A label that does not exist, or was deleted, is a tool error.",
		InputSchema:  idInputSchema("label_id", "A label_id from create_label."),
		OutputSchema: labelOutputSchema,
		Annotations:  readHints("Get label"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in labelKey) (*mcp.CallToolResult, labelOut, error) {
		r := d.recs(req)
		name, err := r.get(r.labels, "label", in.LabelID)
		if err != nil {
			return nil, labelOut{}, err
		}
		return nil, labelOut{LabelID: in.LabelID, Name: name}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolDeleteLabel,
		Title:        "Delete label",
		Description:  "Deletes a label by label_id.",
		InputSchema:  idInputSchema("label_id", "A label_id from create_label."),
		OutputSchema: deletedOutputSchema,
		Annotations:  deleteHints("Delete label"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in labelKey) (*mcp.CallToolResult, deletedOut, error) {
		r := d.recs(req)
		if err := r.drop(r.labels, "label", in.LabelID); err != nil {
			return nil, deletedOut{}, err
		}
		return nil, deletedOut{Deleted: true}, nil
	})
}

// addFolderTools registers the folder tools.
func (d *defects) addFolderTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolCreateFolder,
		Title:        "Create folder",
		Description:  "Creates an empty folder and returns its folder_id.",
		InputSchema:  nameInputSchema("The folder's name, such as Receipts."),
		OutputSchema: idOutputSchema("folder_id"),
		Annotations:  createHints("Create folder"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in nameIn) (*mcp.CallToolResult, folderKey, error) {
		r := d.recs(req)
		id, err := r.create(r.folders, in.Name)
		if err != nil {
			return nil, folderKey{}, err
		}
		return nil, folderKey{FolderID: id}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolGetFolder,
		Title:        "Get folder",
		Description:  "Returns a folder by folder_id. A folder that does not exist, or was deleted, is a tool error.",
		InputSchema:  idInputSchema("folder_id", "A folder_id from create_folder."),
		OutputSchema: folderOutputSchema,
		Annotations:  readHints("Get folder"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in folderKey) (*mcp.CallToolResult, folderOut, error) {
		r := d.recs(req)
		name, err := r.get(r.folders, "folder", in.FolderID)
		if err != nil {
			return nil, folderOut{}, err
		}
		return nil, folderOut{FolderID: in.FolderID, Name: name}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolDeleteFolder,
		Title:        "Delete folder",
		Description:  "Deletes a folder by folder_id.",
		InputSchema:  idInputSchema("folder_id", "A folder_id from create_folder."),
		OutputSchema: deletedOutputSchema,
		Annotations:  deleteHints("Delete folder"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in folderKey) (*mcp.CallToolResult, deletedOut, error) {
		r := d.recs(req)
		if err := r.drop(r.folders, "folder", in.FolderID); err != nil {
			return nil, deletedOut{}, err
		}
		return nil, deletedOut{Deleted: true}, nil
	})
}

// addFileTools registers the file tools (a file outlives its folder).
func (d *defects) addFileTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolCreateFile,
		Title:        "Create file",
		Description:  "Creates an empty file in a folder and returns its file_id. The folder must exist.",
		InputSchema:  createFileInputSchema,
		OutputSchema: idOutputSchema("file_id"),
		Annotations:  createHints("Create file"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in createFileIn) (*mcp.CallToolResult, fileKey, error) {
		id, err := d.recs(req).createFile(in.FolderID, in.Name)
		if err != nil {
			return nil, fileKey{}, err
		}
		return nil, fileKey{FileID: id}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolGetFile,
		Title:        "Get file",
		Description:  "Returns a file by file_id, with the folder_id of its folder. A file that does not exist, or was deleted, is a tool error.",
		InputSchema:  idInputSchema("file_id", "A file_id from create_file."),
		OutputSchema: fileOutputSchema,
		Annotations:  readHints("Get file"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in fileKey) (*mcp.CallToolResult, fileOut, error) {
		f, err := d.recs(req).getFile(in.FileID)
		if err != nil {
			return nil, fileOut{}, err
		}
		return nil, fileOut{FileID: f.id, FolderID: f.folderID, Name: f.name}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolDeleteFile,
		Title:        "Delete file",
		Description:  "Deletes a file by file_id.",
		InputSchema:  idInputSchema("file_id", "A file_id from create_file."),
		OutputSchema: deletedOutputSchema,
		Annotations:  deleteHints("Delete file"),
	}, func(_ context.Context, req *mcp.CallToolRequest, in fileKey) (*mcp.CallToolResult, deletedOut, error) {
		if err := d.recs(req).deleteFile(in.FileID); err != nil {
			return nil, deletedOut{}, err
		}
		return nil, deletedOut{Deleted: true}, nil
	})
}
