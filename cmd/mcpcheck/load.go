package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

const loadUsage = `Usage:
  mcpcheck load --config FILE [flags]      repeat a fixture's scenarios
  mcpcheck load [flags] -- COMMAND ARGS... quick load: the read-only tools
  mcpcheck load [flags] --url URL          the same over Streamable HTTP

Runs the selected scenarios over and over and measures: per step and
overall the calls, errors by outcome class, calls per second and latency
(p50 p90 p95 p99 max) from histograms of bounded size, and the run over
time. Every call is an ordinary step: its expectations are checked.

The shape (flags win over the fixture's load: block):
  --vus N               N users, each on a session of its own, running the
                        scenarios one iteration after another (default 1)
  --rate R              instead, start R iterations a second whatever the
                        server's pace (the open model); the first call of
                        an iteration is timed from its intended start
  --max-vus N           the open model's users at most (default 100)
  --duration D          how long (10s, 1m; default 10s)
  --iterations N        stop after N iterations
  --stages S            a ramp of users (or of the rate): 30s:10,1m:50,30s:0
  --threshold RULE      a rule the run must meet, repeatable: p95<300ms,
                        errors<1%, rps>=100, "add/commit: p99<1s"; unmet
                        rules fail the run (exit 1). Without any rule every
                        call must pass.
  --abort-on-errors P   stop at once when more than P % of calls failed
  --segment K/N         run part K of N of the load (users, rate and
                        iterations split); mcpcheck merge joins the parts

Reports: --json FILE, --junit FILE (a test case per threshold), --summary
FILE (Markdown), --html FILE (charts as inline SVG). Selection: --run,
--tag, --skip-tag. Target flags as for a run (--env, --header, --protocol,
--timeout, --allow-tools, --url).

Only what the fixture allows is called; quick mode calls read-only tools
only. Exit status: 0 every threshold met, 1 one was not (or the run was
stopped by --abort-on-errors), 2 bad command line or fixture, 130/143
interrupted.
`

// loadOnly are the flags of mcpcheck load alone; they are taken out of the
// command line before the run's flags are parsed.
var loadOnly = []string{"vus", "rate", "max-vus", "duration", "iterations", "stages", "threshold", "abort-on-errors", "segment"}

// loadAllowed are the run's flags that a load takes.
var loadAllowed = append(slices.Clone(targetFlags), "json", "junit", "html", "summary", "quiet", "run", "tag", "skip-tag", "keep-tmp")

// splitLoadFlags separates the load's own flags (--vus 3, --vus=3) from
// the rest, up to "--".
func splitLoadFlags(args []string) (map[string][]string, []string, error) {
	own := map[string][]string{}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || !slices.Contains(loadOnly, name) {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("flag needs an argument: --%s", name)
			}
			i++
			val = args[i]
		}
		own[name] = append(own[name], val)
	}
	return own, rest, nil
}

// loadShape applies the load's flags over the fixture's load block.
func loadShape(suite *config.Suite, own map[string][]string) (runner.LoadOptions, error) {
	var o runner.LoadOptions
	if suite.Load != nil {
		o.LoadRun = *suite.Load
		o.Thresholds = slices.Clone(suite.Load.Thresholds)
	}
	last := func(name string) (string, bool) {
		v := own[name]
		if len(v) == 0 {
			return "", false
		}
		return v[len(v)-1], true
	}
	for _, f := range []struct {
		name string
		max  int
		dst  *int
	}{{"vus", 10000, &o.VUs}, {"max-vus", 10000, &o.MaxVUs}, {"iterations", 100000000, &o.Iterations}} {
		v, ok := last(f.name)
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > f.max {
			return o, fmt.Errorf("--%s %q: want a whole number from 1 to %d", f.name, v, f.max)
		}
		*f.dst = n
	}
	if v, ok := last("rate"); ok {
		r, err := strconv.ParseFloat(strings.TrimSuffix(v, "/s"), 64)
		if err != nil || r <= 0 || r > 1e6 {
			return o, fmt.Errorf("--rate %q: want iterations per second above 0 (e.g. 50 or 50/s)", v)
		}
		o.Rate = r
	}
	if v, ok := last("duration"); ok {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 || d > 24*time.Hour {
			return o, fmt.Errorf("--duration %q: want a duration up to 24h (30s, 5m)", v)
		}
		o.Duration = d
	}
	if v, ok := last("stages"); ok {
		st, err := config.ParseStages(v)
		if err != nil {
			return o, fmt.Errorf("--stages: %v", err)
		}
		o.Stages, o.StagesText = st, v
	}
	for _, v := range own["threshold"] {
		t, err := config.ParseThreshold(v)
		if err != nil {
			return o, fmt.Errorf("--threshold: %v", err)
		}
		o.Thresholds = append(o.Thresholds, t)
	}
	if v, ok := last("abort-on-errors"); ok {
		p, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		if err != nil || p <= 0 || p > 100 {
			return o, fmt.Errorf("--abort-on-errors %q: want a percentage above 0, up to 100", v)
		}
		o.AbortOnErrors = p / 100
	}
	if v, ok := last("segment"); ok {
		sh, err := report.ParseShard(v)
		if err != nil {
			return o, fmt.Errorf("--segment: %v", err)
		}
		o.Segment = &sh
	}
	if o.Rate > 0 && o.VUs > 0 && own["vus"] != nil {
		return o, fmt.Errorf("give --vus (users) or --rate (arrivals), not both")
	}
	if o.StagesText == "" && suite.Load != nil && len(suite.Load.Stages) > 0 {
		o.StagesText = stagesText(suite.Load.Stages)
	}
	return o, nil
}

func stagesText(st []config.LoadStage) string {
	var parts []string
	for _, s := range st {
		parts = append(parts, s.Duration.String()+":"+strconv.FormatFloat(s.Target, 'f', -1, 64))
	}
	return strings.Join(parts, ",")
}

// runLoad is mcpcheck load.
func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	own, rest, err := splitLoadFlags(args)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck load: %v (see mcpcheck load --help)\n", err)
	}
	f, code := commandFlags("load", loadUsage, rest, loadAllowed, stdout, stderr)
	if f == nil {
		return code
	}
	suite, opts, code := buildSuite(f, stderr)
	if suite == nil {
		return code
	}
	lo, err := loadShape(suite, own)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck load: %v\n", err)
	}
	lo.Options = opts
	lo.KeepTmp = f.keepTmp
	if f.set["tag"] || f.set["skip-tag"] || f.set["run"] {
		lo.Select = &f.sel
	}
	// Every file is started before the run, so a bad path is exit 2 now,
	// not after a ten-minute load.
	outs := outputsOf(f)
	if err := openOutputs(outs); err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck load: %v\n", err)
	}
	defer closeOutputs(outs)
	rs, err := openJSON(f.jsonOut, stdout, stderr)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck load: %v\n", err)
	}
	defer rs.jsonFile.Abort()
	human := rs.human
	var live *liveLine
	if fh, ok := human.(*os.File); ok && report.IsTerminal(fh) && !f.quiet {
		live = &liveLine{w: human}
		lo.OnProgress = live.show
	}
	rep, err := runner.Load(ctx, suite, lo)
	live.erase()
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck load: %v\n", err)
	}
	if err := report.Text(human, rep, report.TextOptions{Color: useColor(human, f.noColor)}); err != nil {
		fmt.Fprintf(stderr, "mcpcheck load: %v\n", err)
	}
	if c := writeReports("mcpcheck", f, []*report.Report{rep}, false, rs, outs, stderr); c != exitPass {
		return c
	}
	if !rep.Passed {
		return exitFail
	}
	return exitPass
}

// liveLine is the load's live view on a terminal: one line rewritten in
// place each second, erased at the end (as the run's status line is).
type liveLine struct {
	mu    sync.Mutex
	w     io.Writer
	shown bool
}

func (l *liveLine) show(p runner.LoadProgress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	elapsed := p.Elapsed.Truncate(time.Second).String()
	if p.Planned > 0 {
		elapsed += " of " + p.Planned.String()
	}
	fmt.Fprintf(l.w, "\rload %s: %d calls, %d errors, %.0f calls/s, p50 %.1fms p95 %.1fms p99 %.1fms, %d users busy",
		elapsed, p.Calls, p.Errors, p.RPS, p.P50, p.P95, p.P99, p.Active)
	fmt.Fprint(l.w, "\x1b[K")
	l.shown = true
}

func (l *liveLine) erase() {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.w, "\r\x1b[K")
	}
}
