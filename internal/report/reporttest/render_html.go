package reporttest

import (
	"html"
	"strings"
)

// Kinds of token.
const (
	textTok = iota
	startTag
	endTag
	commentTok // a comment or a declaration
)

// token is one piece of an HTML text: text (raw, entities as written), a
// tag (name lower-cased, attribute values decoded), or a comment or
// declaration (its text dropped).
type token struct {
	kind        int
	raw         string
	name        string
	attrs       []attr
	selfClosing bool
}

type attr struct{ name, value string }

// tokenize splits src into tokens the way a lenient HTML reader does, well
// enough for goldmark's output and the raw HTML a report writes. A '<' that
// starts no tag is text, written as "&lt;".
func tokenize(src string) []token {
	var toks []token
	text := func(s string) {
		if s == "" {
			return
		}
		if n := len(toks); n > 0 && toks[n-1].kind == textTok {
			toks[n-1].raw += s
			return
		}
		toks = append(toks, token{kind: textTok, raw: s})
	}
	for len(src) > 0 {
		i := strings.IndexByte(src, '<')
		if i < 0 {
			text(src)
			break
		}
		text(src[:i])
		src = src[i:]
		switch {
		case strings.HasPrefix(src, "<!--"):
			toks = append(toks, token{kind: commentTok})
			end := strings.Index(src[4:], "-->")
			if end < 0 {
				return toks
			}
			src = src[4+end+3:]
		case strings.HasPrefix(src, "<!") || strings.HasPrefix(src, "<?"):
			toks = append(toks, token{kind: commentTok})
			end := strings.IndexByte(src, '>')
			if end < 0 {
				return toks
			}
			src = src[end+1:]
		default:
			tok, n := readTag(src)
			if n == 0 {
				text("&lt;")
				src = src[1:]
				continue
			}
			toks = append(toks, tok)
			src = src[n:]
		}
	}
	return toks
}

// readTag reads the start or end tag at the beginning of s and returns it
// and the bytes it took, or 0 when s starts no tag.
func readTag(s string) (token, int) {
	i := 1
	tok := token{kind: startTag}
	if i < len(s) && s[i] == '/' {
		tok.kind = endTag
		i++
	}
	start := i
	if i >= len(s) || !isLetter(s[i]) {
		return token{}, 0
	}
	for i < len(s) && (isLetter(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '-') {
		i++
	}
	tok.name = strings.ToLower(s[start:i])
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return token{}, 0
		}
		switch {
		case s[i] == '>':
			return tok, i + 1
		case strings.HasPrefix(s[i:], "/>"):
			tok.selfClosing = true
			return tok, i + 2
		case s[i] == '/':
			i++
			continue
		}
		nameStart := i
		for i < len(s) && !isSpace(s[i]) && s[i] != '=' && s[i] != '>' && s[i] != '/' {
			i++
		}
		a := attr{name: strings.ToLower(s[nameStart:i])}
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '=' {
			i++
			for i < len(s) && isSpace(s[i]) {
				i++
			}
			if i < len(s) && (s[i] == '"' || s[i] == '\'') {
				end := strings.IndexByte(s[i+1:], s[i])
				if end < 0 {
					return token{}, 0
				}
				a.value = html.UnescapeString(s[i+1 : i+1+end])
				i += end + 2
			} else {
				vs := i
				for i < len(s) && !isSpace(s[i]) && s[i] != '>' {
					i++
				}
				a.value = html.UnescapeString(s[vs:i])
			}
		}
		if tok.kind == startTag {
			tok.attrs = append(tok.attrs, a)
		}
	}
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// Table is one <table> of rendered HTML, its cells as plain text (tags
// dropped, entities decoded, white space collapsed).
type Table struct {
	// Header is the cells of the rows in <thead>, one row per element.
	Header [][]string
	// Rows is the cells of the other rows, in document order.
	Rows [][]string
	// Collapsed is true when the table is inside a closed <details>, so a
	// reader sees it only after expanding that element.
	Collapsed bool
}

// Column returns the index of the header cell named name (compared without
// regard to case) in the table's last header row, or -1.
func (t Table) Column(name string) int {
	if len(t.Header) == 0 {
		return -1
	}
	for i, c := range t.Header[len(t.Header)-1] {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// Tables returns the tables of rendered HTML in document order. A table
// inside a table's cell is read as part of that cell.
func Tables(src string) []Table {
	var (
		tables  []Table
		cur     *Table
		depth   int // nested <table> depth
		inHead  bool
		row     []string
		cell    *strings.Builder
		details detailsState
	)
	for _, tok := range tokenize(src) {
		details.see(tok)
		switch {
		case tok.kind == startTag && tok.name == "table":
			depth++
			if depth == 1 {
				tables = append(tables, Table{Collapsed: details.collapsed()})
				cur = &tables[len(tables)-1]
				continue
			}
		case tok.kind == endTag && tok.name == "table":
			depth--
			if depth == 0 {
				cur = nil
				continue
			}
		}
		if cur == nil {
			continue
		}
		if depth > 1 {
			if cell != nil && tok.kind == textTok {
				cell.WriteString(tok.raw)
			}
			continue
		}
		switch {
		case tok.kind == startTag && tok.name == "thead":
			inHead = true
		case tok.kind == endTag && tok.name == "thead":
			inHead = false
		case tok.kind == startTag && tok.name == "tr":
			row = nil
		case tok.kind == endTag && tok.name == "tr":
			if inHead {
				cur.Header = append(cur.Header, row)
			} else {
				cur.Rows = append(cur.Rows, row)
			}
			row = nil
		case tok.kind == startTag && (tok.name == "td" || tok.name == "th"):
			cell = &strings.Builder{}
		case tok.kind == endTag && (tok.name == "td" || tok.name == "th"):
			if cell != nil {
				row = append(row, plain(cell.String()))
				cell = nil
			}
		case tok.kind == startTag && tok.name == "br":
			if cell != nil {
				cell.WriteString(" ")
			}
		case tok.kind == textTok:
			if cell != nil {
				cell.WriteString(tok.raw)
			}
		}
	}
	return tables
}

// Text returns all the text of rendered HTML, tags dropped and entities
// decoded, with a line break at each block boundary.
func Text(src string) string {
	return text(src, false, false)
}

// Visible returns the text a reader sees before expanding anything: Text
// without what is inside a closed <details> (its <summary> stays).
func Visible(src string) string {
	return text(src, true, false)
}

// Prose returns Text without what is inside <pre> and <code> elements: the
// text a reader (or a model reading the thread) takes as the author's own
// words rather than quoted code.
func Prose(src string) string {
	return text(src, false, true)
}

// blockElements end a line of text.
var blockElements = setOf("p", "div", "br", "tr", "li", "pre", "table", "h1", "h2", "h3", "h4", "h5", "h6",
	"blockquote", "details", "summary", "hr", "ul", "ol", "dt", "dd")

func text(src string, visibleOnly, proseOnly bool) string {
	var b strings.Builder
	var details detailsState
	code := 0 // depth of <pre> and <code> elements
	for _, tok := range tokenize(src) {
		details.see(tok)
		if tok.name == "pre" || tok.name == "code" {
			switch tok.kind {
			case startTag:
				code++
			case endTag:
				code = max(0, code-1)
			}
		}
		if visibleOnly && details.collapsed() || proseOnly && code > 0 && tok.kind == textTok {
			continue
		}
		switch tok.kind {
		case textTok:
			b.WriteString(html.UnescapeString(tok.raw))
		case startTag, endTag:
			if blockElements[tok.name] {
				b.WriteString("\n")
			} else if tok.name == "td" || tok.name == "th" {
				b.WriteString(" ")
			}
		}
	}
	return b.String()
}

// detailsState follows <details> nesting: which are closed, and whether
// the current token is inside a <summary> of the innermost one.
type detailsState struct {
	open    []bool // per open <details>: has the open attribute
	summary int    // depth of <summary> elements entered
	hidden  int    // count of closed <details> in open
}

func (d *detailsState) see(tok token) {
	switch {
	case tok.kind == startTag && tok.name == "details":
		isOpen := false
		for _, a := range tok.attrs {
			if a.name == "open" {
				isOpen = true
			}
		}
		d.open = append(d.open, isOpen)
		if !isOpen {
			d.hidden++
		}
	case tok.kind == endTag && tok.name == "details" && len(d.open) > 0:
		if !d.open[len(d.open)-1] {
			d.hidden--
		}
		d.open = d.open[:len(d.open)-1]
	case tok.kind == startTag && tok.name == "summary":
		d.summary++
	case tok.kind == endTag && tok.name == "summary" && d.summary > 0:
		d.summary--
	}
}

// collapsed reports whether the current token is hidden until a closed
// <details> is expanded. The summary of the innermost closed details is
// shown when every enclosing details is open.
func (d *detailsState) collapsed() bool {
	if d.hidden == 0 {
		return false
	}
	if d.summary > 0 && len(d.open) > 0 && !d.open[len(d.open)-1] && d.hidden == 1 {
		return false
	}
	return true
}

// plain decodes entities and collapses white space.
func plain(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(s)), " ")
}

// Page wraps rendered HTML in a standalone document styled roughly as
// GitHub styles Markdown (system font, bordered tables), for a browser to
// show or screenshot.
func Page(title, body string) string {
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>` + html.EscapeString(title) + `</title>
<style>
body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif;
font-size:14px;line-height:1.5;color:#1f2328;background:#fff;max-width:1012px;margin:16px auto;padding:0 16px}
table{border-collapse:collapse;display:block;overflow:auto;margin:0 0 16px}
th,td{border:1px solid #d1d9e0;padding:6px 13px}th{font-weight:600}tr:nth-child(2n){background:#f6f8fa}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:85%;background:#f6f8fa;border-radius:6px}
code{padding:.2em .4em}pre{padding:16px;overflow:auto}pre code{padding:0;background:none}
details{margin:0 0 16px}summary{cursor:pointer}h1,h2,h3{border-bottom:1px solid #d1d9e0;padding-bottom:.3em}
</style></head><body>
` + body + `
</body></html>
`
}
