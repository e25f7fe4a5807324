package refusal_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"studio/engine"
	"studio/handlers/refusal"
	"studio/locales"
)

// engineCodes are the refusal codes the engine can return: every Code…
// constant and every refuse("…") of the engine and its model packages that
// reach people through an *engine.Error. automation's codes are checked by
// its own surfaces when automations get screens (issue 12); the few it
// shares with the engine are found here through the engine's constants.
func engineCodes(t *testing.T) []string {
	t.Helper()
	codes := regexp.MustCompile(`(?:\bCode\w* *= *"|refuse\(")([a-z_]+)"`)
	seen := map[string]bool{}
	root := filepath.Join("..", "..", "engine")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "automation" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range codes.FindAllStringSubmatch(string(src), -1) {
			seen[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	if len(out) < 60 {
		t.Fatalf("found only %d refusal codes in engine/: is the scan broken?", len(out))
	}
	return out
}

// messages flattens a locale file to key → text.
func messages(t *testing.T, name string) map[string]string {
	t.Helper()
	var raw map[string]any
	if _, err := toml.DecodeFile(filepath.Join("..", "..", "locales", name), &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch v := v.(type) {
			case map[string]any:
				if s, ok := v["other"].(string); ok { // a plural: its "other" form
					out[prefix+k] = s
					continue
				}
				walk(prefix+k+".", v)
			case string:
				out[prefix+k] = v
			}
		}
	}
	walk("", raw)
	return out
}

var placeholder = regexp.MustCompile(`\{\{\s*\.(\w+)`)

// argsFor gives every name a message uses a value: a time for When, a
// number for counts, a word for the rest.
func argsFor(text string) map[string]any {
	args := map[string]any{}
	for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
		switch name := m[1]; name {
		case "When":
			args[name] = time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
		case "Count", "Max", "Days", "MaxDays":
			args[name] = 3
		default:
			args[name] = "Sonbahar " + name
		}
	}
	return args
}

// TestEveryRefusalHasASentence renders every refusal code the engine can
// return through the one renderer, in English and Turkish: each is a real
// sentence (not its key, no "<no value>"), Turkish is not the English
// fallback, and a timed refusal names its time in the site's zone.
func TestEveryRefusalHasASentence(t *testing.T) {
	en, tr := messages(t, "en.toml"), messages(t, "tr.toml")
	ist, err := time.LoadLocation("Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range engineCodes(t) {
		for _, timed := range []bool{false, true} {
			e := &engine.Error{Code: code}
			key := refusal.Key(e)
			if timed {
				if _, ok := en[key+"_at"]; !ok {
					continue // no sentence that names a time: the general one stands
				}
				key += "_at"
			}
			text, ok := en[key]
			if !ok {
				t.Errorf("%s: en.toml has no %s", code, key)
				continue
			}
			if _, ok := tr[key]; !ok {
				t.Errorf("%s: tr.toml has no %s", code, key)
				continue
			}
			e.Args = argsFor(text + tr[key])
			if timed {
				e.Args["When"] = time.Date(2026, 11, 2, 6, 0, 0, 0, time.UTC)
			}
			said := map[string]string{}
			for _, lang := range locales.Languages {
				s := refusal.Sentence(locales.For(lang), ist, e)
				if s == key || s == "" || strings.Contains(s, "<no value>") || strings.Contains(s, "error.") {
					t.Errorf("%s in %s renders %q", key, lang, s)
				}
				if timed && !strings.Contains(s, "09:00") {
					t.Errorf("%s in %s = %q, want the time in the site's zone (09:00)", key, lang, s)
				}
				said[lang] = s
			}
			if said["en"] == said["tr"] {
				t.Errorf("%s: Turkish is the English fallback %q", key, said["en"])
			}
		}
	}
}

// TestSentenceIn prefers a screen's own sentence, and falls back to the
// general one when that sentence is missing or needs a name the refusal
// lacks.
func TestSentenceIn(t *testing.T) {
	p := locales.For("en")
	general := &engine.Error{Code: engine.CodeScheduledLocked}
	if got, want := refusal.SentenceIn(p, nil, general, "drafts."), refusal.Sentence(p, nil, general); got != want {
		t.Errorf("a lock without a title: %q, want the general %q", got, want)
	}
	named := &engine.Error{Code: engine.CodeScheduledLocked, Args: map[string]any{"Title": "Autumn", "Release": "rel_X"}}
	got := refusal.SentenceIn(p, nil, named, "drafts.")
	if got == refusal.Sentence(p, nil, named) || !strings.Contains(got, "Autumn") {
		t.Errorf("a named lock in a draft: %q, want the drafts sentence naming Autumn", got)
	}
	none := &engine.Error{Code: engine.CodeStale}
	if got, want := refusal.SentenceIn(p, nil, none, "nothing."), refusal.Sentence(p, nil, none); got != want {
		t.Errorf("no screen sentence: %q, want %q", got, want)
	}
}
