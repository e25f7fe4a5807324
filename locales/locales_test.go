package locales

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
)

// flatten returns every message id in a message file, with its plural forms.
func flatten(t *testing.T, name string) map[string][]string {
	t.Helper()
	data, err := files.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			id := prefix + k
			switch v := v.(type) {
			case string:
				out[id] = nil
			case map[string]any:
				if _, plural := v["other"]; plural {
					var forms []string
					for f := range v {
						forms = append(forms, f)
					}
					sort.Strings(forms)
					out[id] = forms
					continue
				}
				walk(id+".", v)
			}
		}
	}
	walk("", raw)
	return out
}

func TestEveryKeyInBothLanguages(t *testing.T) {
	en, tr := flatten(t, "en.toml"), flatten(t, "tr.toml")
	if len(en) < 100 {
		t.Fatalf("en.toml has only %d messages: is it parsed?", len(en))
	}
	for id, forms := range en {
		trForms, ok := tr[id]
		if !ok {
			t.Errorf("tr.toml lacks %q", id)
			continue
		}
		if strings.Join(forms, ",") != strings.Join(trForms, ",") {
			t.Errorf("%q: plural forms en %v, tr %v", id, forms, trForms)
		}
	}
	for id := range tr {
		if _, ok := en[id]; !ok {
			t.Errorf("en.toml lacks %q", id)
		}
	}
}

// Every literal key the code asks for, and every key built from a known
// prefix and a value set, exists in English (and so, by the test above, in
// Turkish).
func TestEveryKeyTheCodeUsesExists(t *testing.T) {
	en := flatten(t, "en.toml")
	literal := regexp.MustCompile(`(?:\bT\((?:ctx|r\.Context\(\)), |\.T\(|flash\(r, |problem\(w, r, [\w.]+, |page\(r, |changeRelease\(w, r, [\w.]+, )"([a-z_]+\.[a-zA-Z_./]+)"\s*[,)]`)
	codes := regexp.MustCompile(`(?:Code\w* *= *"|refuse\(")([a-z_]+)"`)
	used := map[string]string{}
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "data") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_templ.go") ||
			!(strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".templ")) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			used[m[1]] = path
		}
		for _, m := range codes.FindAllStringSubmatch(string(src), -1) {
			used["error."+m[1]] = path
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(used) < 50 {
		t.Fatalf("found only %d keys in the source: is the scan broken?", len(used))
	}
	for _, set := range []struct {
		prefix string
		values []string
	}{
		{"state.", []string{"draft", "awaiting_approval", "scheduled", "running", "published", "conflict", "missed", "expired", "failed", "canceled"}},
		{"status.", []string{"draft", "review", "published"}},
		{"role.", []string{"owner", "admin", "editor", "author", "contributor"}},
		{"kind.", []string{"contentEntry", "page"}},
		{"editor.new_", []string{"contentEntry", "page", "asset"}},
		{"lang.", Languages},
		{"outcome.", []string{"published", "missed", "expired", "canceled", "conflict", "failed"}},
		{"notice.", noticeKinds},
		{"notice_kind.", noticeKinds},
		{"history.", []string{"release_schedule", "release_unschedule", "release_cancel", "release_reschedule",
			"release_publish", "release_expired", "release_missed", "release_conflict", "release_failed",
			"approval_approve", "approval_deny", "release_undo", "release_publish_now",
			"release_repin", "release_rebase", "release_edit", "release_canceled", "release_publish_now_failed",
			"release_reclaimed", "release_create", "release_add_items", "release_remove_item", "release_rename",
			"release_repin_draft"}},
		// A run's state, outcome, trigger and counts (History, a run's page).
		{"runs.state.", []string{"due", "ready", "running", "succeeded", "failed", "missed", "skipped", "budget-exceeded", "killed"}},
		{"runs.outcome.", []string{"did-work", "nothing-to-do", "proposed", "waiting-approval"}},
		{"runs.trigger.", []string{"schedule", "request", "manual"}},
		{"runs.kind_", []string{"automation", "release"}},
		{"runs.error.", []string{"failed", "job_failed", "killed"}},
		{"runs.count.", []string{"broken-links", "not-found-path", "stale-entries", "feed-problems", "stale-drafts",
			"unused-assets", "published", "needs-attention", "open-findings", "coalesced", "nodes-scanned", "links-checked",
			"documents-checked", "entries-scanned", "excluded"}},
		// Why a conflict cannot be re-based (releases.RebaseCheck.Reason).
		{"conflict.rebase_", []string{"not_live", "live_newer", "already_live", "removal", "edited", "gone"}},
	} {
		for _, v := range set.values {
			used[set.prefix+v] = "a key built from " + set.prefix
		}
	}
	for key, where := range used {
		if _, ok := en[key]; !ok {
			t.Errorf("%s asks for %q, which en.toml lacks", where, key)
		}
	}
}

// noticeKinds are the notification kinds of RFC §14 that Studio derives.
var noticeKinds = []string{"schedule-approval-due", "schedule-upcoming", "schedule-published", "schedule-conflict",
	"schedule-missed", "schedule-expired", "schedule-failed", "scheduler-stalled",
	"scheduler-due-not-claimed", "scheduler-past-lease"}

func TestDates(t *testing.T) {
	ist, err := time.LoadLocation("Europe/Istanbul")
	if err != nil {
		t.Fatal(err)
	}
	mon := time.Date(2026, 11, 2, 9, 0, 0, 0, ist)
	tue := mon.AddDate(0, 0, 1)
	for _, c := range []struct{ lang, got, want string }{
		{"tr", For("tr").DayMonth(mon), "2 Kasım Pazartesi"},
		{"en", For("en").DayMonth(mon), "Monday 2 November"},
		{"tr", For("tr").LongDate(time.Date(2026, 10, 12, 0, 0, 0, 0, ist)), "12 Ekim 2026 Pazartesi"},
		{"tr", For("tr").DateTime(mon), "2 Kasım 2026 09:00"},
		{"en", For("en").DateTime(mon), "2 November 2026, 09:00"},
		{"tr", For("tr").DayHeading(mon, mon), "Bugün · 2 Kasım Pazartesi"},
		{"en", For("en").DayHeading(tue, mon), "Tomorrow · Tuesday 3 November"},
		{"tr", For("tr").DayHeading(mon, tue), "Dün · 2 Kasım Pazartesi"},
		{"tr", For("tr").DayHeading(mon.AddDate(0, 0, 3), mon), "5 Kasım Perşembe"},
		{"en", For("en").DayHeading(mon.AddDate(1, 0, 0), mon), "Tuesday 2 November 2027"},
		{"tr", Clock(time.Date(2026, 11, 2, 13, 5, 0, 0, ist)), "13:05"},
		{"en", Clock(time.Date(2026, 11, 2, 7, 5, 0, 0, ist)), "07:05"},
		{"tr", For("tr").ZoneCity("Europe/Istanbul"), "İstanbul"},
		{"en", For("en").ZoneCity("America/Argentina/Buenos_Aires"), "Buenos Aires"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.lang, c.got, c.want)
		}
	}
}

func TestPluralsAndFallback(t *testing.T) {
	if got := For("tr").T("release.items", "Count", 3); got != "3 öğe" {
		t.Errorf("tr plural: %q", got)
	}
	if got := For("en").T("release.items", "Count", 1); got != "1 item" {
		t.Errorf("en singular: %q", got)
	}
	if got := For("en").T("release.items", "Count", 2); got != "2 items" {
		t.Errorf("en plural: %q", got)
	}
	if got := For("de").T("nav.schedules"); got != "Schedules" {
		t.Errorf("unknown language should fall back to English, got %q", got)
	}
	if got := For("tr").T("no.such.key"); got != "no.such.key" {
		t.Errorf("missing key: %q", got)
	}
	for header, want := range map[string]string{"tr-TR,tr;q=0.9,en;q=0.8": "tr", "de-DE,en;q=0.5": "en", "": "en", "fr": "en"} {
		if got := Match(header); got != want {
			t.Errorf("Match(%q) = %q, want %q", header, got, want)
		}
	}
}

func TestDurations(t *testing.T) {
	for _, c := range []struct {
		d      time.Duration
		en, tr string
	}{
		{41 * time.Second, "41 s", "41 sn"},
		{12*time.Minute + 5*time.Second, "12 min 5 s", "12 dk 5 sn"},
		{134 * time.Second, "2 min 14 s", "2 dk 14 sn"}, // issue 10: not "134 seconds"
		{12 * time.Minute, "12 min", "12 dk"},
		{time.Hour, "1 h", "1 sa"},
		{time.Hour + 31*time.Minute, "1 h 31 min", "1 sa 31 dk"},
	} {
		if got := For("en").Duration(c.d); got != c.en {
			t.Errorf("en %v: %q, want %q", c.d, got, c.en)
		}
		if got := For("tr").Duration(c.d); got != c.tr {
			t.Errorf("tr %v: %q, want %q", c.d, got, c.tr)
		}
	}
}
