package locales

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestTurkishAsANativeEditorWrites locks the sentences a native editor
// rewrote (issue 10's table), as Studio renders them.
func TestTurkishAsANativeEditorWrites(t *testing.T) {
	tr := For("tr")
	zone := "İstanbul (UTC+3)"
	for _, c := range []struct{ got, want string }{
		{tr.T("settings.time_zone_keeps"), "Bir şehir adı yazın ya da listeden seçin. Zamanlanmış yayın paketlerinin yayım anı değişmez; yalnızca Studio'da gösterilen saatler değişir."},
		{tr.T("settings.health_running_note"), "Yayın paketleri, zamanı geldikten en geç bir dakika sonra yayımlanır."},
		{tr.T("gates.state_open"), "Açık: canlı sitede görünüyor."},
		{tr.T("gates.lift_what", "When", "2 Kasım 2026 09:00"), "İçerik 2 Kasım 2026 09:00 tarihine kadar ambargo altında. Ambargoyu kaldırırsanız içerik zamanından önce canlı sitede görünür: hemen ya da seçeceğiniz daha erken bir zamanda."},
		{tr.T("error.time_in_past"), "Bu saat geçti. Daha sonraki bir saat seçin."},
		{tr.T("error.gate_in_past"), "Bu saat geçti. Daha sonraki bir saat seçin."},
		{tr.T("error.bad_time"), "Geçerli bir saat girin (örneğin 09:00)."},
		{tr.T("calendar.facet.state_attention"), "Çakışan, başarısız ya da kaçırılan"},
		{tr.T("calendar.facet.state_canceled"), "İptal edilen, reddedilen ya da süresi dolan"},
		{tr.T("calendar.facet.origin"), "Kaynak"},
		{tr.T("approval.denied"), "Reddedildi. Yayın paketi yeniden taslağa döndü."},
		{tr.T("settings.reason_hint"), "Tek satır. Zamanlamalar sayfasında herkes görür ve geçmiş kaydında saklanır."},
		{tr.T("gates.lift_reason_hint"), "Adınızla birlikte geçmiş kaydında saklanır."},
		{tr.T("approval.reason"), "Ret gerekçesi (reddederseniz)"},
		{tr.T("approval.binding"), "Onaylarsanız tam olarak bu sürümler bu saatte yayımlanmak üzere zamanlanır; herhangi bir değişiklik yeniden onay gerektirir."},
		{tr.T("settings.paused_waiting"), "Zamanı gelen yayın paketleri bekletilir; duraklatma yayım zamanını bir saatten fazla aşarsa paket kaçırılmış sayılır."},
		{tr.T("settings.resume_effects"), "Bir saatten kısa süre bekleyen yayın paketleri şimdi, gecikmeli olarak yayımlanır; daha uzun bekleyenler kaçırılmış olarak kalır. Bu anahtarla duraklatılan otomasyonlar yeniden çalışır."},
		{tr.T("schedule.zone_note", "Zone", zone), "Saatler İstanbul saatine (UTC+3) göredir."},
		{tr.T("schedule.zone_note", "Zone", "UTC"), "Saatler UTC saatine göredir."},
		{tr.T("conflict.time_note", "Zone", zone), "Zamanı geçti; ne zaman yayımlanacağını seçin. Saatler İstanbul saatine (UTC+3) göredir."},
		// Agents are "yapay zekâ ajanı" (glossary), never a bare "ajan".
		{tr.T("calendar.preset.agents"), "Yapay zekâ ajanlarının önerdikleri"},
		{tr.T("calendar.facet.origin_agent"), "Yapay zekâ ajanları"},
		{tr.T("calendar.subtitle"), "Bu sitede ne zaman ne olacak: kişilerin ve yapay zekâ ajanlarının planladıkları."},
		// English keeps the zone as one piece.
		{For("en").T("schedule.zone_note", "Zone", zone), "Times are in İstanbul (UTC+3) time."},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
}

// TestTurkishAvoidsBannedForms: no Turkish message uses a form the
// glossary rules out (../shared/GLOSSARY.md).
func TestTurkishAvoidsBannedForms(t *testing.T) {
	data, err := files.ReadFile("tr.toml")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	messages := map[string]string{}
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			switch v := v.(type) {
			case string:
				messages[prefix+k] = v
			case map[string]any:
				walk(prefix+k+".", v)
			}
		}
	}
	walk("", raw)
	banned := []struct {
		re  *regexp.Regexp
		why string
	}{
		{regexp.MustCompile(`(?i)yayındaki site`), `the live site is "canlı site"`},
		{regexp.MustCompile(`geçmişte (saklanır|kalır|kaydedilir)`), `"geçmişte" means "in the past": "geçmiş kaydında"`},
		{regexp.MustCompile(`\bScheduler\b`), `the system actor is "Zamanlayıcı"`},
		{regexp.MustCompile(`taslak oldu`), `"taslağa döndü"`},
		{regexp.MustCompile(`(\d|}})['’]\p{L}`), "a case suffix on a number, a time or a filled-in value"},
	}
	word := regexp.MustCompile(`\p{L}+`)
	var found []string
	for id, msg := range messages {
		for _, b := range banned {
			if b.re.MatchString(msg) {
				found = append(found, id+": "+b.why+": "+msg)
			}
		}
		// An agent is a "yapay zekâ ajanı": "ajan" alone reads as "ajans".
		words := word.FindAllString(strings.ToLower(msg), -1)
		for i, w := range words {
			if strings.HasPrefix(w, "ajan") && !strings.HasPrefix(w, "ajanda") && (i == 0 || words[i-1] != "zekâ") {
				found = append(found, id+`: an agent is a "yapay zekâ ajanı": `+msg)
			}
		}
	}
	sort.Strings(found)
	for _, f := range found {
		t.Error(f)
	}
}
