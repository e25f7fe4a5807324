package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"studio/engine/agents"
	"studio/engine/automations"
	"studio/engine/jobs"
	"studio/engine/nodes"
	"studio/engine/public"
	"studio/engine/releases"
	"studio/engine/scheduler"
	"studio/handlers/site"
	"time"

	"studio/engine"
	"studio/engine/localtime"
	"studio/engine/recurrence"
	"studio/locales"
)

// schedulesCmd is `studio schedules run-due|status|list|resolve|preview`.
func schedulesCmd(ctx context.Context, sub string, args []string, stdout io.Writer) error {
	switch sub {
	case "run-due", "status":
		if sub == "status" && remoteFlag(args) {
			return remoteStatusCmd(ctx, args, stdout)
		}
		return schedulerCmd(ctx, sub, args, stdout)
	case "list":
		return schedulesListCmd(ctx, args, stdout)
	case "resolve":
		return resolveCmd(args, stdout)
	case "preview":
		return previewCmd(args, stdout)
	}
	return fmt.Errorf("unknown schedules command %q (run-due, status, list, resolve, preview)", sub)
}

// schedulerCmd runs one tick (for a system cron) or reports the heartbeat.
func schedulerCmd(ctx context.Context, sub string, args []string, stdout io.Writer) error {
	st, err := parseAndOpen(ctx, flag.NewFlagSet("schedules "+sub, flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	defer st.Close()
	clock, err := newInstanceClock(ctx, st)
	if err != nil {
		return err
	}
	eng := releases.New(engine.New(st, clock, nil), st)
	sched := scheduler.New(eng, withTestHooks(st), nil)
	// The built-in jobs, with the public site feed-check renders.
	var steps jobs.Stepper = jobs.New(eng, st, site.New(eng.Engine, public.New(eng, nodes.New(eng, st), st), nil, site.Options{}))
	if j := testJobs(); j != nil {
		steps = j
	}
	sched.SetJobs(steps)
	sched.SetAgentKeys(agents.New(st, eng)) // auto approvals are re-checked against their keys
	if sub == "run-due" {
		// A process of its own: the zone data may have changed since the
		// last (serve looks once, as it starts).
		if _, err := sched.TzdataChanged(ctx, tzdataVersion()); err != nil {
			return err
		}
		rep, err := sched.ManualTick(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "published %d, late %d, not published %d; next look %s\n",
			rep.Published, rep.Late, rep.Failed, rep.NextWakeAt.Format(time.RFC3339))
		return nil
	}
	hb, err := sched.Heartbeat(ctx)
	if errors.Is(err, engine.ErrNotFound) {
		fmt.Fprintln(stdout, "the scheduler has not run yet")
		return automationsStatus(ctx, eng, st, stdout)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "last tick %s (%s), next %s\n", hb.At.Format(time.RFC3339), hb.Trigger, hb.NextWakeAt.Format(time.RFC3339))
	return automationsStatus(ctx, eng, st, stdout)
}

// automationsStatus is the automations' line of `schedules status`: how
// many run, how many are paused, stopped or ended, and the next run.
func automationsStatus(ctx context.Context, eng *releases.Releases, st automations.Store, stdout io.Writer) error {
	sites, err := eng.Sites(ctx)
	if err != nil {
		return err
	}
	active, other := 0, 0
	var next *time.Time
	for _, s := range sites {
		list, err := automations.New(st, eng).Automations(ctx, s.ID)
		if err != nil {
			return err
		}
		for _, a := range list {
			if a.State != automations.AutomationActive {
				other++
				continue
			}
			active++
			if a.NextRunAt != nil && (next == nil || a.NextRunAt.Before(*next)) {
				next = a.NextRunAt
			}
		}
	}
	fmt.Fprintf(stdout, "automations: %d active, %d paused, stopped or ended", active, other)
	if next != nil {
		fmt.Fprintf(stdout, "; next run %s", next.UTC().Format(time.RFC3339))
	}
	fmt.Fprintln(stdout)
	return nil
}

// codeError is a refusal a script can read: the stable code and a message.
type codeError struct{ code, message string }

func (e *codeError) Error() string { return e.code + ": " + e.message }

// resolveCmd prints how a wall-clock time resolves in a zone (D2).
func resolveCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("schedules resolve", flag.ContinueOnError)
	local := fs.String("local", "", "wall-clock time, YYYY-MM-DDTHH:MM")
	zone := fs.String("zone", "UTC", "IANA time zone")
	if err := fs.Parse(args); err != nil {
		return err
	}
	loc, err := localtime.LoadZone(*zone)
	if err != nil {
		return &codeError{localtime.CodeBadZone, "unknown time zone " + *zone}
	}
	wall, err := localtime.ParseWall(*local)
	if err != nil {
		return &codeError{localtime.CodeBadWall, "want a wall-clock time like 2026-03-29T02:30, got " + *local}
	}
	at, adj := localtime.Resolve(wall, loc)
	out := struct {
		Local    string `json:"local"`
		Zone     string `json:"zone"`
		At       string `json:"at"`
		Offset   string `json:"offset"`
		Wall     string `json:"wall"`
		Adjusted string `json:"adjusted,omitempty"`
	}{wall.String(), *zone, localtime.FormatInstant(at), at.Format("-07:00"), localtime.WallOf(at, loc).String(), string(adj)}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// previewCmd prints a rule's sentence and its next occurrences, as JSON.
func previewCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("schedules preview", flag.ContinueOnError)
	rule := fs.String("rule", "", "RRULE value without its RRULE: prefix; empty for once")
	start := fs.String("start", "", "first wall-clock time, YYYY-MM-DDTHH:MM")
	zone := fs.String("zone", "UTC", "IANA time zone")
	count := fs.Int("count", 5, "how many occurrences (1–100)")
	after := fs.String("after", "", "list occurrences after this instant (RFC 3339; default: now)")
	lang := fs.String("lang", "en", "language of the sentence: en or tr")
	if err := fs.Parse(args); err != nil {
		return err
	}
	loc, err := localtime.LoadZone(*zone)
	if err != nil {
		return &codeError{localtime.CodeBadZone, "unknown time zone " + *zone}
	}
	wall, err := localtime.ParseWall(*start)
	if err != nil {
		return &codeError{localtime.CodeBadWall, "want a start like 2026-11-01T09:07, got " + *start}
	}
	var r *recurrence.Rule
	if *rule != "" {
		parsed, err := recurrence.Parse(*rule)
		if err != nil {
			return coded(err, *lang)
		}
		r = &parsed
	}
	rc, err := recurrence.New(wall, loc, r)
	if err != nil {
		return coded(err, *lang)
	}
	if *count < 1 || *count > 100 {
		return &codeError{"bad_count", "--count takes 1 to 100"}
	}
	from := time.Now()
	if *after != "" {
		if from, err = time.Parse(time.RFC3339, *after); err != nil {
			return &codeError{localtime.CodeBadInstant, "want --after like 2026-11-01T00:00:00Z, got " + *after}
		}
	}
	type occurrence struct {
		At       string `json:"at"`
		Local    string `json:"local"` // the wall-clock time it runs at
		Offset   string `json:"offset"`
		Adjusted string `json:"adjusted,omitempty"`
		Planned  string `json:"planned,omitempty"` // the rule's time, when moved out of a DST gap
	}
	out := struct {
		Rule        string       `json:"rule,omitempty"`
		Sentence    string       `json:"sentence"`
		Occurrences []occurrence `json:"occurrences"`
	}{Sentence: locales.For(*lang).Recurrence(recurrence.Describe(rc)), Occurrences: []occurrence{}}
	if r != nil {
		out.Rule = r.String()
	}
	t := from.Add(-time.Nanosecond) // Next is strictly after: include an occurrence at --after itself
	for range *count {
		o, ok := rc.Next(t)
		if !ok {
			break
		}
		oc := occurrence{At: localtime.FormatInstant(o.At), Local: localtime.WallOf(o.At, loc).String(),
			Offset: o.At.In(loc).Format("-07:00"), Adjusted: string(o.Adjusted)}
		if o.Adjusted != "" {
			oc.Planned = o.Local.String()
		}
		out.Occurrences = append(out.Occurrences, oc)
		t = o.At
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// coded turns a refusal of the recurrence package into its code and a
// sentence in the language asked for.
func coded(err error, lang string) error {
	var re *recurrence.Error
	if errors.As(err, &re) {
		return &codeError{re.Code, locales.For(lang).RecurrenceError(err)}
	}
	return err
}
