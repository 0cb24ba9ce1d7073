package report

import (
	"encoding/json"
	"io"

	"github.com/mcpcheck/mcpcheck/runner"
)

// JSON writes r as indented JSON followed by a newline.
func JSON(w io.Writer, r *runner.Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
