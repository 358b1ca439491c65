package phpjson

import "errors"

// PHP JSON errors. Error() is exactly the message of PHP's JsonException
// (php_json_get_error_msg), because storh surfaces these texts verbatim.
var (
	ErrDepth           = errors.New("Maximum stack depth exceeded")
	ErrStateMismatch   = errors.New("State mismatch (invalid or malformed JSON)")
	ErrCtrlChar        = errors.New("Control character error, possibly incorrectly encoded")
	ErrSyntax          = errors.New("Syntax error")
	ErrUTF8            = errors.New("Malformed UTF-8 characters, possibly incorrectly encoded")
	ErrInfNaN          = errors.New("Inf and NaN cannot be JSON encoded")
	ErrUnsupportedType = errors.New("Type is not supported")
	ErrUTF16           = errors.New("Single unpaired UTF-16 surrogate in unicode escape")
)
