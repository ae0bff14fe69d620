package protocol_test

import (
	"encoding/json"
	"fmt"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func ExampleCheckHello() {
	v := protocol.CheckHello([]byte(`{"protocol":3,"extVersion":"0.3.0","nonce":"`+protocol.NewNonce()+`"}`), "0.3.0")
	fmt.Println(v.Accept, v.Hello.ExtVersion)

	// A 0.2 extension (no protocol field) gets an ack its own parser reads.
	old := protocol.CheckHello([]byte(`{"label":"Home"}`), "0.3.0")
	ack := old.Ack.(protocol.LegacyHelloAck)
	b, _ := json.Marshal(ack)
	fmt.Println(old.Accept, old.Legacy, ack.AssignedPort, len(b) > 0)
	// Output:
	// true 0.3.0
	// false true 0 true
}

func ExampleTimeoutFor() {
	fmt.Println(protocol.TimeoutFor(protocol.MsgNavigate), protocol.IsRetryable(protocol.MsgSnapshot), protocol.IsRetryable(protocol.MsgClick))
	// Output: 45s true false
}

func ExampleSlugify() {
	fmt.Println(protocol.Slugify("Ada's Work Profile"))
	// Output: ada-s-work-profile
}
