// Package assert checks a step's answer against the step's expectations.
//
// Each expectation kind of the fixture format (`isError`, `structuredEquals`,
// `structuredIncludes`, `outcome`, `errorCode`, `maxDurationMs`) is one small
// [Checker] type, built from a [config.Expect] by its entry in [Kinds]. A
// checker returns [Failure]s, each naming the JSON Pointer path of a mismatch
// with the expected and actual values, so a report can say exactly where a
// result went wrong.
//
// # Comparing values
//
// Values are generic JSON: map[string]any, []any, string, bool, nil and
// [encoding/json.Number]. Numbers compare by value ("1", "1.0" and "1e0" are
// equal) using exact decimal arithmetic, so integers beyond 2^53 never round
// into each other. Object key order never matters; array order and length
// always do.
//
// # The outcome expectation
//
// Every step has an expected outcome even when the fixture names none: `ok`,
// or `tool_error` when `isError: true`. A step whose outcome differs fails
// with one failure of kind "outcome" (or "isError" when the expectation came
// from `isError`, which is how users of the TypeScript format wrote it).
// Structured expectations are checked only when a result arrived; when none
// did, the outcome failure already says why.
//
// # Example
//
//	checks := assert.Build(&step.Expect)
//	for _, c := range checks {
//		for _, f := range c.Check(res) {
//			fmt.Println(f.Kind, f.Path, f.Message)
//		}
//	}
package assert
