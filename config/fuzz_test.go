package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// fuzzNames picks how Parse reads the input: by extension, or by sniffing.
var fuzzNames = []string{"fuzz.json", "fuzz.yaml", "fuzz"}

// FuzzLoad feeds arbitrary bytes to Parse, in each format, with an
// arbitrary value for one of the MCPCHECK_* settings (mode picks both).
// Whatever the input, Parse must not panic; an error must be ErrInvalid,
// and each of its problems must name a place in the file or the setting it
// is about; a success must satisfy the rules the checks promise.
func FuzzLoad(f *testing.F) {
	seeds, err := filepath.Glob("testdata/*/*")
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range seeds {
		if filepath.Ext(p) == ".err" {
			continue
		}
		info, err := os.Stat(p)
		if err != nil || info.IsDir() {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		mode := uint8(1)
		if filepath.Ext(p) == ".json" {
			mode = 0
		}
		f.Add(data, mode, "")
	}
	f.Add(benchFixture(3), uint8(1+3*3), "0")
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, value string) {
		name := fuzzNames[int(mode)%len(fuzzNames)]
		environ := []string{}
		var envNames []string
		for _, st := range settings {
			if st.env != "" {
				envNames = append(envNames, st.env)
			}
		}
		if i := int(mode) / len(fuzzNames) % (len(envNames) + 1); i < len(envNames) {
			environ = append(environ, envNames[i]+"="+value)
		}
		s, err := Parse(name, data, LoadOptions{Environ: environ})
		if err == nil {
			checkInvariants(t, s)
			return
		}
		if s != nil {
			t.Fatalf("Parse returned a suite and an error: %v", err)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Fatalf("error is not ErrInvalid: %v", err)
		}
		var es Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("error is not a list of problems: %v", err)
		}
		for _, e := range es {
			if e.Pos == (Pos{}) {
				if e.Setting == "" || e.Env == "" {
					t.Errorf("problem has neither a position nor a setting and variable name: %q", e.Error())
				}
				continue
			}
			checkPositioned(t, name, e.Error())
		}
	})
}

// checkInvariants asserts what a loaded suite guarantees its users.
func checkInvariants(t *testing.T, s *Suite) {
	t.Helper()
	if s.Name == "" || len(s.Scenarios) == 0 && s.Generate == nil {
		t.Fatalf("suite without name, or without scenarios and generate: %+v", s)
	}
	if g := s.Generate; g != nil {
		checkGenerateInvariants(t, s, g)
	}
	if (len(s.Command) == 0) == (s.Endpoint == "") {
		t.Fatalf("suite target: command %q, endpoint %q", s.Command, s.Endpoint)
	}
	if s.Endpoint != "" {
		if err := CheckEndpoint(s.Endpoint); err != nil {
			t.Fatalf("endpoint %q accepted: %v", s.Endpoint, err)
		}
	}
	if s.Concurrency < 1 || s.Concurrency > MaxConcurrency || s.TimeoutMs < 1 || s.InitTimeoutMs < 1 || s.DiscoveryTimeoutMs < 1 {
		t.Fatalf("settings out of range: %+v", s)
	}
	if !slices.Contains(SupportedProtocolVersions, s.ProtocolVersion) {
		t.Fatalf("protocol version %q", s.ProtocolVersion)
	}
	if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
		t.Fatalf("cwd %q is not absolute", s.Cwd)
	}
	for _, sc := range s.Scenarios {
		ids := map[string]int{}
		for j, st := range sc.Steps {
			if _, dup := ids[st.ID]; dup || st.ID == "" {
				t.Fatalf("scenario %q: step id %q empty or repeated", sc.Name, st.ID)
			}
			ids[st.ID] = j
			if st.Kind == KindTool && !slices.Contains(s.AllowTools, st.Tool) {
				t.Fatalf("step tool %q not allowed", st.Tool)
			}
			if st.Origin != OriginFixture || st.Pos.Line < 1 {
				t.Fatalf("step origin %q pos %v", st.Origin, st.Pos)
			}
			earlier := func(ref Ref) {
				if k, ok := ids[ref.Step]; !ok || k >= j || sc.Parallel {
					t.Fatalf("step %q: $ref to %q accepted (parallel %v)", st.ID, ref.Step, sc.Parallel)
				}
			}
			walkRefs(t, st.Arguments, earlier)
			if st.Expect.Absent != nil {
				walkRefs(t, st.Expect.Absent.V, earlier)
			}
			if st.Expect.Outcome != "" && len(st.Expect.OutcomeAny) > 0 {
				t.Fatalf("step %q: both Outcome and OutcomeAny", st.ID)
			}
			for _, o := range append([]Outcome{st.Expect.Outcome}, st.Expect.OutcomeAny...) {
				if o != "" && !slices.Contains(Outcomes, o) {
					t.Fatalf("step %q: outcome %q", st.ID, o)
				}
			}
			if e := st.Expect; e.ErrorCode != nil && e.Outcome != "protocol_error" && !slices.Contains(e.OutcomeAny, "protocol_error") {
				t.Fatalf("step %q: errorCode without protocol_error", st.ID)
			}
		}
		if !slices.Contains([]Isolation{"", IsolationShared, IsolationScenario, IsolationStep}, sc.Isolation) {
			t.Fatalf("scenario isolation %q", sc.Isolation)
		}
	}
}

// checkGenerateInvariants asserts what a loaded generate block guarantees.
func checkGenerateInvariants(t *testing.T, s *Suite, g *Generate) {
	t.Helper()
	if g.Concurrency != 0 && (g.Concurrency < 2 || g.Concurrency > MaxConcurrency) {
		t.Fatalf("generate concurrency %d", g.Concurrency)
	}
	if g.SlowThresholdMs < 1 || g.BloatThresholdChars < 1 || g.Pos.Line < 1 {
		t.Fatalf("generate thresholds or position: %+v", g)
	}
	if g.Lifecycle && len(g.LifecycleGroups) > 0 {
		t.Fatalf("generate lifecycle both detected and explicit")
	}
	for k, v := range g.FailUnder {
		if !slices.Contains(ScoreNames, k) || v < 0 || v > 100 {
			t.Fatalf("failUnder %s: %v", k, v)
		}
	}
	for _, grp := range g.LifecycleGroups {
		if grp.IDPointer == "" || grp.IDPointer[0] != '/' {
			t.Fatalf("group id pointer %q", grp.IDPointer)
		}
		walkRefs(t, grp.Create.Arguments, func(ref Ref) { t.Fatalf("$ref in create accepted") })
		for _, c := range []Call{grp.Create, grp.Read, grp.Delete} {
			if !slices.Contains(s.AllowTools, c.Tool) || c.Pos.Line < 1 {
				t.Fatalf("group tool %q not allowed, or no position", c.Tool)
			}
			walkRefs(t, c.Arguments, func(ref Ref) {
				if ref.Step != "create" {
					t.Fatalf("group $ref to %q accepted", ref.Step)
				}
			})
		}
	}
}

func walkRefs(t *testing.T, v any, fn func(Ref)) {
	if s, ok := RefMarker(v); ok {
		ref, err := ParseRef(s)
		if err != nil {
			t.Fatalf("bad $ref %q accepted: %v", s, err)
		}
		fn(ref)
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			walkRefs(t, x, fn)
		}
	case []any:
		for _, x := range v {
			walkRefs(t, x, fn)
		}
	}
}
