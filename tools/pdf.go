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
	return TextResult(fmt.Sprintf("Saved %s as a PDF (%s) at %s on the browser's computer.", t.String(), byteSize(res.Size), res.Path)), nil
}
