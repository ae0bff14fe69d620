package protocol

import (
	"encoding/json"
	"errors"
)

func asTypeError(err error, target **json.UnmarshalTypeError) bool {
	return errors.As(err, target)
}
