// Package gen derives checks from a server's own tool contracts: the
// deterministic part of mcpcheck's generated cases. It has no network or
// MCP code. The runner calls it after discovery and compiles what it
// returns into ordinary steps, so generated and hand-written cases share
// one engine and one report.
//
// Schemas arrive compiled by package schema (runner/internal/schema): the
// very [schema.Schema] the runner validates a tool's arguments with, so a
// malformed schema, a remote `$ref` or one nested hundreds deep was
// refused before it got here, and a tool without a usable schema comes as
// nil. Every function is total: nil, and compiled schemas nobody can
// satisfy (cyclic `$ref`, impossible bounds or patterns), never panic;
// they yield a placeholder or no case, and a note saying what was skipped
// and why.
//
// Values are the runner's generic JSON representation: map[string]any,
// []any, string, bool, nil, and [encoding/json.Number] for numbers (never
// float64), as in the schema documents, so large integers and decimals
// keep their exact value.
//
// # Realistic valid inputs
//
// [Values.Valid] builds one argument object for a tool; [Values.Distinct]
// builds several different ones (for a crossed-responses check);
// [FuzzCases] builds mcp-fuzz's valid, missing-required and wrong-type
// calls from it.
//
// For each value the generator prefers, in order: `const`; `default`, then
// `examples` (a null one last); the first sensible `enum` member (null and
// "" last); and otherwise a value built for the first allowed `type` (the
// declared order, null last; without `type`, the keywords present decide,
// then the property-name hint, then string). Built values honour:
//
//   - numbers: minimum, maximum, exclusiveMinimum and exclusiveMaximum in
//     both the draft-04 boolean and the later numeric forms, and every
//     multipleOf (their least common multiple), computed exactly;
//   - strings: minLength and maxLength (in code points), format (the
//     values below), pattern (see Patterns), and the property-name hints;
//   - objects: every required property, always; optional properties at
//     the top two levels when they generate cleanly on their own (at most
//     64; not `deprecated` or `readOnly`, and not ones that would drag in
//     dependentRequired/dependentSchemas); extra ones to reach
//     minProperties, named to satisfy propertyNames or patternProperties;
//     properties, patternProperties and additionalProperties each apply as
//     JSON Schema says;
//   - arrays: max(minItems, 1) items (minItems only when nested eight
//     levels deep), at most maxItems; items/prefixItems/additionalItems by
//     draft; contains for the first minContains items; distinct items for
//     uniqueItems;
//   - anyOf and oneOf: branches in order (the first one first) until a
//     value validates, which for oneOf means it matches no other branch;
//     allOf merges; if/then/else picks a side; `$ref` leads where the
//     validator resolves it (pointers, anchors, $id scopes), `$dynamicRef`
//     and `$recursiveRef` to their static target, and siblings of `$ref`
//     are ignored before draft 2019-09 as validators do.
//
// Every candidate is checked before it is used, by santhosh-tekuri/jsonschema
// through package schema: against the subschema it was built for, at its
// JSON Pointer in the document, with formats asserted, so a value of a
// format the validator knows is one a strict validator accepts. The draft
// is the validator's ($schema decides; 2020-12 otherwise, as MCP
// specifies). Hence the contract of Valid: empty notes mean, and only
// mean, that the arguments validate against the inputSchema, as compiled
// and with formats asserted; otherwise the notes say what could not be
// generated, or why the validator rejects the placeholder. Tests hold it
// for every tool of the recorded captures in testdata, a corpus of tricky
// and of hostile schemas, thousands of random schemas of every draft, and
// fuzzing.
//
// Output is deterministic: it depends only on the seed, the tool name,
// the schema document and the variant, never on map order or earlier
// calls.
// The seed decides what nothing else does (numbers without bounds or
// hints, in 1..100; filler words for strings without hints); hint and
// format values are the same for every seed. Distinct's later variants
// rotate enum members, hint and format values, booleans and branches,
// draw new numbers, and ignore `default` and `examples`.
//
// # Property-name hints
//
// A loosely typed string (or number) gets a realistic value chosen by its
// property name. The name is split into words at separators and camelCase
// ("sourceTimezone" → source, timezone) and matched, in this order, as a
// whole, by its last two words, by its last word, by that word made
// singular, and by its first word. Array items use the singular of the
// array's name ("entityNames" → "Jane Doe"). A string property whose name
// matches nothing falls back to the first of the first twelve words of its
// description that is a plain noun from the table (name, email, url,
// city, query, path, message, title, date, ...): "The name of the entity"
// → "Jane Doe". A known format takes precedence over the hint. The first
// value is the one Valid uses; Distinct rotates through two or three
// more, then numbers them ("Jane Doe 2").
//
//	keys (normalised)                          value (string; integer; number)
//	city, town, cityname, location, place      "Chicago"
//	email, emailaddress, mail, recipient, cc   "jane.doe@example.com"
//	url, uri, link, website, homepage, href    "https://example.com"
//	timezone, tz, tzname, ianatimezone         "America/New_York"
//	time, starttime, endtime                   "09:30" (HH:MM)
//	date, startdate, enddate, duedate, day     "2026-01-15"; 15
//	birthdate, dob, dateofbirth, birthday      "1990-04-12"
//	datetime, timestamp, createdat, since      "2026-01-15T09:30:00Z"; 1768469400
//	country, countryname, nation               "Canada"
//	countrycode, countryiso                    "CA"
//	query, q, search, keyword(s), term, question "best coffee shops in Chicago"
//	topic, theme                               "renewable energy"
//	prompt, instruction(s)                     "Write a haiku about autumn leaves."
//	path, file, filepath, filename, document   "notes/todo.txt"
//	dir, directory, folder, cwd, workdir       "notes"
//	id, identifier, key (and *_id, *Id)        "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21"; 42
//	uuid, guid                                 "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21"
//	name, fullname, displayname, author        "Jane Doe"
//	firstname, givenname / lastname, surname   "Jane" / "Doe"
//	username, user, login, handle              "janedoe"
//	title, heading, headline                   "Quarterly planning notes"
//	subject                                    "Meeting follow-up"
//	description, summary, details, bio         "A short note about the quarterly planning meeting."
//	message, text, content, body, comment, note "Please remember to water the plants on Friday."
//	language, lang, languagecode               "en"
//	locale                                     "en-US"
//	currency, currencycode                     "USD"
//	phone, phonenumber, mobile, tel            "+1-312-555-0142"
//	lat, latitude / lon, lng, longitude        41.8781 / -87.6298 (also as strings)
//	count, n, num, quantity, qty, number       3
//	limit, max, maxresults, pagesize, size, top 10
//	page, pagenumber / offset, skip            1 / 0
//	tokens, maxtokens, maxlength               100
//	age / year / hour / minute                 30 / 2026 / 9 / 30
//	month                                      "January"; 1
//	second(s), timeout, delay, interval        5
//	duration                                   "PT30M"; 30
//	port                                       8080
//	temperature                                0.7 as a number, 21 as an integer
//	price, amount, cost, total, budget         19.99; 20
//	address, street / zip, postalcode          "123 Main St" / "60601"
//	state, province, region                    "Illinois"
//	color, colour                              "blue"
//	tag(s), label(s), category, group          "work"
//	status / priority / version                "active" / "high" / "1.0.0"
//	repo, repository, project / branch, ref    "hello-world" / "main"
//	owner, org, organization, team, company    "example-org"
//	ticker, symbol, stock                      "AAPL"
//	domain, host, hostname, server / ip        "example.com" / "192.0.2.10"
//	format / sort, sortby / order, direction   "json" / "name" / "asc"
//	entitytype, kind / relationtype            "person" / "works_at"
//	sql, sqlquery                              "SELECT 1"
//	dryrun, preview, validateonly, simulate    true (other booleans: false)
//
// # Formats
//
// Values for `format` (each passes the validator's check of its format):
// email
// "jane.doe@example.com"; uri, url, iri "https://example.com";
// uri-reference, iri-reference "/docs/getting-started"; uri-template
// "https://example.com/users/{id}"; hostname "example.com"; ipv4
// "192.0.2.10"; ipv6 "2001:db8::1"; date "2026-01-15"; date-time
// "2026-01-15T09:30:00Z"; time "09:30:00Z"; duration "PT30M"; period
// "2026-01-15T09:30:00Z/P1D"; uuid "3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21";
// regex "^[a-z]+$"; json-pointer "/users/0/name"; relative-json-pointer
// "1/name"; semver "1.4.2"; and idn-email, idn-hostname, phone, byte,
// color, which the validator does not check. Other formats are
// annotations; the name hint or a filler word is used.
//
// # Patterns
//
// A string with `pattern` is written from the expression's syntax tree
// (Go's RE2 syntax, which the validator also uses): literals are copied,
// a character class contributes a letter of the hint's value (so
// ^[a-z]+$ for `city` gives "chicago") or a digit of 5550142 (so
// ^\d{3}-\d{4}$ gives "555-0142"), alternations take a branch, and
// repetitions are tried at several counts to meet minLength/maxLength.
// Every proposal is validated; when none matches ("a^b" matches
// nothing), the note says so. (A pattern that is not RE2, such as a
// lookaround, does not compile, and the runner refuses the schema.)
//
// # Limits
//
// Generated values nest at most 32 levels; $ref/allOf chains are followed
// 32 hops; at most 1,000 enum members are tried, 256 array items and 64
// optional properties generated, and strings stretched to at most 65,536
// characters. One call does at most 200,000 steps of work and validations
// and generates at most 1 MiB of characters and elements. Number literals
// with more than 1,000 characters or an exponent beyond ±400 are not
// computed with. Reaching a limit gives a note, unless the arguments
// validate all the same.
//
// # Fuzz cases
//
// [FuzzCases] returns the valid call, then one missing-required case per
// required top-level property, then one wrong-type case per top-level
// property with a declared type, each group sorted by property name. The
// swap is number/integer → string, string → number, boolean, object,
// array and null → string (or the first type the schema does not allow).
// Properties without a declared type, or typed only through anyOf/oneOf,
// get a note instead. Required and declared properties are read through
// `$ref` and `allOf` but not inside anyOf/oneOf/if branches.
//
// # Annotations
//
// [Hint] reads readOnlyHint, destructiveHint, idempotentHint,
// openWorldHint or any other boolean annotation from the raw wire JSON and
// distinguishes absent from false: a tool without readOnlyHint: true is
// not read-only.
//
// # Fidelity
//
// [Refusal] finds a disguised refusal in a successful result's text. The
// text is lower-cased, curly apostrophes straightened, "I'm", "can't",
// "can not", "don't" and "won't" expanded, and punctuation turned into
// spaces; then these phrases are matched as whole words, and the first in
// this order is reported:
//
//	I'm sorry, but I can't         I apologize, but I can't
//	I apologise, but I can't       I'm afraid I can't
//	sorry, I can't                 I can't help with
//	I can't assist with            I can't fulfill
//	I can't comply                 I can't browse
//	I can't access                 I am unable to
//	I'm not able to                I'm not allowed to
//	I'm not permitted to           I don't have access to
//	I don't have the ability to    I don't have real-time
//	I won't be able to             I must decline
//	as an AI, I                    as an AI language model
//	as an AI assistant             as an AI model
//	as an AI developed by          as a language model
//	I'm just an AI                 my knowledge cutoff
//
// Single words ("sorry", "cannot", "unable") never count, nor does a bare
// "as an AI" ("As an AI-powered search engine, ..."). A refusal worded
// otherwise is missed, and an answer quoting someone's refusal is
// flagged: the list trades recall for few false accusations.
//
// [EchoMismatch] reports a response that mentions none of the call's
// string inputs (three characters or more, anywhere in the arguments,
// compared case-insensitively): a weak signal, to be reported, not scored.
//
// # Resource lifecycle
//
// [Groups] finds create → read/delete groups by tool name (see its doc for
// verbs and shapes) and the id parameter of the read and delete tools; it
// gives up, with a note, rather than guess. [Links] finds parent/child
// pairs whose child create tool takes exactly one <parent>_id property.
// [ExtractID] finds the created id in a result, searching structuredContent
// at the top level, then in its sole nested object, then in the first
// element of its sole array of objects (or of structuredContent itself if
// it is an array), and finally a lone UUID in the text. It returns the
// JSON Pointer of the id ("/structuredContent/task/id") so a step can
// reference it as "create#/structuredContent/task/id", or [FoundInText].
//
// # Probe math
//
// [Outliers] is mcp-fuzz's two-signal rule for latency and response size;
// [Median] and [EstimateTokens] (about four characters per token, rounded
// up) support it. [Grade] maps a percentage to a letter: A from 90, B from
// 80, C from 70, D from 60, F below.
//
// [PricePerMTok] knows Anthropic's first-party list input prices, in US
// dollars per million tokens, as of 2026-09-21 (the date mcp-fuzz's
// README gives for its list; input, because a tool's response is input to
// the model that reads it):
//
//	claude-sonnet-5     2.00   implied by that README's worked example
//	                           (~5,412 tokens ≈ $0.0108)
//	claude-opus-4-5     5.00
//	claude-sonnet-4-5   3.00
//	claude-haiku-4-5    1.00
//	claude-opus-4-1    15.00
//
// The README's own table did not survive in our copy and mcpcheck has no
// network: the last four are Anthropic's published list prices as we last
// knew them, stated for that date but not re-checked on it. No caching,
// batch or volume discounts; no Bedrock, Vertex AI or Foundry rates. An
// unknown model is refused, never priced like another.
//
// # Example
//
//	input, err := schema.Compile("get_weather", "input", tool.InputSchema) // nil if refused; err says why
//	v := gen.NewValues(1)
//	args, notes := v.Valid("get_weather", input)
//	// args: {"city": "Chicago", "units": "metric"}; notes: none
//	cases, notes := gen.FuzzCases("get_weather", input, v)
//	for _, c := range cases {
//		// one step per case: c.Name, c.Property, c.Arguments, c.Detail
//	}
//	if ro, ok := gen.Hint(tool.Annotations, "readOnlyHint"); !ok || !ro {
//		// not known to be read-only: skipped unless destructive tools are included
//	}
package gen
