package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"studio/engine"
	"studio/engine/localtime"
)

// schedulesCmd is `studio schedules run-due|status|resolve`.
func schedulesCmd(ctx context.Context, sub string, args []string, stdout io.Writer) error {
	switch sub {
	case "run-due", "status":
		return schedulerCmd(ctx, sub, args, stdout)
	case "resolve":
		return resolveCmd(args, stdout)
	}
	return fmt.Errorf("unknown schedules command %q (run-due, status, resolve)", sub)
}

// schedulerCmd runs one tick (for a system cron) or reports the heartbeat.
func schedulerCmd(ctx context.Context, sub string, args []string, stdout io.Writer) error {
	st, err := parseAndOpen(ctx, flag.NewFlagSet("schedules "+sub, flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	defer st.Close()
	eng := engine.New(st, systemClock{}, nil)
	if sub == "run-due" {
		rep, err := eng.RunDue(ctx, "manual")
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "published %d, late %d, not published %d; next look %s\n",
			rep.Published, rep.Late, rep.Failed, rep.NextWakeAt.Format(time.RFC3339))
		return nil
	}
	hb, err := eng.Heartbeat(ctx)
	if errors.Is(err, engine.ErrNotFound) {
		fmt.Fprintln(stdout, "the scheduler has not run yet")
		return nil
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "last tick %s (%s), next %s\n", hb.At.Format(time.RFC3339), hb.Trigger, hb.NextWakeAt.Format(time.RFC3339))
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
