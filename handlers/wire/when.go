package wire

import (
	"bytes"
	"encoding/json"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/releases"
)

// Codes of the refusals both surfaces give input they cannot read (the
// engine's own are passed through).
const (
	CodeBadRequest      = "bad_request"
	CodeBadInstant      = "bad_instant"
	CodeNothingToChange = "nothing_to_change"
	// CodeBadWhen refuses a when that is none of §12's three forms.
	CodeBadWhen = releases.CodeBadWhen
)

// ParseWhen reads §12's when: {"at": instant} | {"localTime":
// "YYYY-MM-DDTHH:MM", "timeZone"?} | "on-approval"; absent or null is nil.
// A when that is none of them is refused with the field it fails on
// (bad_when, bad_instant, unknown_zone, bad_wall), as the API and MCP both
// answer it.
func ParseWhen(raw json.RawMessage) (*releases.WhenInput, *engine.Error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var word string
	if json.Unmarshal(raw, &word) == nil {
		if word != "on-approval" {
			return nil, engine.Refuse(CodeBadWhen, "when")
		}
		return &releases.WhenInput{OnApproval: true}, nil
	}
	var v struct {
		At        *string `json:"at"`
		LocalTime *string `json:"localTime"`
		TimeZone  *string `json:"timeZone"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil || (v.At == nil) == (v.LocalTime == nil) || v.At != nil && v.TimeZone != nil {
		return nil, engine.Refuse(CodeBadWhen, "when")
	}
	if v.At != nil {
		at, err := time.Parse(time.RFC3339, *v.At)
		if err != nil {
			return nil, engine.Refuse(CodeBadInstant, "at")
		}
		return &releases.WhenInput{At: &at}, nil
	}
	in := &releases.WhenInput{LocalTime: *v.LocalTime}
	if v.TimeZone != nil {
		if *v.TimeZone == "" {
			return nil, engine.Refuse(releases.CodeUnknownZone, "timeZone")
		}
		in.TimeZone = *v.TimeZone
	}
	if in.LocalTime == "" {
		return nil, engine.Refuse(localtime.CodeBadWall, "localTime")
	}
	return in, nil
}
