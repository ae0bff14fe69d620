package run

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

func TestImageSize(t *testing.T) {
	var pb bytes.Buffer
	if err := png.Encode(&pb, image.NewRGBA(image.Rect(0, 0, 7, 5))); err != nil {
		t.Fatal(err)
	}
	riff := func(chunk string, body []byte) []byte {
		b := append([]byte("RIFF\x00\x00\x00\x00WEBP"+chunk+"\x00\x00\x00\x00"), body...)
		return append(b, make([]byte, 32)...)
	}
	// VP8X: flags and reserved (4 bytes), then width-1 and height-1 in 24 bits.
	vp8x := riff("VP8X", []byte{0, 0, 0, 0, 0x81, 0x04, 0, 0x88, 0x02, 0}) // 1154×649
	// VP8: frame tag (3 bytes), start code, 14-bit width and height.
	vp8 := riff("VP8 ", []byte{0, 0, 0, 0x9d, 0x01, 0x2a, 0x82, 0x04, 0x89, 0x02}) // 1154×649
	// VP8L: signature, then width-1 and height-1 in 14 bits each.
	w, h := uint32(1154-1), uint32(649-1)
	bits := w | h<<14
	vp8l := riff("VP8L", []byte{0x2f, byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)})
	for name, tc := range map[string]struct {
		b    []byte
		w, h int
		ok   bool
	}{
		"png": {pb.Bytes(), 7, 5, true}, "vp8x": {vp8x, 1154, 649, true}, "vp8": {vp8, 1154, 649, true},
		"vp8l": {vp8l, 1154, 649, true}, "junk": {[]byte("RIFF....WEBPjunk"), 0, 0, false},
	} {
		gw, gh, ok := imageSize(tc.b)
		if gw != tc.w || gh != tc.h || ok != tc.ok {
			t.Errorf("%s: %d×%d %v, want %d×%d %v", name, gw, gh, ok, tc.w, tc.h, tc.ok)
		}
	}
}
