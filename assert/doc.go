// Package assert checks a step's answer against the step's expectations.
//
// Each expectation kind of the fixture format is one small [Checker] type,
// built from a [config.Expect] by its entry in [Kinds], the registry that a
// test holds in step with schemas/fixture.schema.json. A checker is a pure
// function of a [Result] and returns [Failure]s, each naming the JSON
// Pointer path of a mismatch with the expected and actual values, so a
// report can say exactly where an answer went wrong. A failure's message
// never shows the answer, only its types, lengths and positions (the
// values go in Failure.Actual, for the human report).
//
// Expected values may hold matchers ([config.Matcher], decoded once when
// the fixture loads): the one comparison of JSON values, behind
// structuredEquals and structuredIncludes, result, textJSON and the
// notifications' params, lets a matcher match where a literal would be
// compared, numbers by exact value.
// [Equal] and [Includes] expose it; [Refusal] and [EchoMismatch] are the
// fidelity rules that [Fidelity] applies.
//
// # Example
//
//	for _, c := range assert.Build(&step.Expect) {
//		for _, f := range c.Check(res) {
//			fmt.Println(f.Kind, f.Path, f.Message)
//		}
//	}
package assert
