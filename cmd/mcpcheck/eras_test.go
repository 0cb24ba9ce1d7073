package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestErasExample runs examples/eras.yaml: the demo in both protocol
// eras, the multi-round-trip tool answered from the client block in each,
// each era's protocol probes, one passing verdict; the JSON report names
// the era of every scenario and finding, and JUnit and HTML show it too.
func TestErasExample(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	junit, html := dir+"/junit.xml", dir+"/report.html"
	r := runCmd(t, "--config", "../../examples/eras.yaml", "--json", "-", "--junit", junit, "--html", html)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Passed       bool `json:"passed"`
		ProtocolRuns []struct {
			Requested, Negotiated string
			Passed                bool
		} `json:"protocolRuns"`
		Scenarios []struct {
			Name            string `json:"name"`
			ProtocolVersion string `json:"protocolVersion"`
			Status          string `json:"status"`
			Steps           []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
			} `json:"steps"`
		} `json:"scenarios"`
		Divergences []json.RawMessage `json:"divergences"`
	}
	validReport(t, r.stdout)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Passed || len(rep.ProtocolRuns) != 2 || rep.ProtocolRuns[1].Negotiated != "2026-07-28" || !rep.ProtocolRuns[1].Passed {
		t.Fatalf("passed %v, runs %+v\n%s", rep.Passed, rep.ProtocolRuns, r.stderr)
	}
	probes := map[string]bool{}
	for _, sc := range rep.Scenarios {
		if sc.ProtocolVersion == "" {
			t.Errorf("scenario %q has no era", sc.Name)
		}
		if strings.HasPrefix(sc.Name, "protocol: ") {
			for _, st := range sc.Steps {
				probes[sc.ProtocolVersion+" "+st.ID] = st.Status == "passed"
			}
		}
	}
	for _, p := range []string{"2025-11-25 second-initialize", "2026-07-28 discover", "2026-07-28 state-tampered", "2026-07-28 removed-ping"} {
		if !probes[p] {
			t.Errorf("probe %s did not pass (%v)\n%s", p, probes, r.stderr)
		}
	}
	for _, f := range []string{junit, html} {
		if b := readFile(t, f); !strings.Contains(b, "2026-07-28") || !strings.Contains(b, "2025-11-25") {
			t.Errorf("%s does not show both eras", f)
		}
	}
}

// TestErasOlderServer: server-everything (the TypeScript SDK, 2025-11-25 at
// most) asked for both eras negotiates 2025-11-25 twice; the run passes and
// the report says the server does not serve 2026-07-28, instead of failing
// it for that.
func TestErasOlderServer(t *testing.T) {
	parallel(t)
	dir := peerDir(t)
	fixture := filepath.Join(t.TempDir(), "older.yaml")
	body := "name: older era\ncommand: [node, " + strconv.Quote(filepath.Join(dir, peerEverything)) + ", stdio]\n" +
		"env: {GZIP_ALLOWED_DOMAINS: localhost}\nprotocolVersion: [\"2025-11-25\", \"2026-07-28\"]\nallowTools: [echo]\n" +
		"scenarios:\n  - name: echo\n    steps:\n      - {id: echo, tool: echo, arguments: {message: hi}, expect: {text: {contains: hi}}}\n"
	if err := os.WriteFile(fixture, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "--config", fixture, "--json", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		ProtocolRuns []struct{ Requested, Negotiated string } `json:"protocolRuns"`
		Notes        []string                                 `json:"notes"`
	}
	validReport(t, r.stdout)
	json.Unmarshal([]byte(r.stdout), &rep)
	if len(rep.ProtocolRuns) != 2 || rep.ProtocolRuns[1].Requested != "2026-07-28" || rep.ProtocolRuns[1].Negotiated != "2025-11-25" {
		t.Errorf("protocol runs %+v", rep.ProtocolRuns)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.Contains(n, "[2026-07-28] asked for protocol 2026-07-28") && strings.Contains(n, "not a failure")
	}) {
		t.Errorf("notes %q", rep.Notes)
	}
}
