package jobs

import (
	"strings"
	"time"
)

// Sentence is one line a person reads, as data: a locales key and its
// arguments (name/value pairs, as locales.Printer.T takes them), and the
// instant it names, if any, which the surface formats in the site's zone
// and the reader's language and passes as "When":
//
//	args := s.Args
//	if s.When != nil {
//		args = append(args, "When", p.DateTime(s.When.In(zone)))
//	}
//	text := p.T(s.Key, args...)
type Sentence struct {
	Key  string
	Args []any
	When *time.Time
}

// Sentence is what a finding says: "finding.<code>", or
// "finding.<code>-<variant>" where what is wrong changes the sentence (a
// gated target embargoed or expired, a missing title or image), with the
// target as "Target".
func (f Finding) Sentence() Sentence {
	s := Sentence{Key: "finding." + f.Code, Args: []any{"Target", f.Target}}
	word, rest, _ := strings.Cut(f.Detail, " ")
	switch f.Code {
	case CodeLinkToGated, CodeFeedGatedNode:
		if word == landsEmbargoed || word == landsExpired || word == landsMissing {
			s.Key += "-" + word
		}
		s.When = parseWhen(rest)
	case CodeFeedItemIncomplete:
		if word == "title" || word == "image" {
			s.Key += "-" + word
		}
	case CodeFeedFutureDate:
		s.When = parseWhen(f.Detail)
	case CodeStaleEntry, CodeStaleDraft:
		s.When = parseWhen(f.Target)
	case CodeFeedUnreachable:
		s.Args = append(s.Args, "Status", f.Detail)
	case CodeNotFoundPath:
		s.Args = append(s.Args, "Count", f.Hits)
	}
	return s
}

func parseWhen(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return nil
	}
	return &t
}

// FindingKeys lists every key Finding.Sentence may give, for the locales'
// parity test and the screens.
var FindingKeys = func() []string {
	var out []string
	for _, c := range Codes {
		out = append(out, "finding."+c)
	}
	for _, v := range []string{landsEmbargoed, landsExpired} {
		out = append(out, "finding."+CodeLinkToGated+"-"+v)
	}
	for _, v := range []string{landsEmbargoed, landsExpired, landsMissing} {
		out = append(out, "finding."+CodeFeedGatedNode+"-"+v)
	}
	return append(out, "finding."+CodeFeedItemIncomplete+"-title", "finding."+CodeFeedItemIncomplete+"-image")
}()
