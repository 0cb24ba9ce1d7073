package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mcpcheck/mcpcheck/config"
)

// quickRoots is the client block of a quick run's --root flags: each
// directory (made absolute; it must exist) is declared as a file:// root,
// answered to roots/list, and offered to the generated calls as a
// directory whose files they may use (the runner's offered inputs). nil
// without --root: a client that declares no roots.
func quickRoots(dirs []string) (*config.Client, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	c := &config.Client{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %w", d, err)
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--root %s: not a directory", d)
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
		if filepath.VolumeName(abs) != "" {
			u.Path = "/" + u.Path // file:///C:/...
		}
		c.Roots = append(c.Roots, config.Root{URI: u.String(), Name: filepath.Base(abs)})
	}
	return c, nil
}
