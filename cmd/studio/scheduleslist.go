package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"studio/engine"
	"studio/engine/automations"
	"studio/engine/model/release"
	"studio/engine/releases"
)

// listedSite is one site in `studio schedules list`: what is still to
// happen, its releases that are not finished and its automations with
// their next runs.
type listedSite struct {
	ID          string             `json:"id"`
	Name        string             `json:"name"`
	TimeZone    string             `json:"timeZone"`
	Releases    []listedRelease    `json:"releases"`
	Automations []listedAutomation `json:"automations"`
}

type listedRelease struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	State     string `json:"state"`
	ExecuteAt string `json:"executeAt,omitempty"`
}

type listedAutomation struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Job       string `json:"job"`
	State     string `json:"state"`
	NextRunAt string `json:"nextRunAt,omitempty"`
}

// listHorizon is how far ahead `schedules list` looks for releases: past
// §9.5's one-year horizon for scheduling, so none is left out.
const listHorizon = 400 * 24 * time.Hour

// schedulesListCmd is `studio schedules list [--json]`: every site's
// releases that are not finished (drafts, waiting, scheduled, running,
// conflicts) and its automations with their next runs, read from the
// database as an operator sees it.
func schedulesListCmd(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("schedules list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	st, err := parseAndOpen(ctx, fs, args)
	if err != nil {
		return err
	}
	defer st.Close()
	eng := releases.New(engine.New(st, systemClock{}, nil), st)
	aut := automations.New(st, eng)
	sites, err := eng.Sites(ctx)
	if err != nil {
		return err
	}
	now := eng.Now()
	out := make([]listedSite, 0, len(sites))
	for _, s := range sites {
		ls := listedSite{ID: s.ID, Name: s.Name, TimeZone: s.TimeZone, Releases: []listedRelease{}, Automations: []listedAutomation{}}
		// A running release or an unclaimed one may be timed in the past.
		rows, err := eng.Releases(ctx, engine.Reader(s.ID), s.ID, now.Add(-release.LateLimit-time.Hour), now.Add(listHorizon))
		if err != nil {
			return err
		}
		for _, r := range rows {
			if r.State.Terminal() {
				continue
			}
			lr := listedRelease{ID: r.ID, Title: r.Title, State: string(r.State)}
			if r.ExecuteAt != nil {
				lr.ExecuteAt = r.ExecuteAt.UTC().Format(time.RFC3339)
			}
			ls.Releases = append(ls.Releases, lr)
		}
		list, err := aut.Automations(ctx, s.ID)
		if err != nil {
			return err
		}
		for _, a := range list {
			la := listedAutomation{ID: a.ID, Name: a.Name, Job: a.Job, State: a.State}
			if a.NextRunAt != nil {
				la.NextRunAt = a.NextRunAt.UTC().Format(time.RFC3339)
			}
			ls.Automations = append(ls.Automations, la)
		}
		out = append(out, ls)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"sites": out})
	}
	for _, s := range out {
		fmt.Fprintf(stdout, "%s (%s, %s)\n", s.Name, s.ID, s.TimeZone)
		fmt.Fprintf(stdout, "  releases not finished: %d\n", len(s.Releases))
		for _, r := range s.Releases {
			fmt.Fprintf(stdout, "    %s  %-17s  %-20s  %s\n", r.ID, r.State, orElse(r.ExecuteAt, "no time"), r.Title)
		}
		fmt.Fprintf(stdout, "  automations: %d\n", len(s.Automations))
		for _, a := range s.Automations {
			fmt.Fprintf(stdout, "    %s  %-11s  next %-20s  %s (%s)\n", a.ID, a.State, orElse(a.NextRunAt, "none"), a.Name, a.Job)
		}
	}
	return nil
}

func orElse(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
