package benchdata

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Realistic sizes: the benchmarks' surface has 10,000 tools with
// RealisticResources resources and RealisticPrompts prompts beside them.
const (
	RealisticResources = 1000
	RealisticPrompts   = 500
)

// realWords are the words of the realistic surface's text: English with
// French, German, Spanish, Japanese, Chinese and Korean words and a few
// emoji, so that names and descriptions carry two-, three- and four-byte
// UTF-8 sequences as real servers' do.
var realWords = strings.Fields(`the a to of and for with from in on by or is are be returns reads writes
lists creates updates deletes searches fetches file files directory path remote server repository
issue pull request branch commit record records table row column query result results limit offset
page cursor token value field name sort order filter match pattern optional required default
encoding contents text JSON metadata user account project workspace calendar event message channel
créer données fichier résultat paramètre requête überprüfen Größe Verzeichnis Schlüssel búsqueda
descripción archivo 日本語 ファイル 検索 結果 データ 设置 文件 查询 목록 파일 검색 ✅ 🔍 📁 🚀 ⚠️`)

// realVerbs and realNouns make the realistic tools' names; some are not
// ASCII, so that name order is code-point order over several scripts.
var (
	realVerbs = strings.Fields(`get list create update delete search fetch read write run query sync export import
créer lire écrire suchen löschen buscar 検索 取得 作成 查询 검색 🔍`)
	realNouns = strings.Fields(`file directory issue pull_request branch commit record table event message channel
user project page document calendar données fichier Datei archivo ファイル データ 文件 파일 📁`)
)

// realSentence is one sentence of roughly n bytes, capitalised and ended.
func realSentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		w := realWords[r.IntN(len(realWords))]
		if b.Len() == 0 {
			r, size := utf8.DecodeRuneInString(w)
			w = string(unicode.ToUpper(r)) + w[size:]
		}
		b.WriteString(w)
		if r.IntN(12) == 0 {
			b.WriteByte(',')
		}
	}
	b.WriteByte('.')
	return b.String()
}

// realText is text of minBytes to maxBytes bytes (give or take the last
// word): one paragraph or, a third of the time, up to four separated by
// blank lines, some of them lists.
func realText(r *rand.Rand, minBytes, maxBytes int) string {
	total := minBytes + r.IntN(maxBytes-minBytes+1)
	paras := 1
	if total > 300 && r.IntN(3) == 0 {
		paras = 2 + r.IntN(3)
	}
	var b strings.Builder
	for p := 0; p < paras && b.Len() < total; p++ {
		if p > 0 {
			b.WriteString("\n\n")
		}
		want := (total - b.Len()) / (paras - p)
		start := b.Len()
		list := p > 0 && r.IntN(3) == 0
		for b.Len()-start < want {
			if list {
				if b.Len() > start {
					b.WriteByte('\n')
				}
				b.WriteString("- ")
			} else if b.Len() > start {
				b.WriteByte(' ')
			}
			b.WriteString(realSentence(r, 30+r.IntN(90)))
		}
	}
	s := b.String()
	for len(s) > maxBytes {
		// Cut at a rune boundary: the text stays valid UTF-8.
		i := strings.LastIndexByte(s[:maxBytes], ' ')
		if i <= 0 {
			i = maxBytes
			for i > 0 && s[i]&0xc0 == 0x80 {
				i--
			}
		}
		s = s[:i]
	}
	return s
}

// quote is s as a JSON string.
func quote(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		panic(err) // a string always encodes
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// realSchema writes a JSON Schema value of the given remaining depth:
// objects nest up to depth levels, with arrays, enums, constraints,
// anyOf and $refs to the tool's $defs along the way. changed raises
// string limits, as Realistic's changed tools do.
func realSchema(r *rand.Rand, b *strings.Builder, depth int, changed bool) {
	kind := r.IntN(10)
	if depth <= 0 && kind >= 7 {
		kind = r.IntN(7)
	}
	desc := quote(realText(r, 20, 120))
	switch kind {
	case 0, 1:
		maxLen := 64 + r.IntN(4000)
		if changed {
			maxLen += 4096
		}
		fmt.Fprintf(b, `{"type": "string", "description": %s, "maxLength": %d`, desc, maxLen)
		switch r.IntN(4) {
		case 0:
			b.WriteString(`, "pattern": "^[\\p{L}0-9_./-]+$"`)
		case 1:
			b.WriteString(`, "format": "uri"`)
		case 2:
			b.WriteString(`, "enum": ["rápido", "sûr", "gründlich", "詳細", "fast"]`)
		}
		b.WriteByte('}')
	case 2:
		fmt.Fprintf(b, `{"type": "integer", "minimum": %d, "maximum": %d, "default": %d, "description": %s}`, r.IntN(2), 100+r.IntN(10000), 10+r.IntN(50), desc)
	case 3:
		fmt.Fprintf(b, `{"type": "number", "minimum": 0.0, "maximum": %d.5, "multipleOf": 0.25, "description": %s}`, 1+r.IntN(1000), desc)
	case 4:
		fmt.Fprintf(b, `{"type": "boolean", "default": %v, "description": %s}`, r.IntN(2) == 0, desc)
	case 5:
		b.WriteString(`{"$ref": "#/$defs/mode"}`)
	case 6:
		fmt.Fprintf(b, `{"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "description": %s}`, desc)
	case 7:
		fmt.Fprintf(b, `{"type": "array", "description": %s, "maxItems": %d, "items": `, desc, 10+r.IntN(90))
		realSchema(r, b, depth-1, changed)
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, `{"type": "object", "description": %s, "additionalProperties": false, "properties": {`, desc)
		n := 1 + r.IntN(5)
		for p := 0; p < n; p++ {
			if p > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, `%s: `, quote(fmt.Sprintf("%s_%d", realNouns[r.IntN(len(realNouns))], p)))
			realSchema(r, b, depth-1, changed)
		}
		b.WriteString(`}}`)
	}
}

// realTool writes tool i of a realistic surface. Its bytes depend only on
// i and changed, never on the other tools or on its place in the file.
func realTool(b *strings.Builder, i int, changed bool) {
	r := rand.New(rand.NewPCG(0x7ea1, uint64(i)))
	name := fmt.Sprintf("%s_%s_%d", realVerbs[r.IntN(len(realVerbs))], realNouns[r.IntN(len(realNouns))], i)
	desc := realText(r, 200, 2000)
	if changed {
		desc = "Changed: " + desc
	}
	fmt.Fprintf(b, `{"name": %s, "description": %s, "inputSchema": {"type": "object", "$defs": {"mode": {"type": "string", "enum": ["fast", "safe", "thorough"], "maxLength": 16}}, "properties": {`, quote(name), quote(desc))
	props := 3 + r.IntN(15)
	var required []string
	for p := 0; p < props; p++ {
		if p > 0 {
			b.WriteString(", ")
		}
		prop := fmt.Sprintf("%s_%d", realNouns[r.IntN(len(realNouns))], p)
		if r.IntN(3) == 0 {
			required = append(required, quote(prop))
		}
		fmt.Fprintf(b, "%s: ", quote(prop))
		realSchema(r, b, r.IntN(4), changed && p == 0)
	}
	if changed {
		b.WriteString(`, "extra": {"type": "string"}`)
	}
	fmt.Fprintf(b, `}, "required": [%s]}`, strings.Join(required, ", "))
	switch r.IntN(4) {
	case 0:
		fmt.Fprintf(b, `, "annotations": {"title": %s, "readOnlyHint": true, "openWorldHint": false}`, quote(realSentence(r, 20)))
	case 1:
		b.WriteString(`, "annotations": {"destructiveHint": true, "idempotentHint": false}`)
	case 2:
		b.WriteString(`, "annotations": {}`)
	}
	if r.IntN(5) == 0 {
		b.WriteString(`, "outputSchema": {"type": "object", "properties": {"result": `)
		realSchema(r, b, 2, false)
		b.WriteString(`}}`)
	}
	b.WriteByte('}')
}

// Realistic returns the surface JSON of n tools as a real large server
// lists them, launched as "node dist/server.js": the tools in a shuffled
// order (seeded, so the same every run) with names over several scripts
// (accents, CJK, Hangul, emoji), descriptions of 200 to 2,000 bytes, a
// third of them several paragraphs, input schemas of 3 to 17 properties
// nested up to four levels (arrays, objects, enums, anyOf, $refs), mixed
// annotations and some output schemas; then resources resources and
// prompts prompts, shuffled too. It is about 3.5 KB a tool.
//
// When changed reports true for tool i (changed may be nil), that tool
// differs structurally from its unchanged form — its first property's
// string limits are raised, one more optional unconstrained property is
// declared and its description is reworded — while every other tool is
// byte for byte the same and in the same place, so two surfaces with
// different changed sets drift exactly in the tools that differ.
func Realistic(n, resources, prompts int, changed func(i int) bool) []byte {
	var b strings.Builder
	b.Grow(n*3600 + resources*300 + prompts*600)
	b.WriteString(`{"command": "node", "args": ["dist/server.js"], "protocolVersion": "2025-06-18", "tools": [`)
	order := rand.New(rand.NewPCG(0x5eed, uint64(n))).Perm(n)
	for k, i := range order {
		if k > 0 {
			b.WriteString(", ")
		}
		realTool(&b, i, changed != nil && changed(i))
	}
	b.WriteString(`], "resources": [`)
	for k, i := range rand.New(rand.NewPCG(0x5eed, uint64(resources))).Perm(resources) {
		if k > 0 {
			b.WriteString(", ")
		}
		r := rand.New(rand.NewPCG(0x4e5, uint64(i)))
		noun := realNouns[r.IntN(len(realNouns))]
		fmt.Fprintf(&b, `{"uri": %s, "name": %s, "description": %s, "mimeType": %s}`,
			quote(fmt.Sprintf("file:///srv/données/%s/%d.md", noun, i)), quote(fmt.Sprintf("%s %d", noun, i)),
			quote(realText(r, 40, 400)), quote([]string{"text/markdown", "application/json", "text/plain; charset=utf-8"}[r.IntN(3)]))
	}
	b.WriteString(`], "prompts": [`)
	for k, i := range rand.New(rand.NewPCG(0x5eed, uint64(prompts))).Perm(prompts) {
		if k > 0 {
			b.WriteString(", ")
		}
		r := rand.New(rand.NewPCG(0x9e0, uint64(i)))
		fmt.Fprintf(&b, `{"name": %s, "description": %s, "arguments": [`,
			quote(fmt.Sprintf("%s_%s_%d", realVerbs[r.IntN(len(realVerbs))], realNouns[r.IntN(len(realNouns))], i)), quote(realText(r, 80, 800)))
		for a, na := 0, r.IntN(5); a < na; a++ {
			if a > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `{"name": %s, "description": %s, "required": %v}`, quote(fmt.Sprintf("%s_%d", realNouns[r.IntN(len(realNouns))], a)), quote(realSentence(r, 40)), r.IntN(2) == 0)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}
