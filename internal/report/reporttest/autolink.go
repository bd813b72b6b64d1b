package reporttest

import (
	"html"
	"regexp"
)

// GitHub links text in Markdown it renders (a job summary, a comment) in two
// stages, and Autolinks models both, erring on the side of a link:
//
//   - cmark-gfm's autolink extension, on the Markdown source: a URL after
//     http://, https:// or ftp://, www., mailto: and xmpp:, and an e-mail
//     address. A character written as an entity is not the character here,
//     so the model reads the source as it is.
//   - GitHub's reference filters, on the text of the rendered HTML, where an
//     entity is already the character it stands for and only elements such
//     as <code> and <pre> are skipped: issues (#123, owner/repo#123), GH-123
//     and a repository's own prefixes (JIRA-123), commits (7 to 40
//     hexadecimal digits, owner/repo@sha), mentions (@user, @org/team), and
//     URLs. The model drops HTML comments, <code> and <pre> elements, code
//     spans and tags, decodes the entities, and matches a superset of those
//     patterns: any '#' or '@' before a word character, any letter-'-'-digit,
//     any run of 7 hexadecimal digits.
var (
	sourceLinks = regexp.MustCompile(`(?i)(?:https?|ftp)://|www\.|mailto:|xmpp:|[a-z0-9._+-]@[a-z0-9_-]`)
	renderedOut = regexp.MustCompile(`(?s)<!--.*?-->|<code>.*?</code>|<pre>.*?</pre>|` + "`[^`\n]*`" + `|<[^>]*>`)
	textLinks   = regexp.MustCompile(`(?i)[#@][\pL\pN_]|\pL-[0-9]|[0-9a-f]{7}|(?:https?|ftp)://|www\.`)
)

// Autolinks returns what GitHub could turn into a link in the Markdown md,
// each match with a little of its context. Text the caller means as a link
// (a [label](url) of its own) must be left out of md.
func Autolinks(md string) []string {
	var out []string
	for _, loc := range sourceLinks.FindAllStringIndex(md, -1) {
		out = append(out, "source: "+context(md, loc))
	}
	text := html.UnescapeString(renderedOut.ReplaceAllString(md, " "))
	for _, loc := range textLinks.FindAllStringIndex(text, -1) {
		out = append(out, "rendered: "+context(text, loc))
	}
	return out
}

// context is the match at loc in s with up to 20 bytes either side.
func context(s string, loc []int) string {
	return s[max(loc[0]-20, 0):min(loc[1]+20, len(s))]
}
