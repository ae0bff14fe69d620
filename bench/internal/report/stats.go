package report

import (
	"math"
	"sort"

	"github.com/monkbrowse/monkbrowse/bench/internal/run"
)

// Stats summarises one (server, page, step).
type Stats struct {
	N, OK, Skipped int
	Median, P90    float64 // ms, over the steps that ran
	Bytes          int     // median text bytes
	ImageBytes     int
	ImageW, ImageH int
}

// Tokens estimates text tokens as bytes/4 rounded up.
func Tokens(bytes int) int { return (bytes + 3) / 4 }

// ImageTokens estimates image tokens as width×height/750 (the rule of thumb
// Anthropic documents for Claude's vision input).
func ImageTokens(w, h int) int { return int(math.Ceil(float64(w*h) / 750)) }

// Percentile is the nearest-rank percentile p (0–100) of xs.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	c := append([]float64(nil), xs...)
	sort.Float64s(c)
	if p == 50 && len(c)%2 == 0 {
		return (c[len(c)/2-1] + c[len(c)/2]) / 2
	}
	i := int(math.Ceil(p/100*float64(len(c)))) - 1
	if i < 0 {
		i = 0
	}
	return c[i]
}

func medianInt(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	c := append([]int(nil), xs...)
	sort.Ints(c)
	return c[len(c)/2]
}

// Summarise groups samples by server, page and step.
func Summarise(r *run.Results) map[[3]string]Stats {
	type acc struct {
		ms                    []float64
		bytes, imgB, imgW, ih []int
		ok, skipped, n        int
	}
	accs := map[[3]string]*acc{}
	for _, s := range r.Samples {
		k := [3]string{s.Server, s.Page, s.Step}
		a := accs[k]
		if a == nil {
			a = &acc{}
			accs[k] = a
		}
		a.n++
		if s.OK {
			a.ok++
		}
		if s.Skipped {
			a.skipped++
			continue
		}
		a.ms = append(a.ms, s.Ms)
		a.bytes = append(a.bytes, s.TextBytes)
		a.imgB = append(a.imgB, s.ImageBytes)
		a.imgW = append(a.imgW, s.ImageW)
		a.ih = append(a.ih, s.ImageH)

	}
	out := map[[3]string]Stats{}
	for k, a := range accs {
		out[k] = Stats{N: a.n, OK: a.ok, Skipped: a.skipped,
			Median: Percentile(a.ms, 50), P90: Percentile(a.ms, 90),
			Bytes: medianInt(a.bytes), ImageBytes: medianInt(a.imgB), ImageW: medianInt(a.imgW), ImageH: medianInt(a.ih)}
	}
	return out
}

func minMax(xs []float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}
