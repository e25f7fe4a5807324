package templates_test

import (
	"context"
	"strings"
	"testing"

	"studio/locales"
	"studio/web/templates"
)

// The editor offers Save and Delete only by the flags the handler copies
// from the engine's node abilities (handlers/studio renderEditor): a node
// the person may not change is shown disabled, with a sentence, and
// without either button.
func TestEditorOffersOnlyWhatThePersonMayDo(t *testing.T) {
	render := func(lang string, f templates.NodeForm) string {
		t.Helper()
		var b strings.Builder
		if err := templates.Editor(templates.Page{Title: "Edit"}, f).Render(locales.With(context.Background(), lang), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	saved := templates.NodeForm{ID: "pag_1", Kind: "page", Rev: 1, Title: "Masthead", Slug: "masthead", Status: "draft"}

	may := saved
	may.CanDelete = true
	html := render("en", may)
	for _, want := range []string{">Save</button>", `data-testid="delete-open"`} {
		if !strings.Contains(html, want) {
			t.Errorf("a node the person may change: no %s", want)
		}
	}
	if strings.Contains(html, `data-testid="read-only"`) || strings.Contains(html, "<fieldset disabled") {
		t.Error("a node the person may change is shown read-only")
	}

	mayNot := saved
	mayNot.ReadOnly = true
	for lang, sentence := range map[string]string{"en": "You can read this but not change it.", "tr": "Bunu okuyabilirsiniz ama değiştiremezsiniz."} {
		html := render(lang, mayNot)
		if !strings.Contains(html, sentence) || !strings.Contains(html, "<fieldset disabled") {
			t.Errorf("%s: a node the person may not change is not shown read-only", lang)
		}
		if strings.Contains(html, ">"+locales.For(lang).T("action.save")+"</button>") || strings.Contains(html, `data-testid="delete-open"`) {
			t.Errorf("%s: a node the person may not change offers Save or Delete", lang)
		}
	}
}
