package gen

// formatValues are realistic values for string formats, canonical first;
// a known format takes precedence over the property-name hint. Candidates
// are checked with formats asserted, so each value must pass the
// validator's check of its format (TestFormatValues holds them to it).
// The validator checks no url, idn-email, idn-hostname, phone, byte or
// color format, so for those realism rests on this table alone. Formats
// not listed here are annotations to the generator: the name hint or a
// filler word is used.
var formatValues = map[string][]string{
	"email":                 {"jane.doe@example.com", "john.smith@example.org", "alex.kim@example.net"},
	"idn-email":             {"jane.doe@example.com", "john.smith@example.org"},
	"uri":                   {"https://example.com", "https://example.org/docs/getting-started", "https://www.example.net/search?q=weather"},
	"url":                   {"https://example.com", "https://example.org/docs/getting-started", "https://www.example.net/search?q=weather"},
	"iri":                   {"https://example.com", "https://example.org/docs/getting-started"},
	"uri-reference":         {"/docs/getting-started", "https://example.com/about", "notes/todo.txt"},
	"iri-reference":         {"/docs/getting-started", "https://example.com/about"},
	"uri-template":          {"https://example.com/users/{id}", "https://example.org/repos/{owner}/{repo}"},
	"hostname":              {"example.com", "api.example.org", "www.example.net"},
	"idn-hostname":          {"example.com", "api.example.org"},
	"ipv4":                  {"192.0.2.10", "198.51.100.7", "203.0.113.25"},
	"ipv6":                  {"2001:db8::1", "2001:db8::42", "2001:db8:85a3::8a2e:370:7334"},
	"date":                  {"2026-01-15", "2026-03-02", "2026-07-20"},
	"date-time":             {"2026-01-15T09:30:00Z", "2026-03-02T14:45:00Z", "2026-07-20T18:05:00Z"},
	"time":                  {"09:30:00Z", "14:45:00Z", "18:05:00Z"},
	"duration":              {"PT30M", "P1D", "PT1H30M"},
	"period":                {"2026-01-15T09:30:00Z/P1D", "2026-03-02T14:45:00Z/PT2H"},
	"uuid":                  {"3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21", "9b2d7e41-5c3a-4f8e-b1d6-0a7c9e2f4b13", "c4e81f2a-6d9b-4a35-8e07-52b1f3d9a6c8"},
	"regex":                 {"^[a-z]+$", "\\d{3}-\\d{4}", "^Chicago"},
	"json-pointer":          {"/users/0/name", "/items/1", "/name"},
	"relative-json-pointer": {"1/name", "0", "2/items/0"},
	"semver":                {"1.4.2", "2.0.0", "0.9.1"},
	"phone":                 {"+1-312-555-0142", "+44 20 7946 0958"},
	"byte":                  {"aGVsbG8gd29ybGQ=", "bWNwY2hlY2s="},
	"color":                 {"#1e90ff", "#ff6347"},
}
