package contract

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/internal/schemacheck"
	"github.com/mcpcheck/mcpcheck/schemas"
)

// Read parses a contract file and validates it against
// schemas/contract.schema.json. Its errors name the place in the file
// (a JSON Pointer) and what is wrong there.
func Read(data []byte) (*Contract, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if fileio.JSONValues(data) > schemas.ExplainedValues {
		ok, err := schemas.Matches(schemas.ContractURL, doc)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("not a contract file: it does not match the contract schema (mcpcheck schema contract); a file of more than %d values is not explained further", schemas.ExplainedValues)
		}
	} else if err := schemas.Validate(schemas.ContractURL, doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			leaf := schemacheck.FirstLeaf(ve)
			at := schemacheck.Pointer(leaf.InstanceLocation)
			if at == "" {
				at = "/"
			}
			return nil, fmt.Errorf("not a contract file: at %s: %s", at, schemacheck.Localized(leaf.ErrorKind))
		}
		return nil, err
	}
	return Parse(data)
}
