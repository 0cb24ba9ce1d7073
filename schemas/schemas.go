// Package schemas embeds the JSON Schemas (2020-12) that define mcpcheck's
// file formats: the fixture a user writes, the JSON report the runner
// writes and the contract file `mcpcheck snapshot` writes. They are the
// single source of truth for the formats; the loader validates every
// fixture against [Fixture], a contract file is validated against
// [Contract] when read, and the tests validate every report against
// [Report].
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

// Contract is schemas/contract.schema.json, the file `mcpcheck snapshot`
// writes.
//
//go:embed contract.schema.json
var Contract []byte

// FixtureURL, ReportURL and ContractURL are the $id of each schema.
const (
	FixtureURL  = "https://mcpcheck.dev/schemas/fixture.schema.json"
	ReportURL   = "https://mcpcheck.dev/schemas/report.schema.json"
	ContractURL = "https://mcpcheck.dev/schemas/contract.schema.json"
)
