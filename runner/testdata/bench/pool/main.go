// Command pool is the floor that `mcpcheck load` is measured against: a
// bare go-sdk goroutine pool. N goroutines, each on a client session of its
// own over Streamable HTTP, call one tool as fast as they can for a fixed
// duration, checking each answer as cheaply as a hand-written client would;
// it prints the calls per second.
//
//	pool -url URL -vus N -duration D [-calls N] [-call-timeout D] -tool NAME [-args JSON] [-want-key K | -want-text S] [-sdk-defaults]
//
// By default each session gets the cheapest setup the go-sdk offers (no
// standalone SSE stream, an HTTP connection pool of its own); -sdk-defaults
// measures the SDK as it comes (http.DefaultClient, standalone stream).
//
// It does what a closed-model load run does with a one-step fixture, and
// nothing more: the clock starts before the sessions open (a load run's
// users open theirs inside the run), a call cut short by the end is not
// counted, and the rate is the calls over the duration. The output line is
//
//	calls=… errors=… elapsed_s=… rps=… cpu_s=… cpu_us_per_call=…
//
// where cpu_s is this process's user+system time for the whole run.
// It lives under testdata so that `go build ./...` skips it; build it with
// `go build ./runner/testdata/bench/pool` (loadpool.sh does).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "", "the server's Streamable HTTP endpoint")
	vus := flag.Int("vus", 4, "goroutines, each on its own session")
	dur := flag.Duration("duration", 10*time.Second, "how long to call")
	// A context per call, cancelled as soon as the call returns, is what
	// made mcpcheck dial a new connection every ~20 calls (the SDK still
	// reads the response stream's end then): see runner/http.go.
	callTimeout := flag.Duration("call-timeout", 0, "give each call a context of its own with this timeout, cancelled as soon as the call returns")
	total := flag.Uint64("calls", 0, "stop after this many calls in all (0: the duration only), as --iterations does")
	tool := flag.String("tool", "", "the tool to call")
	argsJSON := flag.String("args", "{}", "the call's arguments (a JSON object)")
	wantKey := flag.String("want-key", "", "a key structuredContent must hold")
	wantText := flag.String("want-text", "", "a string the first text content must contain")
	defaults := flag.Bool("sdk-defaults", false, "use the go-sdk's defaults (http.DefaultClient, standalone SSE stream) instead of the cheapest setup")
	flag.Parse()
	if *url == "" || *tool == "" {
		fmt.Fprintln(os.Stderr, "pool: -url and -tool are required")
		os.Exit(2)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(*argsJSON), &args); err != nil {
		fmt.Fprintln(os.Stderr, "pool: -args:", err)
		os.Exit(2)
	}
	ok := func(r *mcp.CallToolResult) bool {
		if r.IsError {
			return false
		}
		if *wantKey != "" {
			m, _ := r.StructuredContent.(map[string]any)
			if _, has := m[*wantKey]; !has {
				return false
			}
		}
		if *wantText != "" {
			if len(r.Content) == 0 {
				return false
			}
			t, _ := r.Content[0].(*mcp.TextContent)
			if t == nil || !strings.Contains(t.Text, *wantText) {
				return false
			}
		}
		return true
	}

	client := mcp.NewClient(&mcp.Implementation{Name: "pool", Version: "0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	defer cancel()
	var calls, errs, taken atomic.Uint64
	var wg sync.WaitGroup
	start := time.Now()
	for range *vus {
		wg.Go(func() {
			t := &mcp.StreamableClientTransport{Endpoint: *url}
			if !*defaults {
				// The cheapest setup the SDK offers, as mcpcheck's own: no
				// standalone GET stream (one request and one server
				// goroutine less per session), and a connection pool of
				// the session's own (http.DefaultClient keeps 2 idle
				// connections per host, so N > 2 sessions keep dialing).
				t.DisableStandaloneSSE = true
				t.HTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 90 * time.Second}}
			}
			cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				if ctx.Err() == nil {
					fmt.Fprintln(os.Stderr, "pool: connect:", err)
					errs.Add(1)
				}
				return
			}
			defer cs.Close()
			for ctx.Err() == nil {
				if *total > 0 && taken.Add(1) > *total {
					return
				}
				cctx, ccancel := ctx, context.CancelFunc(func() {})
				if *callTimeout > 0 {
					cctx, ccancel = context.WithTimeout(ctx, *callTimeout)
				}
				r, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: *tool, Arguments: args})
				ccancel()
				if ctx.Err() != nil && (err != nil || errors.Is(ctx.Err(), context.DeadlineExceeded) && r == nil) {
					return // cut short by the end of the run
				}
				calls.Add(1)
				if err != nil || !ok(r) {
					errs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := min(time.Since(start), *dur+time.Second)
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	n := calls.Load()
	perCall := 0.0
	if n > 0 {
		perCall = float64(cpu.Microseconds()) / float64(n)
	}
	fmt.Printf("calls=%d errors=%d elapsed_s=%.3f rps=%.1f cpu_s=%.3f cpu_us_per_call=%.1f\n",
		n, errs.Load(), elapsed.Seconds(), float64(n)/elapsed.Seconds(), cpu.Seconds(), perCall)
	if errs.Load() > 0 {
		os.Exit(1)
	}
}
