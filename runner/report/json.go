package report

import (
	"encoding/json"
	"io"
)

// JSON writes r as indented JSON followed by a newline.
func JSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// JSONSuites writes the reports of a run of several suites as one document,
// {"schemaVersion": 1, "suites": [...]}, each suite's report as [JSON]
// writes it.
func JSONSuites(w io.Writer, reps []*Report) error {
	doc := Suites{SchemaVersion: SchemaVersion, Suites: reps}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
