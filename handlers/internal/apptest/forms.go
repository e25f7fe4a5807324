package apptest

import (
	"net/url"

	"studio/engine/content"
)

func WithToken(form url.Values, token string) url.Values {
	out := url.Values{}
	for k, v := range form {
		out[k] = v
	}
	if token != "" {
		out.Set("csrf_token", token)
	}
	return out
}

// WrongToken differs from token in its first character only.
func WrongToken(token string) string {
	if token[0] == 'A' {
		return "B" + token[1:]
	}
	return "A" + token[1:]
}

func WithTitle(b content.Body, title string) content.Body {
	b.Title = title
	return b
}
