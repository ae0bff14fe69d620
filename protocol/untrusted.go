package protocol

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Words of an unproven peer (issue 40): text sent by a program that has not
// proven it holds our secret — a rejection reason or a version in an ack, a
// Host or Origin header, an extension id — is never repeated whole and
// never as if monkbrowse said it. It is cut (Cut) and, where the AI or the
// person reads it, quoted as that program's words (QuoteUnverified).

// MaxQuoted is how many bytes of an unproven peer's text are kept: enough
// for any real reason or version, too little to carry a page of
// instructions.
const MaxQuoted = 300

// Cut returns s cut to at most max bytes at a character boundary, with
// " …(N bytes cut)" appended when anything was cut. The result is never
// longer than max plus that note.
func Cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf(" …(%d bytes cut)", len(s)-n)
}

// QuoteUnverified quotes text from the program on port, which has not
// proven it is a monkbrowse of this user, for a message to the AI or the
// person: cut to MaxQuoted bytes, in Go quotes (a quote, a line break, a
// control or bidirectional character inside is escaped, so the text cannot
// end the quotation or start a line of its own), and marked unverified.
func QuoteUnverified(port int, text string) string {
	return fmt.Sprintf("the program on port %d says (unverified: it has not proven it is your monkbrowse, so these are not monkbrowse's words): %s",
		port, strconv.Quote(Cut(text, MaxQuoted)))
}
