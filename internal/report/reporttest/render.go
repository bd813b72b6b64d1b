package reporttest

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// RenderGFM renders Markdown the way GitHub renders a job summary (and a
// Markdown file): GitHub Flavored Markdown with tables, strikethrough,
// task lists and autolinks (linkify), raw HTML passed through, and the
// result sanitized as GitHub sanitizes it (see Sanitize). A line break in a
// paragraph stays soft.
func RenderGFM(md string) (string, error) {
	return render(md, false)
}

// RenderComment renders Markdown the way GitHub renders an issue or pull
// request comment: RenderGFM, except that a line break in a paragraph is a
// hard break (<br>), as it is in comments.
func RenderComment(md string) (string, error) {
	return render(md, true)
}

// Dropped returns what GitHub's sanitizer (as Sanitize models it) removes
// from the HTML that md renders to, one entry per element or attribute
// ("element script", "attribute style of span", "comment"), in document
// order. Markdown warden writes itself should lose nothing: whatever it
// loses, a reviewer on GitHub does not see as warden meant.
func Dropped(md string) ([]string, error) {
	raw, err := renderRaw(md, false)
	if err != nil {
		return nil, err
	}
	var out []string
	sanitize(raw, func(what string) { out = append(out, what) })
	return out, nil
}

func render(md string, hardWraps bool) (string, error) {
	raw, err := renderRaw(md, hardWraps)
	if err != nil {
		return "", err
	}
	return Sanitize(raw), nil
}

// renderRaw renders md as GitHub's Markdown renderer does, before
// sanitizing.
func renderRaw(md string, hardWraps bool) (string, error) {
	opts := []renderer.Option{gmhtml.WithUnsafe()}
	if hardWraps {
		opts = append(opts, gmhtml.WithHardWraps())
	}
	gm := goldmark.New(
		goldmark.WithExtensions(
			// GitHub writes a cell's alignment as an align attribute, which
			// its sanitizer keeps; goldmark's default style attribute would
			// be dropped by it.
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute)),
			extension.Strikethrough,
			extension.Linkify,
			extension.TaskList,
		),
		goldmark.WithRendererOptions(opts...),
	)
	var buf bytes.Buffer
	if err := gm.Convert([]byte(md), &buf); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	return buf.String(), nil
}

// allowedElements are the elements GitHub's sanitizer keeps
// (html-pipeline's SanitizationFilter allowlist, plus input for task
// lists). Any other element's tags are dropped and its content kept.
var allowedElements = setOf(
	"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "br", "b", "i", "strong", "em", "a", "pre", "code",
	"img", "tt", "div", "ins", "del", "sup", "sub", "p", "picture", "source", "ol", "ul", "table", "thead",
	"tbody", "tfoot", "blockquote", "dl", "dt", "dd", "kbd", "q", "samp", "var", "hr", "ruby", "rt", "rp",
	"li", "tr", "td", "th", "s", "strike", "summary", "details", "caption", "figure", "figcaption", "abbr",
	"bdo", "cite", "dfn", "mark", "small", "span", "time", "wbr", "input",
)

// droppedWithContent are the elements removed together with everything
// inside them (the sanitizer's remove_contents, and the elements GFM's
// tagfilter disarms).
var droppedWithContent = setOf(
	"script", "style", "iframe", "math", "noembed", "noframes", "noscript", "plaintext", "svg", "xmp",
	"title", "textarea", "template", "object", "embed",
)

// allowedAttributes are the attributes kept on any allowed element; the
// per-element ones are in elementAttributes. Event handlers (on*), style,
// class and id are never kept.
var allowedAttributes = setOf(
	"abbr", "accept", "accept-charset", "accesskey", "action", "align", "alt", "aria-describedby",
	"aria-hidden", "aria-label", "aria-labelledby", "axis", "border", "cellpadding", "cellspacing", "char",
	"charoff", "charset", "checked", "clear", "cols", "colspan", "color", "compact", "coords", "datetime",
	"dir", "disabled", "enctype", "for", "frame", "headers", "height", "hreflang", "hspace", "ismap",
	"label", "lang", "maxlength", "media", "method", "multiple", "name", "nohref", "noshade", "nowrap",
	"open", "progress", "prompt", "readonly", "rel", "rev", "role", "rows", "rowspan", "rules", "scope",
	"selected", "shape", "size", "span", "start", "summary", "tabindex", "target", "title", "type",
	"usemap", "valign", "value", "vspace", "width", "itemprop",
)

var elementAttributes = map[string]map[string]bool{
	"a":          setOf("href"),
	"img":        setOf("src", "longdesc"),
	"div":        setOf("itemscope", "itemtype"),
	"blockquote": setOf("cite"),
	"del":        setOf("cite"),
	"ins":        setOf("cite"),
	"q":          setOf("cite"),
	"source":     setOf("srcset"),
}

// urlAttributes are checked for an allowed protocol; a value with any other
// scheme (javascript:, data:, vbscript:) is dropped.
var urlAttributes = setOf("href", "src", "longdesc", "cite", "srcset", "itemtype")

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Sanitize models GitHub's HTML sanitizer, conservatively: only allowlisted
// elements and attributes survive, script-like elements go with their
// content, comments and declarations go, URLs keep only http, https and
// mailto (or no scheme), and every kept attribute is re-quoted. A '<' that
// starts no tag is text and is escaped.
func Sanitize(src string) string {
	return sanitize(src, func(string) {})
}

// sanitize is Sanitize, telling dropped about each thing it removes.
func sanitize(src string, dropped func(string)) string {
	var b strings.Builder
	var skip []string // open droppedWithContent elements
	for _, tok := range tokenize(src) {
		if tok.kind == commentTok {
			dropped("comment")
			continue
		}
		if len(skip) > 0 {
			if tok.kind == endTag && tok.name == skip[len(skip)-1] {
				skip = skip[:len(skip)-1]
			} else if tok.kind == startTag && droppedWithContent[tok.name] && !tok.selfClosing {
				skip = append(skip, tok.name)
			}
			continue
		}
		switch tok.kind {
		case textTok:
			b.WriteString(tok.raw)
		case startTag:
			switch {
			case droppedWithContent[tok.name]:
				dropped("element " + tok.name)
				if !tok.selfClosing {
					skip = append(skip, tok.name)
				}
			case allowedElements[tok.name]:
				b.WriteString(writeStart(tok, dropped))
			default:
				dropped("element " + tok.name)
			}
		case endTag:
			if allowedElements[tok.name] {
				b.WriteString("</" + tok.name + ">")
			}
		}
	}
	return b.String()
}

// writeStart writes tok back with only the attributes the sanitizer keeps.
func writeStart(tok token, dropped func(string)) string {
	var b strings.Builder
	b.WriteString("<" + tok.name)
	for _, a := range tok.attrs {
		if tok.name == "code" && a.name == "class" && strings.HasPrefix(a.value, "language-") {
			// goldmark's mark of a fenced block's info string; GitHub's
			// renderer records it elsewhere (<pre lang>) for highlighting,
			// so nothing the Markdown meant is lost.
			continue
		}
		keep := allowedAttributes[a.name] || elementAttributes[tok.name][a.name]
		if keep && urlAttributes[a.name] && !safeURL(a.value) {
			keep = false
		}
		if keep && tok.name == "input" && a.name != "type" && a.name != "checked" && a.name != "disabled" {
			keep = false
		}
		if !keep {
			dropped("attribute " + a.name + " of " + tok.name)
			continue
		}
		b.WriteString(" " + a.name + `="` + html.EscapeString(a.value) + `"`)
	}
	if tok.selfClosing {
		b.WriteString(" /")
	}
	b.WriteString(">")
	return b.String()
}

// safeURL reports whether u is relative or uses http, https or mailto.
// Control characters and white space are removed first, as browsers do
// when they read a scheme.
func safeURL(u string) bool {
	u = strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, u)
	colon := strings.IndexByte(u, ':')
	if colon < 0 {
		return true
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 && i < colon {
		return true // the colon is in a path, query or fragment
	}
	switch strings.ToLower(u[:colon]) {
	case "http", "https", "mailto":
		return true
	}
	return false
}
