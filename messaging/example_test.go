package messaging_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/monkbrowse/monkbrowse/messaging"
)

// Two peers over an in-memory pipe: one answers "add", the other asks.
func Example_request() {
	client, server := messaging.Pipe()
	a := messaging.NewPeer(client, nil)
	b := messaging.NewPeer(server, nil)
	defer a.Close()
	defer b.Close()

	b.Handle("add", func(_ context.Context, payload json.RawMessage) (any, error) {
		var args struct{ A, B int }
		if err := json.Unmarshal(payload, &args); err != nil {
			return nil, err
		}
		return map[string]int{"sum": args.A + args.B}, nil
	})
	a.Start()
	b.Start()

	res, err := a.Request(context.Background(), "add", map[string]int{"A": 2, "B": 3})
	fmt.Println(string(res), err)
	// Output: {"sum":5} <nil>
}

func ExamplePeer_Notify() {
	client, server := messaging.Pipe()
	a := messaging.NewPeer(client, nil)
	b := messaging.NewPeer(server, nil)
	defer a.Close()
	defer b.Close()

	got := make(chan string)
	b.HandleNotify("tabs_changed", func(_ context.Context, payload json.RawMessage) {
		got <- string(payload)
	})
	a.Start()
	b.Start()

	// Notify returns once the frame is written; no answer comes back.
	if err := a.Notify(context.Background(), "tabs_changed", map[string][]int{"tabs": {1, 2}}); err != nil {
		fmt.Println(err)
	}
	fmt.Println(<-got)
	// Output: {"tabs":[1,2]}
}

// Errors from the other side arrive as *RemoteError, slow answers as
// *RequestTimeoutError.
func ExamplePeer_Request_errors() {
	client, server := messaging.Pipe()
	a := messaging.NewPeer(client, nil)
	b := messaging.NewPeer(server, nil)
	defer a.Close()
	defer b.Close()
	b.Handle("slow", func(ctx context.Context, _ json.RawMessage) (any, error) {
		<-ctx.Done() // never answers before the peer closes
		return nil, ctx.Err()
	})
	a.Start()
	b.Start()

	_, err := a.Request(context.Background(), "browser_click", nil)
	var remote *messaging.RemoteError
	fmt.Println(errors.As(err, &remote), err)

	// A request's timeout is a context, whose cause is the typed error.
	ctx, cancel := messaging.WithRequestTimeout(context.Background(), "slow", 50*time.Millisecond)
	defer cancel()
	_, err = a.Request(ctx, "slow", nil)
	var timeout *messaging.RequestTimeoutError
	fmt.Println(errors.As(err, &timeout), err)
	// Output:
	// true no handler for request "browser_click"
	// true request "slow" timed out after 50ms
}

// When the connection ends, calls in flight fail with an error that matches
// ErrClosed.
func ExamplePeer_Close() {
	client, server := messaging.Pipe()
	a := messaging.NewPeer(client, nil)
	b := messaging.NewPeer(server, nil)
	a.Start()
	b.Start()

	b.Close() // the other side goes away
	<-a.Done()
	_, err := a.Request(context.Background(), "browser_snapshot", nil)
	fmt.Println(errors.Is(err, messaging.ErrClosed), err)
	a.Close()
	// Output: true request "browser_snapshot" failed: peer disconnected
}

func ExamplePeer_Ping() {
	client, server := messaging.Pipe()
	a := messaging.NewPeer(client, nil)
	b := messaging.NewPeer(server, nil)
	defer a.Close()
	defer b.Close()
	a.Start()
	b.Start()

	// The other peer answers pings by itself; no handler is involved.
	fmt.Println(a.Ping(context.Background()))
	// Output: <nil>
}

func ExampleDecodeFrame() {
	f, err := messaging.DecodeFrame([]byte(`{ "k": "res", "id": "7", "ok": true, "result": { "tabId": 3 } }`))
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := f.Encode()
	fmt.Println(f.K, f.ID, *f.OK, string(f.Result))
	fmt.Println(string(out))
	// Output:
	// res 7 true { "tabId": 3 }
	// {"k":"res","id":"7","ok":true,"result":{"tabId":3}}
}
