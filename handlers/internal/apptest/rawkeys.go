package apptest

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/net/html"

	"studio/locales"
)

// A message key shown as itself ("agents.scope_analytics_read") is a word
// nobody translated. locales.OnMissing catches a key T was asked for that no
// file has; RawKeys catches any key-shaped text a page shows, however it got
// there (a key rendered without T, a value that looks like one): every
// page a test fetches through Client is read for it.

// keyPattern matches a word of the form section.key (more dots allowed)
// whose section is one of en.toml's, standing alone: not a part of
// an address, a file name or an e-mail.
var keyPattern = sync.OnceValue(func() *regexp.Regexp {
	en, err := locales.File("en")
	if err != nil {
		panic("apptest: " + err.Error())
	}
	seen := map[string]bool{}
	var names []string
	sc := bufio.NewScanner(bytes.NewReader(en))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if name, ok := strings.CutPrefix(line, "["); ok && strings.HasSuffix(name, "]") {
			top, _, _ := strings.Cut(strings.TrimSuffix(name, "]"), ".")
			if !seen[top] {
				seen[top] = true
				names = append(names, regexp.QuoteMeta(top))
			}
		}
	}
	return regexp.MustCompile(`(?:^|[^\w@/.:-])((?:` + strings.Join(names, "|") + `)(?:\.[a-z_]+)+)(?:$|[^\w@/.-]|\.(?:\s|$))`)
})

// RawKeys returns the message keys an HTML page shows as text (code
// aside): in its text and in the attributes a person reads or hears (title, alt, placeholder,
// aria-label).
func RawKeys(page string) []string {
	re := keyPattern()
	var found []string
	check := func(s string) {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			found = append(found, m[1])
		}
	}
	z := html.NewTokenizer(strings.NewReader(page))
	skip := ""
	for {
		switch z.Next() {
		case html.ErrorToken:
			return found
		case html.TextToken:
			if skip == "" {
				check(string(z.Text()))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			// Code is shown as it is, not translated: a guide's
			// site.id is a field of an answer, not a message key.
			switch tag := string(name); tag {
			case "script", "style", "template", "code", "pre":
				if skip == "" {
					skip = tag
				}
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				switch string(k) {
				case "title", "alt", "placeholder", "aria-label", "aria-description":
					check(string(v))
				}
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == skip {
				skip = ""
			}
		}
	}
}
