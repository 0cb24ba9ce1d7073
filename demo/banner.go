package demo

import (
	"bytes"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The banner (mcpcheck demo --banner) is a defect of the stdio transport
// that many real servers have: lines on stdout that are not JSON-RPC. The
// demo writes one before any message ("Starting …", as servers that print
// their start-up on stdout do) and one more after its first message (a
// plain log line), each a whole line of its own. The transport forbids it
// ("The server MUST NOT write anything to its stdout that is not a valid
// MCP message"); clients skip such lines, and mcpcheck reports them.

// Banner lines of --banner.
const (
	bannerStart = "Starting household demo server on stdio..."
	bannerAfter = "household demo: client connected"
)

// bannerWriter writes the banner to w first, and bannerAfter once its
// first line (message) has been written.
type bannerWriter struct {
	mu      sync.Mutex
	w       io.Writer
	started bool
	after   bool
}

func newBannerWriter(w io.Writer) *bannerWriter { return &bannerWriter{w: w} }

func (b *bannerWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.started {
		b.started = true
		if _, err := io.WriteString(b.w, bannerStart+"\n"); err != nil {
			return 0, err
		}
	}
	n, err := b.w.Write(p)
	if err == nil && !b.after && bytes.HasSuffix(p, []byte("\n")) {
		b.after = true
		_, err = io.WriteString(b.w, bannerAfter+"\n")
	}
	return n, err
}

// start writes the banner before anything else (a server prints it on
// start, before the client has said a word).
func (b *bannerWriter) start() error {
	_, err := b.Write(nil)
	return err
}

// honestStreams sets what the SDK's HTTP handler needs to follow the
// transport's SHOULDs that mcpcheck probes: an event store, so that every
// SSE answer begins with a priming event (2025-11-25, SEP-1699). With the
// protocol defects both are planted instead: no priming event, and a
// request whose Host names another site served (DNS rebinding protection
// off). A server with the fault or defect tools (faulty) keeps the SDK's
// defaults, which their receipts were taken with: a resumable stream
// would change what a dropped connection does.
func honestStreams(h *mcp.StreamableHTTPOptions, opts Options, faulty bool) {
	switch {
	case opts.ProtocolDefects:
		h.DisableLocalhostProtection = true
	case !faulty:
		h.EventStore = mcp.NewMemoryEventStore(nil)
	}
}
