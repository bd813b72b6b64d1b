// Package reporttest holds test helpers for warden's report formats, shared
// by the report and action packages: validating SARIF output against the
// official SARIF 2.1.0 JSON schema, offline.
package reporttest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaRelPath is where the SARIF 2.1.0 schema lives relative to the
// repository root (a shared/ folder next to the repository).
const SchemaRelPath = "../shared/sarif/sarif-schema-2.1.0.json"

// schemaID is the schema's own "id". The schema is registered under it so
// the compiler resolves the document's internal references without
// fetching anything.
const schemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// Validator checks SARIF documents against the 2.1.0 schema.
type Validator struct {
	schema *jsonschema.Schema
}

// Load compiles the SARIF schema found at SchemaRelPath above the
// repository root. Formats (uri, date-time, …) are asserted, because GitHub
// code scanning rejects malformed URIs that a lax check would let through.
func Load(repoRoot string) (*Validator, error) {
	path := filepath.Join(repoRoot, filepath.FromSlash(SchemaRelPath))
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read SARIF schema: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse SARIF schema %s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaID, doc); err != nil {
		return nil, fmt.Errorf("register SARIF schema: %w", err)
	}
	sch, err := c.Compile(schemaID)
	if err != nil {
		return nil, fmt.Errorf("compile SARIF schema: %w", err)
	}
	return &Validator{schema: sch}, nil
}

// Validate reports whether data is a valid SARIF 2.1.0 document.
func (v *Validator) Validate(data []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("SARIF is not JSON: %w", err)
	}
	if err := v.schema.Validate(inst); err != nil {
		return fmt.Errorf("SARIF does not match the 2.1.0 schema: %w", err)
	}
	return nil
}

// RepoRoot walks up from the working directory to the directory holding
// go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repository root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// MustValidator returns a Validator for a test, skipping the test with a
// clear message when the shared schema is not present (a checkout without
// the shared/ folder beside it), and failing it on any other error.
func MustValidator(t testing.TB) *Validator {
	t.Helper()
	root, path, ok := schemaPath(t)
	if !ok {
		t.Skipf("SARIF schema not found at %s (expected shared/ beside the repository); skipping SARIF schema validation", path)
	}
	return load(t, root)
}

// AssertValid fails the test when data is not valid SARIF 2.1.0. A nil
// Validator (see Optional) checks nothing.
func AssertValid(t testing.TB, v *Validator, data []byte) {
	t.Helper()
	if v == nil {
		return
	}
	if err := v.Validate(data); err != nil {
		t.Fatalf("%v\n--- SARIF ---\n%s", err, data)
	}
}

// Optional returns a Validator, or nil (logging why) when the shared schema
// is absent, for tests whose other assertions should still run without it.
// AssertValid accepts the nil Validator and then checks nothing.
func Optional(t testing.TB) *Validator {
	t.Helper()
	root, path, ok := schemaPath(t)
	if !ok {
		t.Logf("SARIF schema not found at %s; SARIF schema validation skipped", path)
		return nil
	}
	return load(t, root)
}

// schemaPath finds the repository root and the shared schema's path, and
// reports whether the schema is there.
func schemaPath(t testing.TB) (root, path string, ok bool) {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(root, filepath.FromSlash(SchemaRelPath))
	_, err = os.Stat(path)
	return root, path, !errors.Is(err, os.ErrNotExist)
}

func load(t testing.TB, root string) *Validator {
	t.Helper()
	v, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
