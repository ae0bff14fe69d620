package tools

import (
	"context"
	"errors"
	"fmt"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) pdf(ctx context.Context, a protocol.TabArgs) (protocol.CallToolResult, error) {
	var res protocol.PDFResult
	t, err := d.read(ctx, a.Target, protocol.MsgPDF, tabOnly, &res)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	if res.Path == "" {
		return protocol.CallToolResult{}, errors.New("The browser saved no PDF. Try again.")
	}
	// The file's name comes from the page's title: page text.
	return TextResult(withPage(fmt.Sprintf("Saved %s as a PDF (%s) on the browser's computer, at the path below.", t.String(), byteSize(res.Size)),
		"- PDF file: "+pageLine(clip(res.Path, maxPath)))), nil
}
