package runner

// Suites is the JSON report of a run of several suites (several --config
// files, or a directory of fixtures): each suite's report, in the order
// the suites were given. A run of one suite writes its [Report] alone.
type Suites struct {
	SchemaVersion int       `json:"schemaVersion"`
	Suites        []*Report `json:"suites"`
}
