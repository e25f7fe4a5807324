package apptest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// FixturePNG is a tiny image, different for each seed.
func FixturePNG(t *testing.T, seed uint8) []byte {
	t.Helper()
	m := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for i := range 16 {
		m.SetNRGBA(i%4, i/4, color.NRGBA{R: seed, G: uint8(i * 16), B: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
