package netguard

import (
	"fmt"
	"net"
	"net/http"
)

// PeerUID names the OS user owning the other end of a loopback TCP
// connection: remote is the connection's remote address (the peer's own
// socket), local the listener's side. ok is false when the OS does not let
// us see it (not Linux, another network namespace: containers, WSL 2
// relays, a published --listen port); such peers are judged by their proof
// alone. portholder.PeerUID is the real one.
type PeerUID func(remote, local string) (uid int, ok bool)

// ForeignUser reports whether uid, the owner of a peer, is another user:
// neither self nor root (root can read our token anyway).
func ForeignUser(uid, self int) bool { return uid != self && uid != 0 }

// CheckPeer applies the other-users rule of DESIGN §8 to an HTTP request on
// one of monkbrowse's ports: it returns a refusal (for a 403 body and the
// log) when lookup attributes the connection to another user, "" otherwise
// (ours, root's, or unattributable). A nil lookup checks nothing.
func CheckPeer(r *http.Request, lookup PeerUID, self int) (refusal string, uid int) {
	if lookup == nil {
		return "", -1
	}
	local := ""
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		local = a.String()
	}
	uid, ok := lookup(r.RemoteAddr, local)
	if !ok || !ForeignUser(uid, self) {
		return "", uid
	}
	return fmt.Sprintf("monkbrowse: refused: this connection comes from a program of another user of this computer (uid %d); monkbrowse serves only its own user (uid %d)", uid, self), uid
}
