//go:build linux && !race

package daemon_test

// The soak of issue 12 (opt-in, outside -race: it measures):
//
//	MONKBROWSE_SOAK=10000 nice -n 19 go test -run TestSoak -v -timeout 30m ./internal/daemon/
//
// N mixed tool calls (half from the owner's own AI app, half through a
// forwarder; eight callers per app over two tabs) against the real binary
// and a fake extension on a real socket. It checks that every call
// succeeded and that every press_key (each with a unique key) reached the
// page exactly once, and logs throughput, p50/p99 per app and the owner's
// RSS, threads and open fds before and after (Linux /proc).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/monkbrowse/monkbrowse/protocol"
	"github.com/monkbrowse/monkbrowse/server/internal/fakeext"
)

type procStats struct {
	rssKB, threads, fds int
}

func statsOf(t *testing.T, pid int) procStats {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	var st procStats
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			st.rssKB, _ = strconv.Atoi(f[1])
		case "Threads:":
			st.threads, _ = strconv.Atoi(f[1])
		}
	}
	fds, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/fd/*")
	st.fds = len(fds)
	return st
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func pct(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func TestSoak(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("MONKBROWSE_SOAK"))
	if n <= 0 {
		t.Skip("set MONKBROWSE_SOAK=10000 to run the soak")
	}
	ctx := watchdog(t, 30*time.Minute)
	_, ps, ext := startShared(ctx, t, 2)
	owner := ps[0]

	var mu sync.Mutex
	keys := map[string]int{}
	ext.setHook(func(_ context.Context, r fakeext.Request) error {
		if r.Type != protocol.MsgPressKey {
			return nil
		}
		var p struct {
			Key string `json:"key"`
		}
		json.Unmarshal(r.Payload, &p)
		mu.Lock()
		keys[p.Key]++
		mu.Unlock()
		return nil
	})

	// Mixed calls: reads, actions, tab listing; press_key carries a unique
	// key to count deliveries.
	mixed := func(app, i int) (string, map[string]any) {
		tab := 1 + i%2
		switch i % 6 {
		case 0:
			return "browser_snapshot", map[string]any{"tab": tab}
		case 1:
			return "browser_press_key", map[string]any{"tab": tab, "key": fmt.Sprintf("k%d-%d", app, i)}
		case 2:
			return "browser_get_text", map[string]any{"tab": tab}
		case 3:
			return "browser_click", map[string]any{"tab": tab, "ref": "e3", "element": "Go"}
		case 4:
			return "browser_list_tabs", map[string]any{}
		default:
			return "browser_type", map[string]any{"tab": tab, "ref": "e2", "element": "Search", "text": "soak"}
		}
	}
	// Warm-up, then the "before" figures.
	for app, p := range ps {
		for i := range 60 {
			name, args := mixed(app, i)
			if name == "browser_press_key" {
				args["key"] = fmt.Sprintf("warm%d-%d", app, i)
			}
			p.mustCall(ctx, t, name, args)
		}
	}
	before := statsOf(t, owner.cmd.Process.Pid)
	loadBefore := loadavg()

	const callers = 8
	per := n / len(ps)
	lat := make([][]time.Duration, len(ps))
	var failures []string
	var fmu sync.Mutex
	start := time.Now()
	var wg sync.WaitGroup
	for app, p := range ps {
		lat[app] = make([]time.Duration, 0, per)
		var lmu sync.Mutex
		for c := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := c; i < per; i += callers {
					name, args := mixed(app, i)
					t0 := time.Now()
					text, isErr := p.call(ctx, t, name, args)
					d := time.Since(t0)
					lmu.Lock()
					lat[app] = append(lat[app], d)
					lmu.Unlock()
					if isErr {
						fmu.Lock()
						failures = append(failures, fmt.Sprintf("%s %s: %s", p.name, name, text))
						fmu.Unlock()
					}
				}
			}()
		}
	}
	wg.Wait()
	elapsed := time.Since(start)
	loadAfter := loadavg()
	// Finished calls' sockets close on their own: wait for the fds to come
	// back (a leak never does; the check below then reports it).
	after := statsOf(t, owner.cmd.Process.Pid)
	for settle := time.Now().Add(10 * time.Second); after.fds > before.fds+4 && time.Now().Before(settle); {
		select {
		case <-time.After(50 * time.Millisecond): // the next reading
		case <-ctx.Done():
			t.Fatal("watchdog")
		}
		after = statsOf(t, owner.cmd.Process.Pid)
	}

	if len(failures) > 0 {
		t.Errorf("%d of %d calls failed; first: %s", len(failures), n, failures[0])
	}
	mu.Lock()
	want := 0
	for app := range ps {
		for i := 1; i < per; i += 6 {
			want++
			if got := keys[fmt.Sprintf("k%d-%d", app, i)]; got != 1 {
				t.Errorf("press_key k%d-%d reached the page %d times", app, i, got)
			}
		}
	}
	mu.Unlock()
	all := slices.Concat(lat...)
	for _, l := range append(lat, all) {
		slices.Sort(l)
	}
	t.Logf("soak: %d calls (%d owner's app + %d through the forwarder, %d callers each, 2 tabs) in %s: %.0f calls/s; %d press_key each delivered once",
		len(all), len(lat[0]), len(lat[1]), callers, elapsed.Round(time.Millisecond), float64(len(all))/elapsed.Seconds(), want)
	t.Logf("latency p50/p99: all %s/%s; owner's app %s/%s; forwarded %s/%s",
		pct(all, .5).Round(10*time.Microsecond), pct(all, .99).Round(10*time.Microsecond),
		pct(lat[0], .5).Round(10*time.Microsecond), pct(lat[0], .99).Round(10*time.Microsecond),
		pct(lat[1], .5).Round(10*time.Microsecond), pct(lat[1], .99).Round(10*time.Microsecond))
	t.Logf("owner before: RSS %d KiB, %d threads, %d fds; after: RSS %d KiB, %d threads, %d fds",
		before.rssKB, before.threads, before.fds, after.rssKB, after.threads, after.fds)
	t.Logf("load average (1/5/15 min): %s at the start, %s at the end", loadBefore, loadAfter)
	if after.fds > before.fds+4 {
		t.Errorf("the owner's open fds grew from %d to %d", before.fds, after.fds)
	}
}
