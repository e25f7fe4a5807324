package content

import (
	"strings"

	"studio/engine/localtime"
	"studio/engine/model/release"
)

// ItemDiff is one item of a release as an approver reviews it: the live
// base and the pinned target, field by field.
type ItemDiff struct {
	Item   release.Item
	Base   *Body
	Target *Body
}

// FieldDiff is one field of an item's body as its base and its target have
// it; "" where a side lacks the field or the body.
type FieldDiff struct {
	Field  string // the body's JSON name: title, slug, status, …, availability.from
	Base   string
	Target string
}

// Changed reports whether the field differs between base and target.
func (f FieldDiff) Changed() bool { return f.Base != f.Target }

// Fields lists the body's fields other than its text, base against target,
// in the order an editor reads them. Instants are in the storage format
// (UTC, milliseconds).
func (d ItemDiff) Fields() []FieldDiff {
	base, target := fieldValues(d.Base), fieldValues(d.Target)
	out := make([]FieldDiff, len(diffFields))
	for i, name := range diffFields {
		out[i] = FieldDiff{Field: name, Base: base[name], Target: target[name]}
	}
	return out
}

// Text is the line diff of the body text, base against target.
func (d ItemDiff) Text() []DiffLine {
	var base, target string
	if d.Base != nil {
		base = d.Base.Text
	}
	if d.Target != nil {
		target = d.Target.Text
	}
	return DiffLines(base, target)
}

var diffFields = []string{"title", "slug", "status", "lang", "summary", "publishedAt",
	"availability.from", "availability.until", "refs"}

func fieldValues(b *Body) map[string]string {
	if b == nil {
		return map[string]string{}
	}
	m := map[string]string{"title": b.Title, "slug": b.Slug, "status": string(b.Status), "lang": b.Lang,
		"summary": b.Summary, "refs": strings.Join(b.Refs, " ")}
	if b.PublishedAt != nil {
		m["publishedAt"] = localtime.FormatInstant(*b.PublishedAt)
	}
	if a := b.Availability; a != nil {
		if a.From != nil {
			m["availability.from"] = localtime.FormatInstant(*a.From)
		}
		if a.Until != nil {
			m["availability.until"] = localtime.FormatInstant(*a.Until)
		}
	}
	return m
}

// AddressChange reports the public addresses of a live item whose pinned
// target moves it ("/posts/a" → "/posts/b"), so a reviewer sees that the
// old address will stop answering. A new or removed item has no change.
func (d ItemDiff) AddressChange() (from, to string, changed bool) {
	if d.Base == nil || d.Target == nil {
		return "", "", false
	}
	from, to = Path(d.Item.NodeKind, d.Base.Slug), Path(d.Item.NodeKind, d.Target.Slug)
	return from, to, from != to
}
