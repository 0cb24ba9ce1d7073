// Package config reads mcpcheck fixtures: what an MCP server must do, written
// as YAML or JSON, checked strictly and turned into a [Suite] for the runner.
//
// # Format
//
// schemas/fixture.schema.json is the definition; in short, a fixture names
// the suite, one target (command for a stdio server, or endpoint for
// Streamable HTTP), the tools that may be called (allowTools), a few settings
// (protocolVersion, timeoutMs, initTimeoutMs, discoveryTimeoutMs, concurrency,
// isolation), the scenarios and, optionally, checks to generate from the
// server's tool contracts (generate). A scenario is an ordered list of steps;
// a step is one tool call with its arguments and what must hold of its
// answer (expect). Files written for the TypeScript "MCP Tool Check" load
// unchanged.
//
//	name: Household revision and idempotency regression
//	command: [mcpcheck, demo]
//	allowTools: [propose_task, commit_task]
//	scenarios:
//	  - name: One approved task
//	    steps:
//	      - id: proposal
//	        tool: propose_task
//	        arguments: {text: Collect the library books}
//	        expect: {structuredIncludes: {revision: 0}}
//	      - id: commit
//	        tool: commit_task
//	        arguments:
//	          proposalId: {$ref: "proposal#/structuredContent/proposalId"}
//	          expectedRevision: 0
//	        expect: {structuredEquals: {revision: 1, replayed: false}}
//
// A scenario may set continueOnFailure (run every step even after one
// fails), parallel (run its steps at once; they cannot $ref each other) and
// isolation (shared, scenario, or step: a session, and over stdio a server
// process, for every step; step exists only here, the suite's isolation is
// shared or scenario). A step may be advisory: its failed expectations
// are notes, not failures. Besides isError, the structured checks, errorCode
// and maxDurationMs, expect takes:
//
//   - outcome: one outcome class, or a non-empty list of distinct ones any
//     of which will do. A string fills [Expect.Outcome]; a list, even of
//     one, fills [Expect.OutcomeAny] and leaves Outcome empty.
//   - fidelity: true checks a successful answer for what isError cannot
//     show ([Expect.Fidelity]); false is the same as leaving it out.
//   - absent: a value the answer must no longer hold ([Expect.Absent]),
//     typically a deleted resource's id. It may hold $ref markers, checked
//     like those in arguments.
//
// # Generated checks
//
// A generate block adds checks derived from the tools the server lists, as
// steps of the same kind as the hand-written ones ([Generate]):
//
//	generate:
//	  fuzz: true              # valid, missing-required and wrong-type calls
//	  fidelity: true          # disguised refusals, empty success, echo
//	  probes: true            # latency, response size, token estimate
//	  lifecycle:              # true: groups found by tool name; or a list:
//	    - name: entities
//	      create: {tool: create_entities, arguments: {name: probe}}
//	      read: {tool: open_nodes, arguments: {names: [{$ref: "create#/structuredContent/name"}]}}
//	      delete: {tool: delete_entities, arguments: {names: [{$ref: "create#/structuredContent/name"}]}}
//	      idPointer: /structuredContent/name
//	  concurrency: 4          # 0 (off) or 2..16 connections at once
//	  includeDestructive: false
//	  seed: 1
//	  slowThresholdMs: 5000
//	  bloatThresholdChars: 20000
//	  priceModel: some-model  # checked by the runner, which knows the prices
//	  failUnder: {crashResilience: 90, lifecycle: 100}
//
// Its defaults: generate: {} turns on fuzz, fidelity and probes, the checks
// that are cheap and, with readOnlyHint tools only, safe. Once any of fuzz,
// fidelity, probes or lifecycle is written, the block says exactly what it
// wants and those not written are off: generate: {lifecycle: true} runs the
// lifecycle checks only. lifecycle: true sets [Generate.Lifecycle]; a list
// sets [Generate.LifecycleGroups] and leaves Lifecycle false, so that only
// the listed groups run and none is looked for by name. includeDestructive
// is false, concurrency 0 and seed 0 unless written; slowThresholdMs is
// 5000 and bloatThresholdChars 20000. [Generate.FailUnder] holds the scores
// written, by the names of the Score constants, and is nil when there are
// none.
//
// A fixture with a generate block may have no scenarios at all (the key
// left out, or scenarios: []); without one, it needs at least one.
//
// Loading it:
//
//	suite, err := config.Load("fixtures.yaml", config.LoadOptions{
//		Overrides: config.Overrides{Concurrency: 4}, // from --concurrency
//	})
//	if errors.Is(err, config.ErrInvalid) {
//		fmt.Fprintln(os.Stderr, err) // one file:line:col: message per line
//		return 2
//	}
//
// # Reading
//
// A file ending in .json is JSON; .yaml or .yml is YAML; any other name is
// JSON when its first non-blank character is '{' and YAML otherwise. A UTF-8
// byte order mark is skipped; anything else that is not UTF-8 is refused.
// Files over 16 MiB ([MaxFileSize]) and nesting deeper than 1000 levels
// ([MaxDepth]) are refused.
//
// Both formats are read into the JSON data model and nothing more. Numbers
// stay [encoding/json.Number] with their exact text, so 9007199254740993
// keeps its last digit; YAML spellings JSON lacks are rewritten to the same
// value (0x1F → 31, 1_000 → 1000, .5 → 0.5; 1e400 stays a number although
// the YAML library reads it as a string), and .nan and .inf are refused.
// A number literal may have at most 4096 characters and an exponent within
// ±9999, which keeps exact arithmetic on it cheap. YAML scalars that YAML
// would read as timestamps stay strings (protocolVersion: 2025-11-25 works
// unquoted). YAML's own features are refused with a position, because a
// fixture must mean the same thing in both formats: aliases and anchors,
// merge keys (<<), keys that are not strings (write "200": rather than 200:),
// tags other than the standard !!str, !!int, !!float, !!bool, !!null, !!map
// and !!seq, and more than one document per file. Duplicate keys are refused
// in both formats, at the second occurrence.
//
// Tool arguments (of steps and of lifecycle groups), the structured
// expectations and absent are data: they are decoded
// once, as written, and never pass through koanf's dotted paths, so keys with
// dots, slashes, capitals or '~' arrive untouched. A Suite holds them for the
// whole run, so values written the same way (the same members in the same
// order, numbers with the same text) are decoded once and shared between
// steps: a fixture of ten thousand generated steps that repeat a few
// argument objects holds a few maps, not ten thousand. They are read-only.
//
// A fixture of ten thousand steps loads in tens of milliseconds with a heap
// of a dozen megabytes. Two quick paths make that so: YAML in the part of
// the language fixtures use (block and flow collections, one-line scalars,
// comments) is read without yaml.v3's own node tree, and the document is
// checked against the schema by a walk compiled from the schema before the
// full validator is asked. Whenever either declines or finds a problem, the
// document is read and validated again the full way, which is the only one
// that reports: results and messages are the same either way, as the tests
// and FuzzLoad check.
//
// # Positions
//
// Every problem names file:line:col. Lines and columns count from 1, and a
// column counts characters (runes), not bytes; a tab is one column. That is
// also how the YAML parser counts. Objects are placed at their '{' in JSON and
// at their first key in YAML block style; a problem with a key (unknown,
// duplicate) points at the key, one with a value at the value. The YAML parser
// reports syntax errors by line only, and often at the line where the
// enclosing block starts; the loader narrows that down to the first line at
// which the document stops parsing and points at its first non-blank
// character (or at a tab in its indentation).
//
// [Suite.Pos], [Scenario.Pos], [Step.Pos], [Expect.Pos], [Value.Pos],
// [Generate.Pos], [LifecycleGroup.Pos] and [Call.Pos] are where those
// objects and values are written; [Suite.FieldPos] holds the
// position of each key written at the top level. A step without expect gets
// the step's position as its Expect.Pos, so that the implicit "result with
// isError false" can still be pointed at. Steps keep no per-key positions:
// a Suite holds thousands of steps for the whole run, and the checks that
// need a key's place run while the document is still at hand.
//
// # Checks
//
// After the schema (strict: unknown keys are errors everywhere except inside
// arguments, env-like maps, the structured expectations and absent), the
// loader
// checks what a schema cannot say, and reports up to 20 problems at once,
// sorted by position:
//
//   - Exactly one of command and endpoint, unless an endpoint comes from the
//     environment or a flag (see below). env, envFromEnv and cwd belong to a
//     command target; headersFromEnv to an endpoint target.
//   - The endpoint passes [CheckEndpoint]: https, or http only to localhost,
//     127.0.0.1 or [::1]; no credentials, query or fragment.
//   - Header names in headersFromEnv are HTTP tokens, unique regardless of
//     case, and not ones the transport owns (Mcp-Session-Id,
//     Mcp-Protocol-Version, Content-Type, Accept, Host, Content-Length,
//     Connection, Transfer-Encoding, Last-Event-ID).
//   - Environment variable names (keys of env and envFromEnv, values of
//     envFromEnv and headersFromEnv) are non-empty without '=' or NUL; a
//     variable is set in env or in envFromEnv, not both.
//   - cwd is resolved against the fixture file's directory; [Suite.Cwd] is
//     absolute. Whether it exists is for the runner to find out.
//   - Scenario names are unique in the suite (reports name scenarios).
//   - A step without id is step-N, N counting the steps of its scenario from
//     1. Ids are unique within their scenario (default ids included); two
//     scenarios may use the same ids.
//   - Every step's tool is in allowTools.
//   - Every $ref marker in a step's arguments or expect.absent (an object
//     whose only property is "$ref" with a string value, as [RefMarker]
//     says; also the arguments or absent value itself) parses with
//     [ParseRef] and names an earlier step of the same scenario. The message
//     says when it names the step itself, a later step, or a step of another
//     scenario. In a parallel scenario a marker may name no step of the
//     scenario at all: its steps run at once. In the other expectations an
//     object {"$ref": ...} is data like any other, compared as written.
//   - Expectations that could never pass together are refused: errorCode
//     needs outcome protocol_error; isError, structuredEquals,
//     structuredIncludes and structuredPaths need an outcome in which a
//     result arrives (ok, tool_error, output_invalid); isError true
//     contradicts outcome ok and isError false contradicts tool_error. With
//     a list of outcomes the same holds of the list as a whole: errorCode
//     needs protocol_error in it, the result checks need one outcome with a
//     result, and isError true (false) is refused when ok (tool_error) is
//     the list's only outcome with a result.
//   - In generate: the tools of every lifecycle group are in allowTools;
//     group names, where given, are unique; create's arguments hold no $ref
//     marker (it is called first), and the markers in read's and delete's
//     name the step create (create#/pointer); idPointer is a JSON Pointer.
//     A fixture without scenarios must leave generate something to call
//     (allowTools not empty) and something to run (not every check off).
//
// Time limits (timeoutMs, initTimeoutMs, discoveryTimeoutMs, a step's
// timeoutMs, maxDurationMs) are 1 to 86400000 ms (24 hours).
//
// # Settings
//
// Seven settings can also come from outside the file, and are merged with
// koanf, each layer over the one before: the defaults, the fixture, the
// environment, the command line ([Overrides]). Only these flat settings go
// through koanf.
//
//	setting             environment                     flag
//	endpoint            MCPCHECK_URL                    --url
//	protocolVersion     MCPCHECK_PROTOCOL_VERSION       --protocol-version
//	timeoutMs           MCPCHECK_TIMEOUT_MS             --timeout-ms
//	initTimeoutMs       MCPCHECK_INIT_TIMEOUT_MS        --init-timeout-ms
//	discoveryTimeoutMs  MCPCHECK_DISCOVERY_TIMEOUT_MS   --discovery-timeout-ms
//	concurrency         MCPCHECK_CONCURRENCY            --concurrency
//	isolation           MCPCHECK_ISOLATION              --isolation
//
// An empty variable counts as unset, and so does a zero field of Overrides.
// Values from the environment and flags are checked by the same rules as the
// fixture's, and a bad one is reported under the variable's or the flag's
// name (MCPCHECK_CONCURRENCY: must be 1..16, got 40), before the fixture's
// own problems. The fixture itself must be valid as written, whatever
// overrides it.
//
// An endpoint from the environment or a flag replaces the fixture's target:
// command, env, envFromEnv and cwd are dropped, and a fixture with no target,
// or with both, is then accepted. A setting that came from outside the file
// has no entry in [Suite.FieldPos].
//
// # Errors
//
// Problems with the fixture, the environment or the flags are returned as
// [Errors], a list of [*Error] that matches [ErrInvalid] with errors.Is. A file
// that cannot be read gives an error matching [ErrFile] (and the os error it
// wraps), rendered as "loading x.yaml: open x.yaml: no such file or
// directory".
package config
