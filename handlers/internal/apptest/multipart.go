package apptest

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"testing"
)

// MultipartPost posts fields and, when data is set, a file named name to
// path, with the page's CSRF token.
func MultipartPost(t *testing.T, c *Client, path, token string, fields map[string]string, name string, data []byte) Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("csrf_token", token)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if data != nil {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(data)
	}
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, c.App.URL+path, &buf)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if c.Lang != "" {
		req.Header.Set("Accept-Language", c.Lang)
	}
	hr, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer hr.Body.Close()
	b, _ := io.ReadAll(hr.Body)
	return Response{Status: hr.StatusCode, Header: hr.Header, Body: string(b), Raw: hr}
}
