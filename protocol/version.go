package protocol

// ProtocolVersion is the wire version spoken between the server and the
// extension. A mismatch is rejected on either side; never best-effort.
const ProtocolVersion = 3

// Version is the product version of this monkbrowse release. The server
// reports it in hello_ack and fwd_hello; the extension shows it in its popup.
// A var, so release builds stamp it (-ldflags -X, scripts/release).
var Version = "0.3.0"
