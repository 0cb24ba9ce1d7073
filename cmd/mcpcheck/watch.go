package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// # --watch
//
// mcpcheck --watch runs, then waits for a change and runs again, until
// Ctrl-C (exit 130, as any interrupted run; a run in progress is
// interrupted as without --watch, its reports written). It watches each
// fixture (and a directory given to --config, for fixtures added to it),
// the files a fixture names (its contract, its baseline of expected
// failures, its golden answers under __snapshots__) and every path given
// with --watch-path (a directory: the files under it, at most
// watchMaxFiles, without .git, node_modules and .mcpcheck). What is
// watched is worked out again before each wait, so a contract a fixture
// starts to name is watched from then on.
//
// It polls: every watchInterval the size and modification time of every
// watched file are compared with the last ones, which needs no file
// notification API and works the same on every system and file system. A
// change starts the next run once the files have been still for
// watchSettle (an editor saving, a build writing many files: one run,
// not one per write). The files the run itself writes (its reports, the
// last run under .mcpcheck) are never watched, or each run would start
// the next. On a terminal the screen is cleared before each run, so it
// shows the latest run only; elsewhere the runs follow each other.
const (
	watchInterval = 300 * time.Millisecond
	watchSettle   = 300 * time.Millisecond
	watchMaxFiles = 10_000
)

// clearScreen moves the cursor home and erases the screen.
const clearScreen = "\x1b[H\x1b[2J"

// watch runs the suites of f again and again, as above.
func watch(ctx context.Context, f *flags, stdout, stderr io.Writer) int {
	if len(f.configs) == 0 && len(f.watchPaths) == 0 {
		return fail(stderr, exitBadArgs, "mcpcheck: --watch in quick mode has no fixture to watch; give --watch-path PATH (the server's source, say)\n")
	}
	if f.list {
		return fail(stderr, exitBadArgs, "mcpcheck: --watch runs the suites; it does not go with --list\n")
	}
	human := stdout
	if f.jsonOut == "-" {
		human = stderr
	}
	clear := false
	if fh, ok := human.(*os.File); ok {
		clear = report.IsTerminal(fh)
	}
	for n := 1; ; n++ {
		if clear {
			fmt.Fprint(human, clearScreen)
		} else if n > 1 {
			fmt.Fprintf(human, "\n--- run %d ---\n", n)
		}
		code := runOnce(ctx, f, stdout, stderr)
		if ctx.Err() != nil {
			return exitInterrupted
		}
		files := watchList(f)
		// The files are looked at before the line that says they are
		// watched: a change made once it is shown is a change.
		last := stamps(files)
		fmt.Fprintf(human, "\nwatching %d files for changes (this run: exit %d); Ctrl-C to leave\n", len(files), code)
		if !waitForChange(ctx, files, last) {
			return exitInterrupted
		}
	}
}

// exitInterrupted is the exit status of a watch ended by Ctrl-C.
const exitInterrupted = 130

// waitForChange waits until a file of files changes from its stamp in
// last and then stays still for watchSettle; false when ctx ends first.
func waitForChange(ctx context.Context, files []string, last map[string]stamp) bool {
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	changed := false
	for {
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
		now := stamps(files)
		same := maps.Equal(now, last)
		last = now
		switch {
		case !same:
			changed = true
			tick.Reset(watchSettle)
		case changed:
			return true
		}
	}
}

// stamp is what a change of a file changes: its size and modification
// time, or that it is gone.
type stamp struct {
	size  int64
	mtime time.Time
	gone  bool
}

// stamps takes the stamp of every file (or directory: its own entry, so a
// file added to it is seen).
func stamps(files []string) map[string]stamp {
	out := make(map[string]stamp, len(files))
	for _, p := range files {
		st, err := os.Stat(p)
		if err != nil {
			out[p] = stamp{gone: true}
			continue
		}
		out[p] = stamp{size: st.Size(), mtime: st.ModTime()}
	}
	return out
}

// watchList lists what a watch looks at (see "--watch"), without the files
// the run writes.
func watchList(f *flags) []string {
	own := map[string]bool{}
	for _, p := range []string{f.jsonOut, f.trace, f.junit, f.html, f.summary} {
		if abs, err := filepath.Abs(p); p != "" && p != "-" && err == nil {
			own[abs] = true
		}
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		abs, err := filepath.Abs(p)
		if err != nil || seen[abs] || own[abs] || len(out) >= watchMaxFiles {
			return
		}
		seen[abs] = true
		out = append(out, abs)
	}
	for _, c := range f.configs {
		add(c) // a directory: files added to it
	}
	files, _ := config.FixtureFiles(f.configs)
	for _, file := range files {
		add(file)
		// The fixture's companions; a fixture that does not load (being
		// edited) has none until it does.
		s, err := config.Load(file, config.LoadOptions{Flags: f.settings})
		if err != nil {
			continue
		}
		for _, p := range []string{s.Contract, s.ExpectedFailuresFile(), f.expectedFailures} {
			if p != "" {
				add(p)
			}
		}
		// Golden answers: __snapshots__/<fixture file name>.json (the
		// runner's golden package), and the directory, for one created.
		dir := filepath.Join(filepath.Dir(file), "__snapshots__")
		add(dir)
		add(filepath.Join(dir, filepath.Base(file)+".json"))
	}
	for _, p := range f.watchPaths {
		walkWatched(p, add)
	}
	return out
}

// skippedDirs are directories under a --watch-path that are not watched:
// version control, installed packages, mcpcheck's own last run.
var skippedDirs = map[string]bool{".git": true, "node_modules": true, ".mcpcheck": true}

// walkWatched adds p, and every directory and file under it, to a watch.
func walkWatched(p string, add func(string)) {
	n := 0
	filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			add(path) // gone, or not readable: watched until it is back
			return nil
		}
		if d.IsDir() && path != p && skippedDirs[d.Name()] {
			return filepath.SkipDir
		}
		if n++; n > watchMaxFiles {
			return errors.New("enough")
		}
		add(path)
		return nil
	})
}
