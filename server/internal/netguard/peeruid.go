package netguard

import (
	"fmt"
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

// PeerRefusal applies the other-users rule of DESIGN §8 to a connection on
// one of monkbrowse's ports (remote and local are its addresses): it
// returns a refusal (for a 403 body and the log) when lookup attributes the
// connection to another user, "" otherwise (ours, root's, or
// unattributable). A nil lookup checks nothing. The Gate runs it before
// the connection's first byte is read.
func PeerRefusal(lookup PeerUID, self int, remote, local string) (refusal string, uid int) {
	if lookup == nil {
		return "", -1
	}
	uid, ok := lookup(remote, local)
	if !ok || !ForeignUser(uid, self) {
		return "", uid
	}
	return fmt.Sprintf("monkbrowse: refused: this connection comes from a program of another user of this computer (uid %d); monkbrowse serves only its own user (uid %d)", uid, self), uid
}
