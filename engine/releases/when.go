package releases

import (
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/model/release"
)

// Refusal codes of a release time given as WhenInput, besides the time
// codes, bad_at, bad_wall and unknown_zone (a zone given with a local time
// that Studio does not know, field "timeZone").
const (
	// CodeNoTime: scheduling a draft that has no time of its own without
	// giving one (field "when").
	CodeNoTime = "no_time"
)

// WhenInput is a release's time as a caller gives it (RFC §12
// schedule_release's when): exactly one of an instant (At), a wall-clock
// time (LocalTime, "YYYY-MM-DDTHH:MM", in TimeZone or else the site's
// zone), "on-approval" (OnApproval: it publishes when it is approved), or
// a person's form (Date and Clock in the site's zone). Wall-clock times
// resolve by D2: a time in a spring-forward gap runs at the next valid
// time, a repeated time at its first instant.
type WhenInput struct {
	At         *time.Time
	LocalTime  string
	TimeZone   string
	OnApproval bool
	Date       string // YYYY-MM-DD
	Clock      string // HH:MM
}

// CodeBadWhen refuses a time that is none of §12's forms; CodeMoveNeedsTime
// refuses "on approval" as the new time of a move.
const (
	CodeBadWhen       = "bad_when"
	CodeMoveNeedsTime = "move_needs_time"
)

// resolvedWhen is a WhenInput checked against the site and the clock:
// the instant, its wall-clock time and the zone it was entered in, or on
// approval (then at and wall are zero).
type resolvedWhen struct {
	at         time.Time
	wall       localtime.Wall
	zone       string
	onApproval bool
}

// when is the release.When a resolved time is recorded as.
func (w resolvedWhen) when() *release.When {
	if w.onApproval {
		return &release.When{Kind: "on-approval", TimeZone: w.zone}
	}
	return &release.When{Kind: "at", At: w.at, TimeZone: w.zone, LocalTime: w.wall.String()}
}

// resolveWhen checks a given time: refusals name the field the caller
// sent (at, localTime, timeZone; date and time for the form) and change
// nothing. A time must lie within [now + 1 minute, now + the horizon]
// (§9.5).
func (e *Releases) resolveWhen(site engine.Site, in WhenInput) (resolvedWhen, error) {
	switch {
	case in.OnApproval:
		return resolvedWhen{zone: site.TimeZone, onApproval: true}, nil
	case in.At != nil:
		loc, err := localtime.LoadZone(zoneOr(site.TimeZone))
		if err != nil {
			return resolvedWhen{}, engine.Refuse(localtime.CodeBadZone, "")
		}
		// The instant is kept with its wall-clock time in the site's zone
		// (§4.2: instants carry the zone they were entered in); one that
		// no wall-clock time names (seconds, the second pass of a repeated
		// hour) is refused, as a move to an instant is.
		wall := localtime.WallOf(*in.At, loc)
		if back, _ := localtime.Resolve(wall, loc); !back.Equal(*in.At) {
			return resolvedWhen{}, engine.Refuse(CodeBadAt, "at")
		}
		at := in.At.UTC()
		if err := release.CheckTime(at, e.Now()); err != nil {
			return resolvedWhen{}, engine.Refuse(engine.CodeOf(err), "at")
		}
		return resolvedWhen{at: at, wall: wall, zone: site.TimeZone}, nil
	case in.LocalTime != "":
		zone := in.TimeZone
		if zone == "" {
			zone = site.TimeZone
		}
		loc, err := localtime.LoadZone(zoneOr(zone))
		if err != nil {
			if in.TimeZone != "" {
				return resolvedWhen{}, engine.Refuse(CodeUnknownZone, "timeZone")
			}
			return resolvedWhen{}, engine.Refuse(localtime.CodeBadZone, "")
		}
		wall, err := localtime.ParseWall(in.LocalTime)
		if err != nil {
			return resolvedWhen{}, engine.Refuse(engine.CodeOf(err), "localTime")
		}
		at, _ := localtime.Resolve(wall, loc)
		at = at.UTC()
		if err := release.CheckTime(at, e.Now()); err != nil {
			return resolvedWhen{}, engine.Refuse(engine.CodeOf(err), "localTime")
		}
		return resolvedWhen{at: at, wall: wall, zone: zone}, nil
	case in.TimeZone != "":
		return resolvedWhen{}, engine.Refuse(localtime.CodeBadWall, "localTime") // a zone without a time
	}
	at, wall, err := e.resolveInput(site, in.Date, in.Clock)
	if err != nil {
		return resolvedWhen{}, err
	}
	return resolvedWhen{at: at, wall: wall, zone: site.TimeZone}, nil
}

// whenOf is a release's own time as a WhenInput, for scheduling a draft at
// the time it was created with; CodeNoTime when it has none.
func whenOf(r release.Release) (WhenInput, error) {
	w := r.When
	switch {
	case w == nil:
		return WhenInput{}, engine.Refuse(CodeNoTime, "when")
	case w.Kind == "on-approval":
		return WhenInput{OnApproval: true}, nil
	case w.LocalTime != "":
		return WhenInput{LocalTime: w.LocalTime, TimeZone: w.TimeZone}, nil
	case !w.At.IsZero():
		at := w.At
		return WhenInput{At: &at}, nil
	}
	return WhenInput{}, engine.Refuse(CodeNoTime, "when")
}

// zoneOr is a site's zone name, UTC when it has none (§4.1: absent = UTC).
func zoneOr(name string) string {
	if name == "" {
		return "UTC"
	}
	return name
}
