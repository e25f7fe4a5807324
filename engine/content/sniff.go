package content

import (
	"bytes"
)

// SniffImage names the asset type of data from its first bytes, never
// from a file name or a browser's word: "" when data is none of
// AssetTypes. An SVG is recognised by an <svg element at its start (after
// an optional byte order mark, XML declaration, doctype and comments).
func SniffImage(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return "image/gif"
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return "image/webp"
	case len(data) >= 12 && string(data[4:8]) == "ftyp" && (string(data[8:12]) == "avif" || string(data[8:12]) == "avis"):
		return "image/avif"
	case isSVG(data):
		return "image/svg+xml"
	}
	return ""
}

// isSVG reports whether data starts, past the XML prologue, with an <svg
// element.
func isSVG(data []byte) bool {
	s := bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	for range 16 { // a prologue of a few declarations and comments at most
		s = bytes.TrimLeft(s, " \t\r\n")
		switch {
		case bytes.HasPrefix(s, []byte("<?")):
			end := bytes.Index(s, []byte("?>"))
			if end < 0 {
				return false
			}
			s = s[end+2:]
		case bytes.HasPrefix(s, []byte("<!--")):
			end := bytes.Index(s, []byte("-->"))
			if end < 0 {
				return false
			}
			s = s[end+3:]
		case bytes.HasPrefix(s, []byte("<!DOCTYPE")), bytes.HasPrefix(s, []byte("<!doctype")):
			end := bytes.IndexByte(s, '>')
			if end < 0 {
				return false
			}
			s = s[end+1:]
		default:
			return bytes.HasPrefix(s, []byte("<svg")) && len(s) > 4 && bytes.ContainsAny(s[4:5], " \t\r\n>/")
		}
	}
	return false
}
