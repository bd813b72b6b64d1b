package reporttest

import (
	"reflect"
	"strings"
	"testing"
)

func TestRenderGFM(t *testing.T) {
	tests := []struct {
		name    string
		md      string
		want    []string // substrings of the HTML
		notWant []string
	}{
		{"table", "| A | B |\n|:--|--:|\n| 1 | 2 |\n", []string{`<th align="left">A</th>`, `<td align="right">2</td>`}, nil},
		{"strikethrough", "~~gone~~ here\n", []string{"<del>gone</del>"}, nil},
		{"linkify", "see https://example.com/x and www.example.org\n", []string{`<a href="https://example.com/x">`, `<a href="http://www.example.org">`}, nil},
		{"task list", "- [x] done\n", []string{`<input checked="" disabled="" type="checkbox"`}, nil},
		{"details passthrough", "<details><summary>s</summary>\n\n```\ncode\n```\n\n</details>\n",
			[]string{"<details>", "<summary>s</summary>", "<pre><code>code\n</code></pre>", "</details>"}, nil},
		{"script dropped with content", "a <script>alert(1)</script> b\n\n<script>\nalert(2)\n</script>\n", []string{"a  b"}, []string{"script", "alert"}},
		{"style dropped", "<style>p{}</style>x\n", []string{"x"}, []string{"style", "p{}"}},
		{"event handler dropped", `<details ontoggle="alert(1)" open><summary onclick="x">s</summary></details>`,
			[]string{`<details open="">`, "<summary>s</summary>"}, []string{"ontoggle", "onclick", "alert"}},
		{"javascript url dropped", `<a href="javascript:alert(1)">x</a> <a href=" JaVa&#x53;cript:y">y</a> <a href="/rel:x">z</a>`,
			[]string{"<a>x</a>", "<a>y</a>", `<a href="/rel:x">z</a>`}, []string{"javascript", "alert"}},
		{"unknown element unwrapped", "<marquee>hi</marquee> <font color=red>c</font>\n", []string{"hi", "c"}, []string{"marquee", "font"}},
		{"style and class dropped", `<span style="color:red" class="x" title="t">s</span>`, []string{`<span title="t">s</span>`}, []string{"style=", "class="}},
		{"comment dropped", "a<!-- hidden -->b\n", []string{"ab"}, []string{"hidden"}},
		{"stray angle bracket escaped", "<p>1 < 2</p>", []string{"1 &lt; 2"}, nil},
		{"escaped html stays text", "`<script>`\n", []string{"<code>&lt;script&gt;</code>"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RenderGFM(tt.md)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(strings.ToLower(got), w) {
					t.Errorf("unexpected %q in\n%s", w, got)
				}
			}
		})
	}
}

func TestRenderCommentHardWraps(t *testing.T) {
	doc, err := RenderGFM("one\ntwo\n")
	if err != nil {
		t.Fatal(err)
	}
	comment, err := RenderComment("one\ntwo\n")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc, "<br") || !strings.Contains(comment, "one<br>") {
		t.Errorf("document %q, comment %q", doc, comment)
	}
}

func TestTables(t *testing.T) {
	md := "| Severity | Target |\n|---|---|\n| **high** | `tools/a` |\n| low | b &amp; c<br>d |\n\n" +
		"<details><summary>more</summary>\n\n| Severity |\n|---|\n| medium |\n\n</details>\n"
	h, err := RenderGFM(md)
	if err != nil {
		t.Fatal(err)
	}
	got := Tables(h)
	want := []Table{
		{Header: [][]string{{"Severity", "Target"}}, Rows: [][]string{{"high", "tools/a"}, {"low", "b & c d"}}},
		{Header: [][]string{{"Severity"}}, Rows: [][]string{{"medium"}}, Collapsed: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Tables:\n got %#v\nwant %#v\nHTML:\n%s", got, want, h)
	}
	if got[0].Column("target") != 1 || got[0].Column("nope") != -1 {
		t.Error("Column")
	}
}

func TestVisible(t *testing.T) {
	h, err := RenderGFM("top\n\n<details><summary>label</summary>\n\nhidden words\n\n<details open><summary>inner</summary>\n\ndeep\n\n</details>\n</details>\n\n<details open><summary>o</summary>\n\nshown\n\n</details>\n")
	if err != nil {
		t.Fatal(err)
	}
	vis, all := Visible(h), Text(h)
	for _, w := range []string{"top", "label", "shown"} {
		if !strings.Contains(vis, w) {
			t.Errorf("Visible lacks %q: %q", w, vis)
		}
	}
	for _, w := range []string{"hidden words", "inner", "deep"} {
		if strings.Contains(vis, w) {
			t.Errorf("Visible has %q: %q", w, vis)
		}
		if !strings.Contains(all, w) {
			t.Errorf("Text lacks %q: %q", w, all)
		}
	}
}

func TestDropped(t *testing.T) {
	md := "<!-- marker -->\n<details ontoggle=\"x()\"><summary>s</summary>\n\n<script>alert(1)</script>\n\n<font color=red>f</font> <a href=\"javascript:x\">a</a>\n\n</details>\n\n| a |\n|:-:|\n| 1 |\n"
	got, err := Dropped(md)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"comment", "attribute ontoggle of details", "element script", "element font", "attribute href of a"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Dropped = %q, want %q", got, want)
	}
	if got, _ := Dropped("plain **text** with a [link](https://example.com)\n\n```diff\n+ x\n```\n"); got != nil {
		t.Errorf("Dropped of plain Markdown = %q", got)
	}
}

func TestProse(t *testing.T) {
	h, err := RenderGFM("said `quoted` here\n\n```\nfenced words\n```\n\n<pre>pre words</pre>\n\nafter\n")
	if err != nil {
		t.Fatal(err)
	}
	p := Prose(h)
	for _, w := range []string{"said", "here", "after"} {
		if !strings.Contains(p, w) {
			t.Errorf("Prose lacks %q: %q", w, p)
		}
	}
	for _, w := range []string{"quoted", "fenced", "pre words"} {
		if strings.Contains(p, w) {
			t.Errorf("Prose has %q: %q", w, p)
		}
	}
}
