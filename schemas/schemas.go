// Package schemas embeds the JSON Schemas (2020-12) that define mcpcheck's
// file formats: the fixture a user writes, the JSON report the runner
// writes, the contract file `mcpcheck snapshot` writes and the baseline of
// known failures (--expected-failures). They are the single source of
// truth for the formats; [Validate] checks a document against one of them,
// compiled once per process: the loader validates every fixture against
// [Fixture] and every baseline against [ExpectedFailures], a contract file
// is validated against [Contract] when read, a report against [Report]
// when `mcpcheck merge` reads it, and the tests validate every report
// they write.
package schemas

import (
	"bytes"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/schemacheck"
)

// Fixture is schemas/fixture.schema.json.
//
//go:embed fixture.schema.json
var Fixture []byte

// Report is schemas/report.schema.json.
//
//go:embed report.schema.json
var Report []byte

// ExpectedFailures is schemas/expected-failures.schema.json, the format of
// a baseline of known failures.
//
//go:embed expected-failures.schema.json
var ExpectedFailures []byte

// Contract is schemas/contract.schema.json, the file `mcpcheck snapshot`
// writes.
//
//go:embed contract.schema.json
var Contract []byte

// FixtureURL, ReportURL, ContractURL and ExpectedFailuresURL are the $id of
// each schema.
const (
	FixtureURL          = "https://mcpcheck.dev/schemas/fixture.schema.json"
	ReportURL           = "https://mcpcheck.dev/schemas/report.schema.json"
	ContractURL         = "https://mcpcheck.dev/schemas/contract.schema.json"
	ExpectedFailuresURL = "https://mcpcheck.dev/schemas/expected-failures.schema.json"
)

// embedded is each embedded schema by $id, compiled on first use: whole
// (for [Validate]) and as a verdict-only wrapper (for [Matches]).
var embedded = map[string]struct {
	whole, verdict func() (*jsonschema.Schema, error)
}{
	FixtureURL:          {compileOnce(FixtureURL, Fixture), checkOnce(FixtureURL, Fixture)},
	ReportURL:           {compileOnce(ReportURL, Report), checkOnce(ReportURL, Report)},
	ContractURL:         {compileOnce(ContractURL, Contract), checkOnce(ContractURL, Contract)},
	ExpectedFailuresURL: {compileOnce(ExpectedFailuresURL, ExpectedFailures), checkOnce(ExpectedFailuresURL, ExpectedFailures)},
}

// Validate checks doc (generic JSON: map[string]any, []any, json.Number
// or float64 numbers, ...) against the embedded schema whose $id is url
// ([FixtureURL], [ReportURL], [ContractURL] or [ExpectedFailuresURL]). A
// violation is a *jsonschema.ValidationError; any other error means the
// schema is unknown or broken, or the validator failed.
func Validate(url string, doc any) error {
	sch, err := Compiled(url)
	if err != nil {
		return err
	}
	return schemacheck.Validate(sch, doc)
}

// ExplainedValues is the most values a document read back from a file may
// hold for [Validate] to list its violations: the validator keeps an error
// per violation, several hundred bytes each, and a hostile file may hold
// one in each of its values (65,536 violations cost about 50 MB). A larger
// document is only checked, with [Matches].
const ExplainedValues = 1 << 16

// Matches reports whether doc is valid against the embedded schema whose
// $id is url, with a check that stops at the first violation of each value
// it looks at (the schema is the "if" of a wrapper, evaluated for its
// verdict only), so its cost does not grow with the number of violations.
func Matches(url string, doc any) (bool, error) {
	e, ok := embedded[url]
	if !ok {
		return false, fmt.Errorf("no embedded schema %s", url)
	}
	sch, err := e.verdict()
	if err != nil {
		return false, err
	}
	return schemacheck.Validate(sch, doc) == nil, nil
}

func checkOnce(url string, text []byte) func() (*jsonschema.Schema, error) {
	return sync.OnceValues(func() (*jsonschema.Schema, error) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", url, err)
		}
		wrap, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "if": {"$ref": "` + url + `"}, "then": true, "else": false}`))
		if err != nil {
			return nil, err
		}
		c := schemacheck.NewCompiler(true)
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", url, err)
		}
		name := "mcpcheck:check:" + url
		if err := c.AddResource(name, wrap); err != nil {
			return nil, err
		}
		return c.Compile(name)
	})
}

// Compiled is the embedded schema whose $id is url, compiled once per
// process.
func Compiled(url string) (*jsonschema.Schema, error) {
	e, ok := embedded[url]
	if !ok {
		return nil, fmt.Errorf("no embedded schema %s", url)
	}
	return e.whole()
}

// compileOnce compiles an embedded schema with nothing loaded and formats
// asserted: they are rules of the formats ("regex", Go's RE2, the engine
// the validator uses by default, refuses a regular expression that $match
// or text.matches could not compile).
func compileOnce(url string, text []byte) func() (*jsonschema.Schema, error) {
	return sync.OnceValues(func() (*jsonschema.Schema, error) {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", url, err)
		}
		sch, err := schemacheck.Compile(url, doc, true)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", url, err)
		}
		return sch, nil
	})
}
