package gen

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func addSchemaSeeds(f *testing.F) {
	for _, tools := range loadPeers(f) {
		for _, tool := range tools {
			f.Add([]byte(tool.InputSchema), int64(1))
		}
	}
	for _, raw := range trickySchemas {
		f.Add([]byte(raw), int64(2))
	}
	for _, raw := range adversarialSchemas() {
		if len(raw) < 16<<10 {
			f.Add([]byte(raw), int64(3))
		}
	}
}

// FuzzValid feeds arbitrary bytes, compiled as the runner compiles them,
// to Valid and Distinct: no panic, the same answer twice, and notes exactly
// when the real validator rejects the arguments.
func FuzzValid(f *testing.F) {
	addSchemaSeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte, seed int64) {
		sch, _, notes := checkContract(t, raw, seed)
		distinct := NewValues(seed).Distinct("tool", sch, 3)
		if !reflect.DeepEqual(distinct, NewValues(seed).Distinct("tool", sch, 3)) {
			t.Fatal("Distinct is not deterministic")
		}
		if len(notes) == 0 && len(distinct) == 0 {
			t.Fatal("Valid had no notes but Distinct found nothing")
		}
		for i, d := range distinct {
			if err := validate(sch, d); err != nil {
				b, _ := json.Marshal(d)
				t.Fatalf("Distinct[%d] %s invalid for %s: %v", i, b, raw, err)
			}
		}
	})
}

// FuzzFuzzCases feeds arbitrary bytes to FuzzCases: no panic, the same
// cases twice, in the documented order; the valid case validates when
// Valid had no notes, and every missing-required and wrong-type case is
// rejected by the real validator.
func FuzzFuzzCases(f *testing.F) {
	addSchemaSeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte, seed int64) {
		v := NewValues(seed)
		sch, _ := compile(raw)
		cases, notes := FuzzCases("tool", sch, v)
		again, notesAgain := FuzzCases("tool", sch, v)
		if !reflect.DeepEqual(cases, again) || !reflect.DeepEqual(notes, notesAgain) {
			t.Fatal("FuzzCases is not deterministic")
		}
		if len(cases) == 0 || cases[0].Name != CaseValid {
			t.Fatalf("first case is not valid: %v", cases)
		}
		rank := map[string]int{CaseValid: 0, CaseMissingRequired: 1, CaseWrongType: 2}
		if !slices.IsSortedFunc(cases, func(a, b Case) int {
			if rank[a.Name] != rank[b.Name] {
				return rank[a.Name] - rank[b.Name]
			}
			switch {
			case a.Property < b.Property:
				return -1
			case a.Property > b.Property:
				return 1
			}
			return 0
		}) {
			t.Fatalf("cases out of order: %v", cases)
		}
		if sch == nil {
			return
		}
		if _, validNotes := v.Valid("tool", sch); len(validNotes) == 0 {
			if err := validate(sch, cases[0].Arguments); err != nil {
				t.Fatalf("valid case invalid for %s: %v", raw, err)
			}
		}
		for _, c := range cases[1:] {
			if err := validate(sch, c.Arguments); err == nil {
				b, _ := json.Marshal(c.Arguments)
				t.Fatalf("%s/%s (%s) is accepted: %s for schema %s", c.Name, c.Property, c.Detail, b, raw)
			}
		}
	})
}

// FuzzHostile feeds arbitrary bytes to Hostile: no panic, the same cases
// twice, at most the budget, every case JSON, and Forbidden exactly when
// the validator the runner checks arguments with (formats not asserted,
// as 2020-12 has it) rejects the arguments.
func FuzzHostile(f *testing.F) {
	addSchemaSeeds(f)
	f.Fuzz(func(t *testing.T, raw []byte, seed int64) {
		sch, _ := compile(raw)
		if sch == nil {
			return
		}
		v := NewValues(seed)
		valid, _ := v.Valid("tool", sch)
		cases := v.Hostile("tool", sch, valid, 12)
		if again := v.Hostile("tool", sch, valid, 12); !reflect.DeepEqual(cases, again) {
			t.Fatal("Hostile is not deterministic")
		}
		if len(cases) > 12 {
			t.Fatalf("%d cases over a budget of 12", len(cases))
		}
		for _, c := range cases {
			b, err := json.Marshal(c.Arguments)
			if err != nil {
				t.Fatalf("%s/%s is not JSON: %v", c.Name, c.Property, err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if forbidden := sch.Validate(inst) != nil; forbidden != c.Forbidden {
				t.Fatalf("%s/%s: Forbidden %v, validator %v: %s for schema %s", c.Name, c.Property, c.Forbidden, forbidden, clip(string(b)), raw)
			}
		}
	})
}
