// Package schema holds the JSON Schema of the API's release (RFC-0008 §4.2
// release.schema.json, written from the RFC's text, draft 2020-12) and
// checks answers against it. Only tests use it: the API never validates
// its own answers at run time, its tests prove them.
package schema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed release.schema.json
var releaseSchema []byte

const releaseURL = "https://studio.invalid/schemas/release.schema.json"

// Schemas are the compiled release schemas.
type Schemas struct {
	// Release is §4.2's Release exactly.
	Release *jsonschema.Schema
	// Answer is a release as the API answers it: the contract and the
	// per-person fields the API adds (abilities, overlaps).
	Answer *jsonschema.Schema
	// View is §12's ReleaseView, GET …/releases/{id}.
	View *jsonschema.Schema
}

// Compiled returns the schemas, compiled once.
var Compiled = sync.OnceValues(func() (Schemas, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(releaseSchema))
	if err != nil {
		return Schemas{}, fmt.Errorf("schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(releaseURL, doc); err != nil {
		return Schemas{}, fmt.Errorf("schema: %w", err)
	}
	var s Schemas
	for dst, ptr := range map[**jsonschema.Schema]string{&s.Release: "", &s.Answer: "#/$defs/ReleaseAnswer", &s.View: "#/$defs/ReleaseView"} {
		if *dst, err = c.Compile(releaseURL + ptr); err != nil {
			return Schemas{}, fmt.Errorf("schema %s: %w", ptr, err)
		}
	}
	return s, nil
})

// Decode reads JSON as the validator wants it (numbers kept exact).
func Decode(data []byte) (any, error) { return jsonschema.UnmarshalJSON(bytes.NewReader(data)) }
