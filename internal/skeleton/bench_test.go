package skeleton

import (
	"testing"

	"github.com/wardenlock/warden/internal/benchdata"
	"github.com/wardenlock/warden/internal/canon"
	"github.com/wardenlock/warden/internal/jsonv"
)

// benchSchema is a realistic tool input schema: 20 top-level properties,
// nested objects and arrays, shared $defs reached through $refs, enums,
// retained and cosmetic constraints.
const benchSchema = `{
  "type": "object",
  "title": "Create deployment",
  "additionalProperties": false,
  "required": ["name", "image", "replicas", "region"],
  "$defs": {
    "label": {"type": "string", "maxLength": 63, "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},
    "quantity": {"type": ["string", "integer"], "pattern": "^[0-9]+(m|Mi|Gi)?$"},
    "resources": {
      "type": "object",
      "properties": {
        "cpu": {"$ref": "#/$defs/quantity"},
        "memory": {"$ref": "#/$defs/quantity"},
        "gpu": {"type": "integer", "minimum": 0, "maximum": 8}
      }
    },
    "port": {
      "type": "object",
      "required": ["containerPort"],
      "properties": {
        "name": {"$ref": "#/$defs/label"},
        "containerPort": {"type": "integer", "minimum": 1, "maximum": 65535},
        "protocol": {"enum": ["UDP", "TCP", "SCTP"], "default": "TCP"}
      }
    }
  },
  "properties": {
    "name": {"$ref": "#/$defs/label"},
    "namespace": {"$ref": "#/$defs/label"},
    "image": {"type": "string", "minLength": 1, "maxLength": 512, "description": "Container image"},
    "replicas": {"type": "integer", "minimum": 0, "maximum": 100, "default": 1},
    "region": {"enum": ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-south-1", "ap-northeast-1"]},
    "strategy": {"type": "string", "enum": ["Recreate", "RollingUpdate"]},
    "maxSurge": {"type": ["integer", "string"]},
    "command": {"type": "array", "items": {"type": "string"}},
    "args": {"type": "array", "items": {"type": "string", "maxLength": 4096}},
    "env": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["name"],
        "properties": {
          "name": {"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$"},
          "value": {"type": "string"},
          "secretRef": {"type": "object", "properties": {"name": {"$ref": "#/$defs/label"}, "key": {"type": "string"}}}
        }
      }
    },
    "labels": {"type": "object", "additionalProperties": {"$ref": "#/$defs/label"}},
    "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
    "requests": {"$ref": "#/$defs/resources"},
    "limits": {"$ref": "#/$defs/resources"},
    "ports": {"type": "array", "items": {"$ref": "#/$defs/port"}},
    "probe": {
      "type": "object",
      "properties": {
        "path": {"type": "string", "format": "uri-reference"},
        "port": {"$ref": "#/$defs/port"},
        "periodSeconds": {"type": "integer", "minimum": 1},
        "kind": {"enum": ["http", "tcp", "exec", null]}
      }
    },
    "volumes": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "name": {"$ref": "#/$defs/label"},
          "mountPath": {"type": "string"},
          "readOnly": {"type": "boolean"},
          "size": {"$ref": "#/$defs/quantity"}
        }
      }
    },
    "dryRun": {"type": "boolean", "default": false},
    "timeoutSeconds": {"type": "number", "minimum": 0.5, "maximum": 3600.0},
    "tags": {"type": "array", "items": {"enum": [3, 1, "b", "a", true, 2.5]}}
  }
}`

func BenchmarkExtract(b *testing.B) {
	schema := parse(b, benchSchema)
	b.ReportAllocs()
	for b.Loop() {
		Extract(schema)
	}
}

func BenchmarkExtractValue(b *testing.B) {
	schema := parse(b, benchSchema)
	b.ReportAllocs()
	for b.Loop() {
		Extract(schema).Value()
	}
}

func BenchmarkExtractDiamondBound(b *testing.B) {
	// Worst case: an exponential ref diamond that runs into MaxWork.
	schema := parse(b, diamond(31))
	b.ReportAllocs()
	for b.Loop() {
		Extract(schema)
	}
}

// BenchmarkTools does for the input schemas of 100 generated tools
// (package benchdata) what a lock build does with each: extract the
// skeleton with one Extractor, hash its canonical text and write it
// compact.
func BenchmarkTools(b *testing.B) {
	v := parse(b, string(benchdata.Surface(100, nil)))
	var schemas []*jsonv.Value
	for _, t := range v.Get("tools").Items {
		schemas = append(schemas, t.Get("inputSchema"))
	}
	var x Extractor
	var h canon.Hasher
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range schemas {
			sk := x.Extract(s)
			h.Begin()
			if err := sk.WriteCanonical(&h, 1); err != nil {
				b.Fatal(err)
			}
			h.Sum()
			buf = sk.AppendCompact(buf[:0])
		}
	}
}

// BenchmarkToolsIndent renders the skeletons of the input schemas of 100
// generated tools as the lock writer does (AppendIndent at a tool entry's
// level); the extraction is outside the timed part.
func BenchmarkToolsIndent(b *testing.B) {
	v := parse(b, string(benchdata.Surface(100, nil)))
	var sks []*Skeleton
	size := 0
	for _, t := range v.Get("tools").Items {
		sk := Extract(t.Get("inputSchema"))
		sks = append(sks, sk)
		size += len(sk.AppendIndent(nil, 2, 3))
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		for _, sk := range sks {
			buf = sk.AppendIndent(buf[:0], 2, 3)
		}
	}
}

// BenchmarkToolsPin does for the input schemas of 100 generated tools what
// warden pin does with each: extract the skeleton with one Extractor, hash
// its canonical text, and render its lock text (AppendIndent at a tool
// entry's level).
func BenchmarkToolsPin(b *testing.B) {
	v := parse(b, string(benchdata.Surface(100, nil)))
	var schemas []*jsonv.Value
	for _, t := range v.Get("tools").Items {
		schemas = append(schemas, t.Get("inputSchema"))
	}
	var x Extractor
	var h canon.Hasher
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range schemas {
			sk := x.Extract(s)
			h.Begin()
			if err := sk.WriteCanonical(&h, 1); err != nil {
				b.Fatal(err)
			}
			h.Sum()
			buf = sk.AppendIndent(buf[:0], 2, 3)
		}
	}
}

// BenchmarkToolsIndentKept is BenchmarkToolsIndent for skeletons from
// Extractors, as the lock builder's are: with the texts an Extractor
// keeps for its writers (one Extractor per tool, so that all the
// skeletons stay valid).
func BenchmarkToolsIndentKept(b *testing.B) {
	v := parse(b, string(benchdata.Surface(100, nil)))
	tools := v.Get("tools").Items
	xs := make([]Extractor, len(tools))
	var sks []*Skeleton
	size := 0
	for i, t := range tools {
		sk := xs[i].Extract(t.Get("inputSchema"))
		sks = append(sks, sk)
		size += len(sk.AppendIndent(nil, 2, 3))
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		for _, sk := range sks {
			buf = sk.AppendIndent(buf[:0], 2, 3)
		}
	}
}
