package mcpdrive

import (
	"context"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func fp() int { l, _ := net.Listen("tcp", "127.0.0.1:0"); defer l.Close(); return l.Addr().(*net.TCPAddr).Port }

func TestZZStartup(t *testing.T) {
	for _, bin := range strings.Fields(os.Getenv("ST_BINS")) {
		var ms []float64
		for i := 0; i < 15; i++ {
			home := t.TempDir()
			s, err := Start(context.Background(), Config{Name: "mb", Command: bin, Args: []string{"--port", strconv.Itoa(fp()), "--control-port", strconv.Itoa(fp()), "--log-level", "warn"}, Env: []string{"HOME=" + home}})
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, float64(s.Startup.Microseconds())/1000)
			s.Close()
		}
		sort.Float64s(ms)
		t.Logf("%s median %.1f ms min %.1f max %.1f", bin, ms[len(ms)/2], ms[0], ms[len(ms)-1])
	}
}
