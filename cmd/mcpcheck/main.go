// Command mcpcheck tests MCP servers from declarative fixtures.
//
// main only wires the process to run; everything else lives in run.go so
// tests can drive the whole command in-process, and the signal rules in
// signals.go.
package main

import "os"

func main() {
	os.Exit(runWithSignals(os.Args[1:], os.Stdout, os.Stderr))
}
