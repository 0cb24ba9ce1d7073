package config

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestYAMLScalars checks how YAML scalars become JSON values.
func TestYAMLScalars(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want any // json.Number, string, bool, nil
		err  string
	}{
		{"9007199254740993", json.Number("9007199254740993"), ""},
		{"-9223372036854775809", json.Number("-9223372036854775809"), ""},
		{"123456789012345678901234567890", json.Number("123456789012345678901234567890"), ""},
		{"+5", json.Number("5"), ""},
		{"-0", json.Number("-0"), ""},
		{"1_000_000", json.Number("1000000"), ""},
		{"0x1F", json.Number("31"), ""},
		{"0o17", json.Number("15"), ""},
		{"017", json.Number("15"), ""}, // yaml.v3 reads a leading 0 as octal
		{"0b101", json.Number("5"), ""},
		{"-0b101", json.Number("-5"), ""},
		{"1.5", json.Number("1.5"), ""},
		{"-12.50", json.Number("-12.50"), ""},
		{"1e5", json.Number("1e5"), ""},
		{"1.5E-3", json.Number("1.5E-3"), ""},
		{"+.5", json.Number("0.5"), ""},
		{"-.5e3", json.Number("-0.5e3"), ""},
		{"1.", json.Number("1.0"), ""},
		{"007.5", json.Number("7.5"), ""},
		{"1e400", json.Number("1e400"), ""},
		{"!!float 3", json.Number("3"), ""},
		{"!!int '42'", json.Number("42"), ""},
		{"!!str 42", "42", ""},
		{"'42'", "42", ""},
		{"2025-11-25", "2025-11-25", ""},
		{"2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00", ""},
		{"true", true, ""},
		{"False", false, ""},
		{"yes", "yes", ""},
		{"on", "on", ""},
		{"~", nil, ""},
		{"null", nil, ""},
		{"", nil, ""},
		{"!!null ''", nil, ""},
		{"<<", "<<", ""},
		{".nan", nil, ".nan is not a JSON number: NaN and infinity cannot be represented"},
		{"-.INF", nil, "-.INF is not a JSON number: NaN and infinity cannot be represented"},
		{"!!float .inf", nil, ".inf is not a JSON number: NaN and infinity cannot be represented"},
		{"!!bool yes", nil, `"yes" is not a valid YAML !!bool`},
		{"!!int 1.5", nil, `"1.5" is not a valid YAML !!int`},
		{"!!binary aGk=", nil, "YAML tag !!binary is not supported; fixtures hold JSON values only"},
		{"!local x", nil, "YAML tag !local is not supported; fixtures hold JSON values only"},
		{"1e99999", nil, "number 1e99999 is out of range (exponent beyond ±9999)"},
		{strings.Repeat("9", 4097), nil, "number has 4097 characters; at most 4096 are supported"},
	} {
		var errs errList
		root := parseYAML("f.yaml", []byte("v: "+c.yaml+"\n"), &errs)
		if c.err != "" {
			err := errs.err()
			if err == nil || err.Error() != "f.yaml:1:4: "+c.err {
				t.Errorf("%q: error %v, want %q", c.yaml, err, c.err)
			}
			continue
		}
		if err := errs.err(); err != nil {
			t.Errorf("%q: %v", c.yaml, err)
			continue
		}
		if got := toAny(root).(map[string]any)["v"]; got != c.want {
			t.Errorf("%q: got %#v, want %#v", c.yaml, got, c.want)
		}
	}
}

func TestJSONNumbers(t *testing.T) {
	for _, c := range []struct{ src, err string }{
		{"-0.0e-0", ""},
		{"1E+9999", ""},
		{"1e-10000", "f.json:1:7: number 1e-10000 is out of range (exponent beyond ±9999)"},
		{"1e0000000000000000000000001", ""},
		{strings.Repeat("1", 4096), ""},
	} {
		var errs errList
		root := parseJSON("f.json", []byte(`{"v": `+c.src+`}`), &errs)
		err := errs.err()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%.20s: %v", c.src, err)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("%.20s: error %v, want %q", c.src, err, c.err)
		case c.err == "" && toAny(root).(map[string]any)["v"] != json.Number(c.src):
			t.Errorf("%.20s: value changed", c.src)
		}
	}
}

func TestPaths(t *testing.T) {
	base := keyPath(indexPath(keyPath("", "scenarios"), 0), "arguments")
	for key, want := range map[string]string{
		"plain_Key1": `scenarios[0].arguments.plain_Key1`,
		"$ref":       `scenarios[0].arguments.$ref`,
		"a.b":        `scenarios[0].arguments["a.b"]`,
		"x/y":        `scenarios[0].arguments["x/y"]`,
		"~0":         `scenarios[0].arguments["~0"]`,
		"":           `scenarios[0].arguments[""]`,
		"1st":        `scenarios[0].arguments["1st"]`,
	} {
		if got := keyPath(base, key); got != want {
			t.Errorf("keyPath(%q) = %s, want %s", key, got, want)
		}
	}
	if got := keyPath("", "a b"); got != `["a b"]` {
		t.Errorf("root path = %s", got)
	}
}
