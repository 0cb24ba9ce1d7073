// Command mcpcheck tests MCP servers from declarative fixtures.
//
// main only wires the process to run; everything else lives in run.go so
// tests can drive the whole command in-process.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal the run winds down and writes its report;
		// a second signal gets the default behaviour and ends the process.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
