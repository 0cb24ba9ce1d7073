package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/schemas"
)

// publishedSchema is a schema by the name users ask for it.
type publishedSchema struct {
	name string
	doc  []byte
}

// publishedSchemas are the JSON Schemas `mcpcheck schema NAME` prints, the
// first being the default; a new format is one more entry.
var publishedSchemas = []publishedSchema{
	{"fixture", schemas.Fixture},
	{"report", schemas.Report},
	{"expected-failures", schemas.ExpectedFailures},
	{"contract", schemas.Contract},
}

// runSchema prints one of the embedded JSON Schemas, for editors and
// validators: `mcpcheck schema > fixture.schema.json`.
func runSchema(args []string, stdout, stderr io.Writer) int {
	var names []string
	for _, s := range publishedSchemas {
		names = append(names, s.name)
	}
	usage := "usage: mcpcheck schema [" + strings.Join(names, "|") + "]"
	want := names[0]
	switch {
	case len(args) > 1:
		return fail(stderr, exitBadArgs, "mcpcheck: %s (one name at most)\n", usage)
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help"):
		fmt.Fprintln(stdout, usage)
		return exitPass
	case len(args) == 1:
		want = args[0]
	}
	i := slices.IndexFunc(publishedSchemas, func(s publishedSchema) bool { return s.name == want })
	if i < 0 {
		hint := ""
		if sug := config.Suggest(want, names); sug != "" {
			hint = "; did you mean " + sug + "?"
		}
		return fail(stderr, exitBadArgs, "mcpcheck: no schema %q%s (%s)\n", want, hint, usage)
	}
	stdout.Write(publishedSchemas[i].doc)
	return exitPass
}
