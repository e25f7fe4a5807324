// Package locales holds every word Studio shows, in English and Turkish
// (en.toml, tr.toml, read with go-i18n), and the date, time and number
// formats of each language. Templates and handlers reach a request's
// language through its context: T(ctx, key).
package locales

import (
	"context"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	texttemplate "text/template"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/nicksnyder/go-i18n/v2/i18n/template"
	"golang.org/x/text/language"
)

//go:embed en.toml tr.toml
var files embed.FS

// File is the message file of lang (en.toml, tr.toml) as Studio embeds
// it: for tests that read the files themselves.
func File(lang string) ([]byte, error) { return files.ReadFile(lang + ".toml") }

// Languages are the languages Studio speaks; the first is the fallback.
var Languages = []string{"en", "tr"}

var bundle = func() *i18n.Bundle {
	b := i18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	for _, lang := range Languages {
		if _, err := b.LoadMessageFileFS(files, lang+".toml"); err != nil {
			panic("locales: " + err.Error()) // embedded files: a broken one fails every test
		}
	}
	return b
}()

// Printer speaks one language.
type Printer struct {
	Lang string
	loc  *i18n.Localizer
}

var printers = func() map[string]*Printer {
	m := map[string]*Printer{}
	for _, lang := range Languages {
		m[lang] = &Printer{Lang: lang, loc: i18n.NewLocalizer(bundle, lang)}
	}
	return m
}()

// For returns the printer for lang, falling back to English.
func For(lang string) *Printer {
	if p, ok := printers[lang]; ok {
		return p
	}
	return printers[Languages[0]]
}

// Match picks the best supported language for an Accept-Language header.
func Match(acceptLanguage string) string {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil {
		return Languages[0]
	}
	for _, t := range tags {
		base, _ := t.Base()
		for _, lang := range Languages {
			if base.String() == lang {
				return lang
			}
		}
	}
	return Languages[0]
}

// messageParser parses every message with messageFuncs. The functions
// never change, so a parsed message is cached as go-i18n caches those
// without functions (its own parser with Funcs parses on every call).
type messageParser struct{ *template.TextParser }

func (messageParser) Cacheable() bool { return true }

var parser = messageParser{&template.TextParser{Funcs: messageFuncs}}

// messageFuncs are what a message may call. A zone label is one argument,
// "İstanbul (UTC+3)", which city and offset take apart for a language
// whose grammar puts a suffix on the city ("Saatler {{city .Zone}}
// saatine ({{offset .Zone}}) göredir", not "İstanbul (UTC+3) saatine").
var messageFuncs = texttemplate.FuncMap{
	"city":   func(label any) string { c, _ := splitZoneLabel(fmt.Sprint(label)); return c },
	"offset": func(label any) string { _, o := splitZoneLabel(fmt.Sprint(label)); return o },
}

// splitZoneLabel is "İstanbul (UTC+3)" as "İstanbul" and "UTC+3"; a label
// without an offset is all city.
func splitZoneLabel(label string) (city, offset string) {
	if i := strings.LastIndex(label, " ("); i >= 0 && strings.HasSuffix(label, ")") {
		return label[:i], label[i+2 : len(label)-1]
	}
	return label, ""
}

// T returns the message key, filled with args given as name/value pairs,
// with CLDR plural rules when a "Count" arg is present. A missing key falls
// back to the key itself (the parity test keeps a literal one from
// shipping; OnMissing lets tests catch one built at run time). Code that
// asks whether a message exists uses Lookup.
func (p *Printer) T(key string, args ...any) string {
	s, ok := p.Lookup(key, args...)
	if !ok {
		if f := onMissing.Load(); f != nil {
			(*f)(key)
		}
	}
	return s
}

// Lookup is T for a message that may not exist: the message and true, or
// the key and false (and no report to OnMissing's function).
func (p *Printer) Lookup(key string, args ...any) (string, bool) {
	cfg := &i18n.LocalizeConfig{MessageID: key, TemplateParser: parser}
	if len(args) > 0 {
		data := map[string]any{}
		for i := 0; i+1 < len(args); i += 2 {
			data[fmt.Sprint(args[i])] = args[i+1]
		}
		cfg.TemplateData = data
		if c, ok := data["Count"]; ok {
			cfg.PluralCount = c
		}
	}
	s, err := p.loc.Localize(cfg)
	if err != nil {
		return key, false
	}
	return s, true
}

var onMissing atomic.Pointer[func(key string)]

// OnMissing has f called with every key T is asked for that neither
// message file has, whose page would show the key itself (a key built
// from a value no file lists). It is for tests: Studio's handler tests
// fail on any page that asked for one. nil stops it.
func OnMissing(f func(key string)) {
	if f == nil {
		onMissing.Store(nil)
		return
	}
	onMissing.Store(&f)
}

type ctxKey struct{}

// With returns ctx carrying the printer for lang.
func With(ctx context.Context, lang string) context.Context {
	return context.WithValue(ctx, ctxKey{}, For(lang))
}

// From returns the printer in ctx, or English.
func From(ctx context.Context) *Printer {
	if p, ok := ctx.Value(ctxKey{}).(*Printer); ok {
		return p
	}
	return For(Languages[0])
}

// T translates key in the language of ctx.
func T(ctx context.Context, key string, args ...any) string { return From(ctx).T(key, args...) }

var months = map[string][12]string{
	"en": {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	"tr": {"Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım", "Aralık"},
}

// Weekdays are indexed by time.Weekday (Sunday first); weeks start on Monday.
var weekdays = map[string][7]string{
	"en": {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"},
	"tr": {"Pazar", "Pazartesi", "Salı", "Çarşamba", "Perşembe", "Cuma", "Cumartesi"},
}

func (p *Printer) month(t time.Time) string   { return months[p.Lang][t.Month()-1] }
func (p *Printer) weekday(t time.Time) string { return weekdays[p.Lang][t.Weekday()] }

// Clock is a 24-hour time with two-digit hours: "09:00".
func Clock(t time.Time) string { return t.Format("15:04") }

// DayMonth is "Monday 2 November" / "2 Kasım Pazartesi", in t's zone.
func (p *Printer) DayMonth(t time.Time) string {
	if p.Lang == "tr" {
		return fmt.Sprintf("%d %s %s", t.Day(), p.month(t), p.weekday(t))
	}
	return fmt.Sprintf("%s %d %s", p.weekday(t), t.Day(), p.month(t))
}

// LongDate is "Monday 2 November 2026" / "2 Kasım 2026 Pazartesi".
func (p *Printer) LongDate(t time.Time) string {
	if p.Lang == "tr" {
		return fmt.Sprintf("%d %s %d %s", t.Day(), p.month(t), t.Year(), p.weekday(t))
	}
	return fmt.Sprintf("%s %d %s %d", p.weekday(t), t.Day(), p.month(t), t.Year())
}

// DateTime is "2 November 2026, 09:00" / "2 Kasım 2026 09:00".
func (p *Printer) DateTime(t time.Time) string {
	if p.Lang == "tr" {
		return fmt.Sprintf("%d %s %d %s", t.Day(), p.month(t), t.Year(), Clock(t))
	}
	return fmt.Sprintf("%d %s %d, %s", t.Day(), p.month(t), t.Year(), Clock(t))
}

// DayHeading names a day relative to today, both in the same zone:
// "Today · Monday 2 November" / "Bugün · 2 Kasım Pazartesi".
func (p *Printer) DayHeading(day, today time.Time) string {
	d := civilDays(day) - civilDays(today)
	label := p.DayMonth(day)
	if day.Year() != today.Year() {
		label = p.LongDate(day)
	}
	switch d {
	case 0:
		return p.T("date.today") + " · " + label
	case 1:
		return p.T("date.tomorrow") + " · " + label
	case -1:
		return p.T("date.yesterday") + " · " + label
	}
	return label
}

func civilDays(t time.Time) int64 {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// ZoneCity names a time zone's city in the language: "İstanbul" in Turkish.
func (p *Printer) ZoneCity(zone string) string {
	if s, ok := p.Lookup("zone." + zone); ok {
		return s
	}
	return strings.ReplaceAll(zone[strings.LastIndexByte(zone, '/')+1:], "_", " ")
}

// Duration writes a lateness the way people read it (RFC §14): "41 s",
// "2 min 14 s", "12 min", "1 h 31 min" — "41 sn", "2 dk 14 sn", "12 dk",
// "1 sa 31 dk" in Turkish; never a bare count of seconds past a minute.
func (p *Printer) Duration(d time.Duration) string {
	if d < time.Minute {
		return p.T("duration.seconds", "N", int64(d/time.Second))
	}
	h, m, sec := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	switch {
	case h == 0 && sec == 0:
		return p.T("duration.minutes", "N", m)
	case h == 0:
		return p.T("duration.minutes", "N", m) + " " + p.T("duration.seconds", "N", sec)
	case m == 0:
		return p.T("duration.hours", "N", h)
	}
	return p.T("duration.hours", "N", h) + " " + p.T("duration.minutes", "N", m)
}

// FileSize is n bytes as a person reads it: "840 KB", "1.2 MB"; the
// decimal sign is the language's ("1,2 MB" in Turkish).
func (p *Printer) FileSize(n int) string {
	switch {
	case n < 1000:
		return p.T("size.bytes", "Count", n)
	case n < 1_000_000:
		return p.T("size.kb", "Size", strconv.Itoa((n+500)/1000))
	}
	s := strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64)
	return p.T("size.mb", "Size", strings.Replace(s, ".", p.T("size.decimal_sign"), 1))
}
