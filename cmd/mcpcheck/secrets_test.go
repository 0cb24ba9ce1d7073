package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests of issue 17 classes 4 (secrets that get out, honest words
// corrupted), 5 (terminal escape injection) and the output lies of 10:
// mcpcheck is run against the hostile demo servers secrets-* with every
// output it has, and every byte of every output is checked.

// testCanary is the secret the hostile servers echo. It is shaped like a
// credential (mixed case and digits), so quick mode's --env treats it as
// one whatever the variable's name.
const testCanary = "hcZq81xYw40pLm7Tv2AB"

// badBytes lists what out must not hold: a canary, an ESC or any other
// control character but newline and tab, a C1 control, invalid UTF-8.
func badBytes(out []byte, canaries ...string) []string {
	var bad []string
	for _, c := range canaries {
		if c != "" && strings.Contains(string(out), c) {
			bad = append(bad, "the secret "+c)
		}
	}
	for i := 0; i < len(out); {
		r, n := utf8.DecodeRune(out[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			bad = append(bad, "invalid UTF-8")
		case r == 0x1b:
			bad = append(bad, "a raw ESC")
		case r < 0x20 && r != '\n' && r != '\t' || r == 0x7f:
			bad = append(bad, "a raw control character")
		case r >= 0x80 && r <= 0x9f:
			bad = append(bad, "a raw C1 control")
		}
		if len(bad) > 0 {
			at := max(0, i-60)
			bad = append(bad, "near "+strings.ToValidUTF8(string(out[at:min(len(out), i+60)]), "?"))
			break
		}
		i += n
	}
	return bad
}

// checkOutputs fails for every output that holds something badBytes finds.
func checkOutputs(t *testing.T, outs map[string][]byte, canaries ...string) {
	t.Helper()
	for name, data := range outs {
		if bad := badBytes(data, canaries...); len(bad) > 0 {
			t.Errorf("%s holds %s", name, strings.Join(bad, "; "))
		}
	}
}

// runAllOutputs runs mcpcheck with args and every report file, and returns
// the exit code and each output by name.
func runAllOutputs(t *testing.T, args ...string) (int, map[string][]byte) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"--json": "r.json", "--junit": "r.xml", "--html": "r.html", "--summary": "r.md", "--trace": "r.jsonl"}
	var full []string
	for flag, name := range files {
		full = append(full, flag, filepath.Join(dir, name))
	}
	full = append(full, "--no-color")
	r := runCmd(t, append(full, args...)...)
	outs := map[string][]byte{"stdout": []byte(r.stdout), "stderr": []byte(r.stderr)}
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("exit %d: %v\n%s", r.code, err, r.stderr)
		}
		outs[name] = data
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (the hostile server fails its checks)\n%s", r.code, r.stderr)
	}
	return r.code, outs
}

// hostileCommand is the argv of the hostile demo mode over stdio.
func hostileCommand(mode string) []string {
	return []string{os.Args[0], "demo", "--hostile", mode}
}

// hostileAt finds the hostile server's "hostile MODE at URL" line.
var hostileAt = regexp.MustCompile(`hostile \S+ at (http://\S+)`)

// hostileHTTP starts the hostile mode over HTTP in a child process and
// returns its /mcp URL; the process ends with the test.
func hostileHTTP(t *testing.T, mode string, env ...string) string {
	t.Helper()
	return childHTTP(t, env, hostileAt, "demo", "--hostile", mode, "--http", "127.0.0.1:0") + "/mcp"
}

// TestSecretsQuickMode: a server echoing the secret in its tool names,
// descriptions, result text, structuredContent keys (assertion paths),
// errors and stderr, whole and split by ESC [0m and by \x01, over stdio
// (the secret given with --env) and Streamable HTTP (with --header), shows
// it in no output; the split forms are shown with their escapes, not
// joined.
func TestSecretsQuickMode(t *testing.T) {
	parallel(t)
	t.Run("stdio", func(t *testing.T) {
		_, outs := runAllOutputs(t, append([]string{"--env", "HOSTILE_CANARY=" + testCanary, "--"}, hostileCommand("secrets-canary")...)...)
		checkOutputs(t, outs, testCanary)
		human := string(outs["stdout"])
		for _, want := range []string{"[redacted]", `hcZq81xYw4\x1b[0m0pLm7Tv2AB`, `hcZq81xYw4\x010pLm7Tv2AB`, "generated: [redacted]"} {
			if !strings.Contains(human, want) {
				t.Errorf("the human report lacks %q:\n%s", want, human)
			}
		}
	})
	t.Run("http", func(t *testing.T) {
		url := hostileHTTP(t, "secrets-canary")
		_, outs := runAllOutputs(t, "--url", url, "--header", "Authorization=Bearer "+testCanary)
		checkOutputs(t, outs, testCanary)
		if !strings.Contains(string(outs["stdout"]), "[redacted]") {
			t.Errorf("the server's echo is not in the report:\n%s", outs["stdout"])
		}
	})
}

// TestSecretsFixture: a fixture's envFromEnv value, echoed by the server,
// reaches neither the reports, the trace, GitHub annotations nor the
// golden answers (__snapshots__).
func TestSecretsFixture(t *testing.T) {
	t.Setenv("MCPCHECK_TEST_CANARY", testCanary)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("CI", "")
	dir := t.TempDir()
	fixture := filepath.Join(dir, "canary.yaml")
	os.WriteFile(fixture, []byte(`name: canary
command: [`+strings.Join(hostileCommand("secrets-canary"), ", ")+`]
envFromEnv: {HOSTILE_CANARY: MCPCHECK_TEST_CANARY}
allowTools: [echo, say, fail, rpcerror, crash]
scenarios:
  - name: answers
    steps:
      - {id: keys, tool: echo, arguments: {text: a}, expect: {structuredEquals: {a: 1}}}
  - name: golden
    steps:
      - {id: kept, tool: say, arguments: {text: a}, expect: {snapshot: true}}
  - name: errors
    steps:
      - {id: tool-error, tool: fail, arguments: {text: a}}
  - name: rpc
    steps:
      - {id: rpc-error, tool: rpcerror, arguments: {text: a}}
  - name: crash
    steps:
      - {id: dies, tool: crash, arguments: {text: a}}
`), 0o644)
	_, outs := runAllOutputs(t, "--config", fixture)
	snaps, _ := filepath.Glob(filepath.Join(dir, "__snapshots__", "*"))
	if len(snaps) == 0 {
		t.Fatal("no golden answers were written")
	}
	for _, s := range snaps {
		data, _ := os.ReadFile(s)
		outs[s] = data
	}
	checkOutputs(t, outs, testCanary)
	human := string(outs["stdout"])
	for _, want := range []string{"::error ", "structuredEquals /[redacted]", "last lines of its stderr"} {
		if !strings.Contains(human, want) {
			t.Errorf("the report lacks %q:\n%s", want, human)
		}
	}
}

// TestSecretsEscapes: terminal escapes and invalid UTF-8 in every string a
// server sends reach no output raw: text, JSON, JUnit, HTML, Markdown,
// trace, annotations, and the streamed terminal view.
func TestSecretsEscapes(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "true")
	args := append([]string{"--"}, hostileCommand("secrets-escapes")...)
	_, outs := runAllOutputs(t, args...)
	checkOutputs(t, outs)
	if !strings.Contains(string(outs["stdout"]), `\x1b]0;pwned\a\x1b[2J\rPASS \u009b31m`) {
		t.Errorf("the escapes are not shown as text:\n%s", outs["stdout"])
	}

	url := hostileHTTP(t, "secrets-escapes")
	_, outs = runAllOutputs(t, "--url", url)
	checkOutputs(t, outs)

	// The terminal view (annotations would follow the report).
	t.Setenv("GITHUB_ACTIONS", "")
	terminalEnv(t)
	p := openPTY(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code, _, stderr := ttyRun(t, ctx, p, false, append([]string{"--no-color"}, args...)...)
	raw := p.drain()
	if code != 1 {
		t.Errorf("exit %d on a terminal\n%s", code, stderr)
	}
	// The stream's own status line is redrawn with CR ESC[K; nothing else
	// may move the cursor. The terminal turns \n into \r\n.
	own := strings.NewReplacer("\r\x1b[K", "", "\r\n", "\n").Replace(raw)
	checkOutputs(t, map[string][]byte{"terminal": []byte(own)})
}

// TestSecretsTools: mcpcheck tools, text and JSON, shows neither the
// secret nor a raw escape.
func TestSecretsTools(t *testing.T) {
	parallel(t)
	for _, mode := range []string{"secrets-canary", "secrets-escapes"} {
		for _, json := range []bool{false, true} {
			args := []string{"tools", "--env", "HOSTILE_CANARY=" + testCanary}
			if json {
				args = append(args, "--json")
			}
			r := runCmd(t, append(append(args, "--"), hostileCommand(mode)...)...)
			if r.code != 0 {
				t.Errorf("%s: exit %d\n%s", mode, r.code, r.stderr)
			}
			checkOutputs(t, map[string][]byte{mode + " stdout": []byte(r.stdout), mode + " stderr": []byte(r.stderr)}, testCanary)
		}
	}
}

// TestSecretsMergeAndDiff: reports and contracts are files a hostile
// server's run may have written (or anyone may have edited): merge and
// diff print their strings sanitized.
func TestSecretsMergeAndDiff(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard.json")
	r := runCmd(t, "--shard", "1/1", "--json", shard, "--", os.Args[0], "demo", "--hostile", "secrets-escapes")
	if r.code != 1 {
		t.Fatalf("shard run: exit %d\n%s", r.code, r.stderr)
	}
	data, _ := os.ReadFile(shard)
	// What a hostile writer of the file puts in: raw escapes in the
	// suite's and scenarios' names, step ids, assertion paths and
	// messages.
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	const evil = "\x1b]0;pwned\a\x1b[2J\u009b31m\r"
	doc["suite"] = evil + doc["suite"].(string)
	for _, sc := range doc["scenarios"].([]any) {
		sc := sc.(map[string]any)
		sc["name"] = evil + sc["name"].(string)
		for _, st := range sc["steps"].([]any) {
			st := st.(map[string]any)
			st["id"] = evil + st["id"].(string)
			for _, a := range asList(st["assertions"]) {
				a := a.(map[string]any)
				a["path"] = evil + a["path"].(string)
				a["message"] = evil + a["message"].(string)
			}
		}
	}
	data, _ = json.Marshal(doc)
	os.WriteFile(shard, data, 0o644)
	merged := filepath.Join(dir, "merged.json")
	m := runCmd(t, "merge", shard, "--json", merged)
	out, _ := os.ReadFile(merged)
	checkOutputs(t, map[string][]byte{"merge stdout": []byte(m.stdout), "merge stderr": []byte(m.stderr), "merged": out})
	if !strings.Contains(m.stdout, `\x1b]0;pwned\a\x1b[2J\u009b31m\r`) {
		t.Errorf("merge did not show the names (exit %d):\n%s\n%s", m.code, m.stdout, m.stderr)
	}

	old := filepath.Join(dir, "old.json")
	if r := runCmd(t, "snapshot", "--out", old, "--", os.Args[0], "demo", "--hostile", "secrets-escapes"); r.code != 0 {
		t.Fatalf("snapshot: exit %d\n%s", r.code, r.stderr)
	}
	data, _ = os.ReadFile(old)
	nw := filepath.Join(dir, "new.json")
	os.WriteFile(nw, []byte(strings.NewReplacer(`"description": "`, `"description": "\u001b]0;pwned\u0007\u001b[2J`,
		`"name": "keys"`, `"name": "keys\u001b[2J"`, `"name": "hostile`, `"name": "\u001b]0;pwned\u0007hostile`).Replace(string(data))), 0o644)
	d := runCmd(t, "diff", old, nw, "--json", filepath.Join(dir, "diff.json"))
	djson, _ := os.ReadFile(filepath.Join(dir, "diff.json"))
	checkOutputs(t, map[string][]byte{"diff stdout": []byte(d.stdout), "diff stderr": []byte(d.stderr), "diff json": djson})
	if d.code != 1 || !strings.Contains(d.stdout, `keys\x1b[2J`) {
		t.Errorf("diff: exit %d, want 1 and the renamed tool shown escaped:\n%s\n%s", d.code, d.stdout, d.stderr)
	}

	// A file that is not a report or a contract: the error quotes the key
	// the schema refuses, made visible.
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schemaVersion": 1, "\u001b]0;pwned\u0007": 1}`), 0o644)
	for _, args := range [][]string{{"merge", bad}, {"diff", bad, nw}} {
		r := runCmd(t, args...)
		if r.code != 2 {
			t.Errorf("%s: exit %d, want 2\n%s", args[0], r.code, r.stderr)
		}
		checkOutputs(t, map[string][]byte{args[0] + " stderr": []byte(r.stderr), args[0] + " stdout": []byte(r.stdout)})
	}
}

// TestSecretsRecord: mcpcheck record writes no --env or --header value to
// any file, with or without --secret, and passes the server's stderr on
// sanitized and redacted. A value that does not look like a credential is
// still never written: the recorder cannot tell.
func TestSecretsRecord(t *testing.T) {
	drive := func(ctx context.Context, cs *mcp.ClientSession) {
		for _, name := range []string{"echo", "fail"} {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "a"}}); err != nil {
				t.Error(err)
			}
		}
	}
	files := func(dir string) map[string][]byte {
		out := map[string][]byte{}
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() {
				out[p], _ = os.ReadFile(p)
			}
			return nil
		})
		return out
	}
	for _, secret := range []bool{false, true} {
		dir := t.TempDir()
		out := filepath.Join(dir, "session.yaml")
		args := []string{"--out", out, "--env", "HOSTILE_CANARY=" + testCanary}
		if secret {
			args = append(args, "--secret", "HOSTILE_CANARY")
		}
		stderr := recordStdio(t, append(append(args, "--"), hostileCommand("secrets-canary")...), drive)
		outs := files(dir)
		if len(outs) < 2 {
			t.Fatalf("record wrote %d files", len(outs))
		}
		outs["record stderr"] = []byte(stderr)
		checkOutputs(t, outs, testCanary)
		if !strings.Contains(stderr, "starting with token [redacted]") {
			t.Errorf("the server's stderr was not passed on, redacted:\n%s", stderr)
		}
	}

	// Over HTTP the server echoes the X-Canary header: a plain lower-case
	// word, which only record's rule (every value is secret) hides.
	const plain = "plainvalue"
	url := hostileHTTP(t, "secrets-canary")
	dir := t.TempDir()
	out := filepath.Join(dir, "session.yaml")
	stderr := recordHTTP(t, out, url, []string{"--header", "X-Canary=" + plain}, drive)
	outs := files(dir)
	outs["record stderr"] = []byte(stderr)
	for name, data := range outs {
		if regexp.MustCompile(`\b` + plain + `\b`).Match(data) {
			t.Errorf("%s holds the --header value:\n%s", name, data)
		}
	}
	checkOutputs(t, outs)
}

// TestSecretsHonestWords: quick mode --env values that are configuration,
// not credentials ("string", "false", "8080"), do not rewrite the server's
// words anywhere; one whose name says credential is still redacted, as a
// whole token only.
func TestSecretsHonestWords(t *testing.T) {
	parallel(t)
	const words = "The message string is required; false positive of synthetic-input; listens on http://127.0.0.1:8080/ (port 8080)."
	env := []string{"--env", "MY_FLAG=string", "--env", "X=false", "--env", "PORT=8080"}
	r := runCmd(t, append(append(append([]string{"tools"}, env...), "--"), hostileCommand("secrets-words")...)...)
	if r.code != 0 || !strings.Contains(r.stdout, words) || strings.Contains(r.stdout, "[redacted]") {
		t.Errorf("tools: exit %d, the description rewritten:\n%s", r.code, r.stdout)
	}
	dir := t.TempDir()
	rep := filepath.Join(dir, "r.json")
	r = runCmd(t, append(append(append([]string{"--json", rep, "--trace", filepath.Join(dir, "t.jsonl")}, env...), "--"), hostileCommand("secrets-words")...)...)
	for name, text := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "json": readFile(t, rep), "trace": readFile(t, filepath.Join(dir, "t.jsonl"))} {
		if strings.Contains(text, "[redacted]") {
			t.Errorf("%s rewrote an honest word:\n%s", name, text)
		}
	}
	// A credential's name makes a value secret, but a plain short word
	// is never one (issue 19): "string" stays the server's word, and the
	// run says the value was not hidden, naming the variable only.
	r = runCmd(t, "tools", "--env", "API_KEY=string", "--", os.Args[0], "demo", "--hostile", "secrets-words")
	if !strings.Contains(r.stdout, words) || strings.Contains(r.stdout, "[redacted]") {
		t.Errorf("API_KEY=string rewrote the server's words:\n%s", r.stdout)
	}
	// A value that is no plain word is still hidden, as a whole token.
	r = runCmd(t, "tools", "--env", "API_KEY=127.0.0.1:8080", "--", os.Args[0], "demo", "--hostile", "secrets-words")
	if !strings.Contains(r.stdout, "http://[redacted]/") || strings.Contains(r.stdout, "127.0.0.1:8080") {
		t.Errorf("API_KEY=127.0.0.1:8080 was not redacted as a token:\n%s", r.stdout)
	}
}

// TestSecretsLongStrings: a 1 MiB pattern, a 100 KiB tool name and a 1 MiB
// description are cut, with a marker, before any output: no report file
// grows with them, and no line of the human report is longer than a
// report string's bound plus its layout.
func TestSecretsLongStrings(t *testing.T) {
	parallel(t)
	_, outs := runAllOutputs(t, append([]string{"--"}, hostileCommand("secrets-long-pattern")...)...)
	for name, data := range outs {
		if name != "r.jsonl" && len(data) > 1<<20 {
			t.Errorf("%s is %d bytes", name, len(data))
		}
	}
	for _, l := range strings.Split(string(outs["stdout"]), "\n") {
		if utf8.RuneCountInString(l) > 4096+200 {
			t.Errorf("a line of %d characters: %.200s", utf8.RuneCountInString(l), l)
		}
	}
	if !strings.Contains(string(outs["stdout"]), "more characters)") {
		t.Errorf("no cut is marked:\n%.3000s", outs["stdout"])
	}

	// As a process of its own, mcpcheck's peak memory stays bounded.
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], append([]string{"--json", filepath.Join(dir, "r.json"), "--html", filepath.Join(dir, "r.html"), "--"}, hostileCommand("secrets-long-pattern")...)...)
	cmd.Env = append(os.Environ(), asCLI+"=1")
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("mcpcheck as a process: %v\n%.2000s", cmd.ProcessState, out)
	}
	if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss; rss > 256<<10 {
		t.Errorf("peak RSS %d KiB, over 256 MiB", rss)
	}
}

// TestSecretsWarningNamesItsCall: a duplicate answer to discovery's
// tools/list is a warning that names it (it once said "warning : ...").
func TestSecretsWarningNamesItsCall(t *testing.T) {
	parallel(t)
	r := runCmd(t, append([]string{"--no-color", "--"}, hostileCommand("secrets-list-twice")...)...)
	if !strings.Contains(r.stdout, "warning discovery's tools/list page 1: the server sent more than one response") || strings.Contains(r.stdout, "warning :") {
		t.Errorf("exit %d:\n%s", r.code, r.stdout)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestLineRedactor: record's stderr passthrough redacts a line as one
// string however the writes split it, and cuts an endless line.
func TestLineRedactor(t *testing.T) {
	var b strings.Builder
	l := newLineRedactor(&b, runner.Redactor([]runner.Secret{{Value: testCanary, Declared: true}}))
	for _, part := range []string{"log: " + testCanary[:5], testCanary[5:] + " \x1b[2J\nnext ", "line"} {
		l.Write([]byte(part))
	}
	l.Write([]byte(strings.Repeat("x", 3*maxStderrLine)))
	l.Write([]byte("\nend\n"))
	l.Close()
	lines := strings.Split(b.String(), "\n")
	if lines[0] != `log: [redacted] \x1b[2J` || !strings.HasPrefix(lines[1], "next line") || !strings.HasSuffix(lines[1], " … (line cut)") ||
		len(lines[1]) > maxStderrLine+100 || lines[2] != "end" {
		t.Errorf("passed on:\n%.300q", b.String())
	}
}
