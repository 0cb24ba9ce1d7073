package gen

import (
	"net/netip"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// formatValues are realistic values for string formats, canonical first.
// Each value of an asserted format passes [formatVerdict].
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

// assertedFormats are the formats a validator may enforce. A value of one of
// them that [formatVerdict] cannot vouch for is never called valid.
var assertedFormats = map[string]bool{
	"email": true, "hostname": true, "ipv4": true, "ipv6": true, "date": true,
	"time": true, "date-time": true, "duration": true, "period": true, "uuid": true,
	"uri": true, "iri": true, "uri-reference": true, "iri-reference": true,
	"uri-template": true, "json-pointer": true, "relative-json-pointer": true,
	"semver": true, "regex": true,
}

// formatVerdict checks s against a format. The checks are stricter than the
// RFCs (only plain ASCII shapes pass), so "valid" here is valid anywhere.
// Formats no validator asserts are always valid.
func formatVerdict(name, s string, c *checker) verdict {
	if !assertedFormats[name] {
		return valid
	}
	ok := false
	switch name {
	case "email":
		ok = safeEmail(s)
	case "hostname":
		ok = safeHostname(s)
	case "ipv4":
		ok = safeIPv4(s)
	case "ipv6":
		ok = safeIPv6(s)
	case "date":
		ok = safeDate(s)
	case "time":
		ok = safeTime(s)
	case "date-time":
		ok = safeDateTime(s)
	case "duration":
		ok = safeDuration(s)
	case "period":
		ok = safePeriod(s)
	case "uuid":
		ok = uuidRe.MatchString(s)
	case "uri", "iri":
		ok = safeURI(s, true)
	case "uri-reference", "iri-reference":
		ok = safeURI(s, false)
	case "uri-template":
		ok = safeURITemplate(s)
	case "json-pointer":
		ok = pointerRe.MatchString(s)
	case "relative-json-pointer":
		ok = relPointerRe.MatchString(s)
	case "semver":
		ok = semverRe.MatchString(s)
	case "regex":
		if c == nil {
			return unknown
		}
		_, ok = c.regexp(s)
	}
	if ok {
		return valid
	}
	return invalid
}

var (
	uuidRe       = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	pointerRe    = regexp.MustCompile(`^(/[A-Za-z0-9_.-]*)*$`)
	relPointerRe = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})(#|(/[A-Za-z0-9_.-]*)*)$`)
	semverRe     = regexp.MustCompile(`^(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})\.(0|[1-9][0-9]{0,8})$`)
	emailLocalRe = regexp.MustCompile(`^[A-Za-z0-9]+([._+-][A-Za-z0-9]+)*$`)
	durationRe   = regexp.MustCompile(`^P(\d{1,9}W|(\d{1,9}Y)?(\d{1,9}M)?(\d{1,9}D)?(T(\d{1,9}H)?(\d{1,9}M)?(\d{1,9}S)?)?)$`)
	timeRe       = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$`)
	uriCharsRe   = regexp.MustCompile(`^[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]*$`)
	schemeRe     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)
)

func safeHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if len(label) == 0 || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

func safeEmail(s string) bool {
	local, domain, ok := strings.Cut(s, "@")
	return ok && len(s) <= 254 && len(local) <= 64 && emailLocalRe.MatchString(local) &&
		strings.Contains(domain, ".") && safeHostname(domain)
}

func safeIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
			return false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || strings.ContainsAny(p, "+-") {
			return false
		}
	}
	return true
}

func safeIPv6(s string) bool {
	if !strings.Contains(s, ":") || strings.Trim(s, "0123456789abcdefABCDEF:") != "" {
		return false
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == ""
}

func safeDate(s string) bool {
	if len(s) != 10 {
		return false
	}
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

func safeTime(s string) bool { return timeRe.MatchString(s) }

func safeDateTime(s string) bool {
	return len(s) >= 20 && (s[10] == 'T' || s[10] == 't') && safeDate(s[:10]) && safeTime(s[11:])
}

func safeDuration(s string) bool {
	return durationRe.MatchString(s) && s != "P" && !strings.HasSuffix(s, "T")
}

func safePeriod(s string) bool {
	start, end, ok := strings.Cut(s, "/")
	if !ok {
		return false
	}
	if strings.HasPrefix(start, "P") {
		return safeDuration(start) && safeDateTime(end)
	}
	if !safeDateTime(start) {
		return false
	}
	if strings.HasPrefix(end, "P") {
		return safeDuration(end)
	}
	return safeDateTime(end)
}

func safeURI(s string, absolute bool) bool {
	if !uriCharsRe.MatchString(s) {
		return false
	}
	u, err := url.Parse(s)
	if err != nil || strings.Contains(u.Hostname(), ":") {
		return false
	}
	if u.Scheme != "" && !schemeRe.MatchString(u.Scheme) {
		return false
	}
	return !absolute || u.IsAbs()
}

// safeURITemplate accepts a safe URI with simple {name} expressions; an
// expression may not contain "/", "?" or "#", which a validator splitting
// the URI into parts would cut through.
func safeURITemplate(s string) bool {
	open := false
	plain := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '{':
			if open {
				return false
			}
			open = true
		case c == '}':
			if !open {
				return false
			}
			open = false
		case open && !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ','):
			return false
		default:
			plain = append(plain, c)
		}
	}
	if open || !safeURI(string(plain), false) {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && !strings.Contains(u.Hostname(), ":")
}
