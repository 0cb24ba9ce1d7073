package demo

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/mcpcheck/mcpcheck/demo/internal/hostile"
)

// runHostile serves a hostile mode (see package hostile) over stdio or, with
// --http, on a loopback listener until ctx ends.
func runHostile(ctx context.Context, name string, httpSet bool, addr string, stdin io.Reader, stdout, stderr io.Writer) int {
	if name == "list" {
		fmt.Fprint(stdout, hostile.Usage())
		return 0
	}
	m, ok := hostile.Lookup(name)
	if !ok {
		return badUsage(stderr, fmt.Sprintf("--hostile %q: no such mode (mcpcheck demo --hostile list)", name))
	}
	if !httpSet {
		if err := hostile.ServeStdio(ctx, m, stdin, stdout); err != nil && ctx.Err() == nil {
			fmt.Fprintf(stderr, "mcpcheck demo: %v\n", err)
			return 1
		}
		return 0
	}
	if m.HTTP == nil {
		fmt.Fprintf(stderr, "mcpcheck demo: hostile mode %s has no HTTP form\n", name)
		return 2
	}
	if err := checkAddr(addr, false); err != nil {
		fmt.Fprintf(stderr, "mcpcheck demo: %v\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "mcpcheck demo: %v\n", err)
		return 1
	}
	srv := &http.Server{
		Handler:           m.HTTP(ln.Addr().String()),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	fmt.Fprintf(stderr, "mcpcheck demo: hostile %s at http://%s\n", name, ln.Addr())
	go srv.Serve(ln)
	<-ctx.Done()
	// A hostile server's streams never end by themselves.
	srv.Close()
	return 0
}
