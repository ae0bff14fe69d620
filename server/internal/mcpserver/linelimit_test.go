package mcpserver

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// repeatReader yields n bytes of b, then EOF.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}

// TestTooLargeLineAnsweredAndSkipped: a message over MaxLine gets -32600
// with its id, and the next message on stdin is served as usual.
func TestTooLargeLineAnsweredAndSkipped(t *testing.T) {
	rs := startRaw(t, nil)
	huge := `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"pad":"` + strings.Repeat("A", MaxLine+1024) + `"}}`
	rs.write(t, huge, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	first := rs.next(t)
	if first["id"] != float64(7) {
		t.Fatalf("first answer: %v, want the refusal of id 7", first)
	}
	e, _ := first["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32600) || !strings.Contains(e["message"].(string), "request too large") {
		t.Fatalf("refusal: %v", first)
	}
	second := rs.next(t)
	if second["id"] != float64(8) || second["error"] != nil {
		t.Fatalf("the message after the large one: %v", second)
	}
}

// TestLongLineNotBuffered: a 100 MB line is read without keeping it: the
// reader allocates a small multiple of MaxLine, never the line.
func TestLongLineNotBuffered(t *testing.T) {
	src := io.MultiReader(strings.NewReader(`{"id":"x","pad":"`), &repeatReader{b: 'A', n: 100 << 20}, strings.NewReader("\"}\n{\"id\":2}\n"))
	r := bufio.NewReaderSize(src, 64<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	line, tooLong, err := readLine(r, MaxLine)
	runtime.ReadMemStats(&after)
	if err != nil || !tooLong || len(line) > keptPrefix {
		t.Fatalf("readLine: %d bytes, tooLong %v, %v", len(line), tooLong, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 3*MaxLine {
		t.Errorf("reading a 100 MB line allocated %d MiB (bound %d MiB)", got>>20, 3*MaxLine>>20)
	}
	if id := prefixID(line); string(id) != `"x"` {
		t.Errorf("id from the kept prefix: %s", id)
	}
	next, tooLong, err := readLine(r, MaxLine)
	if err != nil || tooLong || !bytes.Equal(next, []byte("{\"id\":2}\n")) {
		t.Errorf("the next line: %q %v %v", next, tooLong, err)
	}
}

func TestPrefixID(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","id":12,"method":"x"`:         `12`,
		`{"method":"x","params":{"id":5},"id":"ab","pa`: `"ab"`,
		`{"method":"x","params":{"a":"` + "AAAA":        ``,
		`[1,2]`:                                         ``,
		`{"id":{"bad":1}}`:                              ``,
	} {
		if got := string(prefixID([]byte(in))); got != want {
			t.Errorf("prefixID(%.40q) = %q, want %q", in, got, want)
		}
	}
}
