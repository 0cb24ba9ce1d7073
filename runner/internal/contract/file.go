package contract

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/schemas"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var fileSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.Contract))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schemas.ContractURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemas.ContractURL)
})

// Read parses a contract file and validates it against
// schemas/contract.schema.json. Its errors name the place in the file
// (a JSON Pointer) and what is wrong there.
func Read(data []byte) (*Contract, error) {
	sch, err := fileSchema()
	if err != nil {
		return nil, fmt.Errorf("the contract schema does not compile: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if err := sch.Validate(doc); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, fmt.Errorf("not a contract file: %s", firstLeaf(ve))
		}
		return nil, err
	}
	return Parse(data)
}

// firstLeaf is the innermost cause of a validation error, with its place.
func firstLeaf(ve *jsonschema.ValidationError) string {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	at := "/" + strings.Join(ve.InstanceLocation, "/")
	return fmt.Sprintf("at %s: %s", at, ve.ErrorKind.LocalizedString(message.NewPrinter(language.English)))
}
