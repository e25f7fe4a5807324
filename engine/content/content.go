// Package content models the minimal content graph Studio schedules: nodes
// with versioned JSON bodies, their canonical hash, and the checks a body
// must pass before it is saved. It does no I/O.
package content

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"studio/engine/model/release"
)

// Status is a node's editorial status; only published nodes are shown.
type Status string

const (
	StatusDraft     Status = "draft"
	StatusReview    Status = "review"
	StatusPublished Status = "published"
)

// Statuses lists the statuses in the order an editor sees them.
var Statuses = []Status{StatusDraft, StatusReview, StatusPublished}

// Availability holds the time gates of a page or entry (RFC §7).
type Availability struct {
	From  *time.Time `json:"from,omitempty"`
	Until *time.Time `json:"until,omitempty"`
}

// Body is the versioned content of a page or an entry.
type Body struct {
	Title        string        `json:"title"`
	Slug         string        `json:"slug"`
	Status       Status        `json:"status"`
	Lang         string        `json:"lang,omitempty"`
	Summary      string        `json:"summary,omitempty"`
	Text         string        `json:"body,omitempty"`
	Availability *Availability `json:"availability,omitempty"`
	PublishedAt  *time.Time    `json:"publishedAt,omitempty"`
	Refs         []string      `json:"refs,omitempty"`
	// Cover is the media file shown above a page or an article and in its
	// sharing tags (an asset's id; it is among Refs).
	Cover string `json:"cover,omitempty"`
	// An asset's file (kind asset): its media type, its bytes (base64 in
	// JSON) and the text that stands for it. Its slug is its file name.
	Mime string `json:"mime,omitempty"`
	Data []byte `json:"data,omitempty"`
	Alt  string `json:"alt,omitempty"`
}

// Edit is what the editor changes; the rest of a body (references, gates,
// date) is kept as it was, and so is the language when the edit has none.
type Edit struct {
	Title, Slug, Summary, Text string
	Status                     Status
	Lang                       string
	// Cover, when set, is the editor's word on the images: the cover's
	// asset id ("" for none), and the media files the body needs are then
	// the cover and those its text shows, no other.
	Cover *string
}

// With returns b with the edit applied.
func (b Body) With(e Edit) Body {
	b.Title, b.Slug, b.Summary, b.Text, b.Status = e.Title, e.Slug, e.Summary, e.Text, e.Status
	if e.Lang != "" {
		b.Lang = e.Lang
	}
	if e.Cover != nil {
		b.Cover = *e.Cover
		refs := make([]string, 0, len(b.Refs))
		for _, r := range b.Refs {
			if !IsAssetID(r) { // the pages and articles it refers to stay
				refs = append(refs, r)
			}
		}
		b.Refs = refs
	}
	return b
}

// IsAssetID reports whether id names a media file (ids.New("ast")).
func IsAssetID(id string) bool { return strings.HasPrefix(id, "ast_") }

// mediaLink is a link to a media file of the site in a text.
var mediaLink = regexp.MustCompile(`/media/([a-z0-9]+(?:[-_.][a-z0-9]+)*)`)

// MediaLinks lists the slugs of the media files text shows or links
// (/media/<slug>), each once, in their order.
func MediaLinks(text string) []string {
	var out []string
	for _, m := range mediaLink.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// Languages are the languages a page or an article may be written in.
var Languages = []string{"en", "tr"}

// Node is the working copy of one node: its latest saved version.
type Node struct {
	ID        string
	SiteID    string
	Kind      release.NodeKind
	Rev       int64
	Hash      string
	Body      Body
	UpdatedAt time.Time
	// Author is the person who created the node; it stays the same across
	// versions. Own-level scopes (content:write:own, schedules:write:own,
	// releases:publish:own, RFC §10.1) reach only one's own nodes. It is
	// not part of the body, so not of the hash.
	Author release.Actor
}

// Version returns the node's current version.
func (n Node) Version() release.Version { return release.Version{Rev: n.Rev, Hash: n.Hash} }

// Ref returns the node as a snapshot would hold it.
func (n Node) Ref() release.Ref {
	return release.Ref{ID: n.ID, Kind: n.Kind, Rev: n.Rev, Hash: n.Hash}
}

// Hash is "sha256-" + hex SHA-256 of the body's canonical JSON. Go encodes
// struct fields in declaration order, so equal bodies hash equally.
func Hash(b Body) string {
	data, err := json.Marshal(b)
	if err != nil {
		panic("content: body does not encode: " + err.Error()) // only plain fields: cannot happen
	}
	sum := sha256.Sum256(data)
	return "sha256-" + hex.EncodeToString(sum[:])
}

// FieldError names the form field a validation failure belongs to and the
// message key that explains it.
type FieldError struct {
	Field string
	Key   string
}

func (e *FieldError) Error() string { return "content: " + e.Field + ": " + e.Key }

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Normalize trims the body's one-line fields.
func Normalize(b Body) Body {
	b.Title = strings.TrimSpace(b.Title)
	b.Slug = strings.TrimSpace(b.Slug)
	b.Summary = strings.TrimSpace(b.Summary)
	b.Alt = strings.TrimSpace(b.Alt)
	b.Availability = NormalizeAvailability(b.Availability)
	return b
}

// NormalizeAvailability returns a's gates in UTC at millisecond precision
// (what storage keeps), as a new value, or nil when a has no gate, so equal
// gates hash equally.
func NormalizeAvailability(a *Availability) *Availability {
	if a == nil || (a.From == nil && a.Until == nil) {
		return nil
	}
	out := &Availability{}
	if a.From != nil {
		t := a.From.UTC().Truncate(time.Millisecond)
		out.From = &t
	}
	if a.Until != nil {
		t := a.Until.UTC().Truncate(time.Millisecond)
		out.Until = &t
	}
	return out
}

// Gates returns the body's from and until (nil when absent).
func (b Body) Gates() (from, until *time.Time) {
	if b.Availability == nil {
		return nil, nil
	}
	return b.Availability.From, b.Availability.Until
}

// FirstPublishedAt is the date a body takes when it is first published at
// at (RFC §7.5): the one it has, else its embargo's from (so the article's
// date, its feed item and its sitemap entry show the embargo time, not the
// moment it went out), else at.
func FirstPublishedAt(b Body, at time.Time) *time.Time {
	switch from, _ := b.Gates(); {
	case b.PublishedAt != nil:
		return b.PublishedAt
	case from != nil:
		t := *from
		return &t
	}
	return &at
}

// Validate checks a body before it is saved; the error is a *FieldError.
func Validate(b Body) error {
	switch {
	case b.Title == "":
		return &FieldError{"title", "error.title_required"}
	case utf8.RuneCountInString(b.Title) > 200 || strings.ContainsAny(b.Title, "\n\r"):
		return &FieldError{"title", "error.title_too_long"}
	case !cleanLine(b.Title):
		return &FieldError{"title", "error.title_invalid"}
	case !slugPattern.MatchString(b.Slug) || len(b.Slug) > 120:
		return &FieldError{"slug", "error.slug_invalid"}
	case utf8.RuneCountInString(b.Summary) > 500:
		return &FieldError{"summary", "error.summary_too_long"}
	case !cleanText(b.Summary):
		return &FieldError{"summary", "error.summary_invalid"}
	case utf8.RuneCountInString(b.Text) > 100_000:
		return &FieldError{"body", "error.body_too_long"}
	case b.Lang != "" && !slices.Contains(Languages, b.Lang):
		return &FieldError{"lang", "error.lang_invalid"}
	}
	return validateGatesAndStatus(b)
}

// cleanLine is the rule of release titles (§4.2) for a node's one-line
// fields: valid UTF-8 without control characters (C0, DEL, C1: NUL too) or
// bidi embeddings, overrides and isolates, which would let a title show
// one thing in a list and another in a feed.
func cleanLine(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) || bidiControl(r) {
			return false
		}
	}
	return true
}

// cleanText is cleanLine for a field that may hold line breaks and tabs
// (a summary typed in a text area).
func cleanText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if (unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t') || bidiControl(r) {
			return false
		}
	}
	return true
}

// bidiControl reports the embeddings and overrides (U+202A–U+202E) and the
// isolates (U+2066–U+2069), as release titles refuse them.
func bidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// validateGatesAndStatus checks what every kind of node shares: the
// contract's cross-field rule (§4.1: a node is visible from from and hidden
// from until, so until must come after from) and a known status.
func validateGatesAndStatus(b Body) error {
	if from, until := b.Gates(); from != nil && until != nil && !from.Before(*until) {
		return &FieldError{"until", "error.gate_order"}
	}
	for _, s := range Statuses {
		if b.Status == s {
			return nil
		}
	}
	return &FieldError{"status", "error.status_invalid"}
}

// MaxAssetBytes bounds an asset's file: every version keeps its own copy,
// in the database with the rest of the node (one file to back up, and a
// file goes live in the same transaction as the page that shows it).
// 10 MiB holds a photo from a camera; Studio's upload route allows a
// little more for the form around it (handlers/studio MaxUploadBytes).
const MaxAssetBytes = 10 << 20

// AssetTypes are the media types an asset may have: the images every
// browser shows, read from their bytes. SVG is refused: it is a document
// that can carry script and links, not a picture (the media route still
// serves one saved before, sandboxed).
var AssetTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// fileName is an asset's slug: a lower-case slug with an extension.
var fileName = regexp.MustCompile(`^[a-z0-9]+(?:[-_][a-z0-9]+)*(?:\.[a-z0-9]+)+$`)

// ValidateAsset checks the body of an asset (a file) before it is saved;
// the error is a *FieldError.
func ValidateAsset(b Body) error {
	switch {
	case b.Title == "":
		return &FieldError{"title", "error.title_required"}
	case utf8.RuneCountInString(b.Title) > 200 || strings.ContainsAny(b.Title, "\n\r"):
		return &FieldError{"title", "error.title_too_long"}
	case !cleanLine(b.Title):
		return &FieldError{"title", "error.title_invalid"}
	case b.Mime == "" && len(b.Data) == 0:
		return &FieldError{"data", "error.file_required"}
	case b.Mime == "image/svg+xml":
		return &FieldError{"data", "error.file_svg_refused"}
	case !AssetTypes[b.Mime]:
		return &FieldError{"data", "error.file_type_invalid"}
	case len(b.Data) == 0 || len(b.Data) > MaxAssetBytes:
		return &FieldError{"data", "error.file_size_invalid"}
	case SniffImage(b.Data) != b.Mime:
		return &FieldError{"data", "error.file_type_invalid"} // the bytes must be the image they say
	case !fileName.MatchString(b.Slug) || len(b.Slug) > 120: // after the file: its name follows its type
		return &FieldError{"slug", "error.file_name_invalid"}
	case !ExtensionFits(b.Slug, b.Mime):
		return &FieldError{"slug", "error.file_extension_mismatch"}
	case strings.TrimSpace(b.Alt) == "":
		return &FieldError{"alt", "error.alt_required"}
	case utf8.RuneCountInString(b.Alt) > 500 || utf8.RuneCountInString(b.Summary) > 500:
		return &FieldError{"alt", "error.alt_too_long"}
	case !cleanText(b.Alt) || !cleanText(b.Summary):
		return &FieldError{"alt", "error.alt_invalid"}
	}
	return validateGatesAndStatus(b)
}
