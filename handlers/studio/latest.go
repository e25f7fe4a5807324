package studio

import (
	"net/http"

	"studio/web/templates"
)

// loadLatest is where a refusal's "Load the latest" link goes: page, the
// one being shown, as it is now. It is offered when the refusal says
// something changed elsewhere (refusal answers those with 409), so what the
// person sees, or typed over, is out of date; "" otherwise.
func loadLatest(status int, page string) string {
	if status != http.StatusConflict {
		return ""
	}
	return page
}

// editorLatest is the editor's "Load the latest": the node's editor, or the
// edit of its scheduled version when that is where the person was.
func editorLatest(status int, f templates.NodeForm) string {
	if f.ID == "" {
		return ""
	}
	page := "/studio/content/" + f.ID
	if f.EditScheduled {
		page += "/edit-scheduled"
	}
	return loadLatest(status, page)
}
