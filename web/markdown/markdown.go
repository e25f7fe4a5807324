// Package markdown turns the Markdown of a page's or entry's body into the
// HTML the public site shows (issue 15): CommonMark with GitHub's tables,
// strikethrough and autolinks, and never raw HTML from the text. Bodies are
// written by people with a role, but a role is not a licence to run script
// on the public site: raw HTML is dropped and goldmark's renderer leaves out
// javascript:, vbscript: and file: links (and data: ones but images').
package markdown

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

var md = goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify))

// HTML is text rendered as HTML, safe to put in a page as it is.
func HTML(text string) string {
	var out bytes.Buffer
	if err := md.Convert([]byte(text), &out); err != nil {
		// Convert fails only when writing to out fails, which a
		// bytes.Buffer does not; an empty body is the safe answer.
		return ""
	}
	return out.String()
}
