// Package schemas embeds the JSON Schemas (2020-12) that define mcpcheck's
// two file formats: the fixture a user writes and the JSON report the runner
// writes. They are the single source of truth for both formats; the loader
// validates every fixture against [Fixture] and the tests validate every
// report against [Report].
package schemas

import _ "embed"

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

// FixtureURL, ReportURL and ExpectedFailuresURL are the $id of each schema.
const (
	FixtureURL          = "https://mcpcheck.dev/schemas/fixture.schema.json"
	ReportURL           = "https://mcpcheck.dev/schemas/report.schema.json"
	ExpectedFailuresURL = "https://mcpcheck.dev/schemas/expected-failures.schema.json"
)
