package fakeext

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"sync"
)

var (
	pngOnce sync.Once
	pngB64  string
)

// ScreenshotPNG is the base64 PNG every fake screenshot returns.
func ScreenshotPNG() string {
	pngOnce.Do(func() {
		img := image.NewRGBA(image.Rect(0, 0, 4, 3))
		for x := 0; x < 4; x++ {
			for y := 0; y < 3; y++ {
				img.Set(x, y, color.RGBA{R: uint8(60 * x), G: uint8(80 * y), B: 200, A: 255})
			}
		}
		var b bytes.Buffer
		_ = png.Encode(&b, img)
		pngB64 = base64.StdEncoding.EncodeToString(b.Bytes())
	})
	return pngB64
}
